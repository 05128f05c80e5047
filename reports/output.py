"""Printing results as table, JSON or CSV, and writing result files atomically.

Every result command takes ``--format table|json|csv``. JSON goes to stdout alone (one object);
tables and CSV go to stdout too; messages and progress go to stderr. Files are written to a
temporary name in the same folder and renamed into place, so an interrupted or failed write never
leaves a partial file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

FORMATS = ("table", "json", "csv")


class OutputError(OSError):
    """An output path cannot be written (reported as a one-line user error)."""


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, Fractions, tuples and DataFrames into JSON-ready objects."""
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, pd.DataFrame):
        return [to_jsonable(r) for r in obj.to_dict(orient="records")]
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, Fraction):
        return float(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(obj, Path):
        return str(obj)
    return obj


def dumps(obj: Any) -> str:
    """JSON text of a result object (NaN becomes null)."""
    return json.dumps(to_jsonable(obj), indent=2, allow_nan=False)


def emit(
    fmt: str, table: pd.DataFrame, json_obj: Any, *, title: str | None = None, stream=None
) -> None:
    """Print a result in the chosen format.

    Args:
        fmt: ``table``, ``json`` or ``csv``.
        table: tidy DataFrame used for ``table`` and ``csv``.
        json_obj: the object printed for ``json``.
        title: optional heading line for ``table``.
    """
    stream = stream or sys.stdout
    if fmt == "json":
        stream.write(dumps(json_obj) + "\n")
    elif fmt == "csv":
        table.to_csv(stream, index=False, lineterminator="\n")
    elif fmt == "table":
        if title:
            stream.write(title + "\n")
        with pd.option_context(
            "display.max_rows", 500, "display.max_columns", 50, "display.width", 160
        ):
            stream.write(table.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
    else:
        raise ValueError(f"unknown format {fmt!r} (allowed: {', '.join(FORMATS)})")
    stream.flush()


def ensure_writable_dir(path: str | Path) -> Path:
    """Create ``path`` if needed and check a file can be written in it, before any work is done."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputError(
            f"{path}: output folder is not writable ({exc.strerror or exc})"
        ) from None
    return path


def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file under the current umask (mkstemp uses 0600)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: str | Path, writer: Callable[[Path], None]) -> Path:
    """Call ``writer(tmp_path)`` then rename the temporary file to ``path`` (same folder).

    The file gets the permissions a plainly created file would have (not mkstemp's 0600).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        writer(Path(tmp))
        os.chmod(tmp, _new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def write_text(path: str | Path, text: str) -> Path:
    """Atomically write a text file."""
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def write_table(
    df: pd.DataFrame, out_dir: str | Path, stem: str, parquet: bool = True
) -> list[Path]:
    """Write ``df`` as ``stem.csv`` (and ``stem.parquet``) in ``out_dir``, atomically."""
    out_dir = Path(out_dir)
    written = [atomic_write(out_dir / f"{stem}.csv", lambda p: df.to_csv(p, index=False))]
    if parquet:
        written.append(
            atomic_write(out_dir / f"{stem}.parquet", lambda p: df.to_parquet(p, index=False))
        )
    return written
