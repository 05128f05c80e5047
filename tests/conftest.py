import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _engines():
    """Every numba engine of the house: ``name -> (CompiledEngine, warm-up)``."""
    from simulator.cove import api as cove_api
    from simulator.cove.combat_kernel import COMPILED_ENGINE as cove_kernel
    from simulator.cove.combat_kernel import warm_up as warm_cove
    from simulator.express import api as express_api
    from simulator.hunt import api as hunt_api

    return {
        "cove-game": (
            cove_api.compiled_engine(),
            lambda: cove_api.play(
                None, ["plunderer-v1", "random", "random"], n=1, seed=1, engine="fast"
            ),
        ),
        "cove-kernel": (cove_kernel, warm_cove),
        "express": (
            express_api.COMPILED_ENGINE,
            lambda: express_api.battle_stats("chinese:5,3,2,1,1", "pirates:5,4,2,1", n=1, seed=1),
        ),
        "hunt": (
            hunt_api._compiled_engine(),
            lambda: hunt_api.play(hunt_api.load(None), ["runner"], n=1, seed=1),
        ),
    }


#: engines compiled side by side on a cold cache (the Pirate's Cove game takes about as long as
#: the three others together, so two processes keep both cores of CI busy)
COMPILE_GROUPS = (("cove-game",), ("cove-kernel", "express", "hunt"))


def compile_engines(names) -> None:
    """Compile (or load from numba's cache) the named engines, quietly."""
    from simulator.compiled import ensure_compiled

    engines = _engines()
    for name in names:
        engine, warm = engines[name]
        ensure_compiled(engine, warm, quiet=True)


def pytest_sessionstart(session):
    """Compile the numba engines once, quietly, before any test: a test that counts the lines a
    command prints on stderr must not see the one-off "compiling the ... engine" note, whatever
    order the tests run in (tests/test_compiled.py checks that note on a kernel of its own).

    On a cold cache the controlling process compiles the groups of :data:`COMPILE_GROUPS` in
    parallel subprocesses that fill numba's on-disk cache; then every process (the controller,
    or each pytest-xdist worker) loads the engines from the cache."""
    from simulator.compiled import is_cached

    if not hasattr(session.config, "workerinput"):  # not an xdist worker: compile for all
        engines = _engines()
        cold = [
            group
            for group in COMPILE_GROUPS
            if not all(is_cached(d) for name in group for d in engines[name][0].dispatchers)
        ]
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", f"import conftest; conftest.compile_engines({group!r})"],
                cwd=Path(__file__).parent,
            )
            for group in cold
        ]
        failed = [g for g, p in zip(cold, procs, strict=True) if p.wait() != 0]
        if failed:
            raise RuntimeError(f"compiling the numba engines failed: {failed}")
    compile_engines([name for group in COMPILE_GROUPS for name in group])
