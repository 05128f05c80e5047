"""Checkpoints of chunked runs: every finished chunk on disk, so an interrupted run can resume.

Layout of a checkpoint folder (``OUT/chunks`` for a command run with ``--out OUT``)::

    job.json                  the command and its options (what a resume must repeat)
    run-000/manifest.json     one run_chunks call: task, scenario provenance, seed entropy, n,
                              chunk size, number of chunks
    run-000/chunk-0000000.npz one finished chunk's result

Every file is written to a temporary name in the same folder, then renamed into place, so a killed
process leaves only whole files (the chunks in flight are lost, nothing else).

Chunk results are stored **without pickle**, so a checkpoint folder received from a stranger can
hold wrong numbers but cannot run code: an ``.npz`` archive (read with ``allow_pickle=False``)
holds a JSON description of the result's structure plus one array per numpy array; DataFrames and
Series are Parquet bytes inside the archive. Supported results: numpy arrays (not object dtype)
and scalars, pandas DataFrames and Series, ``None``, ``bool``, ``int``, ``float``, ``str``,
``Fraction``, lists, tuples and dicts of those, and dataclasses, named tuples and enums defined in
Broadside's own packages (rebuilt from their fields; only ``simulator.``, ``reports.`` and
``scenarios.`` modules are ever imported).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import io
import json
import math
import re
import shutil
import sys
import zipfile
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from simulator.output import atomic_write
from simulator.runner import RunError

FORMAT = "broadside-checkpoint/1"
CHUNKS_DIR = "chunks"
JOB_FILE = "job.json"
MANIFEST_FILE = "manifest.json"
TRUSTED_MODULES = ("simulator.", "reports.", "scenarios.")
MAX_JSON_BYTES = 4_000_000  # job.json / manifest.json / a chunk's structure description
MAX_CHUNK_BYTES = 2**31  # uncompressed size of one chunk file
MAX_DEPTH = 64  # nesting of a chunk result
_SPEC = "__spec__"
_RUN_RE = re.compile(r"^run-(\d{3,})$")
_CHUNK_RE = re.compile(r"^chunk-(\d{7,})\.npz$")


class CheckpointError(RunError):
    """A checkpoint folder is missing, does not match the command, or holds a bad file.

    The message is one line naming the folder or file and what is wrong.
    """


class UnsupportedResult(TypeError):
    """A chunk result holds a type that cannot be stored without pickle."""


# --------------------------------------------------------------------------------------------
# Atomic files


def _atomic(path: Path, write: Callable[[io.BufferedWriter], None]) -> None:
    """Write through a temporary file renamed into place (see simulator.output.atomic_write)."""

    def _writer(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            write(fh)

    atomic_write(path, _writer)


def write_json(path: Path, obj: Any) -> None:
    """Atomically write ``obj`` as JSON."""
    blob = json.dumps(obj, indent=1, sort_keys=True, allow_nan=False).encode()
    _atomic(path, lambda fh: fh.write(blob))


def read_json(path: Path) -> Any:
    """Read a small JSON file written by :func:`write_json` (size-limited, no code)."""
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise CheckpointError(f"{path}: {size} bytes is too big for a checkpoint file")
        return json.loads(path.read_bytes().decode("utf-8"))
    except CheckpointError:
        raise
    except FileNotFoundError:
        raise CheckpointError(f"{path}: not found") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CheckpointError(f"{path}: not a checkpoint file ({_one_line(exc)})") from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


# --------------------------------------------------------------------------------------------
# Chunk results <-> (JSON structure, arrays), never pickle


def _trusted_class(path: str) -> type:
    module, _, qual = path.partition(":")
    if not module.startswith(TRUSTED_MODULES) or not qual:
        raise CheckpointError(f"class {path!r} is not one of Broadside's own (refused)")
    # only classes of modules this process has already imported (the task that made the chunk
    # imports them): a checkpoint never makes Broadside import anything
    obj: Any = sys.modules.get(module)
    if obj is None:
        raise CheckpointError(f"class {path!r} not found (module {module} is not loaded)")
    try:
        for part in qual.split("."):
            obj = getattr(obj, part)
    except AttributeError as exc:
        raise CheckpointError(f"class {path!r} not found ({_one_line(exc)})") from None
    if not isinstance(obj, type):
        raise CheckpointError(f"{path!r} is not a class")
    return obj


def _class_path(cls: type) -> str | None:
    module = getattr(cls, "__module__", "") or ""
    if not module.startswith(TRUSTED_MODULES) or "<locals>" in cls.__qualname__:
        return None
    return f"{module}:{cls.__qualname__}"


class _Encoder:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def _put(self, arr: np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = arr
        return key

    def encode(self, obj: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise UnsupportedResult(f"result nested deeper than {MAX_DEPTH} levels")
        import pandas as pd

        if obj is None:
            return {"t": "none"}
        if isinstance(obj, enum.Enum):
            cls = _class_path(type(obj))
            if cls is None:
                raise UnsupportedResult(
                    f"enum {type(obj).__qualname__} outside Broadside's packages"
                )
            return {"t": "enum", "cls": cls, "v": obj.name}
        if type(obj) is bool:
            return {"t": "bool", "v": obj}
        if type(obj) is int:
            return {"t": "int", "v": str(obj)}
        if type(obj) is float:
            return {"t": "float", "v": obj.hex()}
        if type(obj) is str:
            return {"t": "str", "v": obj}
        if type(obj) is Fraction:
            return {"t": "fraction", "v": [str(obj.numerator), str(obj.denominator)]}
        if isinstance(obj, (np.ndarray, np.generic)):
            arr = np.asarray(obj)
            if arr.dtype.hasobject:
                raise UnsupportedResult("numpy array of Python objects")
            kind = "ndarray" if isinstance(obj, np.ndarray) else "npscalar"
            if type(obj) is not np.ndarray and kind == "ndarray":
                raise UnsupportedResult(f"numpy array subclass {type(obj).__qualname__}")
            return {"t": kind, "a": self._put(arr)}
        if isinstance(obj, pd.DataFrame):
            return {"t": "dataframe", "a": self._put(_parquet_bytes(obj))}
        if isinstance(obj, pd.Series):
            return {
                "t": "series",
                "a": self._put(_parquet_bytes(obj.to_frame(name="values"))),
                "name": self.encode(obj.name, depth + 1),
            }
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            cls = _class_path(type(obj))
            fields = dataclasses.fields(obj)
            if cls is None or not all(f.init for f in fields):
                raise UnsupportedResult(f"dataclass {type(obj).__qualname__} (not Broadside's own)")
            return {
                "t": "dataclass",
                "cls": cls,
                "fields": [[f.name, self.encode(getattr(obj, f.name), depth + 1)] for f in fields],
            }
        if isinstance(obj, tuple) and hasattr(type(obj), "_fields") and type(obj) is not tuple:
            cls = _class_path(type(obj))
            if cls is None:
                raise UnsupportedResult(
                    f"named tuple {type(obj).__qualname__} (not Broadside's own)"
                )
            return {
                "t": "namedtuple",
                "cls": cls,
                "items": [self.encode(v, depth + 1) for v in obj],
            }
        if type(obj) in (list, tuple):
            return {"t": type(obj).__name__, "items": [self.encode(v, depth + 1) for v in obj]}
        if isinstance(obj, Mapping):
            kind = "dict" if type(obj) is dict else "mapping"
            return {
                "t": kind,
                "items": [
                    [self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in obj.items()
                ],
            }
        raise UnsupportedResult(f"{type(obj).__module__}.{type(obj).__qualname__}")


def _parquet_bytes(df: Any) -> np.ndarray:
    from pyarrow import ArrowException

    buf = io.BytesIO()
    try:
        df.to_parquet(buf, engine="pyarrow")
    except (
        ArrowException,
        ValueError,
        TypeError,
        NotImplementedError,
    ) as exc:  # mixed object columns...
        raise UnsupportedResult(f"DataFrame not storable as Parquet ({_one_line(exc)})") from None
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def _read_parquet(arr: np.ndarray) -> Any:
    import pandas as pd

    if arr.dtype != np.uint8 or arr.ndim != 1:
        raise CheckpointError("DataFrame entry is not a byte string")
    return pd.read_parquet(io.BytesIO(arr.tobytes()), engine="pyarrow")


class _Decoder:
    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.arrays = arrays

    def _get(self, key: Any) -> np.ndarray:
        if not isinstance(key, str) or key == _SPEC or key not in self.arrays:
            raise CheckpointError(f"missing array {key!r}")
        return self.arrays[key]

    def decode(self, spec: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise CheckpointError(f"result nested deeper than {MAX_DEPTH} levels")
        if not isinstance(spec, dict) or not isinstance(spec.get("t"), str):
            raise CheckpointError("malformed structure description")
        t = spec["t"]
        v = spec.get("v")
        if t == "none":
            return None
        if t == "bool" and isinstance(v, bool):
            return v
        if t == "int" and isinstance(v, str) and len(v) <= 5000:
            return int(v)
        if t == "float" and isinstance(v, str):
            return float.fromhex(v)
        if t == "str" and isinstance(v, str):
            return v
        if t == "fraction" and isinstance(v, list) and len(v) == 2:
            return Fraction(int(v[0]), int(v[1]))
        if t == "ndarray":
            return np.array(self._get(spec.get("a")))
        if t == "npscalar":
            arr = self._get(spec.get("a"))
            if arr.ndim != 0:
                raise CheckpointError("numpy scalar entry is not 0-dimensional")
            return arr[()]
        if t == "dataframe":
            return _read_parquet(self._get(spec.get("a")))
        if t == "series":
            frame = _read_parquet(self._get(spec.get("a")))
            if list(frame.columns) != ["values"]:
                raise CheckpointError("Series entry has the wrong columns")
            return frame["values"].rename(self.decode(spec.get("name"), depth + 1))
        items = spec.get("items")
        if t in ("list", "tuple", "namedtuple") and isinstance(items, list):
            values = [self.decode(i, depth + 1) for i in items]
            if t == "list":
                return values
            if t == "tuple":
                return tuple(values)
            cls = _trusted_class(str(spec.get("cls")))
            if not (issubclass(cls, tuple) and hasattr(cls, "_fields")):
                raise CheckpointError(f"{spec.get('cls')!r} is not a named tuple")
            return cls(*values)
        if t in ("dict", "mapping") and isinstance(items, list):
            out = {}
            for pair in items:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise CheckpointError("malformed dict entry")
                key = self.decode(pair[0], depth + 1)
                try:
                    out[key] = self.decode(pair[1], depth + 1)
                except TypeError:
                    raise CheckpointError("unhashable dict key") from None
            if t == "mapping":
                import types

                return types.MappingProxyType(out)
            return out
        if t == "dataclass" and isinstance(spec.get("fields"), list):
            cls = _trusted_class(str(spec.get("cls")))
            if not dataclasses.is_dataclass(cls):
                raise CheckpointError(f"{spec.get('cls')!r} is not a dataclass")
            kwargs = {}
            for pair in spec["fields"]:
                if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                    raise CheckpointError("malformed dataclass field")
                kwargs[pair[0]] = self.decode(pair[1], depth + 1)
            try:
                return cls(**kwargs)
            except (TypeError, ValueError) as exc:
                raise CheckpointError(
                    f"cannot rebuild {spec.get('cls')} ({_one_line(exc)})"
                ) from None
        if t == "enum":
            cls = _trusted_class(str(spec.get("cls")))
            if not issubclass(cls, enum.Enum) or not isinstance(v, str) or v not in cls.__members__:
                raise CheckpointError(f"bad enum entry {spec.get('cls')!r}")
            return cls[v]
        raise CheckpointError(f"unknown entry type {t!r}")


def encode_result(obj: Any) -> tuple[Any, dict[str, np.ndarray]]:
    """Split a chunk result into a JSON-able structure and named arrays (raises
    UnsupportedResult)."""
    enc = _Encoder()
    spec = enc.encode(obj)
    return spec, enc.arrays


def same(a: Any, b: Any) -> bool:
    """Exact equality of two chunk results (arrays bit for bit, NaN equal to NaN, types too)."""
    import pandas as pd

    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if isinstance(a, pd.DataFrame):
        try:
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        except AssertionError:
            return False
        return True
    if isinstance(a, pd.Series):
        try:
            pd.testing.assert_series_equal(a, b, check_exact=True)
        except AssertionError:
            return False
        return True
    if isinstance(a, float):
        return a.hex() == b.hex() or (math.isnan(a) and math.isnan(b))
    if isinstance(a, Mapping):
        return len(a) == len(b) and all(k in b and same(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


def save_chunk(path: Path, result: Any, header: Mapping[str, Any]) -> None:
    """Atomically write one chunk result (``header`` identifies the chunk) as an ``.npz`` file."""
    spec, arrays = encode_result(result)
    blob = json.dumps({"header": dict(header), "result": spec}, allow_nan=False).encode()
    arrays = dict(arrays)
    arrays[_SPEC] = np.frombuffer(blob, dtype=np.uint8)
    _atomic(path, lambda fh: np.savez(fh, **arrays))


def load_chunk(path: Path) -> tuple[dict[str, Any], Any]:
    """Read a chunk file written by :func:`save_chunk`: ``(header, result)``; never unpickles."""
    from pyarrow import ArrowException

    try:
        with zipfile.ZipFile(path) as zf:
            total = sum(i.file_size for i in zf.infolist())
        if total > MAX_CHUNK_BYTES:
            raise CheckpointError(f"{path}: {total} bytes uncompressed is too big for a chunk file")
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        raw = arrays.pop(_SPEC, None)
        if raw is None or raw.dtype != np.uint8 or raw.ndim != 1 or raw.size > MAX_JSON_BYTES:
            raise CheckpointError(f"{path}: not a Broadside chunk file (no structure description)")
        doc = json.loads(raw.tobytes().decode("utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("header"), dict):
            raise CheckpointError(f"{path}: not a Broadside chunk file (no header)")
        return doc["header"], _Decoder(arrays).decode(doc.get("result"))
    except CheckpointError as exc:
        msg = str(exc)
        raise CheckpointError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        RecursionError,
        zipfile.BadZipFile,
        EOFError,
        OverflowError,
        NotImplementedError,
        ArrowException,
    ) as exc:
        raise CheckpointError(f"{path}: unreadable chunk file ({_one_line(exc)})") from None


# --------------------------------------------------------------------------------------------
# Describing a task and a command so that a resume can refuse a mismatch


def _describe(obj: Any, depth: int = 0) -> Any:
    """A JSON-able, process-independent description of a task argument (for fingerprints)."""
    if depth > 32:
        return "..."
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj.hex()
    if isinstance(obj, enum.Enum):
        return f"{type(obj).__qualname__}.{obj.name}"
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (np.ndarray, np.generic)):
        arr = np.asarray(obj)
        if arr.dtype.hasobject:
            return ["ndarray-object", [_describe(v, depth + 1) for v in arr.ravel().tolist()]]
        return [
            "ndarray",
            str(arr.dtype),
            list(arr.shape),
            hashlib.sha256(arr.tobytes()).hexdigest(),
        ]
    if isinstance(obj, functools.partial):
        return [
            "partial",
            _describe(obj.func, depth + 1),
            _describe(list(obj.args), depth + 1),
            _describe(dict(obj.keywords), depth + 1),
        ]
    if isinstance(obj, type) or (
        callable(obj) and hasattr(obj, "__qualname__") and not dataclasses.is_dataclass(obj)
    ):
        return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', '?')}"
    if isinstance(obj, Mapping):
        items = [[_describe(k, depth + 1), _describe(v, depth + 1)] for k, v in obj.items()]
        return ["map", sorted(items, key=lambda kv: json.dumps(kv, sort_keys=True, default=str))]
    if isinstance(obj, (set, frozenset)):
        return [
            "set",
            sorted(
                (_describe(v, depth + 1) for v in obj), key=lambda v: json.dumps(v, default=str)
            ),
        ]
    if isinstance(obj, (list, tuple)):
        return [_describe(v, depth + 1) for v in obj]
    if dataclasses.is_dataclass(obj):
        return [
            type(obj).__qualname__,
            {f.name: _describe(getattr(obj, f.name), depth + 1) for f in dataclasses.fields(obj)},
        ]
    import pandas as pd

    if isinstance(obj, (pd.DataFrame, pd.Series)):
        try:
            digest = pd.util.hash_pandas_object(obj).to_numpy().tobytes()
        except TypeError:  # unhashable cell values: fall back on their text
            digest = obj.to_csv().encode()
        return ["pandas", list(obj.shape), hashlib.sha256(digest).hexdigest()]
    state = getattr(obj, "__dict__", None)
    if isinstance(state, dict):
        return [type(obj).__qualname__, _describe(state, depth + 1)]
    slots = getattr(type(obj), "__slots__", None)
    if slots:
        names = [slots] if isinstance(slots, str) else list(slots)
        return [
            type(obj).__qualname__,
            {s: _describe(getattr(obj, s, None), depth + 1) for s in names},
        ]
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(obj))


def task_fingerprint(task: Callable[..., Any]) -> dict[str, str]:
    """Name of a chunk task's function and a hash of the arguments bound to it."""
    func: Any = task
    while isinstance(func, functools.partial):
        func = func.func
    name = (
        f"{getattr(func, '__module__', '?')}:"
        f"{getattr(func, '__qualname__', type(func).__qualname__)}"
    )
    blob = json.dumps(_describe(task), sort_keys=True, default=str)
    return {"function": name, "arguments": hashlib.sha256(blob.encode()).hexdigest()[:16]}


