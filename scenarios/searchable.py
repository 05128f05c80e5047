"""Searchable numbers as scenario data: which scenario keys a balance search may change.

Each game declares, beside its base scenario, the numbers a designer would plausibly change and
how far: ``<folder of the base scenario>/balance/searchable.toml`` (``scenarios/cove/balance/
searchable.toml`` for Pirate's Cove; a scenario that extends ``standard`` uses its game's file).
A key is a dotted path into the scenario (``pirates.blackbeard.fame``), and an item of an array
is named by its index (``ship_mat.step_cost[3]``). Each key takes the ``{type, range, default,
doc}`` form of the strategy parameter spaces (:class:`scenarios.strategies.ParamDecl`, validated
the same way), the default being the printed rules' value::

    format = "broadside-searchable/1"
    game = "cove"

    [params]
    "pirates.blackbeard.fame" = { type = "int", range = [2, 12], default = 6, doc = "..." }
    "ship_mat.step_cost[3]" = { type = "int", range = [0, 6], default = 2, doc = "..." }

    [measures]                          # what the balance targets read from a game's tables
    length = "turns"                    # per-seat column: the game's length (game-length)
    margin = "fame"                     # per-seat points: the winner's lead (closeness)
    [measures.engagement]               # pirate-engagement: games in which each value appears
    table = "battles"
    column = "pirate"
    values = ["blackbeard", "flying_dutchman"]

:func:`load_searchable` reads it strictly (unknown keys, types, ranges: one line naming the file
and the key) and checks every declared key against the scenario: the key exists, holds a value
of the declared type, and both ends of its range are accepted by the game's own schema.
:func:`apply_values` makes the scenario of a candidate (the base with some keys changed, validated
by the game's schema like a file), :func:`overlay_text` the house-rule overlay a designer loads
(``extends`` the base, ``base_hash`` its content hash, only the changed keys).
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scenarios import writer
from scenarios.loader import (
    RESERVED_KEYS,
    FrozenMap,
    Scenario,
    ScenarioError,
    _read_toml,
    content_hash,
    convert_dataclass,
)
from scenarios.strategies import ParamDecl, Value

FORMAT = "broadside-searchable/1"
FOLDER = "balance"
FILE = "searchable.toml"
MAX_KEYS = 64
_SEGMENT = re.compile(r"^[A-Za-z0-9_-]+$")
_KEY = re.compile(r"^([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)(?:\[(\d{1,4})\])?$")


@dataclass(frozen=True, slots=True)
class Engagement:
    """Games in which each of ``values`` appears in column ``column`` of the game's table
    ``table`` (``PlayResult.tables[table]``, keyed by ``game`` like the seats table)."""

    table: str
    column: str
    values: tuple[str, ...] = field(metadata={"min_len": 1, "max_len": 32})
    label: str = "engagement"


@dataclass(frozen=True, slots=True)
class Measures:
    """What the balance targets read from a game's per-seat table and tables (module doc)."""

    length: str = ""  # per-seat column: the game's length (every seat of a game holds it)
    margin: str = ""  # per-seat column: the points whose top two give the margin of victory
    engagement: Engagement | None = None


@dataclass(frozen=True, slots=True)
class SearchableFile:
    """The schema of a searchable file (see the module docstring)."""

    format: Literal["broadside-searchable/1"]
    game: str
    params: Mapping[str, ParamDecl] = field(metadata={"min_len": 1, "max_len": MAX_KEYS})
    measures: Measures = Measures()


@dataclass(frozen=True)
class Searchable:
    """A game's searchable numbers, checked against a scenario.

    Attributes:
        params: key -> declaration, in the file's order.
        base: key -> the scenario's own value (the starting point of a search).
        measures: what the targets read.
        path: the file.
    """

    params: Mapping[str, ParamDecl]
    base: Mapping[str, Value]
    measures: Measures
    path: str


