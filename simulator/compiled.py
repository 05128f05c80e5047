"""Compiled engines: say so the first time one is built, and build it once, not once per worker.

numba compiles an ``@njit(cache=True)`` function on its first call and stores the machine code
in ``__pycache__``; later runs load it in a fraction of a second. The first run on a machine
therefore pays minutes of compilation. :func:`ensure_compiled` (called by the runner before a
run is dispatched, for tasks that declare a :class:`CompiledEngine`) checks whether the engine's
entry points are cached; if not, it prints one line on stderr saying that it is compiling and
roughly how long that takes, compiles in this process (so the worker processes find the cache
instead of each compiling its own copy), then says how long it took. An engine may name groups
of its functions to compile side by side first (:attr:`CompiledEngine.waves`): on a machine with
two cores or more, :func:`compile_waves` compiles them in worker processes, each group in one
process and each wave after the one before, into numba's on-disk cache; the final compile in this
process then loads them from the cache instead of compiling them one after the other. numba
compiles a function's callees before it (their machine code is linked into its own), so a wave
names functions whose callees are in earlier waves or in the same group.

:func:`compile_nested_calls_once` makes numba compile each of the house's functions once per
argument *type* when another compiled function calls it, not once per constant value (see there):
it halves the Pirate's Cove game's cold compile and never changes a result.
:func:`borrow_arguments` lets the house's functions borrow their arguments instead of counting a
reference to each array at every call (see there): it removed about half the compiled Pirate's
Cove game's time and never changes a result. :func:`index_without_wraparound` and
:func:`arguments_without_aliases` compile what a module declares (``NONNEGATIVE_INDICES``,
``NOALIAS_ARGUMENTS``) as C would, each promise checkable with ``BROADSIDE_CHECK_PROMISES=1``.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CompiledEngine:
    """What a compiled engine is called, its numba entry points, and its cold-compile time."""

    name: str  # e.g. "Les Pirates engine"
    dispatchers: Sequence[Any]  # the @njit(cache=True) entry points the task calls
    estimate_s: int  # measured cold compile on 2 cores (seconds, rounded up)
    #: waves of groups of function names compiled side by side before the final compile
    #: (:func:`compile_waves`); empty: everything compiles in the final compile
    waves: Sequence[Sequence[Sequence[str]]] = ()
    #: compiles one group of ``waves`` (a module-level function: it runs in a worker process)
    build: Callable[[Sequence[str]], Any] | None = None


def is_cached(dispatcher: Any) -> bool:
    """True when ``dispatcher`` is compiled in this process or has machine code in the cache
    (always, with the JIT off: nothing is compiled, :mod:`simulator.engine_mode`)."""
    from simulator.engine_mode import jit_disabled

    if jit_disabled() or getattr(dispatcher, "signatures", None):
        return True
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_cache_file", None)
    index = getattr(impl, "_index_path", None)
    if index is None:  # not a cached numba dispatcher (numba internals moved): say nothing wrong
        return bool(getattr(dispatcher, "signatures", None))
    return os.path.exists(index)


def ensure_compiled(
    engine: CompiledEngine, warm: Callable[[], Any], *, quiet: bool = False, stream=None
) -> float | None:
    """Compile ``engine`` here if it is not cached yet (``warm`` runs a tiny job); returns the
    seconds spent, or ``None`` when everything was cached (or the JIT is off)."""
    from simulator.engine_mode import jit_disabled

    if jit_disabled() or all(is_cached(d) for d in engine.dispatchers):
        return None
    stream = stream or sys.stderr
    if not quiet:
        stream.write(
            f"compiling the {engine.name} (first run on this machine; about "
            f"{_minutes(engine.estimate_s)} on 2 cores, cached after) ...\n"
        )
        stream.flush()
    started = time.perf_counter()
    workers = compile_waves(engine)
    warm()
    spent = time.perf_counter() - started
    if not quiet:
        how = f" ({workers} processes)" if workers else ""
        stream.write(f"compiled the {engine.name} in {spent:.0f} s{how}\n")
        stream.flush()
    return spent


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def compile_waves(engine: CompiledEngine, workers: int | None = None) -> int:
    """Compile ``engine.waves`` side by side into numba's on-disk cache; returns the number of
    worker processes used (0: nothing to do, or one core only, where the final compile does all
    of it in turn, as fast).

    Each wave's groups run in a pool of ``workers`` processes (default: the available cores, at
    most the largest wave's number of groups), a group's functions in order in one process
    (``engine.build(group)``); a wave starts when the one before has finished, so its functions
    load their callees of earlier waves from the cache. The processes are forked from this one
    where the system can and this process runs one thread (they start at once, with its modules
    imported and nothing compiled), else started fresh ("spawn", which imports the main module
    of a script again: guard it with ``if __name__ == "__main__"``); they stop at the end. A
    failure in a worker is raised here as it was raised there. Only the time changes: the
    machine code is the same whichever process compiled it (numba's cache is keyed by each
    function's source and argument types); nothing with the JIT off."""
    from simulator.engine_mode import jit_disabled

    if not engine.waves or engine.build is None or jit_disabled():
        return 0
    widest = max(len(wave) for wave in engine.waves)
    workers = min(workers or available_cores(), widest)
    if workers < 2:
        return 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=_start_method()) as pool:
        for wave in engine.waves:
            for _ in pool.map(engine.build, [tuple(group) for group in wave]):
                pass
    return workers


