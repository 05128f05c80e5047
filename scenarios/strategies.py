"""Strategies as scenario data: one schema for parameter spaces, shared by every game.

A game's scenario declares the *kinds* of player its code implements, each with its parameter
space, and names *strategies*: a kind plus parameter values. The strategy search reads the
spaces; ``play``, ``report`` and ``compare`` read the strategies. In TOML::

    [kinds.heuristic]                          # a kind the game's code implements
    description = "scores every option by expected fame"
    [kinds.heuristic.params]
    w_fame = { type = "float", range = [0.0, 3.0], default = 1.0, doc = "value of 1 fame" }
    buy_cards = { type = "int", range = [0, 3], default = 0, doc = "cards bought per visit" }
    plan = { type = "choice", choices = ["greedy", "lookahead"], default = "greedy" }
    use_navy = { type = "bool", default = true }

    [kinds.brawler]                            # a kind that inherits another's space
    extends = "heuristic"
    description = "cannons and crew; seeks fights"
    defaults = { w_fame = 1.2 }                # new defaults for inherited parameters

    [strategies.brawler]                       # a named strategy: a kind plus values
    kind = "brawler"
    description = "the default brawler"
    params = { buy_cards = 1 }

    [strategies.random]
    kind = "random"
    reference = true                           # a reference player (a floor), not a real one

Rules enforced on load (:func:`validate_strategies`, called by each game's rules ``validate``):

* a parameter has a ``type`` (``int``, ``float``, ``bool``, ``choice``); numbers have a ``range``
  ``[low, high]`` with ``low <= default <= high``; ``choice`` has ``choices`` holding the default;
  ``log = true`` (search on a log scale) needs ``low > 0``; ``fixed = true`` keeps a parameter out
  of the search space (a structural switch);
* a kind either is implemented by the game's code or ``extends`` one that is (no cycles);
  ``defaults`` may only name inherited parameters and must respect their declarations;
* a strategy names a declared kind; its ``params`` name parameters of that kind's space, with
  values of the declared type inside the declared range (unknown names get "did you mean");
* a strategy with ``reference = true`` is a reference player (a floor such as ``random``): the
  report keeps it out of every balance share and shows it as a floor row, and a ``default_mix``
  may not name it (a default table is of real players);
* a tuned strategy (written by ``broadside tune``) carries a ``tuned`` table saying how it was
  made: base kind, scenario hash, field, players, seed, budget and its validation.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from scenarios.loader import FrozenMap, ScenarioError

PARAM_TYPES = ("int", "float", "bool", "choice")
MAX_KIND_DEPTH = 16

Value = bool | int | float | str


@dataclass(frozen=True, slots=True)
class ParamDecl:
    """One tunable parameter: its type, range or choices, default and meaning."""

    type: Literal["int", "float", "bool", "choice"]
    default: bool | float | str
    range: tuple[float, float] | None = None
    choices: tuple[str, ...] = ()
    log: bool = False  # search on a log scale (needs range low > 0)
    fixed: bool = False  # not part of the search space (a structural switch)
    doc: str = ""

    def validate(self) -> None:
        if self.type in ("int", "float"):
            if self.range is None:
                raise ScenarioError(
                    None, ".range", f"a {self.type} parameter needs range = [low, high]"
                )
            lo, hi = self.range
            if not lo <= hi:
                raise ScenarioError(
                    None, ".range", f"[{lo}, {hi}]: low above high (allowed: low <= high)"
                )
            if self.type == "int" and (lo != int(lo) or hi != int(hi)):
                raise ScenarioError(
                    None, ".range", f"[{lo}, {hi}]: an int range needs whole numbers"
                )
            if self.log and lo <= 0:
                raise ScenarioError(None, ".log", f"log scale needs range low > 0 (got {lo})")
            if self.choices:
                raise ScenarioError(
                    None, ".choices", f"only a choice parameter has choices, not {self.type}"
                )
        else:
            if self.range is not None:
                raise ScenarioError(None, ".range", f"a {self.type} parameter has no range")
            if self.log:
                raise ScenarioError(None, ".log", f"a {self.type} parameter has no scale")
        if self.type == "choice" and not self.choices:
            raise ScenarioError(None, ".choices", "a choice parameter needs choices = [...]")
        self.coerce(self.default, ".default")

    def coerce(self, value: Any, where: str) -> Value:
        """``value`` as this parameter's Python type, or a ScenarioError naming ``where``."""
        if self.type == "bool":
            if not isinstance(value, bool):
                raise ScenarioError(None, where, f"{value!r} given (allowed: true/false)")
            return value
        if self.type == "choice":
            if value not in self.choices:
                close = difflib.get_close_matches(str(value), self.choices, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                allowed = ", ".join(map(repr, self.choices))
                raise ScenarioError(
                    None, where, f"{value!r} is not allowed (allowed: {allowed}){hint}"
                )
            return value
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ScenarioError(
                None, where, f"{value!r} given (allowed: a {self.type} in {self.bounds()})"
            )
        if self.type == "int":
            if value != int(value):
                raise ScenarioError(
                    None, where, f"{value!r} given (allowed: a whole number in {self.bounds()})"
                )
            value = int(value)
        else:
            value = float(value)
        lo, hi = self.range  # type: ignore[misc]  # validate() guarantees it
        if not lo <= value <= hi:
            raise ScenarioError(
                None, where, f"{value!r} is out of range (allowed: {self.bounds()})"
            )
        return value

    def bounds(self) -> str:
        if self.range is None:
            return ", ".join(map(repr, self.choices)) if self.choices else "true/false"
        lo, hi = self.range
        if self.type == "int":
            return f"{int(lo)}..{int(hi)}"
        return f"{lo:g}..{hi:g}"


@dataclass(frozen=True, slots=True)
class KindDecl:
    """A kind of player: a policy the game's code implements (or a variant of one)."""

    description: str = ""
    extends: str | None = None  # another kind whose parameters this one inherits
    params: Mapping[str, ParamDecl] = field(default_factory=FrozenMap)  # declared here
    defaults: Mapping[str, bool | float | str] = field(default_factory=FrozenMap)  # new defaults


@dataclass(frozen=True, slots=True)
class TunedInfo:
    """How ``broadside tune`` made a strategy (recorded in the overlay it writes)."""

    base: str  # the kind that was tuned
    scenario_hash: str  # content hash of the scenario it was tuned on
    field: tuple[str, ...]  # the opponents' strategies
    players: int
    seed: str  # root seed of the search, decimal
    budget: int  # games the search could spend
    optimiser: str = ""
    command: str = ""
    score: float | None = None  # validated mean score against the field (fresh seeds)
    ci95: tuple[float, float] | None = None
    baseline_score: float | None = None  # the kind's defaults on the same validation seeds
    gain: float | None = None
    gain_ci95: tuple[float, float] | None = None
    n: int | None = None  # validation games


@dataclass(frozen=True, slots=True)
class StrategyDecl:
    """A named strategy: a kind plus parameter values (unset parameters take the kind's default)."""

    kind: str
    description: str = ""
    params: Mapping[str, bool | float | str] = field(default_factory=FrozenMap)
    tuned: TunedInfo | None = None
    #: a reference player (a floor such as ``random``): never in a default mix or a balance share
    reference: bool = False


def is_reference(decl: Any) -> bool:
    """Whether a strategy declaration is a reference player (``reference = true``)."""
    return bool(getattr(decl, "reference", False))


def kind_chain(kinds: Mapping[str, KindDecl], kind: str, where: str = "kinds") -> list[str]:
    """``kind`` and the kinds it extends, the kind itself first (root implemented kind last)."""
    chain = [kind]
    while True:
        decl = kinds.get(chain[-1])
        if decl is None:
            raise ScenarioError(None, where, _unknown("kind", chain[-1], kinds))
        if decl.extends is None:
            return chain
        if decl.extends in chain:
            raise ScenarioError(
                None, f"kinds.{kind}.extends", "circular extends chain between kinds"
            )
        if len(chain) > MAX_KIND_DEPTH:
            raise ScenarioError(
                None, f"kinds.{kind}.extends", f"chain longer than {MAX_KIND_DEPTH}"
            )
        chain.append(decl.extends)


def root_kind(kinds: Mapping[str, KindDecl], kind: str) -> str:
    """The implemented kind at the root of ``kind``'s extends chain."""
    return kind_chain(kinds, kind)[-1]


def param_space(kinds: Mapping[str, KindDecl], kind: str) -> dict[str, ParamDecl]:
    """The full parameter space of ``kind`` (inherited declarations, defaults overridden)."""
    chain = kind_chain(kinds, kind)
    space: dict[str, ParamDecl] = {}
    for name in reversed(chain):  # root first, so nearer kinds override
        decl = kinds[name]
        for pname, pdecl in decl.params.items():
            space[pname] = pdecl
        for pname, value in decl.defaults.items():
            base = space.get(pname)
            if base is None:
                raise ScenarioError(
                    None, f"kinds.{name}.defaults.{pname}", _unknown("parameter", pname, space)
                )
            coerced = base.coerce(value, f"kinds.{name}.defaults.{pname}")
            space[pname] = ParamDecl(
                base.type, coerced, base.range, base.choices, base.log, base.fixed, base.doc
            )
    return space


def search_space(kinds: Mapping[str, KindDecl], kind: str) -> dict[str, ParamDecl]:
    """The parameters a search may change (the space minus ``fixed`` ones)."""
    return {k: v for k, v in param_space(kinds, kind).items() if not v.fixed}


def resolve_params(
    kinds: Mapping[str, KindDecl], strategy: StrategyDecl, where: str = "strategies"
) -> dict[str, Value]:
    """Every parameter of ``strategy``'s kind: the kind's defaults overlaid with its values."""
    space = param_space(kinds, strategy.kind)
    values: dict[str, Value] = {
        k: v.coerce(v.default, f"{where}.default") for k, v in space.items()
    }
    for pname, value in strategy.params.items():
        decl = space.get(pname)
        if decl is None:
            raise ScenarioError(
                None, f"{where}.params.{pname}", _unknown("parameter", pname, space)
            )
        values[pname] = decl.coerce(value, f"{where}.params.{pname}")
    return values


def validate_strategies(
    kinds: Mapping[str, KindDecl],
    strategies: Mapping[str, Any],
    implemented: Iterable[str],
    default_mix: Iterable[str] = (),
) -> None:
    """Check kinds, strategies and the default mix together (see the module docstring).

    ``strategies`` values are :class:`StrategyDecl` or a game's subclass-like dataclass with
    ``kind`` and ``params``; ``implemented`` lists the root kinds the game's code provides.
    """
    implemented = tuple(implemented)
    for name, decl in kinds.items():
        chain = kind_chain(kinds, name, f"kinds.{name}")
        root = chain[-1]
        if root not in implemented:
            raise ScenarioError(
                None,
                f"kinds.{root}",
                f"no player of kind {root!r} is implemented "
                f"(allowed roots: {', '.join(implemented)})",
            )
        if decl.extends is not None:
            inherited = param_space(kinds, decl.extends)
            clash = sorted(set(decl.params) & set(inherited))
            if clash:
                raise ScenarioError(
                    None,
                    f"kinds.{name}.params.{clash[0]}",
                    "already declared by the kind it extends "
                    "(allowed: set a new default in defaults)",
                )
        param_space(kinds, name)  # checks defaults
    for name, strat in strategies.items():
        if strat.kind not in kinds:
            raise ScenarioError(
                None, f"strategies.{name}.kind", _unknown("kind", strat.kind, kinds)
            )
        resolve_params(kinds, strat, f"strategies.{name}")
    for i, name in enumerate(default_mix):
        if name not in strategies:
            raise ScenarioError(None, f"default_mix[{i}]", _unknown("strategy", name, strategies))
        if is_reference(strategies[name]):
            real = [k for k, v in strategies.items() if not is_reference(v)]
            raise ScenarioError(
                None,
                f"default_mix[{i}]",
                f"{name!r} is a reference player (reference = true), not a real one "
                f"(allowed: {', '.join(real)})",
            )


def _unknown(what: str, name: str, known: Iterable[str]) -> str:
    known = list(known)
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    shown = ", ".join(known) if len(known) <= 40 else f"{len(known)} known names"
    return f"unknown {what} {name!r} (allowed: {shown}){hint}"


def unknown_name_message(what: str, name: str, known: Iterable[str]) -> str:
    """``unknown strategy 'brawlr' (allowed: ...); did you mean 'brawler'?`` for user errors."""
    return _unknown(what, name, known)


def with_strategies(scenario: Any, extra: Mapping[str, Any]) -> Any:
    """A copy of a loaded ``Scenario`` whose rules hold ``extra`` strategies beside its own.

    Used by the strategy search to play candidate parameter vectors without writing files. The
    new strategies are validated like the file's own (the rules' ``validate`` runs again) and the
    content hash covers them, so results record exactly what was played.
    """
    import dataclasses

    from scenarios.loader import _canonical, content_hash

    rules = scenario.rules
    merged = FrozenMap({**rules.strategies, **extra})
    new_rules = dataclasses.replace(rules, strategies=merged)
    validate = getattr(new_rules, "validate", None)
    if callable(validate):
        validate()
    raw = dict(scenario.raw)
    raw["strategies"] = {
        **dict(raw.get("strategies", {})),
        **{k: _canonical(_as_table(v)) for k, v in extra.items()},
    }
    return dataclasses.replace(
        scenario, rules=new_rules, raw=FrozenMap(raw), content_hash=content_hash(raw)
    )


#: the fields of every strategy declaration; a game's own class may add seat fields after them
STRATEGY_FIELDS = ("kind", "description", "params", "tuned", "reference")


def seat_fields(decl: Any) -> dict[str, Any]:
    """The seat fields a game's strategy declaration sets (Pirates express: ``nation``,
    ``fleet``): every field beyond :data:`STRATEGY_FIELDS` that is neither empty nor its
    default."""
    import dataclasses

    return {
        f.name: getattr(decl, f.name)
        for f in dataclasses.fields(decl)
        if f.name not in STRATEGY_FIELDS and getattr(decl, f.name) not in (None, "", f.default)
    }


def _as_table(decl: Any) -> dict[str, Any]:
    """A strategy declaration as the TOML table that would define it."""
    import dataclasses

    out: dict[str, Any] = {}
    for f in dataclasses.fields(decl):
        value = getattr(decl, f.name)
        if value is None or value == f.default:
            continue
        if dataclasses.is_dataclass(value):
            value = {k: v for k, v in dataclasses.asdict(value).items() if v is not None}
        elif isinstance(value, Mapping):
            value = dict(value)
        if value == {} or value == ():
            continue
        out[f.name] = value
    return out


def strategy_hash(decl: Any) -> str:
    """A short hash of what a strategy plays (its kind, values and any seat fields, not its
    description, how it was tuned or whether it is a reference): recorded beside the scenario
    hash in results."""
    import hashlib
    import json

    from scenarios.loader import _canonical

    table = {
        k: v for k, v in _as_table(decl).items() if k not in ("description", "tuned", "reference")
    }
    blob = json.dumps(_canonical(table), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]