def jsonable(value: Any) -> Any:
    """Command option values as JSON (tuples become lists; files and paths their names)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, Path):
        return str(value)
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return name
    return str(value)


def file_digests(params: Mapping[str, Any], limit: int = 50_000_000) -> dict[str, str]:
    """sha256 (16 hex digits) of every option value naming an existing regular file."""
    out: dict[str, str] = {}
    for key, value in params.items():
        if not isinstance(value, (str, Path)) or not str(value) or len(str(value)) > 4096:
            continue
        try:
            path = Path(value)
            if path.is_file() and path.stat().st_size <= limit:
                out[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        except (OSError, ValueError):
            continue
    return out


def _first_difference(old: Any, new: Any, where: str = "") -> str | None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            sub = f"{where}.{key}" if where else str(key)
            if key not in old or key not in new:
                return (
                    f"{sub} ({'absent' if key not in old else _short(old[key])} in the checkpoint, "
                    f"{'absent' if key not in new else _short(new[key])} now)"
                )
            diff = _first_difference(old[key], new[key], sub)
            if diff:
                return diff
        return None
    if old != new:
        return f"{where or 'value'} ({_short(old)} in the checkpoint, {_short(new)} now)"
    return None


def _short(v: Any) -> str:
    text = json.dumps(v, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------------------------
# A checkpoint folder


@dataclasses.dataclass(slots=True)
class CheckpointRun:
    """One ``run_chunks`` call inside a checkpoint folder."""

    folder: Path
    entropy: int
    n_chunks: int
    done: dict[int, Any]  # chunk index -> result already on disk (loaded)
    saved: int = 0  # chunks written by this process
    verified: bool = False  # first chunk's round trip checked
    strict: bool = True  # False: a result that cannot be stored turns checkpointing off (a note)
    quiet: bool = False
    disabled: bool = False

    def chunk_path(self, index: int) -> Path:
        return self.folder / f"chunk-{index:07d}.npz"

    def header(self, index: int, size: int) -> dict[str, Any]:
        return {"chunk": index, "size": size, "entropy": str(self.entropy)}

    def save(self, index: int, size: int, result: Any) -> None:
        """Write one finished chunk atomically (checks the first one reads back identical)."""
        if self.disabled:
            return
        path = self.chunk_path(index)
        try:
            save_chunk(path, result, self.header(index, size))
        except UnsupportedResult as exc:
            self._cannot(f"{exc} is not storable without pickle")
            return
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot write chunk ({exc.strerror or exc})") from None
        if not self.verified:
            _, back = load_chunk(path)
            if not same(result, back):
                path.unlink(missing_ok=True)
                self._cannot(f"a {type(result).__name__} does not read back identical")
                return
            self.verified = True
        self.saved += 1

    def _cannot(self, why: str) -> None:
        message = f"cannot checkpoint this command's chunk results: {why}"
        if self.strict:
            raise CheckpointError(f"{message} (run it without --checkpoint/--resume)")
        self.disabled = True
        if not self.quiet:
            import click

            click.echo(f"note: {message}; this run is not resumable", err=True)

    def stored(self) -> int:
        return len(self.done) + self.saved


@dataclasses.dataclass(slots=True)
class CheckpointJob:
    """A command's checkpoint folder (``DIR/chunks``): fresh, or resumed from an earlier run."""

    root: Path  # DIR (the --out / --resume folder)
    command: str
    params: dict[str, Any]
    resume: bool = False
    strict: bool = True  # asked for explicitly (--checkpoint/--resume), not implied by --out
    quiet: bool = False
    calls: int = 0
    runs: list[CheckpointRun] = dataclasses.field(default_factory=list)
    _prepared: bool = False

    @property
    def folder(self) -> Path:
        return self.root / CHUNKS_DIR

    def job_record(self) -> dict[str, Any]:
        return {"format": FORMAT, "command": self.command, "params": self.params}

    def check_resumable(self) -> None:
        """On ``--resume``: the folder must hold a checkpoint of this very command."""
        job_file = self.folder / JOB_FILE
        if self.folder.is_symlink():
            raise CheckpointError(
                f"{self.folder}: checkpoint folders must not be symbolic links (refused)"
            )
        if not job_file.is_file():
            raise CheckpointError(
                f"{self.root}: no checkpoint to resume (no {CHUNKS_DIR}/{JOB_FILE}; "
                "allowed: a folder written by a run with --out or --checkpoint)"
            )
        old = read_json(job_file)
        if not isinstance(old, dict) or old.get("format") != FORMAT:
            raise CheckpointError(f"{job_file}: not a {FORMAT} checkpoint")
        if old.get("command") != self.command:
            raise CheckpointError(
                f"{self.root}: checkpoint is of `{old.get('command')}`, "
                f"not `{self.command}` (refused)"
            )
        diff = _first_difference(old.get("params"), self.params)
        if diff:
            raise CheckpointError(
                f"{self.root}: checkpoint does not match this command: option {diff} (refused; "
                "rerun with the same options or start afresh with --out)"
            )
        self._prepared = True

    def _prepare_fresh(self) -> None:
        folder = self.folder
        if folder.is_symlink():
            raise CheckpointError(
                f"{folder}: checkpoint folders must not be symbolic links (refused)"
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for sub in folder.iterdir():  # a fresh run replaces an earlier checkpoint
                if sub.is_dir() and not sub.is_symlink() and _RUN_RE.match(sub.name):
                    for f in sub.iterdir():
                        if f.is_file() and (_CHUNK_RE.match(f.name) or f.name == MANIFEST_FILE):
                            f.unlink()
                    with contextlib.suppress(OSError):
                        sub.rmdir()
            write_json(folder / JOB_FILE, self.job_record())
        except OSError as exc:
            raise CheckpointError(
                f"{folder}: cannot write checkpoint ({exc.strerror or exc})"
            ) from None
        self._prepared = True

    def open_run(
        self,
        *,
        task: Callable[..., Any],
        n: int,
        chunk_size: int,
        seed: int | None,
        manifest: Mapping[str, Any] | None,
        fresh_entropy: Callable[[], int],
    ) -> CheckpointRun:
        """Start (or pick up) the next ``run_chunks`` call of this command."""
        if not self._prepared:
            if self.resume:
                self.check_resumable()
            else:
                self._prepare_fresh()
        index = self.calls
        self.calls += 1
        folder = self.folder / f"run-{index:03d}"
        n_chunks = -(-n // chunk_size)
        record = {
            "call": index,
            "task": task_fingerprint(task),
            "meta": jsonable(dict(manifest or {})),
            "n": n,
            "chunk_size": chunk_size,
            "n_chunks": n_chunks,
        }
        manifest_path = folder / MANIFEST_FILE
        done: dict[int, Any] = {}
        for path in (self.folder, folder):
            if path.is_symlink():
                raise CheckpointError(
                    f"{path}: checkpoint folders must not be symbolic links (refused)"
                )
        if self.resume and manifest_path.is_file():
            old = read_json(manifest_path)
            if not isinstance(old, dict):
                raise CheckpointError(f"{manifest_path}: not a checkpoint manifest")
            try:
                entropy = int(old.get("entropy"))
            except (TypeError, ValueError):
                raise CheckpointError(f"{manifest_path}: no seed entropy recorded") from None
            if seed is not None and int(seed) != entropy:
                raise CheckpointError(
                    f"{self.root}: checkpoint was run with --seed {entropy}, not {seed} (refused; "
                    "omit --seed to resume with the recorded one)"
                )
            diff = _first_difference({k: old.get(k) for k in record}, record)
            if diff:
                raise CheckpointError(
                    f"{self.root}: checkpoint run {index} does not match this command: "
                    f"{diff} (refused)"
                )
            run = CheckpointRun(
                folder=folder,
                entropy=entropy,
                n_chunks=n_chunks,
                done={},
                strict=self.strict,
                quiet=self.quiet,
            )
            for f in sorted(folder.iterdir()):
                m = _CHUNK_RE.match(f.name)
                if not m:
                    continue
                if f.is_symlink() or not f.is_file():
                    raise CheckpointError(f"{f}: not a regular file (refused)")
                i = int(m.group(1))
                if i >= n_chunks:
                    raise CheckpointError(
                        f"{f}: chunk {i} is beyond the {n_chunks} chunks of this run"
                    )
                header, result = load_chunk(f)
                size = min(chunk_size, n - i * chunk_size)
                if header != run.header(i, size):
                    raise CheckpointError(f"{f}: chunk header does not match its run (refused)")
                done[i] = result
            run.done = done
            run.verified = True
        else:
            entropy = fresh_entropy() if seed is None else int(seed)
            try:
                if folder.exists() and not self.resume:
                    shutil.rmtree(folder)
                folder.mkdir(parents=True, exist_ok=True)
                write_json(manifest_path, {**record, "format": FORMAT, "entropy": str(entropy)})
            except OSError as exc:
                raise CheckpointError(
                    f"{folder}: cannot write checkpoint ({exc.strerror or exc})"
                ) from None
            run = CheckpointRun(
                folder=folder,
                entropy=entropy,
                n_chunks=n_chunks,
                done={},
                strict=self.strict,
                quiet=self.quiet,
            )
        self.runs.append(run)
        return run

    def summary(self) -> str:
        """``"12 of 40 chunks saved in DIR/chunks"`` for the runs so far."""
        stored = sum(r.stored() for r in self.runs)
        total = sum(r.n_chunks for r in self.runs)
        return f"{stored} of {total} chunks saved in {self.folder}"
