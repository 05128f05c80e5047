"""Strict scenario loading: TOML files into frozen dataclasses.

A scenario file is plain data read with :mod:`tomllib` (no eval, no pickle, no includes). Its top
level holds four reserved keys besides the rules themselves:

``game``           which game's schema validates it (``cove``, ``express`` or ``hunt``);
``rules_version``  a string recorded in every result;
``name``           optional human name;
``extends``        optional base scenario this file overlays (a name such as ``"standard"`` looked
                   up in the file's own folder, then in the game's folder of ``scenarios/``; or a
                   relative path that must stay inside one of those two folders);
``base_hash``      optional, with ``extends``: the content hash the merged base chain must have
                   (an overlay written by ``broadside tune`` records it and is refused on any
                   other base).

An overlay's tables are merged key by key into its base; any other value replaces the base value.
The merged mapping is then converted into the game's schema (a frozen dataclass) by
:func:`convert`, which rejects unknown keys (with a "did you mean"), wrong types and out-of-range
values with a single :class:`ScenarioError` naming the file, the key path and what is allowed.

Schemas declare constraints in field metadata::

    num_players: int = field(metadata={"range": (3, 5), "doc": "players at the table"})
    backend: str = field(metadata={"choices": ("loky", "dask")})
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

SCENARIO_ROOT = Path(__file__).resolve().parent

#: the games with a folder of built-in scenarios under scenarios/ (names only: the schema classes
#: are given by each caller, so the loader never imports a game)
GAMES = ("cove", "express", "hunt")

RESERVED_KEYS = ("game", "rules_version", "name", "extends", "base_hash")
MAX_EXTENDS_DEPTH = 16
MAX_FILE_BYTES = 2_000_000
MAX_NESTING = 64  # tables/arrays inside one another (the schemas need far fewer)
MAX_EXTENDS_CHARS = 255


class FrozenMap(dict):
    """A read-only mapping that pickles (worker processes receive rules objects) and hashes.

    ``types.MappingProxyType`` cannot be pickled, so loaded tables use this instead. It is a
    ``dict`` underneath so lookups stay at C speed in the engines' hot loops; every mutating
    method is refused.
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("FrozenMap is read-only")

    __setitem__ = __delitem__ = __ior__ = _read_only  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]

    def __reduce__(self):
        return (FrozenMap, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        return f"FrozenMap({dict.__repr__(self)})"


class ScenarioError(ValueError):
    """A scenario file is missing, malformed or breaks its schema.

    The message is one line: ``FILE: KEY.PATH: what is wrong (allowed: ...)``.
    """

    def __init__(self, file: str | Path | None, key: str | None, problem: str):
        self.file = str(file) if file is not None else None
        self.key = key
        self.problem = problem
        where = [p for p in (self.file, key) if p]
        # every line break str.splitlines knows (\r, \x1e, \u2028...), not only \n: one line
        super().__init__(" ".join(": ".join([*where, problem]).splitlines()))


@dataclasses.dataclass(frozen=True, slots=True)
class Scenario:
    """A loaded, validated scenario: the rules object plus its provenance."""

    game: str
    name: str
    rules_version: str
    content_hash: str  # sha256 of the canonical JSON of the merged rules mapping
    path: str  # the file the user named
    chain: tuple[str, ...]  # files merged, base first
    rules: Any  # the game's frozen schema instance
    raw: Mapping[str, Any]  # merged mapping (read-only view), for provenance and diffs

    def provenance(self) -> dict[str, str]:
        """What goes into every result row or JSON object."""
        return {
            "scenario": self.name,
            "game": self.game,
            "rules_version": self.rules_version,
            "scenario_hash": self.content_hash,
        }


# --------------------------------------------------------------------------------------------
# File resolution and merging


def default_scenario_path(game: str, name: str = "standard") -> Path:
    """Path of a built-in scenario, e.g. ``scenarios/cove/standard.toml``."""
    if game not in GAMES:
        raise ScenarioError(None, "game", f"unknown game {game!r} (allowed: {', '.join(GAMES)})")
    return SCENARIO_ROOT / game / f"{name}.toml"


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise ScenarioError(path, None, "file not found")
    if not path.is_file():
        raise ScenarioError(path, None, "not a regular file")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ScenarioError(path, None, f"file is {size} bytes (limit {MAX_FILE_BYTES})")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise ScenarioError(path, None, f"cannot read ({exc.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(path, None, f"invalid TOML: {exc}") from None
    except RecursionError:
        raise ScenarioError(path, None, "invalid TOML: nested too deeply") from None
    _check_nesting(data, path)
    return data


def _check_nesting(data: Any, path: Path) -> None:
    """Refuse tables/arrays nested deeper than MAX_NESTING (dotted keys parse to any depth)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ScenarioError(
                path, None, f"nested too deeply (allowed: at most {MAX_NESTING} levels)"
            )
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def _resolve_base(ref: Any, current: Path, game: str | None) -> Path:
    """Resolve an ``extends`` reference, refusing anything outside the allowed folders."""
    if not isinstance(ref, str) or not ref.strip():
        raise ScenarioError(current, "extends", "must be a non-empty string naming a scenario")
    if len(ref) > MAX_EXTENDS_CHARS or not ref.isprintable():
        raise ScenarioError(
            current,
            "extends",
            f"{ref[:40]!r}: not a scenario name (allowed: printable, at most "
            f"{MAX_EXTENDS_CHARS} characters)",
        )
    try:
        return _resolve_base_path(ref, current, game)
    except OSError as exc:  # e.g. a name longer than the file system allows
        raise ScenarioError(
            current, "extends", f"{ref[:40]!r}: cannot be looked up ({exc.strerror or exc})"
        ) from None


def _resolve_base_path(ref: str, current: Path, game: str | None) -> Path:
    allowed = [current.parent.resolve()]
    if game in GAMES:
        allowed.append((SCENARIO_ROOT / game).resolve())
    candidates: list[Path] = []
    ref_path = Path(ref)
    if ref_path.is_absolute():
        raise ScenarioError(current, "extends", f"{ref!r}: absolute paths are not allowed")
    names = [ref] if ref.endswith(".toml") else [ref + ".toml", ref]
    for folder in allowed:
        for nm in names:
            candidates.append((folder / nm).resolve())
    for cand in candidates:
        if not any(cand.is_relative_to(a) for a in allowed):
            continue
        if cand.is_file():
            return cand
    outside = [c for c in candidates if not any(c.is_relative_to(a) for a in allowed)]
    if outside and len(outside) == len(candidates):
        raise ScenarioError(
            current, "extends", f"{ref!r} points outside the scenario folders (not allowed)"
        )
    raise ScenarioError(
        current,
        "extends",
        f"base scenario {ref!r} not found (looked in {', '.join(str(a) for a in allowed)})",
    )


def deep_merge(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """Merge ``overlay`` into ``base``: tables merge key by key, other values replace."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def read_merged(path: str | Path, game: str | None = None) -> tuple[dict[str, Any], list[Path]]:
    """Read a scenario file and its ``extends`` chain; return the merged mapping and the chain."""
    path = Path(path)
    chain: list[Path] = []
    layers: list[dict[str, Any]] = []
    current = path
    seen: set[Path] = set()
    while True:
        data = _read_toml(current)
        resolved = current.resolve()
        if resolved in seen:
            raise ScenarioError(current, "extends", "circular extends chain")
        seen.add(resolved)
        chain.append(current)
        layers.append(data)
        file_game = data.get("game")
        if isinstance(file_game, str) and file_game in GAMES:
            game = file_game  # a file's own game decides where its base is looked up
        if "extends" not in data:
            break
        if len(chain) > MAX_EXTENDS_DEPTH:
            raise ScenarioError(path, "extends", f"chain longer than {MAX_EXTENDS_DEPTH} files")
        current = _resolve_base(data["extends"], current, game)
    merged: dict[str, Any] = {}
    for depth in range(len(layers) - 1, -1, -1):  # base first
        layer = layers[depth]
        if "base_hash" in layer:
            _check_base_hash(layer["base_hash"], merged, chain[depth], depth + 1 < len(layers))
        merged = deep_merge(
            merged, {k: v for k, v in layer.items() if k not in ("extends", "base_hash")}
        )
    chain.reverse()
    return merged, chain


def _check_base_hash(expected: Any, base: Mapping[str, Any], file: Path, has_base: bool) -> None:
    """An overlay's ``base_hash`` must be the content hash of its merged base chain."""
    if not has_base:
        raise ScenarioError(file, "base_hash", "needs extends (the base whose hash it records)")
    if not isinstance(expected, str):
        raise ScenarioError(file, "base_hash", f"{_toml_type(expected)} given (allowed: string)")
    actual = content_hash(base)
    if expected != actual:
        raise ScenarioError(
            file,
            "base_hash",
            f"made for a base scenario of hash {expected}, but its base now hashes to {actual} "
            "(refused: re-run broadside tune on this base)",
        )


# --------------------------------------------------------------------------------------------
# Conversion into frozen dataclasses


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if tp is int:
        return "integer"
    if tp is float:
        return "number"
    if tp is bool:
        return "true/false"
    if tp is str:
        return "string"
    if dataclasses.is_dataclass(tp):
        return "table"
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin in (tuple, list):
        return "array"
    if origin in (dict, Mapping):
        return "table"
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(tp) if a is not type(None))
    return getattr(tp, "__name__", str(tp))


def _toml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def _check_meta(value: Any, meta: Mapping[str, Any], file: str | None, key: str) -> None:
    if "range" in meta and isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = meta["range"]
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            allowed = f"{lo if lo is not None else '-inf'}..{hi if hi is not None else 'inf'}"
            raise ScenarioError(file, key, f"{value!r} is out of range (allowed: {allowed})")
    if "choices" in meta and value not in meta["choices"]:
        choices = ", ".join(repr(c) for c in meta["choices"])
        hint = ""
        if isinstance(value, str):
            close = difflib.get_close_matches(value, [str(c) for c in meta["choices"]], n=1)
            if close:
                hint = f"; did you mean {close[0]!r}?"
        raise ScenarioError(file, key, f"{value!r} is not allowed (allowed: {choices}){hint}")
    if "len" in meta and isinstance(value, tuple) and len(value) != meta["len"]:
        raise ScenarioError(file, key, f"has {len(value)} items (allowed: exactly {meta['len']})")
    if (
        "min_len" in meta
        and isinstance(value, (tuple, Mapping, str))
        and len(value) < meta["min_len"]
    ):
        raise ScenarioError(
            file, key, f"has {len(value)} items (allowed: at least {meta['min_len']})"
        )
    if (
        "max_len" in meta
        and isinstance(value, (tuple, Mapping, str))
        and len(value) > meta["max_len"]
    ):
        raise ScenarioError(
            file, key, f"has {len(value)} items (allowed: at most {meta['max_len']})"
        )
    if "item_range" in meta and isinstance(value, tuple):
        lo, hi = meta["item_range"]
        for i, item in enumerate(value):
            _check_meta(item, {"range": (lo, hi)}, file, f"{key}[{i}]")


def _is_of(value: Any, tp: Any) -> bool:
    """``value`` has the plain scalar type ``tp`` (bool is not a number here)."""
    if tp is bool:
        return isinstance(value, bool)
    if tp in (int, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return tp is str and isinstance(value, str)


def convert(
    value: Any, tp: Any, file: str | None, key: str, meta: Mapping[str, Any] | None = None
) -> Any:
    """Convert TOML data ``value`` into type ``tp``, raising :class:`ScenarioError` on mismatch."""
    meta = meta or {}
    origin = get_origin(tp)
    result: Any
    if origin is typing.Annotated:
        return convert(value, get_args(tp)[0], file, key, meta)
    if tp is Any:
        result = value
    elif origin in (Union, types.UnionType):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                result = convert(value, arg, file, key, meta)
                break
            except ScenarioError as exc:
                errors.append((arg, exc))
        else:
            # the alternative of the value's own type refused it for a reason (e.g. a float that
            # is not finite): that reason is the useful message
            own = [exc for arg, exc in errors if _is_of(value, arg)]
            if len(own) == 1:
                raise own[0]
            raise ScenarioError(file, key, f"{_toml_type(value)} given (allowed: {_type_name(tp)})")
        return result
    elif dataclasses.is_dataclass(tp):
        result = convert_dataclass(value, tp, file, key)
    elif origin is Literal:
        allowed = get_args(tp)
        if value not in allowed or type(value) is not type(allowed[0]):
            hint = ""
            if isinstance(value, str):
                close = difflib.get_close_matches(value, [str(a) for a in allowed], n=1)
                if close:
                    hint = f"; did you mean {close[0]!r}?"
            raise ScenarioError(
                file,
                key,
                f"{value!r} is not allowed (allowed: {', '.join(map(repr, allowed))}){hint}",
            )
        result = value
    elif tp is bool:
        if not isinstance(value, bool):
            raise ScenarioError(
                file, key, f"{_toml_type(value)} {value!r} given (allowed: true/false)"
            )
        result = value
    elif tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScenarioError(
                file, key, f"{_toml_type(value)} {value!r} given (allowed: integer)"
            )
        result = value
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ScenarioError(file, key, f"{_toml_type(value)} {value!r} given (allowed: number)")
        if value != value or value in (float("inf"), float("-inf")):
            raise ScenarioError(file, key, f"{value!r} given (allowed: a finite number)")
        try:
            result = float(value)
        except OverflowError:  # an integer with hundreds of digits
            raise ScenarioError(file, key, "integer too large (allowed: a finite number)") from None
    elif tp is str:
        if not isinstance(value, str):
            raise ScenarioError(file, key, f"{_toml_type(value)} given (allowed: string)")
        result = value
    elif origin is tuple:
        args = get_args(tp)
        if not isinstance(value, list):
            raise ScenarioError(file, key, f"{_toml_type(value)} given (allowed: array)")
        if len(args) == 2 and args[1] is Ellipsis:
            result = tuple(convert(v, args[0], file, f"{key}[{i}]") for i, v in enumerate(value))
        else:
            if len(value) != len(args):
                raise ScenarioError(
                    file, key, f"array of {len(value)} items given (allowed: exactly {len(args)})"
                )
            result = tuple(
                convert(v, a, file, f"{key}[{i}]") for i, (v, a) in enumerate(zip(value, args))
            )
    elif origin in (dict, Mapping):
        ktp, vtp = get_args(tp)
        if not isinstance(value, dict):
            raise ScenarioError(file, key, f"{_toml_type(value)} given (allowed: table)")
        out = {}
        for k, v in value.items():
            kk = convert(k, ktp, file, f"{key}.{k}" if key else k, meta.get("key_meta"))
            out[kk] = convert(v, vtp, file, f"{key}.{k}" if key else k, meta.get("value_meta"))
        result = FrozenMap(out)
    else:  # pragma: no cover - a schema bug, not a user error
        raise TypeError(f"schema type {tp!r} at {key} is not supported by the loader")
    _check_meta(result, meta, file, key)
    return result


def convert_dataclass(value: Any, cls: type, file: str | None, key: str = "") -> Any:
    """Build a frozen dataclass ``cls`` from a TOML table, strictly."""
    if not isinstance(value, dict):
        raise ScenarioError(file, key or None, f"{_toml_type(value)} given (allowed: table)")
    hints = get_type_hints(cls, include_extras=True)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    for k in value:
        if k not in fields:
            close = difflib.get_close_matches(k, list(fields), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            path = f"{key}.{k}" if key else k
            allowed = (
                ", ".join(sorted(fields)) if len(fields) <= 12 else f"{len(fields)} known keys"
            )
            raise ScenarioError(file, path, f"unknown key (allowed: {allowed}){hint}")
    kwargs = {}
    for name, f in fields.items():
        path = f"{key}.{name}" if key else name
        if name in value:
            kwargs[name] = convert(value[name], hints[name], file, path, f.metadata)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ScenarioError(file, path, f"missing required key ({_type_name(hints[name])})")
    try:
        obj = cls(**kwargs)
    except ScenarioError:
        raise
    except (ValueError, TypeError) as exc:
        raise ScenarioError(file, key or None, str(exc)) from None
    validate = getattr(obj, "validate", None)
    if callable(validate):
        try:
            validate()
        except ScenarioError as exc:
            if exc.file is None:
                # a key starting with "." is relative to this table (nested tables that cannot
                # know where they sit, e.g. a parameter declaration inside kinds.NAME.params)
                where = f"{key}{exc.key}" if exc.key and exc.key.startswith(".") else exc.key
                where = where.lstrip(".") if where else where
                raise ScenarioError(file, where, exc.problem) from None
            raise
        except ValueError as exc:
            raise ScenarioError(file, key or None, str(exc)) from None
    return obj


def _canonical(data: Any) -> Any:
    if isinstance(data, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(data.items())}
    if isinstance(data, (list, tuple)):
        return [_canonical(v) for v in data]
    if hasattr(data, "isoformat"):
        return data.isoformat()
    return data


def content_hash(data: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of a merged scenario mapping (first 16 hex digits)."""
    blob = json.dumps(_canonical(data), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _schemas(schema: Any) -> dict[str, type]:
    """``{game: rules class}`` from one rules class (its ``GAME``) or a mapping of them."""
    if isinstance(schema, Mapping):
        return dict(schema)
    game = getattr(schema, "GAME", None)
    if not dataclasses.is_dataclass(schema) or not isinstance(game, str):
        raise TypeError(f"load_scenario needs a game's rules class (with GAME), got {schema!r}")
    return {game: schema}


def load_scenario(path: str | Path | None, schema: Any) -> Scenario:
    """Load and validate a scenario file (or the game's built-in ``standard``).

    Args:
        path: a TOML file, or a built-in name such as ``"standard"``; ``None`` means the game's
            ``standard`` scenario.
        schema: the game's rules class (a frozen dataclass whose ``GAME`` names the game; the
            file's own ``game`` key must agree), or a mapping ``{game: rules class}`` when the
            file's ``game`` key decides (e.g. ``broadside report --scenario FILE``).

    Raises:
        ScenarioError: one line naming the file, key path and what is allowed.
    """
    schemas = _schemas(schema)
    game = next(iter(schemas)) if len(schemas) == 1 else None
    if path is None:
        if game is None:
            raise ScenarioError(None, "game", "no scenario file and no game given")
        path = default_scenario_path(game)
    path = Path(path)
    if not path.suffix and not path.exists() and game in GAMES:
        path = default_scenario_path(game, str(path))
    merged, chain = read_merged(path, game)
    file = str(path)
    file_game = merged.get("game")
    if file_game is None:
        raise ScenarioError(file, "game", f"missing required key (allowed: {', '.join(GAMES)})")
    if not isinstance(file_game, str) or file_game not in GAMES:
        close = difflib.get_close_matches(str(file_game), list(GAMES), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ScenarioError(
            file, "game", f"{file_game!r} is not a game (allowed: {', '.join(GAMES)}){hint}"
        )
    if file_game not in schemas:
        expected = " or ".join(repr(g) for g in schemas)
        raise ScenarioError(file, "game", f"this is a {file_game!r} scenario, expected {expected}")
    rules_version = merged.get("rules_version")
    if not isinstance(rules_version, str) or not rules_version:
        raise ScenarioError(
            file, "rules_version", 'missing or not a string (allowed: e.g. "2003-fr-1")'
        )
    name = merged.get("name", path.stem)
    if not isinstance(name, str):
        raise ScenarioError(file, "name", f"{_toml_type(name)} given (allowed: string)")
    body = {k: v for k, v in merged.items() if k not in RESERVED_KEYS}
    rules = convert_dataclass(body, schemas[file_game], file)
    return Scenario(
        game=file_game,
        name=name,
        rules_version=rules_version,
        content_hash=content_hash(merged),
        path=file,
        chain=tuple(str(p) for p in chain),
        rules=rules,
        raw=FrozenMap(merged),
    )