def _start_method():
    """ "fork" where the system has it and only this thread runs (a fork copies one thread: with
    others running, a lock one of them held could stay locked in the copy), else "spawn"."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


#: module prefix of the functions compiled once per argument type (compile_nested_calls_once)
HOUSE_PREFIX = "simulator."


def compile_nested_calls_once() -> bool:
    """Compile the house's numba functions once per argument type when one calls another.

    numba types a module-level integer (``E_CAPACITY = 3``), an integer written in the code and
    a static tuple item as a *literal* (``Literal[int](3)``), and when a compiled function passes
    one to another compiled function, numba compiles the callee again for that literal value:
    ``_ask(gs, seat, TK_MAP, ...)`` with 26 different ``TK_*`` constants was 26 compilations of
    ``_ask``, and each repeats the functions it passes constants on to. The Pirate's Cove game
    compiled 612 function bodies for its 233 functions. Here the argument types of a call to a
    function of the house (``HOUSE_PREFIX``) lose their literal values before numba looks up or
    compiles the callee (``numba.types.unliteral``), so each callee compiles once per argument
    type: 299 bodies. Values, and so every result, are the same (a literal is only a type's note
    of its value); numba's branch pruning on a literal argument is lost, so each callee keeps
    both branches (it compiles). Third-party functions (numba's own overloads) are left alone.

    Installed when :mod:`simulator` is imported, before any engine compiles. Idempotent; returns
    False, changing nothing, when numba is missing or its dispatcher has no
    ``get_call_template`` (a numba that moved it: compile times change, never results).
    """
    try:
        from numba.core import dispatcher, types
    except ImportError:
        return False
    cls = getattr(dispatcher, "Dispatcher", None)
    original = getattr(cls, "get_call_template", None)
    if original is None:
        return False
    if getattr(original, "_house_unliteral", False):
        return True

    def get_call_template(self, args, kws):
        if (getattr(self.py_func, "__module__", None) or "").startswith(HOUSE_PREFIX):
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return original(self, args, kws)

    get_call_template._house_unliteral = True
    get_call_template.__wrapped__ = original
    cls.get_call_template = get_call_template
    return True


def _sources_digest(here: Path, modules: Sequence[str], external: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for name in modules:
        h.update(name.encode())
        h.update((here / f"{name}.py").read_bytes())
    for path in external:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _is_cache_file(f: Path, modules: Sequence[str] | None = None) -> bool:
    """A numba cache file (index or data), of one of ``modules`` if given."""
    if f.suffix not in (".nbi", ".nbc"):
        return False
    return modules is None or f.name.split(".", 1)[0] in modules


def drop_stale_cache(
    here: Path,
    modules: Sequence[str],
    external_sources: Sequence[Path] = (),
    external_callers: Sequence[str] = (),
) -> bool:
    """Delete the numba cache files of the package at ``here`` when its compiled sources changed
    since they were written; True when it deleted (or started) it.

    numba's on-disk cache (``@njit(cache=True)``, in ``__pycache__``) is keyed by each function's
    own source file, not by the module constants it reads at compile time nor by the callees it
    freezes into its machine code: an edit to a module of index constants alone would leave the
    cached code of the modules that read them indexing the old layout (a crash, or wrong numbers).
    So a compiled package keeps a digest of ``modules`` (its ``<name>.py`` files) and of
    ``external_sources`` beside its cache (``numba-sources.sha256``), and on a change deletes
    its cache files, and those of ``external_callers`` (modules of the parent package whose cached
    code calls the package's) in the parent's ``__pycache__``. The next run compiles again, and
    says so on stderr. A read-only install is left alone (numba then caches elsewhere or not at
    all)."""
    cache = here / "__pycache__"
    stamp = cache / "numba-sources.sha256"
    digest = _sources_digest(here, modules, external_sources)
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for f in cache.iterdir():
            if _is_cache_file(f):
                f.unlink(missing_ok=True)
        callers = here.parent / "__pycache__"
        if external_callers and callers.is_dir():
            for f in callers.iterdir():
                if _is_cache_file(f, external_callers):
                    f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return True


def _minutes(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} s"
    return f"{seconds / 60:.0f} min"


def _basic_index(ty) -> bool:
    """An index numba answers with a view of the array: integers and slices only."""
    from numba.core import types

    if isinstance(ty, types.BaseTuple):
        return all(_basic_index(t) for t in ty.types)
    return isinstance(ty, (types.Integer, types.SliceType, types.IntegerLiteral))


def _borrows_from(lower, name, value, borrowed) -> bool:
    """True when ``name = value`` only refers to what a borrowed variable already keeps alive
    (see :func:`borrow_arguments`)."""
    from numba.core import ir, types

    typeof = lower.typeof
    ty = typeof(name)
    if isinstance(value, ir.Arg):
        return typeof("arg." + value.name) == ty
    if isinstance(value, ir.Var):
        return value.name in borrowed and typeof(value.name) == ty
    if not isinstance(value, ir.Expr) or value.op not in (
        "exhaust_iter",
        "static_getitem",
        "getitem",
    ):
        return False
    src = value.value.name
    if src not in borrowed:
        return False
    srcty = typeof(src)
    if value.op == "exhaust_iter":  # a tuple unpacked: the tuple itself
        return isinstance(srcty, types.BaseTuple) and srcty == ty
    if isinstance(srcty, types.BaseTuple):  # an item or a slice of an immutable tuple
        if value.op == "static_getitem" and isinstance(value.index, int):
            return srcty[value.index] == ty
        if value.op == "static_getitem" and isinstance(value.index, slice):
            return isinstance(ty, types.BaseTuple)
        if value.op == "getitem" and isinstance(srcty, types.UniTuple):
            return isinstance(typeof(value.index.name), types.Integer) and srcty.dtype == ty
        return False
    if isinstance(srcty, types.Array) and isinstance(ty, types.Array):  # a view: same memory
        index = value.index_var if value.op == "static_getitem" else value.index
        return index is not None and _basic_index(typeof(index.name))
    return False


def _borrowed_variables(lower) -> frozenset:
    """The variables of a function being lowered that can hold borrowed references: every
    assignment to them is an argument, a borrowed variable, the tuple of a borrowed tuple
    unpacked, an item or slice of a borrowed tuple, or a view (integer and slice indexing) of a
    borrowed array -- a value kept alive by the caller for the whole call. The largest such set
    (a fixed point from all the assigned variables down), restricted to types that hold
    reference-counted memory."""
    from collections import defaultdict

    from numba.core import ir

    defs: dict = defaultdict(list)
    for block in lower.func_ir.blocks.values():
        for inst in block.body:
            if isinstance(inst, ir.Assign):
                defs[inst.target.name].append(inst.value)
    dmm = lower.context.data_model_manager
    borrowed = {name for name in defs if dmm[lower.typeof(name)].contains_nrt_meminfo()}
    changed = True
    while changed:
        changed = False
        for name in sorted(borrowed):
            if not all(_borrows_from(lower, name, v, borrowed) for v in defs[name]):
                borrowed.discard(name)
                changed = True
    return frozenset(borrowed)


def borrow_arguments() -> bool:
    """Let the house's compiled functions borrow their arguments instead of counting them.

    numba counts a reference to every array a variable holds: a function counts one to each of
    its array arguments on entry and releases it on exit (a tuple of 27 arrays: 54 atomic
    operations a call), an item taken out of a tuple or a view of an array counts one more, and
    LLVM's reference-count pruning removes only the pairs it can match around the function's
    branches and calls. In the Pirate's Cove game those counts were about half of the compiled
    time. But a caller keeps its arguments alive for the whole call (numba's calling convention
    lends them), a tuple never changes its items, and a view keeps its array's memory: so in a
    function of the house (``HOUSE_PREFIX``, not a generator) a variable whose every assignment
    is an argument or something it keeps alive (:func:`_borrowed_variables`) holds a *borrowed*
    reference: its assignment releases at once the reference the lowering took (an adjacent
    pair LLVM removes; an argument takes none), and neither a new assignment nor its deletion
    releases one. Anything that keeps the value beyond the call -- a return, a tuple or list
    built from it, a store into a container -- counts its own reference as before, so the
    counts stay balanced (``tests/test_compiled.py`` checks numba's allocation statistics over
    whole games). The machine code changes, never a result.

    Installed when :mod:`simulator` is imported, before any engine compiles; idempotent; returns
    False, changing nothing, when numba is missing or its lowering class moved.
    """
    try:
        from numba.core import ir, lowering
    except ImportError:
        return False
    cls = getattr(lowering, "Lower", None)
    needed = ("init", "lower_assign", "storevar", "delvar", "decref")
    if cls is None or not all(hasattr(cls, attr) for attr in needed):
        return False
    if getattr(cls.lower_assign, "_house_borrow", False):
        return True
    original_init = cls.init
    original_assign = cls.lower_assign
    original_storevar = cls.storevar
    original_delvar = cls.delvar

    def _skip(typ, val):
        return None

    def init(self):
        original_init(self)
        func_id = self.func_ir.func_id
        modname = getattr(func_id.func, "__module__", None) or ""
        house = modname.startswith(HOUSE_PREFIX) and not func_id.is_generator
        self._house_borrowed = _borrowed_variables(self) if house else frozenset()

    def lower_assign(self, ty, inst):
        if inst.target.name not in self._house_borrowed:
            return original_assign(self, ty, inst)
        if isinstance(inst.value, ir.Arg):
            self.incref = _skip
            try:
                return original_assign(self, ty, inst)
            finally:
                del self.incref
        res = original_assign(self, ty, inst)
        self.decref(ty, res)
        return res

    def storevar(self, value, name, argidx=None):
        if name not in self._house_borrowed:
            return original_storevar(self, value, name, argidx)
        self.decref = _skip
        try:
            return original_storevar(self, value, name, argidx)
        finally:
            del self.decref

    def delvar(self, name):
        if name not in self._house_borrowed:
            return original_delvar(self, name)
        self.decref = _skip
        try:
            return original_delvar(self, name)
        finally:
            del self.decref

    lower_assign._house_borrow = True
    cls.init = init
    cls.lower_assign = lower_assign
    cls.storevar = storevar
    cls.delvar = delvar
    return True


#: ``BROADSIDE_CHECK_PROMISES=1``: compile the house's declared promises with a check instead
#: (``NONNEGATIVE_INDICES``, :func:`index_without_wraparound`; ``NOALIAS_ARGUMENTS``,
#: :func:`arguments_without_aliases`); needs ``NUMBA_CACHE_DIR`` of its own
CHECK_PROMISES_ENV = "BROADSIDE_CHECK_PROMISES"
#: read when a function is lowered: raise IndexError on a negative index in a declaring module,
#: ValueError on overlapping array arguments of a declared function (set from
#: :data:`CHECK_PROMISES_ENV` when :mod:`simulator` is imported; tests set it directly)
CHECK_PROMISES = False
_lowering = threading.local()


def _read_check_mode(config) -> None:
    """Set :data:`CHECK_PROMISES` from the environment (refusing a shared cache)."""
    global CHECK_PROMISES
    if os.environ.get(CHECK_PROMISES_ENV) == "1":
        if not config.CACHE_DIR:
            raise RuntimeError(
                f"{CHECK_PROMISES_ENV}=1 needs NUMBA_CACHE_DIR set to a directory of its own "
                "(numba's cache does not know the checked machine code from the other)"
            )
        CHECK_PROMISES = True


def _house_scope(func) -> dict:
    """The module globals of a compiled function of the house (``HOUSE_PREFIX``), where its
    module's declarations are read; empty for a function outside the house."""
    module = getattr(func, "__module__", None) or ""
    if not module.startswith(HOUSE_PREFIX):
        return {}
    return getattr(func, "__globals__", None) or {}


def _declares_nonnegative(func) -> bool:
    """Whether a compiled function's module declares ``NONNEGATIVE_INDICES = True``."""
    return _house_scope(func).get("NONNEGATIVE_INDICES") is True


def index_without_wraparound() -> bool:
    """Index arrays without Python's negative-index wraparound in the modules that declare
    ``NONNEGATIVE_INDICES = True``.

    numba gives every signed integer index Python's meaning: a negative index counts from the
    end, so each ``a[i]`` computes ``i + len`` and picks one of the two (two loads of the array's
    shape and three instructions, where the index is not a constant LLVM can see). A module whose
    compiled functions never index with a negative variable declares it, and the functions
    compiled there (with what they inline) index as C does; a negative constant (``a[-1]``)
    keeps its Python meaning. The declaration is a promise the tests check: with
    ``BROADSIDE_CHECK_PROMISES=1`` (and ``NUMBA_CACHE_DIR`` set to a directory of its own, since
    numba's cache does not know the mode) each such index raises IndexError when it is negative,
    so the module's tests run with the promise checked. The battle kernel
    (``simulator/cove/combat_kernel.py``) declares it.

    Installed when :mod:`simulator` is imported, before any engine compiles; idempotent; returns
    False, changing nothing, when numba is missing or moved the functions it wraps.
    """
    try:
        from llvmlite import ir as llir
        from numba.core import cgutils, config, lowering, types
        from numba.np import arrayobj
    except ImportError:
        return False
    base = getattr(lowering, "BaseLower", None)
    original_fix = getattr(arrayobj, "fix_integer_index", None)
    if base is None or original_fix is None or not hasattr(base, "lower"):
        return False
    if getattr(original_fix, "_house_nonnegative", False):
        return True
    _read_check_mode(config)
    original_lower = base.lower

    def lower(self):
        stack = getattr(_lowering, "stack", None)
        if stack is None:
            stack = _lowering.stack = []
        stack.append(_declares_nonnegative(self.func_ir.func_id.func))
        try:
            return original_lower(self)
        finally:
            stack.pop()

    def fix_integer_index(context, builder, idxty, idx, size):
        stack = getattr(_lowering, "stack", None)
        constant = isinstance(idx, llir.Constant) and isinstance(idx.constant, int)
        if not (stack and stack[-1]) or not idxty.signed or (constant and idx.constant < 0):
            return original_fix(context, builder, idxty, idx, size)
        ind = context.cast(builder, idx, idxty, types.intp)
        if CHECK_PROMISES:
            with cgutils.if_unlikely(builder, builder.icmp_signed("<", ind, ind.type(0))):
                context.call_conv.return_user_exc(
                    builder, IndexError, ("negative index in a module of NONNEGATIVE_INDICES",)
                )
        return ind

    fix_integer_index._house_nonnegative = True
    fix_integer_index.__wrapped__ = original_fix
    arrayobj.fix_integer_index = fix_integer_index
    base.lower = lower
    return True


def _declares_noalias(func) -> bool:
    """Whether a compiled function is named in its module's ``NOALIAS_ARGUMENTS``."""
    return getattr(func, "__name__", None) in _house_scope(func).get("NOALIAS_ARGUMENTS", ())


def arguments_without_aliases() -> bool:
    """Compile the functions a house module names in ``NOALIAS_ARGUMENTS`` with their array
    arguments marked as never sharing memory.

    LLVM must assume that a store through one array argument may change what any other array
    argument holds, so after each store it reads again what it had read from the others (the
    battle kernel's rule parameters, ship table and value table, at every hit). A function whose
    every caller passes arrays that never overlap -- distinct allocations, or disjoint views --
    may say so: its pointer arguments then carry LLVM's ``noalias`` (numba's own parallel
    lowering does the same for the loops it proves free of aliases), and LLVM keeps those
    values in registers. A function it is inlined into keeps the promise as scoped metadata.
    The declaration is a promise the callers keep: with ``BROADSIDE_CHECK_PROMISES=1`` (and a
    ``NUMBA_CACHE_DIR`` of its own) each declared function checks on entry that no two of its
    array arguments overlap and raises ValueError if they do, so the module's tests run with the
    promise checked. The battle kernel's ``_run`` declares it (its callers:
    ``simulate_battles_kernel``'s scratch arrays and the company estimate's, each made by its
    own ``np.empty`` / ``np.zeros``).

    Installed when :mod:`simulator` is imported, before any engine compiles; idempotent; returns
    False, changing nothing, when numba is missing or moved the functions it wraps.
    """
    try:
        from numba.core import cgutils, config, lowering, types
    except ImportError:
        return False
    base = getattr(lowering, "BaseLower", None)
    needed = ("setup_function", "extract_function_arguments")
    if base is None or not all(hasattr(base, attr) for attr in needed):
        return False
    if getattr(base.setup_function, "_house_noalias", False):
        return True
    _read_check_mode(config)
    original_setup = base.setup_function
    original_extract = base.extract_function_arguments

    def setup_function(self, fndesc):
        if _declares_noalias(self.func_ir.func_id.func) and not self.func_ir.func_id.is_generator:
            fndesc.noalias = True
        return original_setup(self, fndesc)

    def extract_function_arguments(self):
        fnargs = original_extract(self)
        func = self.func_ir.func_id.func
        if CHECK_PROMISES and self.fndesc.noalias and _declares_noalias(func):
            argtypes = self.fndesc.argtypes
            _check_disjoint(self.context, self.builder, argtypes, fnargs, cgutils, types)
        return fnargs

    setup_function._house_noalias = True
    base.setup_function = setup_function
    base.extract_function_arguments = extract_function_arguments
    return True


def _check_disjoint(context, builder, argtypes, values, cgutils, types) -> None:
    """Raise ValueError (in the compiled function, on entry) if two of its non-empty array
    arguments' memory ranges overlap: ``[data, data + nitems * itemsize)``, the extent of a
    C-contiguous array; an array of another layout gets the range from its first to its last
    element's byte (its strides' signs taken into account)."""
    intp = context.get_value_type(types.intp)
    ranges = []
    for i, (ty, val) in enumerate(zip(argtypes, values)):
        if not isinstance(ty, types.Array):
            continue
        ary = context.make_array(ty)(context, builder, val)
        start = builder.ptrtoint(ary.data, intp)
        if ty.layout in "CF":
            lo, hi = start, builder.add(start, builder.mul(ary.nitems, ary.itemsize))
        else:  # lowest and highest byte any index reaches
            lo, hi = start, builder.add(start, ary.itemsize)
            shapes = cgutils.unpack_tuple(builder, ary.shape, ty.ndim)
            strides = cgutils.unpack_tuple(builder, ary.strides, ty.ndim)
            for n, st in zip(shapes, strides):
                reach = builder.mul(builder.sub(n, intp(1)), st)
                neg = builder.icmp_signed("<", reach, intp(0))
                lo = builder.select(neg, builder.add(lo, reach), lo)
                hi = builder.select(neg, hi, builder.add(hi, reach))
        empty = builder.icmp_signed("==", ary.nitems, intp(0))
        ranges.append((i, lo, hi, empty))
    for a in range(len(ranges)):
        for b in range(a + 1, len(ranges)):
            ia, lo_a, hi_a, e_a = ranges[a]
            ib, lo_b, hi_b, e_b = ranges[b]
            overlap = builder.and_(
                builder.icmp_unsigned("<", lo_a, hi_b), builder.icmp_unsigned("<", lo_b, hi_a)
            )
            overlap = builder.and_(overlap, builder.not_(builder.or_(e_a, e_b)))
            with cgutils.if_unlikely(builder, overlap):
                context.call_conv.return_user_exc(
                    builder,
                    ValueError,
                    (f"arguments {ia} and {ib} overlap in a NOALIAS_ARGUMENTS function",),
                )
