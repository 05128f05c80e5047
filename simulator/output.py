"""Printing results as table, JSON or CSV, and writing result files atomically.

Every result command takes ``--format table|json|csv``. JSON goes to stdout alone (one object);
tables and CSV go to stdout too; messages and progress go to stderr. Files are written to a
temporary name in the same folder and renamed into place, so an interrupted or failed write never
leaves a partial file. Output folders are checked before any work but created only by the first
write, so a command that fails early leaves nothing behind.

Seeds are 128-bit integers: every field or column named in :data:`SEED_KEYS` is written as a
decimal string, in JSON, CSV and Parquet alike (no int64 or JSON number can hold one exactly).

Every table written to disk has a documented key (``write_table(..., key=(...))``): the key
columns are checked unique and complete (no missing value) before the file is written.
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
#: version of the documented JSON keys and table columns (docs/outputs.md; CHANGELOG.md says what
#: changed): bump it when a documented key changes meaning or goes away
SCHEMA_VERSION = 2
#: field / column names that hold a seed (written as decimal strings everywhere)
SEED_KEYS = frozenset(
    {"seed", "entropy", "seed_entropy", "root_seed", "section_seed", "replay_seed"}
)


class OutputError(OSError):
    """An output path cannot be written (reported as a one-line user error)."""


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, Fractions, tuples and DataFrames into JSON-ready objects."""
    if isinstance(obj, Mapping):
        return {
            str(k): (
                str(int(v))
                if k in SEED_KEYS and isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                else to_jsonable(v)
            )
            for k, v in obj.items()
        }
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
    """JSON text of a result object (NaN becomes null). An object (a mapping) gets
    ``schema_version`` first unless it has one: every JSON output says which contract it keeps."""
    data = to_jsonable(obj)
    if isinstance(data, dict):
        data = {"schema_version": data.pop("schema_version", SCHEMA_VERSION), **data}
    return json.dumps(data, indent=2, allow_nan=False)


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
    """Check, before any work is done, that ``path`` is (or can become) a writable folder.

    Nothing is created here: the first write creates the folder, so a command that stops on a
    user error before writing leaves no empty folder behind.
    """
    path = Path(path)
    try:
        if path.exists():
            if not path.is_dir():
                raise OutputError(f"{path}: output folder is not writable (a file is there)")
            fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)
            os.close(fd)
            os.unlink(probe)
            return path
        parent = path.absolute().parent
        while not parent.exists():
            parent = parent.parent
        if not parent.is_dir():
            raise OutputError(f"{path}: output folder is not writable ({parent} is a file)")
        # can a folder be made there? (made and removed at once: nothing is left behind)
        os.rmdir(tempfile.mkdtemp(prefix=".probe-", dir=parent))
    except OSError as exc:
        if isinstance(exc, OutputError):
            raise
        raise OutputError(
            f"{path}: output folder is not writable ({exc.strerror or exc})"
        ) from None
    return path


