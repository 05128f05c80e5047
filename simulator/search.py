"""Strategy search over the game protocol: tune a kind's parameters against a field.

The game is passed in (a module speaking :mod:`simulator.protocol`); this module never imports a
game. What a search does (see ``docs/search.md``):

* **Slices.** Games are played in *slices* of :func:`slice_games` games (a multiple of the number
  of players, seats rotated inside the slice so every strategy sits in every seat equally often).
  Slice ``j`` of a run has a fixed root seed ``derive_seed(entropy, "slice", j)`` and, when the
  opponents are drawn from a mixture, a fixed draw from the runner's ``"sample"`` stream of block
  ``j``. Every candidate meets the same slices: common random numbers.
* **Units.** A unit of work is one strategy table on one slice; a rung of the search is one
  :func:`~simulator.runner.run_chunks` call over its units, so ``--jobs``, ``--backend dask``,
  ``--out``/``--resume`` and progress work as for every other run, and results never depend on
  the worker count (the units' seeds are fixed before dispatch).
* **Optimiser.** optuna's TPE sampler (ask/tell, seeded from the search's own ``"search"`` seed)
  proposes a batch of :data:`BATCH` candidates; successive halving (:data:`RUNGS` rungs, the best
  half goes on with twice the games) spends few games on weak ones; the batch's values are told
  back in trial order. KIND's defaults are evaluated first and told as trial 0, then every
  hand-written strategy of KIND in the scenario whose parameters differ from the defaults (the
  *starting points*, trials 1, 2, ... in name order; a tuned strategy of an overlay too), each
  on every slice of the top rung, so a search never reports worse than the defaults or a
  strategy of its kind on its own seeds; their games count in the budget.
* **Validation.** The winner and KIND's defaults are played afresh on the slices of
  ``derive_seed(entropy, "validation")`` (never used by the search: no winner's curse); the score,
  the baseline and the paired gain get 95 % intervals from slice means (a slice is the unit of
  resampling, so opponents drawn per slice are accounted for).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from scenarios.loader import FrozenMap
from scenarios.strategies import (
    ParamDecl,
    StrategyDecl,
    TunedInfo,
    resolve_params,
    search_space,
    unknown_name_message,
    with_strategies,
)
from simulator.errors import UserError
from simulator.protocol import PROTOCOL_NAMES
from simulator.runner import Block, Chunk, derive_seed, execution, run_chunks
from simulator.stats import Z95

#: games per slice are the smallest multiple of the player count at or above this
SLICE_TARGET = 32
#: candidates the optimiser proposes at once (one successive-halving bracket)
BATCH = 8
#: rungs of successive halving: 8 candidates, then the best 4, 2 and 1, each with twice the games
RUNGS = 4
#: batches the schedule aims at for a given budget (more budget buys more games per candidate)
TARGET_BATCHES = 24
#: validation games when not given: a quarter of the budget, within these bounds (in slices)
VALIDATION_SLICES = (20, 6250)
#: the prefix of the candidates' strategy names inside a search
CANDIDATE_PREFIX = "search-"
OPTIMISER = "optuna TPESampler(multivariate, constant_liar) + successive halving"


def check_game(game: Any, option: str = "--game") -> None:
    """Refuse a game module that does not speak the protocol (one line naming what is missing)."""
    missing = [n for n in PROTOCOL_NAMES if not hasattr(game, n)]
    if missing:
        raise UserError(
            f"{option} {getattr(game, 'GAME', game.__name__)}: {game.__name__} does not speak "
            f"the game protocol yet (missing: {', '.join(missing)}; see simulator/protocol.py)"
        )


def slice_games(players: int) -> int:
    """Games per slice: the smallest multiple of ``players`` at or above :data:`SLICE_TARGET`."""
    return players * -(-SLICE_TARGET // players)


def slice_seed(entropy: int, j: int) -> int:
    """Root seed of slice ``j`` (the same for every table played on it: common random numbers)."""
    return derive_seed(entropy, "slice", j)


def slice_block(entropy: int, j: int, games: int) -> Block:
    """The runner's block of slice ``j`` (its ``"sample"`` stream draws the slice's seats)."""
    return Block(index=j, start=j * games, size=games, entropy=entropy)


# --------------------------------------------------------------------------------------------
# Mixtures of strategies (a field, an equilibrium)


@dataclass(frozen=True, slots=True)
class Mixture:
    """Strategies with weights (summing to 1): the field a candidate meets, or an equilibrium."""

    names: tuple[str, ...]
    weights: tuple[float, ...]

    @classmethod
    def of(cls, names: Sequence[str]) -> Mixture:
        """Uniform over the entries of ``names`` (a name listed twice weighs twice)."""
        counts: dict[str, int] = {}
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        total = sum(counts.values())
        return cls(tuple(counts), tuple(c / total for c in counts.values()))

    @classmethod
    def from_weights(cls, weights: Mapping[str, float]) -> Mixture:
        items = [(k, float(v)) for k, v in weights.items() if v > 0]
        total = sum(v for _, v in items)
        if not items or not math.isfinite(total):
            raise ValueError("a mixture needs a positive weight")
        return cls(tuple(k for k, _ in items), tuple(v / total for _, v in items))

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.names, self.weights))


def draw_seats(mixture: Mixture, seats: int, rng: np.random.Generator) -> tuple[str, ...]:
    """``seats`` strategies drawn independently from ``mixture`` (a table's seats).

    The draw uses ``rng`` alone (give it a block's ``"sample"`` stream, see :func:`slice_block`).
    """
    idx = rng.choice(len(mixture.names), size=seats, p=np.asarray(mixture.weights))
    return tuple(mixture.names[i] for i in idx)


@dataclass(frozen=True, slots=True)
class Field:
    """The opponents of a tuned candidate: ``players - 1`` seats.

    When the field lists exactly ``players - 1`` names they fill the other seats of every game;
    otherwise each slice's opponents are drawn independently from the field's mixture (a name
    listed twice weighs twice; an equilibrium's weights are used as they are).
    """

    mixture: Mixture
    fixed: tuple[str, ...] | None  # the opponents of every game, when not drawn

    @classmethod
    def of(cls, names: Sequence[str], players: int) -> Field:
        names = tuple(names)
        fixed = names if len(names) == players - 1 else None
        return cls(Mixture.of(names), fixed)

    @classmethod
    def drawn(cls, mixture: Mixture) -> Field:
        return cls(mixture, None)

    def opponents(self, entropy: int, j: int, players: int, games: int) -> tuple[str, ...]:
        """The opponents of slice ``j`` (fixed, or drawn from the slice's ``"sample"`` stream)."""
        if self.fixed is not None:
            return self.fixed
        return draw_seats(self.mixture, players - 1, slice_block(entropy, j, games).rng("sample"))

    def describe(self) -> tuple[str, ...]:
        if self.fixed is not None:
            return self.fixed
        return tuple(f"{n}:{w:.6g}" for n, w in zip(self.mixture.names, self.mixture.weights))


# --------------------------------------------------------------------------------------------
# Playing units through the runner


@dataclass(frozen=True, slots=True)
class Unit:
    """One table of strategies (seat order before rotation) played on one slice."""

    table: tuple[str, ...]
    seed: int


def table_scores(seats: pd.DataFrame, table: Sequence[str], games: int) -> np.ndarray:
    """Per game, each distinct strategy's mean score over its seats: ``(games, distinct)``.

    Columns follow the first appearance of each strategy in ``table``.
    """
    names = list(dict.fromkeys(table))
    counts = np.array([list(table).count(n) for n in names], dtype=float)
    pos = {n: i for i, n in enumerate(names)}
    codes = np.array([pos.get(n, -1) for n in seats["strategy"].tolist()], dtype=np.int64)
    if (codes < 0).any() or len(seats) != games * len(table):
        raise RuntimeError(
            f"play() returned {len(seats)} seats for {games} games of {len(table)} players "
            "with other strategies than asked (protocol violation)"
        )
    sums = np.zeros((games, len(names)))
    np.add.at(sums, (seats["game"].to_numpy(np.int64), codes), seats["score"].to_numpy(float))
    return sums / counts


def _play_units(
    chunk: Chunk,
    *,
    play: Callable[..., Any],
    scenario: Any,
    extra: Mapping[str, Any],
    units: tuple[Unit, ...],
    players: int,
    games: int,
    engine: str | None = None,
) -> list[np.ndarray]:
    """Chunk task: play the chunk's units; per unit the :func:`table_scores` array.

    ``play`` is the game's protocol ``play`` (a module-level function: it pickles by name, so a
    worker process imports the game the usual way)."""
    scen = with_strategies(scenario, extra) if extra else scenario
    out = []
    # a run of its own inside the task: no checkpoint, no progress (the search shows its own)
    with execution(quiet=True):
        for t in chunk.trials:
            unit = units[t]
            res = play(
                scen,
                list(unit.table),
                players=players,
                n=games,
                seed=unit.seed,
                jobs=1,
                rotate_seats=True,
                quiet=True,
                engine=engine,
            )
            out.append(table_scores(res.seats, unit.table, games))
    return out


def _no_trials(chunk: Chunk) -> None:  # pragma: no cover - a run of zero trials calls nothing
    return None


def root_entropy(seed: int | None, manifest: Mapping[str, Any]) -> int:
    """The root entropy of a search or meta-game: a run of zero trials records it, so that a
    resumed command (``--resume DIR`` without ``--seed``) gets the recorded one back."""
    return run_chunks(_no_trials, 0, seed=seed, quiet=True, manifest=dict(manifest)).entropy


@dataclass(slots=True)
class Player:
    """Plays units of one scenario through the runner (the game passed in, never imported)."""

    game: Any
    scenario: Any
    players: int
    jobs: int | None = 1
    extra: dict[str, Any] = field(default_factory=dict)  # strategies added in memory
    manifest: dict[str, Any] = field(default_factory=dict)
    games_played: int = 0
    #: the game's engine (``play(..., engine=...)``: ``None`` its default; never a number's cause:
    #: a game's engines play die for die the same games)
    engine: str | None = None

    @property
    def games(self) -> int:
        return slice_games(self.players)

    def run(self, units: Sequence[Unit], desc: str, entropy: int) -> list[np.ndarray]:
        """Play ``units`` (one ``run_chunks`` call); results in unit order."""
        if not units:
            return []
        task = functools.partial(
            _play_units,
            play=self.game.play,
            scenario=self.scenario,
            extra=FrozenMap(self.extra),
            units=tuple(units),
            players=self.players,
            games=self.games,
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
        self.games_played += len(units) * self.games
        return [a for chunk in run.results for a in chunk]


def against_field(
    player: Player,
    focal: Mapping[str, Any],
    field: Field,
    entropy: int,
    slices: int,
    desc: str = "validation",
) -> dict[str, np.ndarray]:
    """Slice means of each focal strategy at one seat against ``field`` on slices
    ``0..slices-1`` of ``entropy``, paired (every focal strategy meets the same slices).

    ``focal`` maps a label to a declaration added in memory, or to ``None`` for a strategy of
    the scenario named by the label. A focal strategy that is also the opponent scores its
    share over all its seats (1/P against itself).
    """
    s, players = player.games, player.players
    names = {}
    for label, decl in focal.items():
        if decl is None:
            names[label] = label
        else:
            names[label] = f"{CANDIDATE_PREFIX}{label}"
            player.extra[names[label]] = decl
    units = [
        Unit((names[label], *field.opponents(entropy, j, players, s)), slice_seed(entropy, j))
        for label in focal
        for j in range(slices)
    ]
    arrays = player.run(units, desc, entropy)
    return {
        label: np.array([a[:, 0].mean() for a in arrays[i * slices : (i + 1) * slices]])
        for i, label in enumerate(focal)
    }


# --------------------------------------------------------------------------------------------
# The search


@dataclass(frozen=True, slots=True)
class Schedule:
    """How a budget is spent: slices per candidate at rung 0 and the number of batches."""

    slice_games: int
    base_slices: int  # slices of a candidate at rung 0 (rung r: base * 2**r)
    batches: int
    validation_slices: int
    starts: int = 1  # the defaults and the hand-written starting points, each on the top slices

    @property
    def top_slices(self) -> int:
        return self.base_slices * 2 ** (RUNGS - 1)

    def rung_slices(self, rung: int) -> tuple[int, int]:
        """Slices ``[lo, hi)`` played at ``rung`` (a survivor adds the new ones)."""
        hi = self.base_slices * 2**rung
        lo = 0 if rung == 0 else self.base_slices * 2 ** (rung - 1)
        return lo, hi

    @property
    def batch_slices(self) -> int:
        return sum(
            (BATCH >> r) * (self.rung_slices(r)[1] - self.rung_slices(r)[0]) for r in range(RUNGS)
        )

    @property
    def search_games(self) -> int:
        return (self.starts * self.top_slices + self.batches * self.batch_slices) * self.slice_games


def plan(
    budget: int,
    players: int,
    validation_games: int | None = None,
    starts: int = 1,
    slice_size: int | None = None,
) -> Schedule:
    """The schedule of a search of ``budget`` games (refused with one line when too small);
    ``starts``: the defaults plus the hand-written starting points, each played on the top
    rung's slices before the first batch; ``slice_size``: games one candidate plays per slice
    when that is not :func:`slice_games` (a balance search plays several tables per slice)."""
    s = slice_size or slice_games(players)
    per_batch_unit = sum((BATCH >> r) * (1 if r == 0 else 2 ** (r - 1)) for r in range(RUNGS))
    top_unit = 2 ** (RUNGS - 1) * starts
    minimum = (top_unit + per_batch_unit) * s
    if budget < minimum:
        raise UserError(
            f"--budget {budget}: too small for one batch of {BATCH} candidates at "
            f"{players} players"
            + (
                f" after {starts - 1} starting point(s), the kind's strategies"
                if starts > 1
                else ""
            )
            + f" (allowed: at least {minimum} games)"
        )
    slices = budget // s
    base = max(1, slices // (per_batch_unit * TARGET_BATCHES + top_unit))
    batches = (slices - top_unit * base) // (per_batch_unit * base)
    if validation_games is None:
        lo, hi = VALIDATION_SLICES
        v = min(max(lo, -(-budget // 4) // s), hi)
    else:
        if validation_games < s:
            raise UserError(
                f"--validation-games {validation_games}: fewer than one slice "
                f"(allowed: at least {s} games at {players} players)"
            )
        v = -(-validation_games // s)
    return Schedule(
        slice_games=s, base_slices=base, batches=batches, validation_slices=v, starts=starts
    )


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found and how it validated."""

    name: str
    kind: str
    params: dict[str, Any]
    decl: StrategyDecl  # the tuned strategy, with its TunedInfo
    validation: dict[str, Any]
    history: pd.DataFrame
    entropy: int
    players: int
    field: Field
    schedule: Schedule
    games_searched: int
    best_trial: int

    def summary(self) -> dict[str, Any]:
        """The JSON object of ``broadside tune`` (its documented keys first)."""
        keys = ("score", "ci95", "n", "baseline_score", "gain", "gain_ci95")
        return {
            "strategy": self.name,
            "base": self.kind,
            "params": dict(self.params),
            "validation": {k: self.validation[k] for k in keys},
        }


def distribution(decl: ParamDecl):
    """The optuna distribution of a declared parameter (its type, range, scale or choices)."""
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    if decl.type == "float":
        lo, hi = decl.range  # type: ignore[misc]
        return FloatDistribution(float(lo), float(hi), log=decl.log)
    if decl.type == "int":
        lo, hi = decl.range  # type: ignore[misc]
        return IntDistribution(int(lo), int(hi), log=decl.log)
    if decl.type == "bool":
        return CategoricalDistribution((False, True))
    return CategoricalDistribution(tuple(decl.choices))


def _slice_stats(values: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of slice means."""
    n = len(values)
    mean = float(values.mean()) if n else math.nan
    se = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return mean, se


def _interval(mean: float, se: float) -> list[float]:
    return [mean - Z95 * se, mean + Z95 * se]


def check_strategies(game: Any, scenario: Any, names: Sequence[str], option: str) -> None:
    known = game.strategies(scenario)
    for name in names:
        if name not in known:
            raise UserError(f"{option}: " + unknown_name_message("strategy", name, known))


def resolve_players(game: Any, scenario: Any, players: int | None) -> int:
    allowed = tuple(game.player_counts(scenario))
    if players is None:
        players = len(game.default_mix(scenario))
    if players not in allowed:
        raise UserError(
            f"--players {players}: not possible with this scenario "
            f"(allowed: {', '.join(map(str, allowed))})"
        )
    return players


def tune(
    game: Any,
    scenario: Any,
    kind: str,
    *,
    budget: int,
    field: Field | None = None,
    players: int | None = None,
    seed: int | None = None,
    jobs: int | None = 1,
    quiet: bool = True,
    validation_games: int | None = None,
    name: str | None = None,
    command: str = "",
    extra: Mapping[str, Any] | None = None,
    on_progress: Callable[[int, int, float], None] | None = None,
    engine: str | None = None,
) -> TuneResult:
    """Search ``kind``'s parameter space for the best mean score against ``field``.

    Args:
        game: a module speaking the protocol. scenario: its loaded scenario.
        kind: a kind declared by the scenario (its non-fixed parameters are searched).
        budget: games the search may spend (validation comes on top).
        field: the opponents (default: the game's default mix).
        players: table size (default: the default mix's length).
        seed: root seed (``None``: fresh entropy, or the one recorded by a resumed run).
        extra: strategies added in memory (e.g. a meta-game's best responses) the field may name.
        on_progress: ``f(games_done, games_total, best_score)`` after every rung.
        engine: the game's engine for every game played (``None``: the game's default).

    Returns:
        A :class:`TuneResult`; ``history`` has one row per candidate and rung (key ``trial, rung``).
    """
    check_game(game)
    kinds = game.kinds(scenario)
    if kind not in kinds:
        raise UserError("--strategy: " + unknown_name_message("kind", kind, kinds))
    space = search_space(kinds, kind)
    if not space:
        raise UserError(f"--strategy {kind}: the kind has no parameter to search (all fixed)")
    players = resolve_players(game, scenario, players)
    extra = dict(extra or {})
    base_scenario = with_strategies(scenario, extra) if extra else scenario
    if field is None:
        field = Field.of(game.default_mix(scenario), players)
    check_strategies(game, base_scenario, field.mixture.names, "--field")
    defaults = kind_defaults(space, kind)
    starting = starting_points(scenario, kinds, kind)
    schedule = plan(budget, players, validation_games, starts=1 + len(starting))
    s = schedule.slice_games
    name = name or f"{kind}_tuned"
    if name in game.strategies(base_scenario):
        raise UserError(f"--name {name}: the scenario already has a strategy of that name")
    manifest = {
        "search": "tune",
        "kind": kind,
        "players": players,
        "field": list(field.describe()),
        "budget": budget,
        "scenario_hash": scenario.content_hash,
    }
    entropy = root_entropy(seed, manifest)
    player = Player(
        game, scenario, players, jobs=jobs, extra=dict(extra), manifest=manifest, engine=engine
    )

    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = {p: distribution(d) for p, d in space.items()}
    sampler = optuna.samplers.TPESampler(
        seed=derive_seed(entropy, "search") % 2**32,
        multivariate=True,
        constant_liar=True,
        n_startup_trials=BATCH,
    )
    study = optuna.create_study(direction="maximize", sampler=sampler)

    opponents = [field.opponents(entropy, j, players, s) for j in range(schedule.top_slices)]
    seeds = [slice_seed(entropy, j) for j in range(schedule.top_slices)]

    def cand_name(trial: int | str) -> str:
        return f"{CANDIDATE_PREFIX}{trial}"

    def evaluate(trials: dict[int, StrategyDecl], lo: int, hi: int, desc: str):
        for t, decl in trials.items():
            player.extra[cand_name(t)] = decl
        units = [
            Unit((cand_name(t), *opponents[j]), seeds[j]) for t in trials for j in range(lo, hi)
        ]
        arrays = player.run(units, desc, entropy)
        out: dict[int, np.ndarray] = {}
        k = 0
        for t in trials:
            out[t] = np.array([a[:, 0].mean() for a in arrays[k : k + hi - lo]])
            k += hi - lo
        return out

    rows: list[dict[str, Any]] = []
    total = schedule.search_games
    top = schedule.top_slices

    def record(trial, batch, rung, slices, params, kept, source):
        mean, se = _slice_stats(slices)
        rows.append(
            {
                "trial": trial,
                "rung": rung,
                "batch": batch,
                "source": source,
                "slices": len(slices),
                "games": len(slices) * s,
                "score": mean,
                "se": se,
                "kept": kept,
                **{f"param.{k}": v for k, v in params.items()},
            }
        )

    template = strategy_template(scenario, kind)
    base_decl = dataclasses.replace(template, params=FrozenMap(defaults))
    slice_means = evaluate({0: base_decl}, 0, top, "defaults")[0]
    study.add_trial(
        optuna.trial.create_trial(
            params=defaults, distributions=dists, value=float(slice_means.mean())
        )
    )
    record(0, 0, RUNGS - 1, slice_means, defaults, True, "defaults")
    best = (float(slice_means.mean()), 0, defaults)
    for t, (sname, sparams) in enumerate(starting.items(), start=1):
        decl = dataclasses.replace(template, params=FrozenMap(sparams))
        means = evaluate({t: decl}, 0, top, f"start {sname}")[t]
        study.add_trial(
            optuna.trial.create_trial(
                params=sparams, distributions=dists, value=float(means.mean())
            )
        )
        record(t, 0, RUNGS - 1, means, sparams, True, f"strategy {sname}")
        if float(means.mean()) > best[0]:
            best = (float(means.mean()), t, sparams)
    if on_progress:
        on_progress(player.games_played, total, best[0])
    for batch in range(1, schedule.batches + 1):
        asked = [study.ask(dists) for _ in range(BATCH)]
        params = {t.number: dict(t.params) for t in asked}
        decls = {t: dataclasses.replace(template, params=FrozenMap(p)) for t, p in params.items()}
        results: dict[int, np.ndarray] = {t: np.empty(0) for t in params}
        active = list(params)
        for rung in range(RUNGS):
            lo, hi = schedule.rung_slices(rung)
            new = evaluate({t: decls[t] for t in active}, lo, hi, f"batch {batch} rung {rung}")
            for t in active:
                results[t] = np.concatenate([results[t], new[t]])
            ranked = sorted(active, key=lambda t: (-results[t].mean(), t))
            keep = ranked[: max(1, len(active) // 2)] if rung < RUNGS - 1 else ranked[:1]
            for t in active:
                record(t, batch, rung, results[t], params[t], t in keep, "tpe")
            if rung == RUNGS - 1:
                winner = ranked[0]
                score = float(results[winner].mean())
                if score > best[0]:
                    best = (score, winner, params[winner])
            active = keep if rung < RUNGS - 1 else []
            if on_progress:
                on_progress(player.games_played, total, best[0])
        for t in asked:  # told in trial order: a seed replays the search at any --jobs
            study.tell(t, float(results[t.number].mean()))
        for t in params:
            player.extra.pop(cand_name(t), None)
    games_searched = player.games_played

    # validation on fresh seeds: the winner and the defaults on the same slices
    best_score, best_trial, best_params = best
    ventropy = derive_seed(entropy, "validation")
    vs = schedule.validation_slices
    fresh = against_field(
        player,
        {
            "tuned": dataclasses.replace(template, params=FrozenMap(best_params)),
            "defaults": base_decl,
        },
        field,
        ventropy,
        vs,
    )
    tuned, baseline = fresh["tuned"], fresh["defaults"]
    x, xse = _slice_stats(tuned)
    y, yse = _slice_stats(baseline)
    g, gse = _slice_stats(tuned - baseline)
    if best_trial == 0:  # the defaults won: the same strategy on the same seeds
        g, gse = 0.0, 0.0
    validation = {
        "score": x,
        "ci95": _interval(x, xse),
        "n": vs * s,
        "baseline_score": y,
        "baseline_ci95": _interval(y, yse),
        "gain": g,
        "gain_ci95": _interval(g, gse),
        "search_score": best_score,
    }
    info = TunedInfo(
        base=kind,
        scenario_hash=scenario.content_hash,
        field=field.describe(),
        players=players,
        seed=str(entropy),
        budget=int(budget),
        optimiser=f"{OPTIMISER} (optuna {optuna.__version__})",
        command=command,
        score=x,
        ci95=tuple(validation["ci95"]),
        baseline_score=y,
        gain=g,
        gain_ci95=tuple(validation["gain_ci95"]),
        n=vs * s,
    )
    decl = dataclasses.replace(
        template,
        description=f"{kind} tuned by broadside tune against {', '.join(field.describe())}",
        params=FrozenMap(best_params),
        tuned=info,
    )
    history = pd.DataFrame(rows)
    return TuneResult(
        name=name,
        kind=kind,
        params=dict(best_params),
        decl=decl,
        validation=validation,
        history=history,
        entropy=entropy,
        players=players,
        field=field,
        schedule=schedule,
        games_searched=games_searched,
        best_trial=best_trial,
    )


def kind_defaults(space: Mapping[str, ParamDecl], kind: str) -> dict[str, Any]:
    """The default value of every parameter of ``space`` (KIND's searched parameters)."""
    return {p: d.coerce(d.default, f"kinds.{kind}") for p, d in space.items()}


def starting_points(
    scenario: Any, kinds: Mapping[str, Any], kind: str
) -> dict[str, dict[str, Any]]:
    """The scenario's strategies of ``kind`` (hand-written, or tuned by an earlier search) whose
    searched parameters differ from the defaults and from each other: ``{name: {param: value}}``
    in name order."""
    space = search_space(kinds, kind)
    out: dict[str, dict[str, Any]] = {}
    seen = [kind_defaults(space, kind)]
    for sname in sorted(scenario.rules.strategies):
        decl = scenario.rules.strategies[sname]
        if decl.kind != kind:
            continue
        full = resolve_params(kinds, decl, f"strategies.{sname}")
        params = {p: full[p] for p in space}
        if params not in seen:
            seen.append(params)
            out[sname] = params
    return out


def strategy_template(scenario: Any, kind: str) -> Any:
    """What a candidate of ``kind`` is besides its parameters: the scenario's strategy named
    ``kind`` (else its first strategy of that kind) with its own values cleared, so a game's
    seat fields (Pirates express: nation and fleet) carry over; a plain declaration if none."""
    strategies = scenario.rules.strategies
    same = [d for n, d in strategies.items() if n == kind and d.kind == kind] or [
        d for d in strategies.values() if d.kind == kind
    ]
    if not same:
        return StrategyDecl(kind=kind)
    return dataclasses.replace(same[0], description="", params=FrozenMap(), tuned=None)


def progress_bar(quiet: bool, total: int, desc: str = "search"):
    """A tqdm bar on stderr showing the best score so far (``None`` when quiet or not a tty),
    and the callback that moves it."""
    if quiet or not sys.stderr.isatty():
        return None, None
    from tqdm import tqdm

    bar = tqdm(
        total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True, leave=False
    )

    def update(done: int, total_now: int, best: float) -> None:
        bar.total = max(total_now, done)
        bar.n = done
        bar.set_postfix_str(f"best {best:.4f}", refresh=False)
        bar.refresh()

    return bar, update


def replace_tuned(decl: StrategyDecl, **changes: Any) -> StrategyDecl:
    """``decl`` with its TunedInfo fields changed (e.g. the command that made it)."""
    assert decl.tuned is not None
    return dataclasses.replace(decl, tuned=dataclasses.replace(decl.tuned, **changes))
