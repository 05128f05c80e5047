"""Balance search over the game protocol: search a game's own numbers for a balanced game.

The game is passed in (a module speaking :mod:`simulator.protocol`); this module never imports a
game. What a balance search does (see ``docs/search.md``, "Balance search"):

* **Space.** The numbers a search may change are the game's searchable keys (scenario data,
  :mod:`scenarios.searchable`), each a ``{type, range, default, doc}`` declaration; ``--param
  KEY[=LO..HI]`` picks some of them (and may narrow a range inside the declared one). A key that
  is not declared, or a value outside its declared range, is refused in one line.
* **Targets.** Each target's value is a *loss* >= 0, its distance from the target (0 = met,
  shares on 0..1): :data:`TARGETS`. The players are the game's default mix, or a saved
  population's equilibrium (each slice's seats drawn from it); ``nation-spread`` plays a round
  robin of the game's *roster* (Pirates express: each nation with its best fleet under the
  admiral, the game's ``balance_roster`` hook).
* **Slices and common random numbers.** Slice ``j`` is one table of the players (seats rotated
  inside it, :func:`simulator.search.slice_games` games) on the seed ``slice_seed(entropy, j)``,
  plus, for a roster target, every pair of the roster on seeds of their own: every candidate
  meets the same deals. A unit of work is one table on one slice under one candidate's rules;
  one rung of the search is one :func:`~simulator.runner.run_chunks` call, so ``--jobs``,
  ``--out``/``--resume`` and progress work as for every run and nothing depends on the worker
  count.
* **Optimiser.** optuna, ask/tell, seeded from ``derive_seed(entropy, "search")``: TPE for one
  target, NSGA-II for several (a Pareto set). The base rules are trial 0, played on every slice
  of the top rung; then batches of :data:`~simulator.search.BATCH` candidates raced by successive
  halving (:data:`~simulator.search.RUNGS` rungs, the best half goes on with twice the slices;
  with several targets the best half by Pareto rank, then by the sum of the losses), each batch
  told back in trial order. ``--budget`` counts these games.
* **Kept candidates.** The candidates that finished the top rung and beat the base there (one
  target: the :data:`KEEP` lowest losses; several: the non-dominated ones, at most
  :data:`KEEP_PARETO`). With ``--resolve`` the population's equilibrium is solved again under
  each kept candidate's rules (its payoff table measured on seeds of its own, the solver checked
  by its Nash gap), and a roster is always found again under them (the game's hook with
  :data:`ROSTER_EFFORT`); these games are the ``resolve`` count.
* **Validation.** Each kept candidate and the base are played on fresh slices
  (``derive_seed(entropy, "validation")``, never the search's: no winner's curse), paired slice
  by slice, under compare's sequential test (:class:`simulator.sequential.SequentialComparison`,
  a slice is the unit) on every headline metric: each seat's win share, each strategy's score
  (default mix only), the game's length and margin, each engagement share, each roster
  member's score. A target's value, its improvement (base - candidate) and their 95 %
  intervals come from a percentile bootstrap over the validation slices (the same slices
  resampled for both sides).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from scenarios.loader import FrozenMap, ScenarioError
from scenarios.searchable import (
    Searchable,
    apply_values,
    load_searchable,
    narrowed,
    unknown_key_message,
)
from scenarios.strategies import ParamDecl, Value, with_strategies
from simulator.errors import UserError
from simulator.runner import Chunk, derive_seed, execution, run_chunks
from simulator.search import (
    BATCH,
    RUNGS,
    Mixture,
    Schedule,
    check_game,
    distribution,
    draw_seats,
    plan,
    resolve_players,
    root_entropy,
    slice_block,
    slice_games,
    slice_seed,
)
from simulator.sequential import MIN_UNITS, SequentialComparison

#: candidates kept for validation with one target (the lowest losses on the top rung)
KEEP = 3
#: at most this many of a Pareto set (several targets) are validated
KEEP_PARETO = 5
#: bootstrap replicates of a target's interval
BOOTSTRAP = 2000
#: looks of the validation's sequential test
LOOKS = 5
#: the game's roster hook's effort when a candidate's roster is found again (Pirates express:
#: fleets raced per nation)
ROSTER_EFFORT = 64
#: the roster target's member prefix in metric names
ROSTER_LABEL = "nation"
OPTIMISERS = {
    1: "optuna TPESampler(multivariate, constant_liar) + successive halving",
    2: "optuna NSGAIISampler(population_size=8) + successive halving by Pareto rank",
}


# --------------------------------------------------------------------------------------------
# Targets


@dataclass(frozen=True, slots=True)
class TargetKind:
    """A balance target: its argument and what it reads."""

    arg: str  # "share" (optional, default below), "share!" (required), "number", "range"
    default: float | None
    roster: bool  # read from the roster's round robin (else from the players' tables)
    doc: str


TARGETS: Mapping[str, TargetKind] = FrozenMap(
    {
        "seat-advantage": TargetKind(
            "share", 0.0, False, "every seat's win share within x of 1/P (default x = 0)"
        ),
        "strategy-spread": TargetKind(
            "share", 0.0, False, "the players' strategies' scores within x of each other"
        ),
        "nation-spread": TargetKind(
            "share", 0.0, True, "every roster member's score within x of 1/2 (express: nations)"
        ),
        "pirate-engagement": TargetKind(
            "share!", None, False, "every engagement value met in at least x of the games"
        ),
        "game-length": TargetKind("range", None, False, "the mean game length inside LO..HI"),
        "closeness": TargetKind("number", 0.0, False, "the mean margin of victory at most x"),
    }
)


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed ``--target NAME[=ARG]``."""

    name: str
    arg: float | tuple[float, float] | None

    @property
    def spec(self) -> str:
        if self.arg is None:
            return self.name
        if isinstance(self.arg, tuple):
            return f"{self.name}={self.arg[0]:g}..{self.arg[1]:g}"
        return f"{self.name}={self.arg:g}"