def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file under the current umask (mkstemp uses 0600)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _temp_file(folder: Path, name: str) -> Path:
    """An empty hidden temporary file for ``name`` in ``folder`` (created if missing; one line
    naming the folder when it cannot be): renamed into place once written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{folder}: cannot create the folder ({exc.strerror or exc})") from None
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    os.close(fd)
    return Path(tmp)


def atomic_write(path: str | Path, writer: Callable[[Path], None]) -> Path:
    """Call ``writer(tmp_path)`` then rename the temporary file to ``path`` (same folder).

    The file gets the permissions a plainly created file would have (not mkstemp's 0600).
    """
    path = Path(path)
    tmp = _temp_file(path.parent, path.name)
    try:
        writer(tmp)
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


class TableKeyError(ValueError):
    """A table about to be written breaks its documented key (a bug, never a user error)."""


def check_key(df: pd.DataFrame, key: tuple[str, ...] | list[str], name: str = "table") -> None:
    """Raise :class:`TableKeyError` unless ``key`` columns exist, have no missing value and are
    unique together."""
    key = list(key)
    if not key:
        raise TableKeyError(f"{name}: no key given")
    missing = [k for k in key if k not in df.columns]
    if missing:
        raise TableKeyError(f"{name}: key column(s) {missing} missing (have {list(df.columns)})")
    if df[key].isna().any().any():
        raise TableKeyError(f"{name}: key {key} has missing values")
    dup = df.duplicated(key)
    if dup.any():
        first = df.loc[dup, key].iloc[0].to_dict()
        raise TableKeyError(f"{name}: key {key} is not unique (e.g. {first})")


def seeds_as_text(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its seed columns (:data:`SEED_KEYS`) as decimal strings (a copy if any)."""
    cols = [c for c in df.columns if c in SEED_KEYS]
    if not cols:
        return df
    df = df.copy()
    for c in cols:
        df[c] = df[c].map(lambda v: v if v is None or isinstance(v, str) else str(int(v)))
    return df


def write_table(
    df: pd.DataFrame,
    out_dir: str | Path,
    stem: str,
    parquet: bool = True,
    *,
    key: tuple[str, ...] | list[str],
) -> list[Path]:
    """Write ``df`` as ``stem.csv`` (and ``stem.parquet``) in ``out_dir``, atomically.

    ``key`` names the columns that identify a row (checked unique and complete first; see
    ``docs/outputs.md`` for every file's key). Seed columns are written as decimal strings.
    """
    check_key(df, key, f"{stem}.csv")
    df = seeds_as_text(df)
    out_dir = Path(out_dir)
    written = [atomic_write(out_dir / f"{stem}.csv", lambda p: df.to_csv(p, index=False))]
    if parquet:
        written.append(
            atomic_write(out_dir / f"{stem}.parquet", lambda p: df.to_parquet(p, index=False))
        )
    return written


class TableStream:
    """Write one table chunk by chunk as ``stem.csv`` (and ``stem.parquet``) in ``out_dir``.

    For runs whose rows must not all sit in memory: each :meth:`write` appends one chunk's rows
    to temporary files in ``out_dir`` (CSV rows; Parquet rows by row groups, below);
    :meth:`close` renames them into place, :meth:`abort` deletes them, so a failed run leaves
    no partial file. The files are the ones :func:`write_table` writes for the whole table at
    once (same columns, same seed strings; the Parquet schema is the first non-empty chunk's,
    every later chunk cast to it).

    The key is checked within each chunk, and across chunks without keeping them: the first key
    column must increase from chunk to chunk (every value of a chunk above every value of the
    chunks before it), which is how a run numbers its games.

    Parquet rows are written in row groups of at least ``row_group_bytes`` bytes of Arrow data
    (the last one may be smaller): chunks are held, as Arrow tables, until that much is
    waiting. A Parquet writer keeps every row group's metadata until it closes the file (about
    24 kB for a group of 29 columns), so a row group per chunk made a long run's memory grow
    with ``-n``: ``cove play --out``'s peak grew by 43-50 MiB from 20,000 to 200,000 games
    (v1 mix), 11-14 MiB with groups of 1 MiB. What is held is bounded by ``row_group_bytes``
    and one chunk, whatever the run's length.
    """

    #: bytes of Arrow data per Parquet row group (at least; the last may have fewer)
    ROW_GROUP_BYTES = 1 << 20

    def __init__(
        self,
        out_dir: str | Path,
        stem: str,
        *,
        key: tuple[str, ...] | list[str],
        parquet: bool = True,
        row_group_bytes: int | None = None,
    ):
        self.out_dir = Path(out_dir)
        self.stem = stem
        self.row_group_bytes = self.ROW_GROUP_BYTES if row_group_bytes is None else row_group_bytes
        if self.row_group_bytes < 1:
            raise ValueError(f"row_group_bytes must be >= 1, got {self.row_group_bytes}")
        self._held: list = []  # Arrow tables not written yet (under row_group_bytes)
        self._held_bytes = 0
        self.key = list(key)
        self.parquet = parquet
        self._tmp: dict[str, Path] = {}
        self._columns: list[str] | None = None
        self._rows = 0
        self._last: Any = None  # the largest first-key value written so far
        self._writer: Any = None  # pyarrow.parquet.ParquetWriter, from the first non-empty chunk
        self._schema: Any = None
        self._empty: pd.DataFrame | None = None  # the table with no rows (written if none come)
        self._made_dir = not self.out_dir.exists()  # abort removes the folder it made

    @property
    def rows(self) -> int:
        return self._rows

    def _open(self, suffix: str) -> Path:
        path = self._tmp.get(suffix)
        if path is None:
            path = self._tmp[suffix] = _temp_file(self.out_dir, f"{self.stem}{suffix}")
        return path

    def write(self, df: pd.DataFrame) -> None:
        """Append one chunk (its columns must be the first chunk's, in the same order)."""
        name = f"{self.stem}.csv"
        if self._columns is None:
            self._columns = list(df.columns)
            self._empty = seeds_as_text(df.head(0))
        elif list(df.columns) != self._columns:
            raise TableKeyError(
                f"{name}: a chunk's columns {list(df.columns)} differ from the "
                f"first chunk's {self._columns}"
            )
        check_key(df, self.key, name)
        if len(df):
            first = df[self.key[0]]
            if self._last is not None and first.min() <= self._last:
                raise TableKeyError(
                    f"{name}: key {self.key} may repeat across chunks ({self.key[0]} "
                    f"{first.min()} after {self._last})"
                )
            self._last = first.max()
        df = seeds_as_text(df)
        csv = self._open(".csv")
        df.to_csv(csv, mode="a", header=self._rows == 0 and csv.stat().st_size == 0, index=False)
        self._rows += len(df)
        if self.parquet and len(df):
            import pyarrow as pa
            import pyarrow.parquet as pq

            if self._writer is None:
                table = pa.Table.from_pandas(df, preserve_index=False)
                self._schema = table.schema
                self._writer = pq.ParquetWriter(self._open(".parquet"), self._schema)
            else:
                table = pa.Table.from_pandas(df, schema=self._schema, preserve_index=False)
            self._held.append(table)
            self._held_bytes += table.nbytes
            if self._held_bytes >= self.row_group_bytes:
                self._flush()

    def _flush(self) -> None:
        """Write the held rows as one row group."""
        if not self._held:
            return
        import pyarrow as pa

        table = pa.concat_tables(self._held)
        self._held, self._held_bytes = [], 0
        self._writer.write_table(table, row_group_size=table.num_rows)

    def close(self) -> list[Path]:
        """Move the files into place (a table whose chunks had no row: its header, and a Parquet
        file with its columns and no row)."""
        if self._columns is None:
            raise TableKeyError(f"{self.stem}.csv: no chunk was written (its columns are unknown)")
        if self._rows == 0:
            csv = self._open(".csv")
            if csv.stat().st_size == 0:
                self._empty.to_csv(csv, index=False)
            if self.parquet and self._writer is None:
                self._empty.to_parquet(self._open(".parquet"), index=False)
        if self._writer is not None:
            self._flush()
            self._writer.close()
            self._writer = None
        written = []
        try:
            for suffix, tmp in list(self._tmp.items()):
                final = self.out_dir / f"{self.stem}{suffix}"
                os.chmod(tmp, _new_file_mode())
                os.replace(tmp, final)
                del self._tmp[suffix]
                written.append(final)
        except BaseException:
            self.abort()
            raise
        return written

    def abort(self) -> None:
        """Delete what was written (nothing of the table is left in the folder)."""
        self._held, self._held_bytes = [], 0
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
            self._writer = None
        for tmp in self._tmp.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self._tmp.clear()
        if self._made_dir:
            with contextlib.suppress(OSError):  # only when empty (another table may be there)
                self.out_dir.rmdir()