def searchable_path(scenario: Scenario) -> Path:
    """``<folder of the scenario's base file>/balance/searchable.toml``."""
    base = Path(scenario.chain[0]) if scenario.chain else Path(scenario.path)
    return base.parent / FOLDER / FILE


def split_key(key: str) -> tuple[list[str], int | None]:
    """``"a.b.c[3]"`` -> (``["a", "b", "c"]``, 3); a ScenarioError for anything else."""
    m = _KEY.match(key) if isinstance(key, str) else None
    if m is None:
        raise ScenarioError(
            None,
            str(key),
            "not a scenario key (allowed: dotted names such as pirates.blackbeard.fame, an "
            "array item as ship_mat.step_cost[3])",
        )
    index = m.group(2)
    return m.group(1).split("."), int(index) if index is not None else None


def get_value(rules: Any, key: str) -> Any:
    """The value of ``key`` in a scenario's rules (tables and the schema's dataclasses alike,
    so a value the file leaves at the schema's default is found too); KeyError naming the
    missing part."""
    parts, index = split_key(key)
    node: Any = rules
    for i, part in enumerate(parts):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif (
            dataclasses.is_dataclass(node)
            and not isinstance(node, type)
            and part in {f.name for f in dataclasses.fields(node)}
        ):
            node = getattr(node, part)
        else:
            raise KeyError(".".join(parts[: i + 1]))
    if index is not None:
        if not isinstance(node, (list, tuple)) or index >= len(node):
            raise KeyError(key)
        node = node[index]
    return node