def parse_target(spec: str) -> Target:
    """``--target NAME[=ARG]`` (one line naming the allowed forms when wrong)."""
    name, sep, arg = str(spec).partition("=")
    name = name.strip()
    if name not in TARGETS:
        import difflib

        close = difflib.get_close_matches(name, list(TARGETS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UserError(f"--target {spec!r}: not a target (allowed: {', '.join(TARGETS)}){hint}")
    kind = TARGETS[name]
    forms = {
        "share": f"{name} or {name}=X with X in 0..1",
        "share!": f"{name}=X with X in 0..1",
        "number": f"{name} or {name}=X with X >= 0",
        "range": f"{name}=LO..HI",
    }[kind.arg]
    if not sep:
        if kind.default is None:
            raise UserError(f"--target {spec!r}: needs an argument (allowed: {forms})")
        return Target(name, None)
    try:
        if kind.arg == "range":
            lo_s, dots, hi_s = arg.partition("..")
            if not dots:
                raise ValueError
            lo, hi = float(lo_s), float(hi_s)
            if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo <= hi):
                raise ValueError
            return Target(name, (lo, hi))
        x = float(arg)
        if not math.isfinite(x) or x < 0 or (kind.arg != "number" and x > 1):
            raise ValueError
        return Target(name, x)
    except ValueError:
        raise UserError(f"--target {spec!r}: bad argument {arg!r} (allowed: {forms})") from None


# --------------------------------------------------------------------------------------------
# What a slice records: sums of the measures, named


@dataclass(frozen=True)
class Layout:
    """The named sums one slice records (a unit fills its part; a slice adds its units).

    ``games`` the players' games; ``seat:S`` seat S's scores; ``strategy:X:score`` and
    ``strategy:X:seats`` a strategy's scores and seats; ``length`` and ``margin`` the sums of
    the games' lengths and margins; ``engaged:V`` the games in which V appeared; ``roster:M``
    and ``roster:M:games`` a roster member's scores and games.
    """

    players: int
    strategies: tuple[str, ...]
    length: bool
    margin: bool
    engagement: tuple[str, ...]
    roster: tuple[str, ...]

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        out = ["games", *(f"seat:{s}" for s in range(1, self.players + 1))]
        for x in self.strategies:
            out += [f"strategy:{x}:score", f"strategy:{x}:seats"]
        if self.length:
            out.append("length")
        if self.margin:
            out.append("margin")
        out += [f"engaged:{v}" for v in self.engagement]
        for m in self.roster:
            out += [f"roster:{m}:score", f"roster:{m}:games"]
        return tuple(out)

    @functools.cached_property
    def index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    def __len__(self) -> int:
        return len(self.names)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def metric_values(layout: Layout, sums: np.ndarray) -> dict[str, np.ndarray]:
    """Every metric from sums shaped ``(..., len(layout))`` (one slice, or many added up):
    ``seat:S`` win shares, ``win-rate:X`` strategies' scores, ``game-length``, ``margin``,
    ``engagement:V`` shares, ``nation:M`` roster members' scores."""
    ix = layout.index
    s = np.asarray(sums, dtype=float)
    games = s[..., ix["games"]]
    out: dict[str, np.ndarray] = {}
    for seat in range(1, layout.players + 1):
        out[f"seat:{seat}"] = _ratio(s[..., ix[f"seat:{seat}"]], games)
    for x in layout.strategies:
        out[f"win-rate:{x}"] = _ratio(
            s[..., ix[f"strategy:{x}:score"]], s[..., ix[f"strategy:{x}:seats"]]
        )
    if layout.length:
        out["game-length"] = _ratio(s[..., ix["length"]], games)
    if layout.margin:
        out["margin"] = _ratio(s[..., ix["margin"]], games)
    for v in layout.engagement:
        out[f"engagement:{v}"] = _ratio(s[..., ix[f"engaged:{v}"]], games)
    for m in layout.roster:
        out[f"{ROSTER_LABEL}:{m}"] = _ratio(
            s[..., ix[f"roster:{m}:score"]], s[..., ix[f"roster:{m}:games"]]
        )
    return out


def target_loss(target: Target, layout: Layout, metrics: Mapping[str, np.ndarray]) -> np.ndarray:
    """The target's loss (>= 0, 0 when met) from :func:`metric_values` (any leading shape)."""
    kind = TARGETS[target.name]
    x = kind.default if target.arg is None else target.arg

    def stack(prefix: str) -> np.ndarray:
        return np.stack([v for k, v in metrics.items() if k.startswith(prefix)], axis=-1)

    if target.name == "seat-advantage":
        dev = np.abs(stack("seat:") - 1.0 / layout.players).max(axis=-1)
        loss = dev - x
    elif target.name == "strategy-spread":
        w = stack("win-rate:")
        loss = (np.nanmax(w, axis=-1) - np.nanmin(w, axis=-1)) - x
    elif target.name == "nation-spread":
        loss = np.abs(stack(f"{ROSTER_LABEL}:") - 0.5).max(axis=-1) - x
    elif target.name == "pirate-engagement":
        loss = x - stack("engagement:").min(axis=-1)
    elif target.name == "game-length":
        lo, hi = x  # type: ignore[misc]
        g = metrics["game-length"]
        loss = np.maximum(lo - g, g - hi)
    elif target.name == "closeness":
        loss = metrics["margin"] - x
    else:  # pragma: no cover - parse_target guards this
        raise ValueError(target.name)
    return np.maximum(np.asarray(loss, dtype=float), 0.0)


def losses(targets: Sequence[Target], layout: Layout, sums: np.ndarray) -> np.ndarray:
    """``(..., len(targets))`` losses of summed measures."""
    metrics = metric_values(layout, sums)
    return np.stack([target_loss(t, layout, metrics) for t in targets], axis=-1)


# --------------------------------------------------------------------------------------------
# Playing units


@dataclass(frozen=True, slots=True)
class BUnit:
    """One table under one candidate's rules on one slice."""

    candidate: int  # index into the run's scenarios
    table: tuple[str, ...]
    seed: int
    roster: bool  # a roster pair (its scores go to roster:M)


#: the prefix of roster members' strategy names inside a balance search
ROSTER_PREFIX = "balance-roster-"


def reduce_result(result: Any, unit: BUnit, layout: Layout, measures: Any) -> np.ndarray:
    """A unit's sums (:class:`Layout`) from its :class:`~simulator.protocol.PlayResult`."""
    out = np.zeros(len(layout))
    ix = layout.index
    seats = result.seats
    score = seats["score"].to_numpy(float)
    names = seats["strategy"].to_numpy()
    if unit.roster:
        for m in dict.fromkeys(unit.table):
            mask = names == f"{ROSTER_PREFIX}{m}"
            out[ix[f"roster:{m}:score"]] += score[mask].sum()
            out[ix[f"roster:{m}:games"]] += int(mask.sum())
        return out
    games = seats["game"].to_numpy(np.int64)
    n_games = len(np.unique(games))
    out[ix["games"]] = n_games
    seat = seats["seat"].to_numpy(np.int64)
    for s in range(1, layout.players + 1):
        out[ix[f"seat:{s}"]] = score[seat == s].sum()
    for x in layout.strategies:
        mask = names == x
        out[ix[f"strategy:{x}:score"]] = score[mask].sum()
        out[ix[f"strategy:{x}:seats"]] = int(mask.sum())
    if layout.length:
        out[ix["length"]] = seats.groupby("game")[measures.length].first().sum()
    if layout.margin:
        pts = seats.pivot(index="game", columns="seat", values=measures.margin).to_numpy(float)
        top2 = -np.sort(-pts, axis=1)[:, :2]
        out[ix["margin"]] = (top2[:, 0] - top2[:, 1]).sum()
    if layout.engagement:
        eng = measures.engagement
        table = result.tables.get(eng.table)
        if table is None or eng.column not in table.columns:
            raise RuntimeError(
                f"the game's play() returned no {eng.table}.{eng.column} (searchable measures)"
            )
        for v in layout.engagement:
            hit = table.loc[table[eng.column] == v, "game"]
            out[ix[f"engaged:{v}"]] = len(np.unique(hit.to_numpy()))
    return out


def _measure_units(
    chunk: Chunk,
    *,
    play: Callable[..., Any],
    scenarios: tuple[Any, ...],
    units: tuple[BUnit, ...],
    players: int,
    games: int,
    layout: Layout,
    measures: Any,
    engine: str | None,
) -> list[np.ndarray]:
    """Chunk task: play the chunk's units; per unit its sums (:func:`reduce_result`)."""
    out = []
    with execution(quiet=True):  # a run of its own inside the task: no checkpoint, no progress
        for t in chunk.trials:
            unit = units[t]
            table = tuple(f"{ROSTER_PREFIX}{m}" for m in unit.table) if unit.roster else unit.table
            res = play(
                scenarios[unit.candidate],
                list(table),
                players=2 if unit.roster else players,
                n=games,
                seed=unit.seed,
                jobs=1,
                rotate_seats=True,
                quiet=True,
                engine=engine,
            )
            out.append(reduce_result(res, unit, layout, measures))
    return out


@dataclass
class Bench:
    """Plays candidates' slices through the runner (the game passed in, never imported)."""

    game: Any
    players: int
    layout: Layout
    measures: Any
    jobs: int | None = 1
    engine: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    mixture: Mixture | None = None  # players drawn per slice (None: the fixed table)
    table: tuple[str, ...] = ()  # the fixed table (default mix cycled to the players)
    roster: tuple[str, ...] = ()  # roster members (pairs played on every slice)
    tables: bool = True  # play the players' tables
    games_played: int = 0

    @property
    def slice_games(self) -> int:
        return slice_games(self.players)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        r = self.roster
        return [(r[i], r[j]) for i in range(len(r)) for j in range(i + 1, len(r))]

    @property
    def per_slice(self) -> int:
        """Games one candidate plays per slice."""
        return self.slice_games * (int(self.tables) + len(self.pairs))

    def slice_units(
        self, candidate: int, entropy: int, j: int, mixture: Mixture | None = None
    ) -> list[BUnit]:
        units = []
        s = self.slice_games
        if self.tables:
            mix = mixture if mixture is not None else self.mixture
            table = (
                draw_seats(mix, self.players, slice_block(entropy, j, s).rng("sample"))
                if mix is not None
                else self.table
            )
            units.append(BUnit(candidate, table, slice_seed(entropy, j), False))
        for p, pair in enumerate(self.pairs):
            units.append(BUnit(candidate, pair, derive_seed(entropy, "roster-pair", j, p), True))
        return units

    def run(
        self,
        scenarios: Sequence[Any],
        plan_: Sequence[tuple[int, int, int, Mixture | None]],
        entropy: int,
        desc: str,
    ) -> list[np.ndarray]:
        """Play every ``(candidate, lo, hi, mixture)`` of ``plan_`` (slices ``lo..hi-1`` of
        ``entropy``) in one run; per item an array ``(hi - lo, len(layout))`` of slice sums."""
        units: list[BUnit] = []
        per_slice: list[int] = []  # units of each slice, in plan order
        for cand, lo, hi, mix in plan_:
            for j in range(lo, hi):
                u = self.slice_units(cand, entropy, j, mix)
                units += u
                per_slice.append(len(u))
        if not units:
            return [np.zeros((0, len(self.layout))) for _ in plan_]
        task = functools.partial(
            _measure_units,
            play=self.game.play,
            scenarios=tuple(scenarios),
            units=tuple(units),
            players=self.players,
            games=self.slice_games,
            layout=self.layout,
            measures=self.measures,
            engine=self.engine,
        )
        run = run_chunks(
            task,
            len(units),
            seed=entropy,
            chunk_size=None,
            n_jobs=self.jobs,
            quiet=True,
            desc=desc,
            manifest={**self.manifest, "stage": desc},
        )
        flat = [a for chunk in run.results for a in chunk]
        self.games_played += len(units) * self.slice_games
        ends = np.cumsum([0, *per_slice])
        slices = [np.sum(flat[a:b], axis=0) for a, b in itertools.pairwise(ends)]
        out, k = [], 0
        for _cand, lo, hi, _mix in plan_:
            out.append(np.asarray(slices[k : k + hi - lo]).reshape(hi - lo, len(self.layout)))
            k += hi - lo
        return out


# --------------------------------------------------------------------------------------------
# The search space


def search_keys(searchable: Searchable, params: Sequence[str] | None) -> dict[str, ParamDecl]:
    """The keys a search changes and their ranges: every declared key (``params`` None or
    empty), or those ``--param KEY[=LO..HI]`` names (a range narrowed inside the declared
    one). Undeclared keys and values outside the declared range are refused in one line."""
    declared = searchable.params
    if not params:
        return dict(declared)
    out: dict[str, ParamDecl] = {}
    for spec in params:
        key, sep, rng = str(spec).partition("=")
        key = key.strip()
        if key not in declared:
            raise UserError(f"--param {spec}: " + unknown_key_message(key, declared))
        if key in out:
            raise UserError(f"--param {key}: given twice (allowed: each key once)")
        decl = declared[key]
        if not sep:
            out[key] = decl
            continue
        lo_s, dots, hi_s = rng.partition("..")
        if not dots:
            raise UserError(
                f"--param {spec}: {rng!r} is not a range (allowed: {key}=LO..HI within "
                f"{decl.bounds()})"
            )
        try:
            lo, hi = (_number(v, decl.type) for v in (lo_s, hi_s))
            out[key] = narrowed(decl, key, lo, hi)
        except (ValueError, ScenarioError) as exc:
            problem = exc.problem if isinstance(exc, ScenarioError) else str(exc)
            raise UserError(f"--param {spec}: {problem}") from None
    return out


def _number(text: str, kind: str) -> Value:
    text = text.strip()
    try:
        return int(text) if kind == "int" and text.lstrip("+-").isdigit() else float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


# --------------------------------------------------------------------------------------------
# Bootstrap and validation


def bootstrap_losses(
    targets: Sequence[Target],
    layout: Layout,
    base: np.ndarray,
    cand: np.ndarray | None,
    rng: np.random.Generator,
    reps: int = BOOTSTRAP,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Replicates of the targets' losses on slices resampled with replacement, the same slices
    for base and candidate (paired): ``(reps, T)`` for the base, the candidate and base -
    candidate (None without a candidate)."""
    n = base.shape[0]
    b_parts, c_parts = [], []
    step = max(1, 2_000_000 // max(n, 1))  # replicates at a time (memory flat in n)
    for start in range(0, reps, step):
        size = min(step, reps - start)
        counts = np.zeros((size, n))
        np.add.at(counts, (np.arange(size)[:, None], rng.integers(0, n, size=(size, n))), 1.0)
        b_parts.append(losses(targets, layout, counts @ base))
        if cand is not None:
            c_parts.append(losses(targets, layout, counts @ cand))
    b = np.concatenate(b_parts)
    if cand is None:
        return b, None, None
    c = np.concatenate(c_parts)
    return b, c, b - c


def interval(values: np.ndarray) -> list[float]:
    """The 95 % percentile interval of bootstrap replicates (NaN-free, else [nan, nan])."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return [math.nan, math.nan]
    lo, hi = np.percentile(v, [2.5, 97.5])
    return [float(lo), float(hi)]


def headline(layout: Layout, population: bool) -> list[str]:
    """The metrics the validation tests (strategies' own only without a population: drawn
    seats do not pair a strategy's games)."""
    names = list(metric_values(layout, np.zeros(len(layout))))
    if population:
        names = [n for n in names if not n.startswith("win-rate:")]
    return names


def sequential(
    metrics: Sequence[str],
    layout: Layout,
    base: np.ndarray,
    played: Callable[[int, int], np.ndarray],
    slices: int,
) -> tuple[SequentialComparison, np.ndarray]:
    """Compare's sequential test, a slice per unit, on every metric: ``played(lo, hi)`` plays
    the candidate's slices ``lo..hi-1`` (paired with ``base``'s rows) at each look until the
    test stops. Returns the test and the candidate's rows played."""
    cmp = SequentialComparison(list(metrics), max_n=slices, looks=LOOKS, min_units=MIN_UNITS)
    rows = np.zeros((0, len(layout)))
    base_metrics = metric_values(layout, base)
    while not cmp.should_stop():
        lo, hi = cmp.done, cmp.next_size()
        rows = np.concatenate([rows, played(lo, hi)])
        cand_metrics = metric_values(layout, rows[lo:hi])
        cmp.add_look({m: (base_metrics[m][lo:hi], cand_metrics[m]) for m in metrics})
    return cmp, rows


# --------------------------------------------------------------------------------------------
# The search


@dataclass
class BalanceResult:
    """What a balance search found and how it validated (``summary()`` is the JSON)."""

    game: str
    players: int
    population: str | None
    resolved: bool
    entropy: int
    budget: int
    games: dict[str, int]
    targets: list[Target]
    space: dict[str, ParamDecl]
    base_values: dict[str, Value]
    base: dict[str, dict[str, Any]]
    candidates: list[dict[str, Any]]
    history: pd.DataFrame
    before_after: pd.DataFrame
    schedule: Schedule
    note: str | None
    searchable: Searchable
    provenance: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "population": self.population,
            "resolved": self.resolved,
            "seed": str(self.entropy),
            "budget": self.budget,
            "games": dict(self.games),
            "base": self.base,
            "candidates": self.candidates,
            "note": self.note,
            "provenance": self.provenance,
        }

    def candidate_rows(self) -> list[dict[str, Any]]:
        """One row per (kept candidate, target): base and validated value with its interval, the
        improvement with its interval, and the changed numbers in words (the command's table and
        the Python API's ``candidates``)."""
        return [
            {
                "candidate": k,
                "target": name,
                "base": self.base[name]["value"],
                "value": t["value"],
                "ci95_low": t["ci95"][0],
                "ci95_high": t["ci95"][1],
                "improvement": t["improvement"],
                "improvement_low": t["improvement_ci95"][0],
                "improvement_high": t["improvement_ci95"][1],
                "params": ", ".join(f"{p}={v}" for p, v in cand["params"].items()),
            }
            for k, cand in enumerate(self.candidates, start=1)
            for name, t in cand["targets"].items()
        ]


def _inside(decl: ParamDecl, value: Value) -> bool:
    """``value`` lies in ``decl``'s (possibly narrowed) range or choices."""
    if decl.range is not None:
        return decl.range[0] <= value <= decl.range[1]
    return value in (decl.choices if decl.type == "choice" else (False, True))


def _pareto_ranks(values: np.ndarray) -> np.ndarray:
    """Non-dominated sorting of rows (minimised): 0 for the first front, 1 for the next..."""
    n = len(values)
    rank = np.full(n, -1)
    left = set(range(n))
    r = 0
    while left:
        front = [
            i
            for i in left
            if not any(
                np.all(values[j] <= values[i]) and np.any(values[j] < values[i])
                for j in left
                if j != i
            )
        ]
        for i in front:
            rank[i] = r
            left.discard(i)
        r += 1
    return rank


def _order(values: Mapping[int, np.ndarray]) -> list[int]:
    """Trials best first: one target by loss; several by Pareto rank, then the sum of losses
    (ties by trial number)."""
    trials = sorted(values)
    mat = np.array([values[t] for t in trials])
    if mat.shape[1] == 1:
        return sorted(trials, key=lambda t: (float(values[t][0]), t))
    rank = dict(zip(trials, _pareto_ranks(mat)))
    return sorted(trials, key=lambda t: (rank[t], float(values[t].sum()), t))


@dataclass
class _Setup:
    """What a balance search plays, checked before any game."""

    searchable: Searchable
    space: dict[str, ParamDecl]
    players: int
    mixture: Mixture | None  # seats drawn per slice (a population), else the fixed table
    table: tuple[str, ...]
    strategies: tuple[str, ...]  # the strategies whose scores are recorded
    needs_roster: bool
    needs_tables: bool
    hook: Callable[..., Any] | None  # the game's balance_roster


def _setup(
    game: Any,
    scenario: Any,
    targets: Sequence[Target],
    params: Sequence[str] | None,
    players: int | None,
    population: Any,
    resolve: bool,
) -> _Setup:
    """Check the request (one line for each mistake) and say what will be played."""
    check_game(game)
    if not targets:
        raise UserError("--target: at least one target (allowed: " + ", ".join(TARGETS) + ")")
    names = {t.name for t in targets}
    if len(names) != len(targets):
        raise UserError("--target: each target may be given once")
    if resolve and population is None:
        raise UserError(
            "--resolve re-solves a population's equilibrium under each candidate's rules "
            "(allowed: with --population NAME)"
        )
    try:
        searchable = load_searchable(scenario)
    except ScenarioError as exc:
        raise UserError(str(exc)) from None
    space = search_keys(searchable, params)
    players = resolve_players(game, scenario, players)
    if population is not None and population.players != players:
        raise UserError(
            f"--players {players}: the population was measured at {population.players} players "
            f"(allowed: {population.players})"
        )
    if population is not None:
        mixture = Mixture.from_weights(population.mixture())
        table: tuple[str, ...] = ()
        strategies = tuple(population.names)
    else:
        mixture = None
        mix = list(game.default_mix(scenario))
        table = tuple(mix[i % len(mix)] for i in range(players))
        strategies = tuple(dict.fromkeys(table))
    if len(strategies) < 2:  # a mirror: a strategy's own score is its share, always
        if "strategy-spread" in names:
            raise UserError(
                f"--target strategy-spread: one strategy at the table ({strategies[0]}) has "
                "nothing to be spread against (allowed: a default mix or population of two or "
                "more)"
            )
        strategies = ()
    measures = searchable.measures
    for name, present, what, key in (
        ("game-length", measures.length, "no game length", "length"),
        ("closeness", measures.margin, "no points for a margin", "margin"),
        ("pirate-engagement", measures.engagement, "no engagement to count", "engagement"),
    ):
        if name in names and not present:
            raise UserError(
                f"--target {name}: {scenario.game} declares {what} "
                f"(measures.{key} in {searchable.path})"
            )
    hook = getattr(game, "balance_roster", None)
    needs_roster = any(TARGETS[t.name].roster for t in targets)
    if needs_roster and hook is None:
        raise UserError(
            f"--target nation-spread: {scenario.game} has no roster of nations "
            "(allowed: a game whose api offers balance_roster, e.g. express)"
        )
    return _Setup(
        searchable=searchable,
        space=space,
        players=players,
        mixture=mixture,
        table=table,
        strategies=strategies,
        needs_roster=needs_roster,
        needs_tables=any(not TARGETS[t.name].roster for t in targets),
        hook=hook,
    )


@dataclass
class _Finalist:
    """A candidate that finished the top rung: its values, losses and slice sums there."""

    values: dict[str, Value]
    loss: np.ndarray
    sums: np.ndarray


def _search(
    bench: Bench,
    schedule: Schedule,
    targets: Sequence[Target],
    space: Mapping[str, ParamDecl],
    base_values: Mapping[str, Value],
    base_scen: Any,
    make: Callable[[Mapping[str, Value], str], Any],
    entropy: int,
    on_progress: Callable[[int, int, float], None] | None,
) -> tuple[np.ndarray, dict[int, _Finalist], list[dict[str, Any]], int]:
    """The optimiser's batches raced by successive halving (module docstring).

    Returns the base's losses on the top rung, the finalists by trial, the history rows and the
    number of candidates asked."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    layout = bench.layout
    multi = len(targets) > 1
    dists = {k: distribution(d) for k, d in space.items()}
    sampler_seed = derive_seed(entropy, "search") % 2**32
    if multi:
        sampler = optuna.samplers.NSGAIISampler(seed=sampler_seed, population_size=BATCH)
        study = optuna.create_study(directions=["minimize"] * len(targets), sampler=sampler)
    else:
        sampler = optuna.samplers.TPESampler(
            seed=sampler_seed, multivariate=True, constant_liar=True, n_startup_trials=BATCH
        )
        study = optuna.create_study(direction="minimize", sampler=sampler)
    rows: list[dict[str, Any]] = []

    def record(trial, batch, rung, sums, values, kept, source) -> np.ndarray:
        loss = losses(targets, layout, sums.sum(axis=0))
        rows.append(
            {
                "trial": trial,
                "rung": rung,
                "batch": batch,
                "source": source,
                "slices": len(sums),
                "games": len(sums) * bench.per_slice,
                **{f"loss.{t.name}": float(v) for t, v in zip(targets, loss)},
                "kept": kept,
                **{f"param.{k}": v for k, v in values.items()},
            }
        )
        return np.asarray(loss, dtype=float)

    def told(loss: np.ndarray) -> Any:
        v = [float(x) for x in loss]
        return v if multi else v[0]

    top = schedule.top_slices
    base_sums = bench.run([base_scen], [(0, 0, top, None)], entropy, "base")[0]
    base_loss = record(0, 0, RUNGS - 1, base_sums, base_values, True, "base")
    if all(_inside(space[k], v) for k, v in base_values.items()):
        study.add_trial(
            optuna.trial.create_trial(
                params=dict(base_values),
                distributions=dists,
                **({"values": told(base_loss)} if multi else {"value": told(base_loss)}),
            )
        )
    finalists: dict[int, _Finalist] = {}

    def progress() -> None:
        if on_progress is not None:
            best = min([float(base_loss[0])] + [float(f.loss[0]) for f in finalists.values()])
            on_progress(bench.games_played, schedule.search_games, best)

    progress()
    asked_in_all = 0
    for batch in range(1, schedule.batches + 1):
        asked = [study.ask(dists) for _ in range(BATCH)]
        values: dict[int, dict[str, Value]] = {}
        scens: dict[int, Any] = {}
        refused: dict[int, str] = {}
        for t in asked:
            asked_in_all += 1
            tid = asked_in_all  # our trial numbers: the base is 0
            values[tid] = {k: t.params[k] for k in space}
            try:
                scens[tid] = make(values[tid], f"balance trial {tid}")
            except (ScenarioError, UserError) as exc:
                refused[tid] = str(exc)
                rows.append(
                    {"trial": tid, "rung": 0, "batch": batch, "source": f"refused: {exc}",
                     "slices": 0, "games": 0, "kept": False,
                     **{f"param.{k}": v for k, v in values[tid].items()}}
                )  # fmt: skip
        active = list(scens)
        sums = {tid: np.zeros((0, len(layout))) for tid in active}
        final: dict[int, np.ndarray] = {}
        for rung in range(RUNGS):
            if not active:
                break
            lo, hi = schedule.rung_slices(rung)
            new = bench.run(
                [scens[t] for t in active],
                [(i, lo, hi, None) for i in range(len(active))],
                entropy,
                f"batch {batch} rung {rung}",
            )
            for t, arr in zip(active, new):
                sums[t] = np.concatenate([sums[t], arr])
            ranked = _order({t: losses(targets, layout, sums[t].sum(axis=0)) for t in active})
            keep = ranked[: max(1, len(active) // 2)] if rung < RUNGS - 1 else ranked[:1]
            for t in active:
                final[t] = record(t, batch, rung, sums[t], values[t], t in keep, "optimiser")
                if rung == RUNGS - 1:
                    finalists[t] = _Finalist(values[t], final[t], sums[t])
            active = keep if rung < RUNGS - 1 else []
            progress()
        first = asked_in_all - len(asked) + 1
        for tid, t in enumerate(asked, start=first):  # in trial order: a seed replays the search
            if tid in refused:
                study.tell(t, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(t, told(final[tid]))
    return base_loss, finalists, rows, asked_in_all


def _kept(base_loss: np.ndarray, finalists: Mapping[int, _Finalist], multi: bool) -> list[int]:
    """The finalists kept for validation (module docstring), best first on the top rung; the
    same values twice are kept once."""
    pool = {0: base_loss, **{t: f.loss for t, f in finalists.items()}}
    order = _order(pool)
    if multi:
        mat = np.array([pool[t] for t in order])
        front = [t for t, r in zip(order, _pareto_ranks(mat)) if r == 0]
        kept = [t for t in front if t != 0 and not np.all(pool[t] >= base_loss)]
        kept.sort(key=lambda t: (float(pool[t][0]), t))
    else:
        kept = [t for t in order if t != 0 and pool[t][0] < base_loss[0]]
    seen: list[dict[str, Value]] = []
    unique = []
    for t in kept:
        if finalists[t].values not in seen:
            seen.append(finalists[t].values)
            unique.append(t)
    return unique[: (KEEP_PARETO if multi else KEEP)]


def _validate(
    k: int,
    trial: int,
    finalist: _Finalist,
    changed: Mapping[str, Value],
    scen: Any,
    mixture: Mixture | None,
    resolved: Mapping[str, Any],
    targets: Sequence[Target],
    vbench: Bench,
    base_v: np.ndarray,
    metrics: Sequence[str],
    slices: int,
    entropy: int,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Kept candidate ``k`` against the base on the fresh slices (module docstring): its JSON
    entry and its before/after rows."""
    layout = vbench.layout
    ventropy = derive_seed(entropy, "validation")

    def played(lo: int, hi: int) -> np.ndarray:
        return vbench.run([scen], [(0, lo, hi, mixture)], ventropy, f"validation {k}")[0]

    cmp, cand_v = sequential(metrics, layout, base_v, played, slices)
    n = len(cand_v)
    rng = np.random.default_rng(derive_seed(entropy, "bootstrap", k))
    _, c, d = bootstrap_losses(targets, layout, base_v[:n], cand_v, rng)
    point_b = losses(targets, layout, base_v[:n].sum(axis=0))
    point_c = losses(targets, layout, cand_v.sum(axis=0))
    results = cmp.results()
    mb = metric_values(layout, base_v[:n].sum(axis=0))
    mc = metric_values(layout, cand_v.sum(axis=0))
    rows = [
        {
            "candidate": k,
            "metric": r["name"],
            "base": float(mb[r["name"]]),
            "candidate_value": float(mc[r["name"]]),
            "difference": r["difference"],
            "ci95_low": r["ci95"][0],
            "ci95_high": r["ci95"][1],
            "p_holm": r["p_holm"],
            "decided": r["decided"],
        }
        for r in results
    ]
    tgt = {}
    for i, tg in enumerate(targets):
        gain = interval(d[:, i])
        tgt[tg.name] = {
            "value": float(point_c[i]),
            "ci95": interval(c[:, i]),
            "improvement": float(point_b[i] - point_c[i]),
            "improvement_ci95": gain,
        }
        rows.append(
            {
                "candidate": k,
                "metric": f"target:{tg.name}",
                "base": float(point_b[i]),
                "candidate_value": float(point_c[i]),
                "difference": float(point_c[i] - point_b[i]),
                "ci95_low": -gain[1],
                "ci95_high": -gain[0],
                "p_holm": math.nan,
                "decided": bool(gain[0] > 0 or gain[1] < 0),
            }
        )
    entry = {
        "overlay": None,  # the command names the file it writes
        "params": dict(changed),
        "targets": tgt,
        "side_effects": {
            r["name"]: {"difference": r["difference"], "ci95": r["ci95"]} for r in results
        },
        "validation": {
            "slices": n,
            "games": n * vbench.per_slice,
            "unit": f"slice ({vbench.per_slice} games)",
            "method": "paired slices on fresh seeds; compare's sequential test (group-sequential, "
            "O'Brien-Fleming spending, Holm) on every metric; targets by a "
            f"{BOOTSTRAP}-replicate percentile bootstrap over the slices",
            "looks_at_slices": cmp.sizes,
            "stopped_early": n < cmp.max_n,
            "decided": [r["name"] for r in results if r["decided"]],
            "p_holm": {r["name"]: r["p_holm"] for r in results},
            "search_trial": trial,
            "search_value": {tg.name: float(finalist.loss[i]) for i, tg in enumerate(targets)},
            **({"resolved": dict(resolved)} if resolved else {}),
        },
    }
    return entry, rows


def balance(
    game: Any,
    scenario: Any,
    *,
    targets: Sequence[Target],
    budget: int,
    params: Sequence[str] | None = None,
    players: int | None = None,
    population: Any = None,
    population_name: str | None = None,
    resolve: bool = False,
    seed: int | None = None,
    jobs: int | None = 1,
    validation_games: int | None = None,
    engine: str | None = None,
    on_progress: Callable[[int, int, float], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> BalanceResult:
    """Search ``scenario``'s searchable numbers for the rules that best meet ``targets``.

    Args:
        game: a module speaking the protocol (and, for ``nation-spread``, ``balance_roster``).
        scenario: its loaded scenario (with ``population``: the population's scenario).
        targets: parsed targets (several: a Pareto set).
        budget: games the search may play (resolving and validation are counted apart).
        params: ``--param`` specs (None: every declared key).
        population: a loaded :class:`scenarios.populations.Population` (seats drawn from its
            equilibrium), or None for the default mix.
        resolve: solve the population's equilibrium again under each kept candidate's rules.
        validation_games: fresh games per candidate (default: a quarter of the budget).

    Returns:
        A :class:`BalanceResult`.
    """
    setup = _setup(game, scenario, targets, params, players, population, resolve)
    searchable, space, players = setup.searchable, setup.space, setup.players
    manifest = {
        "search": "balance",
        "targets": [t.spec for t in targets],
        "params": {k: list(d.range) if d.range else list(d.choices) for k, d in space.items()},
        "players": players,
        "population": population_name,
        "resolve": resolve,
        "budget": budget,
        "scenario_hash": scenario.content_hash,
    }
    entropy = root_entropy(seed, manifest)
    games = {"search": 0, "resolve": 0, "validation": 0}
    hook = setup.hook
    roster_base: dict[str, Any] = {}
    if setup.needs_roster:  # strong play's fleets under the base rules, kept where legal
        roster_base, used = hook(
            scenario, seed=derive_seed(entropy, "roster"), jobs=jobs, effort=ROSTER_EFFORT
        )
        games["resolve"] += used
    measures = searchable.measures
    layout = Layout(
        players=players,
        strategies=setup.strategies,
        length=bool(measures.length),
        margin=bool(measures.margin),
        engagement=tuple(measures.engagement.values) if measures.engagement else (),
        roster=tuple(roster_base),
    )
    bench = Bench(
        game,
        players,
        layout,
        measures,
        jobs=jobs,
        engine=engine,
        manifest=manifest,
        mixture=setup.mixture,
        table=setup.table,
        roster=tuple(roster_base),
        tables=setup.needs_tables,
    )
    schedule = plan(budget, players, validation_games, starts=1, slice_size=bench.per_slice)
    v_slices = max(
        MIN_UNITS,
        schedule.validation_slices
        if validation_games is None
        else -(-validation_games // bench.per_slice),
    )

    def with_roster(scen: Any, decls: Mapping[str, Any]) -> Any:
        if not decls:
            return scen
        return with_strategies(scen, {f"{ROSTER_PREFIX}{m}": d for m, d in decls.items()})

    def changes(values: Mapping[str, Value]) -> dict[str, Value]:
        return {k: v for k, v in values.items() if v != searchable.base.get(k)}

    def make(values: Mapping[str, Value], label: str) -> Any:
        changed = changes(values)
        scen = apply_values(scenario, changed, label) if changed else scenario
        if setup.needs_roster:
            decls, _ = hook(scen, seed=0, jobs=jobs, effort=0, start=roster_base)
            scen = with_roster(scen, decls)
        return scen

    base_values = {k: searchable.base[k] for k in space}
    base_scen = make(base_values, "")
    multi = len(targets) > 1
    base_loss, finalists, rows, asked = _search(
        bench, schedule, targets, space, base_values, base_scen, make, entropy, on_progress
    )
    games["search"] = bench.games_played
    kept = _kept(base_loss, finalists, multi)
    note = None
    if not kept:
        note = (
            "no candidate beat the base rules on the search's top rung "
            f"({len(finalists)} finalists of {asked} candidates): the base is the best found"
        )
    if on_note is not None:
        on_note(f"balance: search done ({games['search']:,} games); validating {len(kept)}")

    # validation on fresh slices (never the search's), the base played once for all
    vbench = dataclasses.replace(bench, tables=True, games_played=0)
    ventropy = derive_seed(entropy, "validation")
    base_v = vbench.run([base_scen], [(0, 0, v_slices, None)], ventropy, "validation base")[0]
    b_reps, _, _ = bootstrap_losses(
        targets, layout, base_v, None, np.random.default_rng(derive_seed(entropy, "bootstrap", 0))
    )
    base_point = losses(targets, layout, base_v.sum(axis=0))
    base_out = {
        t.name: {"value": float(base_point[i]), "ci95": interval(b_reps[:, i])}
        for i, t in enumerate(targets)
    }
    metrics = headline(layout, population is not None)
    candidates, ba_rows = [], []
    for k, t in enumerate(kept, start=1):
        changed = changes(finalists[t].values)
        scen = apply_values(scenario, changed, f"balance trial {t}")
        resolved: dict[str, Any] = {}
        mixture = setup.mixture
        if setup.needs_roster:  # strong play's fleets under the candidate's rules, found by the
            # base's race on the same seeds (the same fleets sampled, the same dice): paired
            decls, used = hook(
                scen, seed=derive_seed(entropy, "roster"), jobs=jobs, effort=ROSTER_EFFORT
            )
            games["resolve"] += used
            scen = with_roster(scen, decls)
            resolved["roster"] = {m: _roster_text(d) for m, d in decls.items()}
        if resolve:
            mixture, info, used = _resolve_population(
                game, scen, population, players, v_slices, derive_seed(entropy, "resolve", k),
                bench,
            )  # fmt: skip
            games["resolve"] += used
            resolved["equilibrium"] = info
        entry, rows_k = _validate(
            k, t, finalists[t], changed, scen, mixture, resolved, targets, vbench, base_v,
            metrics, v_slices, entropy,
        )  # fmt: skip
        candidates.append(entry)
        ba_rows += rows_k
    games["validation"] = vbench.games_played
    first = targets[0].name
    order = sorted(
        range(len(candidates)),
        key=lambda i: (candidates[i]["targets"][first]["value"], i),
    )
    number = {old + 1: new + 1 for new, old in enumerate(order)}  # validated best first
    candidates = [candidates[i] for i in order]
    for row in ba_rows:
        row["candidate"] = number[row["candidate"]]
    ba_rows.sort(key=lambda r: r["candidate"])
    import optuna

    provenance = {
        **scenario.provenance(),
        "seed": str(entropy),
        "engine": engine or "default",
        "targets": [t.spec for t in targets],
        "searched": {
            k: {
                "type": d.type,
                "range": list(d.range) if d.range else list(d.choices),
                "base": base_values[k],
            }
            for k, d in space.items()
        },
        "searchable_file": searchable.path,
        "players_at_table": list(setup.table) if setup.mixture is None else setup.mixture.as_dict(),
        "roster": {m: _roster_text(d) for m, d in roster_base.items()},
        "optimiser": f"{OPTIMISERS[2 if multi else 1]} (optuna {optuna.__version__})",
        "schedule": {
            "batches": schedule.batches,
            "candidates": asked,
            "slice_games": bench.per_slice,
            "rung_slices": [schedule.rung_slices(r)[1] for r in range(RUNGS)],
            "validation_slices": v_slices,
        },
        "base_search_value": {t.name: float(base_loss[i]) for i, t in enumerate(targets)},
    }
    return BalanceResult(
        game=scenario.game,
        players=players,
        population=population_name,
        resolved=resolve,
        entropy=entropy,
        budget=budget,
        games=games,
        targets=list(targets),
        space=space,
        base_values=base_values,
        base=base_out,
        candidates=candidates,
        history=pd.DataFrame(rows),
        before_after=pd.DataFrame(ba_rows, columns=BEFORE_AFTER_COLUMNS),
        schedule=schedule,
        note=note,
        searchable=searchable,
        provenance=provenance,
    )


#: the columns of before_after.csv (key candidate, metric)
BEFORE_AFTER_COLUMNS = (
    "candidate", "metric", "base", "candidate_value", "difference", "ci95_low", "ci95_high",
    "p_holm", "decided",
)  # fmt: skip


def write_run(
    result: BalanceResult,
    scenario: Any,
    out_dir: Any,
    *,
    command: str,
    stem: str = "candidate",
    tables: bool = True,
    figure: Callable[[dict[str, Any], Any], Any] | None = None,
) -> dict[str, Any]:
    """Write a balance run: each kept candidate's overlay ``STEM-K.toml`` (extending
    ``scenario``, the rules the search started from, with its content hash), and with
    ``tables`` ``history`` and ``before_after`` (CSV + Parquet), ``summary.json`` and, given a
    ``figure`` function (only ``reports/`` plots), ``before_after.png``. Returns the JSON
    summary (``schema_version`` first, each candidate's ``overlay`` its file's name)."""
    from pathlib import Path

    from scenarios.loader import ScenarioError
    from scenarios.overlays import base_reference
    from scenarios.searchable import overlay_text
    from simulator.output import SCHEMA_VERSION, dumps, write_table, write_text

    out_dir = Path(out_dir)
    try:
        base_ref = base_reference(scenario.path, out_dir, scenario.game)
    except ScenarioError as exc:
        raise UserError(str(exc)) from None
    for k, cand in enumerate(result.candidates, start=1):
        path = out_dir / f"{stem}-{k}.toml"
        header = (
            f"written by: {command}\nseed: {result.entropy}; base scenario {scenario.name} "
            f"(hash {scenario.content_hash}); candidate {k} of {len(result.candidates)}, "
            f"validated on {cand['validation']['games']:,} fresh games\n"
            f"use with --scenario {path}"
        )
        text = overlay_text(
            scenario,
            base_ref,
            cand["params"],
            name=f"{scenario.name} + balance candidate {k}",
            header=header,
        )
        write_text(path, text)
        cand["overlay"] = path.name
    summary = {"schema_version": SCHEMA_VERSION, **result.summary()}
    summary["provenance"] = {**summary["provenance"], **scenario.provenance(), "command": command}
    if tables:
        write_table(result.history, out_dir, "history", key=("trial", "rung"))
        write_table(result.before_after, out_dir, "before_after", key=("candidate", "metric"))
        write_text(out_dir / "summary.json", dumps(summary) + "\n")
        if figure is not None and result.candidates:
            figure(summary, out_dir / "before_after.png")
    return summary


def _roster_text(decl: Any) -> str:
    """A roster member as one line (its seat fields: Pirates express's nation and fleet)."""
    from scenarios.strategies import seat_fields

    extra = seat_fields(decl)
    return " ".join([decl.kind, *(f"{k}={v}" for k, v in extra.items())])


def _resolve_population(
    game: Any,
    scenario: Any,
    population: Any,
    players: int,
    slices: int,
    entropy: int,
    bench: Bench,
) -> tuple[Mixture, dict[str, Any], int]:
    """The population's equilibrium under ``scenario``'s rules: its payoff table measured on
    ``slices`` slices per table (seeds of ``entropy``), solved and checked by its Nash gap."""
    from simulator.metagame import NoEquilibriumFound, equilibrium, measure
    from simulator.search import Player

    player = Player(game, scenario, players, jobs=bench.jobs, manifest=dict(bench.manifest),
                    engine=bench.engine)  # fmt: skip
    names = list(population.names)
    table = measure(
        player,
        names,
        games_per_table=slices * player.games,
        entropy=entropy,
        desc="resolve payoff table",
    )
    try:
        eq = equilibrium(table, np.random.default_rng(derive_seed(entropy, "equilibrium")))
    except NoEquilibriumFound as exc:
        raise UserError(f"--resolve: {exc}") from None
    weights = {n: float(w) for n, w in zip(names, eq.sigma)}
    info = {
        "weights": weights,
        "nash_gap": float(eq.nash_gap),
        "games_per_table": table.games_per_table,
    }
    return Mixture.from_weights(weights), info, player.games_played
