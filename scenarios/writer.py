"""TOML text of plain data: what Broadside writes for people to read, diff and load back.

Used for the overlays of ``broadside tune`` and the population files of ``broadside metagame``.
Tables become ``[a.b]`` sections (scalars first, then sub-tables, keys in the order given);
arrays hold scalars; floats are written with ``repr`` (they read back bit for bit); strings are
basic strings with JSON escapes (a subset of TOML's). NaN and infinities are refused: a file
never holds a number that cannot be loaded.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name: str) -> str:
    """A TOML key: bare when it can be, else quoted."""
    return name if _BARE.match(name) else json.dumps(name)


def value(v: Any) -> str:
    """A TOML scalar or array of scalars."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{v!r} cannot be written to TOML")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=True)
    if isinstance(v, Sequence):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if hasattr(v, "item"):  # numpy scalars
        return value(v.item())
    raise TypeError(f"{type(v).__name__} cannot be written to TOML")


def dumps(data: Mapping[str, Any], header: str = "") -> str:
    """TOML text of ``data`` (``header`` lines become ``#`` comments at the top)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()] if header else []
    _table(data, [], lines)
    return "\n".join(lines).strip("\n") + "\n"


def _table(data: Mapping[str, Any], path: list[str], lines: list[str]) -> None:
    scalars = [(k, v) for k, v in data.items() if not isinstance(v, Mapping)]
    tables = [(k, v) for k, v in data.items() if isinstance(v, Mapping)]
    if path and (scalars or not tables):
        lines.append("")
        lines.append("[" + ".".join(key(p) for p in path) + "]")
    for k, v in scalars:
        if v is None:
            continue
        lines.append(f"{key(k)} = {value(v)}")
    for k, v in tables:
        _table(v, [*path, k], lines)
