"""``broadside compare``: does a house rule change the game? A paired, sequential test.

Both scenarios play the same games: at look ``k`` each is played for the next batch of games with
the same seed (common random numbers: game ``i`` of BASE and of VARIANT draw from the same chunk
seed, so dice streams agree as far as the rules let them). Each game gives one value per metric
per scenario; the paired differences feed :class:`simulator.sequential.SequentialComparison`
(Lan-DeMets group-sequential test, stage-wise p-values, repeated confidence intervals, Holm over
metrics). Nothing is decided before :data:`simulator.sequential.MIN_UNITS` units: paired games,
or with ``--population`` tables (a fresh seat draw every ``players`` games, played through every
seat rotation; the test's unit is a table's mean difference, so its variance counts how the
effect varies between tables).

Metrics (per game, averaged over games):

``win-rate:S``     share of the seats played by strategy ``S`` that won (shared wins count a
                   fraction)
``seat-advantage`` whether the first seat won (the first-player win rate)
``game-length``    player turns played
``stalemate``      whether the game hit the turn limit (Les Pirates)
``fame:S``         final fame of strategy ``S``'s seats (Pirate's Cove)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reports.engines import engine as engine_of
from scenarios.populations import load_population
from simulator.errors import UserError
from simulator.protocol import ENGINE_DEFAULT
from simulator.runner import Block, derive_seed, fresh_entropy
from simulator.search import Mixture, draw_seats
from simulator.sequential import MIN_UNITS, SequentialComparison

METRIC_KINDS = ("win-rate", "seat-advantage", "game-length", "stalemate", "fame")
NEEDS_STRATEGY = ("win-rate", "fame")
LABELS = {
    "win-rate": "win rate of {}",
    "seat-advantage": "first-seat win rate",
    "game-length": "game length (player turns)",
    "stalemate": "stalemate rate",
    "fame": "final fame of {}",
}


@dataclass(frozen=True)
class Metric:
    kind: str
    strategy: str | None

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.strategy}" if self.strategy else self.kind

    @property
    def label(self) -> str:
        return LABELS[self.kind].format(self.strategy)

    @property
    def is_rate(self) -> bool:
        return self.kind in ("win-rate", "seat-advantage", "stalemate")


def parse_metric(spec: str, game: str, strategies: Sequence[str]) -> Metric:
    kind, _, arg = spec.partition(":")
    allowed = engine_of(game).metrics
    if kind not in allowed:
        forms = [f"{k}:STRATEGY" if k in NEEDS_STRATEGY else k for k in allowed]
        raise UserError(f"--metric {spec!r}: not a {game} metric (allowed: {', '.join(forms)})")
    if kind in NEEDS_STRATEGY:
        if not arg:
            raise UserError(
                f"--metric {spec!r}: needs a strategy, e.g. {kind}:{strategies[0]} "
                f"(allowed: {', '.join(dict.fromkeys(strategies))})"
            )
        if arg not in strategies:
            raise UserError(
                f"--metric {spec!r}: strategy {arg!r} is not at the table "
                f"(allowed: {', '.join(dict.fromkeys(strategies))})"
            )
        return Metric(kind, arg)
    if arg:
        raise UserError(f"--metric {spec!r}: {kind} takes no argument")
    return Metric(kind, None)


def per_game(seats: pd.DataFrame, metric: Metric) -> np.ndarray:
    """One value per game (ordered by game id) from a tidy seat table."""
    games = np.sort(seats["game"].unique())
    if metric.kind == "win-rate":
        v = seats[seats["strategy"] == metric.strategy].groupby("game")["score"].mean()
    elif metric.kind == "fame":
        v = seats[seats["strategy"] == metric.strategy].groupby("game")["fame"].mean()
    elif metric.kind == "seat-advantage":
        v = seats[seats["seat"] == 1].groupby("game")["score"].mean()
    elif metric.kind == "game-length":
        v = seats.groupby("game")["turns"].first()
    elif metric.kind == "stalemate":
        v = seats.groupby("game")["stalemate"].first().astype(float)
    else:  # pragma: no cover - parse_metric guards this
        raise UserError(f"unknown metric {metric.kind}")
    return v.reindex(games).to_numpy(dtype=float)


def look_seed(entropy: int, look: int, stream: int = 0) -> int:
    """Seed of look ``look`` (same for both scenarios under CRN; ``stream`` 1 for independent)."""
    return derive_seed(entropy, "compare-look", look, stream)


def verdict(row: dict, metric: Metric, alpha: float) -> str:
    d = row["difference"]
    lo, hi = row["ci95"]
    unit = " points" if metric.is_rate else ""
    scale = 100.0 if metric.is_rate else 1.0
    games = f"{row['n_games']:,} paired games"
    if row["n_units"] != row["n_games"]:
        games += f" in {row['n_units']:,} tables"
    if row["decided"]:
        way = "raises" if d > 0 else "lowers"
        return (
            f"the variant {way} the {metric.label} by {abs(d) * scale:.2f}{unit} (95% repeated CI "
            f"{lo * scale:+.2f} to {hi * scale:+.2f}); Holm-adjusted p = {row['p_holm']:.2g} after "
            f"{games}"
        )
    if not row["se"] > 0:  # no spread: every unit's difference is the same
        if d == 0:
            return f"no detectable difference at this n: identical {metric.label} in all {games}"
        return (
            f"no detectable difference at this n: the {metric.label} differs by exactly "
            f"{d * scale:+.2f}{unit} in every one of the {games}; without any spread this is no "
            "evidence either way"
        )
    return (
        f"no detectable difference at this n ({games}): "
        f"{metric.label} differs by {d * scale:+.2f}{unit}, "
        f"95% repeated CI {lo * scale:+.2f} to {hi * scale:+.2f}, "
        f"Holm-adjusted p = {row['p_holm']:.2g} > {alpha}"
    )


def run_compare(
    base: str,
    variant: str,
    *,
    game: str,
    metrics: Sequence[str] = (),
    alpha: float = 0.05,
    max_games: int = 20_000,
    looks: int = 5,
    spending: str = "obrien-fleming",
    players: int | None = None,
    strategies: str | Sequence[str] | None = None,
    pairing: str = "crn",
    seed: int | None = None,
    jobs: int = -1,
    quiet: bool = False,
    notes: Callable[[str], None] = lambda m: None,
    population: str | None = None,
    engine: str | None = None,
) -> dict:
    """Play BASE and VARIANT on paired seeds look by look until the sequential test stops.

    With ``population`` (a metagame output: ``scenarios/<game>/populations/NAME.toml`` or a
    path), every table's seats are drawn from its equilibrium mixture instead of a fixed list of
    strategies: the same draws and dice under both rule sets; a table is one game in each seat
    rotation (``players`` games), and the test's unit is the table. Nothing is decided before
    ``MIN_UNITS`` units (paired games, or tables): a smaller ``max_games`` is refused.
    ``engine``: the game's engine for every game (``None``: its default; the engines play the
    same games).
    """
    eng = engine_of(game)
    base_scen, var_scen = eng.resolve(base), eng.resolve(variant)
    pop = None
    if population is not None:
        if strategies:
            raise UserError("give either --strategies or --population, not both")
        pop = load_population(population, base_scen, check_hash=False)
        var_pop = load_population(population, var_scen, check_hash=False)
        base_scen, var_scen = pop.scenario, var_pop.scenario
        if players is not None and players != pop.players:
            raise UserError(
                f"--players {players}: the population was measured at {pop.players} players "
                f"(allowed: {pop.players})"
            )
        players = pop.players
    if isinstance(strategies, str):
        strategies = tuple(s.strip() for s in strategies.split(",") if s.strip())
    if pop is not None:
        n_players = players
        strats = tuple(pop.mixture())
    elif strategies:
        strats = tuple(strategies)
        n_players = players or (
            len(strats) if len(strats) > 1 else eng.defaults(base_scen, None)[0]
        )
    else:
        n_players, strats = eng.defaults(base_scen, players)
    if len(strats) == 1 and pop is None:
        strats = strats * n_players
    if not metrics:
        metrics = _default_metrics(game, strats) if pop is None else ["seat-advantage"]
    parsed = [parse_metric(m, game, strats) for m in metrics]
    if pop is not None:
        per_strategy = [m.name for m in parsed if m.kind in NEEDS_STRATEGY]
        if per_strategy:
            allowed = ", ".join(k for k in eng.metrics if k not in NEEDS_STRATEGY)
            raise UserError(
                f"--metric {per_strategy[0]} with --population: the strategies at the table are "
                f"drawn at random, so a strategy's own metrics are not paired (allowed: {allowed})"
            )
    if len({m.name for m in parsed}) != len(parsed):
        raise UserError("--metric: each metric may be given once")
    per_unit = 1 if pop is None else pop.players  # a table: one game per seat rotation
    if max_games < MIN_UNITS * per_unit:
        what = (
            f"{MIN_UNITS} paired games"
            if pop is None
            else f"{MIN_UNITS} tables of {per_unit} games ({MIN_UNITS * per_unit} paired games)"
        )
        raise UserError(
            f"--max-games {max_games}: nothing can be decided before {what} "
            f"(allowed: {MIN_UNITS * per_unit} or more)"
        )
    entropy = fresh_entropy() if seed is None else int(seed)
    cmp = SequentialComparison(
        [m.name for m in parsed],
        alpha=alpha,
        max_n=max_games,
        looks=looks,
        spending=spending,
        games_per_unit=per_unit,
    )
    unit_name = "paired games" if pop is None else f"tables of {per_unit} games"
    if len(cmp.sizes) < looks:
        notes(
            f"compare: {len(cmp.sizes)} look(s) instead of {looks}: at most one per "
            f"{MIN_UNITS} {unit_name}"
        )
    started = time.perf_counter()
    while not cmp.should_stop():
        k = cmp.looks_taken
        batch = cmp.next_size() - cmp.done
        s_base = look_seed(entropy, k)
        s_var = s_base if pairing == "crn" else look_seed(entropy, k, 1)
        if pop is None:
            seats_b = eng.play(
                base_scen,
                n=batch,
                seed=s_base,
                jobs=jobs,
                quiet=quiet,
                players=n_players,
                strategies=strats,
                engine=engine,
            )
            seats_v = eng.play(
                var_scen,
                n=batch,
                seed=s_var,
                jobs=jobs,
                quiet=quiet,
                players=n_players,
                strategies=strats,
                engine=engine,
            )
        else:
            tables = batch // per_unit
            seats_b = _population_games(
                eng, base_scen, pop, tables, s_base, entropy, k, jobs, engine
            )
            seats_v = _population_games(eng, var_scen, pop, tables, s_var, entropy, k, jobs, engine)
        cmp.add_look({m.name: (per_game(seats_b, m), per_game(seats_v, m)) for m in parsed})
        crossed = [s.name for s in cmp.metrics.values() if s.crossed_at is not None]
        notes(
            f"compare: look {k + 1}/{len(cmp.sizes)} at {cmp.done:,} games; decided so far: "
            f"{', '.join(crossed) or 'none'}"
        )
    rows = cmp.results()
    by_name = {m.name: m for m in parsed}
    for r in rows:
        m = by_name[r["name"]]
        r["label"] = m.label
        r["verdict"] = verdict(r, m, alpha)
    n_done = cmp.done
    stopped_early = n_done < cmp.max_n
    decided = [r["name"] for r in rows if r["decided"]]
    if pop is None:
        played_by = f"players {', '.join(strats)}"
    else:
        mix = ", ".join(f"{n} {w:.2f}" for n, w in pop.mixture().items() if w > 0)
        played_by = f"players drawn from the population {Path(pop.path).stem} ({mix})"
    headline = (
        f"{variant} vs {base} ({game}, {n_players} {played_by}): stopped after {n_done:,} of at "
        f"most {cmp.max_n:,} paired games"
        f"{' (early)' if stopped_early else ''}, looks at {', '.join(f'{n:,}' for n in cmp.sizes)}"
        f" (nothing decided before {cmp.min_games:,}); "
        + (
            f"differences found in: {', '.join(decided)}"
            if decided
            else "no detectable difference at this n"
        )
    )
    return {
        "game": game,
        "population": None
        if pop is None
        else {"file": pop.path, "equilibrium": pop.mixture(), "players": pop.players},
        "base": base_scen.provenance() | {"ref": base},
        "variant": var_scen.provenance() | {"ref": variant},
        "players": n_players,
        "strategies": list(strats),
        "alpha": alpha,
        "pairing": pairing,
        "design": {
            "method": "group-sequential, Lan-DeMets alpha spending on paired differences; "
            "each look's statistic the smaller of Student's t (carried to the normal scale) and "
            "the continuity-corrected self-normalised sum, 0 without spread; stage-wise "
            "ordering p-values; repeated 95% CIs; Holm across metrics",
            "spending": spending,
            "looks_at_games": cmp.sizes,
            "boundaries_z": list(cmp.design.bounds),
            "alpha_per_metric": cmp.design.alpha,
            "unit": "paired game" if pop is None else "table",
            "games_per_unit": per_unit,
            "min_units": MIN_UNITS,
            "min_games_to_decide": cmp.min_games,
        },
        "seed_entropy": entropy,
        "engine": engine or ENGINE_DEFAULT,
        "n_games": n_done,
        "stopped_early": stopped_early,
        "wall_time_s": time.perf_counter() - started,
        "headline": headline,
        "metrics": rows,
        "history": cmp.history(),
    }


def _population_games(
    eng, scen, pop, tables: int, seed: int, entropy: int, look: int, jobs: int, engine=None
) -> pd.DataFrame:
    """``tables`` tables of ``pop.players`` games each, seats drawn from the population's
    equilibrium: table ``j`` of look ``look`` draws its seats from block ``j``'s ``sample`` stream
    of a root fixed by the run's entropy and the look (the same tables under both rule sets) and
    plays one game in each seat rotation. Tables with the same seats up to rotation are played
    together, in one seat-rotated run on ``derive_seed(seed, "table", first)`` (``first`` the
    group's first table; the same dice under CRN). Table ``j``'s games get ids ``j * players``
    to ``j * players + players - 1``, so consecutive ``players`` games form a table."""
    players = pop.players
    mixture = Mixture.from_weights(pop.mixture())
    draws = derive_seed(entropy, "compare-population", look)
    groups: dict[tuple[str, ...], list[int]] = {}
    for j in range(tables):
        block = Block(index=j, start=j, size=1, entropy=draws)
        seats = draw_seats(mixture, players, block.rng("sample"))
        canonical = min(seats[r:] + seats[:r] for r in range(players))
        groups.setdefault(canonical, []).append(j)
    parts = []
    for canonical, members in groups.items():  # in order of each group's first table
        played = eng.play(
            scen,
            n=len(members) * players,
            seed=derive_seed(seed, "table", members[0]),
            jobs=jobs,
            quiet=True,
            players=players,
            strategies=canonical,
            rotate_seats=True,
            engine=engine,
        ).copy()
        local = played["game"].to_numpy()
        played["game"] = np.asarray(members)[local // players] * players + local % players
        parts.append(played)
    return pd.concat(parts, ignore_index=True).sort_values(["game", "seat"], ignore_index=True)


def _default_metrics(game: str, strategies: Sequence[str]) -> list[str]:
    if len(set(strategies)) == 1:  # a mirror: a strategy's own win rate is its share, always
        return ["seat-advantage", "game-length"] if game != "cove" else ["seat-advantage"]
    if game == "hunt":
        # not stalemate: a metric that cannot move (no game hits the turn limit) never crosses,
        # which keeps the run going to --max-games; ask for it with --metric stalemate
        return ["seat-advantage", "game-length"]
    if game in ("cove", "express"):
        return [f"win-rate:{s}" for s in dict.fromkeys(strategies)]
    return []


def summary_table(result: dict) -> pd.DataFrame:
    cols = [
        "name",
        "base",
        "variant",
        "difference",
        "ci95",
        "p_value",
        "p_holm",
        "decided",
        "n_games",
    ]
    df = pd.DataFrame([{c: r[c] for c in cols} for r in result["metrics"]])
    df["ci95_low"] = [c[0] for c in df["ci95"]]
    df["ci95_high"] = [c[1] for c in df["ci95"]]
    return df.drop(columns=["ci95"])[
        [
            "name",
            "base",
            "variant",
            "difference",
            "ci95_low",
            "ci95_high",
            "p_value",
            "p_holm",
            "decided",
            "n_games",
        ]
    ]