def _thaw(data: Any) -> Any:
    """A plain, mutable deep copy of a scenario mapping (FrozenMap and MappingProxy included)."""
    if isinstance(data, Mapping):
        return {k: _thaw(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_thaw(v) for v in data]
    return copy.copy(data)


def _set(raw: dict[str, Any], rules: Any, key: str, value: Any) -> None:
    """Set ``key`` in the mutable mapping ``raw`` (tables it lacks are made; an array it lacks
    is copied from ``rules`` before its item is set)."""
    parts, index = split_key(key)
    node = raw
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    if index is None:
        node[parts[-1]] = value
        return
    if parts[-1] not in node:
        node[parts[-1]] = list(get_value(rules, ".".join(parts)))
    node[parts[-1]][index] = value


def _type_ok(decl: ParamDecl, value: Any) -> bool:
    if decl.type == "bool":
        return isinstance(value, bool)
    if decl.type == "choice":
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return decl.type == "float" or isinstance(value, int)


def apply_values(scenario: Scenario, values: Mapping[str, Value], label: str = "") -> Scenario:
    """The scenario with ``values`` (key -> value) in place of its own, validated by the game's
    schema (``type(scenario.rules)``) like a file: a ScenarioError when the rules refuse it.

    The result's ``raw`` and content hash are those of the changed mapping; its ``name`` is the
    base's plus ``label`` (when given).
    """
    if not values:
        return scenario
    raw = _thaw(scenario.raw)
    for key, value in values.items():
        try:
            get_value(scenario.rules, key)
        except KeyError as exc:
            raise ScenarioError(
                scenario.path, key, f"not a key of this scenario ({exc.args[0]} is missing)"
            ) from None
        _set(raw, scenario.rules, key, value)
    name = f"{scenario.name} + {label}" if label else scenario.name
    body = {k: v for k, v in raw.items() if k not in RESERVED_KEYS}
    rules = convert_dataclass(body, type(scenario.rules), name)
    return dataclasses.replace(
        scenario,
        name=name,
        rules=rules,
        raw=FrozenMap(raw),
        content_hash=content_hash(raw),
    )


def load_searchable(scenario: Scenario, path: str | Path | None = None) -> Searchable:
    """The searchable numbers of ``scenario``'s game, checked against it.

    Args:
        scenario: a loaded scenario (its base file's folder holds ``balance/searchable.toml``).
        path: another searchable file (default: :func:`searchable_path`).

    Raises:
        ScenarioError: no file, or a file that breaks its schema, names a key the scenario does
            not have, a value of another type, or a range end the game's rules refuse (one line).
    """
    path = Path(path) if path is not None else searchable_path(scenario)
    if not path.is_file():
        raise ScenarioError(
            path,
            None,
            f"no searchable numbers declared for {scenario.game!r} (a balance search needs "
            f"{FOLDER}/{FILE} beside the base scenario)",
        )
    data = _read_toml(path)
    fmt = data.get("format")
    if fmt != FORMAT:
        raise ScenarioError(path, "format", f"{fmt!r} given (allowed: {FORMAT!r})")
    decl = convert_dataclass(data, SearchableFile, str(path))
    if decl.game != scenario.game:
        raise ScenarioError(path, "game", f"a {decl.game!r} file, not {scenario.game!r}")
    base: dict[str, Value] = {}
    for key, p in decl.params.items():
        where = f"params.{key}"
        try:
            split_key(key)
        except ScenarioError as exc:
            raise ScenarioError(path, where, exc.problem) from None
        try:
            value = get_value(scenario.rules, key)
        except KeyError as exc:
            raise ScenarioError(
                path, where, f"the scenario has no such key ({exc.args[0]} is missing)"
            ) from None
        if isinstance(value, (Mapping, list, tuple)) or not _type_ok(p, value):
            raise ScenarioError(
                path,
                where,
                f"the scenario holds {value!r} there (allowed: a {p.type} value to search)",
            )
        base[key] = value
        ends = [p.coerce(p.default, where)]
        if p.range is not None:
            ends += [int(v) if p.type == "int" else float(v) for v in p.range]
        else:
            ends += list(p.choices) if p.type == "choice" else [False, True]
        for end in ends:
            try:
                apply_values(scenario, {key: end})
            except ScenarioError as exc:
                raise ScenarioError(
                    path,
                    where,
                    f"the rules refuse {end!r} there ({exc.problem}; allowed: a range the "
                    "scenario's schema accepts)",
                ) from None
    return Searchable(FrozenMap(decl.params), FrozenMap(base), decl.measures, str(path))


def unknown_key_message(key: str, known: Mapping[str, Any]) -> str:
    """``--param KEY``: not declared, with a "did you mean" and where declarations live."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    shown = ", ".join(known) if len(known) <= 12 else f"{len(known)} declared keys"
    return f"{key!r} is not a searchable number of this game (allowed: {shown}){hint}"


def narrowed(decl: ParamDecl, key: str, low: Value, high: Value) -> ParamDecl:
    """``decl`` with its range narrowed to ``[low, high]`` (inside the declared range), or a
    ScenarioError naming the key and the declared range."""
    if decl.range is None:
        raise ScenarioError(
            None,
            key,
            f"a {decl.type} number has no range to narrow (allowed: --param {key} alone, every "
            f"value of {decl.bounds()})",
        )
    lo = decl.coerce(low, key)
    hi = decl.coerce(high, key)
    if lo > hi:
        raise ScenarioError(None, key, f"{lo}..{hi}: low above high (allowed: LO <= HI)")
    return dataclasses.replace(decl, range=(lo, hi))


def overlay_text(
    scenario: Scenario, base_ref: str, values: Mapping[str, Value], *, name: str, header: str
) -> str:
    """The TOML overlay of ``scenario`` setting ``values``: ``extends`` the base (``base_ref``),
    records its content hash (``base_hash``: the loader refuses the overlay on another base) and
    holds only the changed keys (an array item writes its whole array, since arrays replace)."""
    changed = apply_values(scenario, values)
    tables: dict[str, Any] = {}
    for key in values:
        parts, index = split_key(key)
        node = tables
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        whole = ".".join(parts)
        node[parts[-1]] = (
            list(get_value(changed.rules, whole)) if index is not None else values[key]
        )
    data = {
        "game": scenario.game,
        "rules_version": scenario.rules_version,
        "name": name,
        "extends": base_ref,
        "base_hash": scenario.content_hash,
        **tables,
    }
    return writer.dumps(data, header)
