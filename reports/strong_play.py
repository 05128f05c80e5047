"""Balance under strong play: the report's measurements under a saved equilibrium population.

No search happens here. A population is a file of ``scenarios/<game>/populations/`` written by
``broadside metagame --save-population`` and loaded with
:func:`scenarios.populations.load_population` (which refuses a file measured on another
scenario: the report then says so and uses none). Under a population σ the report measures:

* **games with every seat drawn from σ** (:func:`play_under`): slices of
  :func:`simulator.search.slice_games` games, slice ``j``'s seats drawn from the runner's
  ``"sample"`` stream of block ``j`` and its dice from ``slice_seed(entropy, j)``, seats rotated
  inside the slice -- exactly how :func:`simulator.metagame.play_population` plays, but keeping
  the game's per-seat table, so the section computes the same headline figures (seat advantage,
  game length...) as under the hand-written players;
* **each strategy's gain against σ** (:func:`gains_against`): ``u(X, σ) - 1/P``, X in one seat
  and the others drawn from σ (``u(σ, σ) = 1/P`` exactly in a seat-rotated symmetric game), on
  paired slices (every X meets the same slices), with 95 % intervals from the slice means. For a
  member of the support it is about 0; the largest gain over the strategies tried is the
  population's *exploitability by those strategies* -- a lower bound of its true exploitability
  (only a search can find the best response), reported with a Bonferroni interval because it is
  the best of several noisy estimates.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports.sections.common import PROJECT_ROOT
from scenarios.loader import SCENARIO_ROOT, ScenarioError
from scenarios.populations import Population, load_population
from scenarios.strategies import with_strategies
from simulator.protocol import PROTOCOL_NAMES
from simulator.runner import Chunk, derive_seed, execution, run_chunks
from simulator.search import (
    Field,
    Mixture,
    Player,
    against_field,
    draw_seats,
    slice_block,
    slice_games,
    slice_seed,
)
from simulator.stats import Z95


@dataclass(frozen=True)
class Found:
    """A population file of the game's folder: loaded, or why it cannot be used."""

    path: Path
    population: Population | None
    problem: str = ""

    @property
    def name(self) -> str:
        return self.path.stem


def population_dir(game: str) -> Path:
    return SCENARIO_ROOT / game / "populations"


def find_populations(game: str, scenario: Any) -> list[Found]:
    """Every ``scenarios/<game>/populations/*.toml``, loaded against ``scenario`` (sorted by
    name); a file that cannot be used carries the loader's one-line reason."""
    out = []
    for path in sorted(population_dir(game).glob("*.toml")):
        try:
            out.append(Found(path, load_population(path, scenario)))
        except ScenarioError as exc:
            # the reason names the file; the page names it from the project (no checkout path)
            root = str(PROJECT_ROOT.resolve()) + "/"
            out.append(Found(path, None, str(exc).splitlines()[0].replace(root, "")))
    return out


def speaks_protocol(api: Any) -> list[str]:
    """The protocol names a game module lacks (empty: it can be played under a population)."""
    return [n for n in PROTOCOL_NAMES if not hasattr(api, n)]


def mixture_words(pop: Population) -> str:
    mix = pop.mixture()
    return ", ".join(f"{k} {v:.0%}" for k, v in sorted(mix.items(), key=lambda kv: -kv[1]))


def _slices_chunk(
    chunk: Chunk,
    *,
    play,
    scenario,
    tables: tuple[tuple[str, ...], ...],
    seeds,
    players,
    games,
    engine=None,
) -> pd.DataFrame:
    out = []
    with execution(quiet=True):
        for j in chunk.trials:
            res = play(
                scenario,
                list(tables[j]),
                players=players,
                n=games,
                seed=seeds[j],
                jobs=1,
                rotate_seats=True,
                quiet=True,
                engine=engine,
            )
            seats = res.seats.copy()
            seats.insert(0, "slice", j)
            seats["game"] = seats["game"] + j * games
            out.append(seats)
    return pd.concat(out, ignore_index=True)


def play_under(
    api: Any,
    pop: Population,
    *,
    n: int,
    seed: int,
    jobs: int,
    desc: str = "population",
    engine: str | None = None,
) -> pd.DataFrame:
    """The protocol's seats table of about ``n`` games (whole slices) with every seat drawn from
    the population's equilibrium; ``game`` counts across slices, ``slice`` says which."""
    players = pop.players
    s = slice_games(players)
    slices = max(1, -(-n // s))
    mix = Mixture.from_weights(pop.mixture())
    tables = tuple(
        draw_seats(mix, players, slice_block(seed, j, s).rng("sample")) for j in range(slices)
    )
    seeds = tuple(slice_seed(seed, j) for j in range(slices))
    task = functools.partial(
        _slices_chunk,
        play=api.play,
        scenario=pop.scenario,
        tables=tables,
        seeds=seeds,
        players=players,
        games=s,
        engine=engine,
    )
    run = run_chunks(task, slices, seed=seed, n_jobs=jobs, quiet=True, desc=desc)
    return pd.concat(run.results, ignore_index=True)


def gains_against(
    api: Any,
    pop: Population,
    challengers: list[str],
    *,
    n: int,
    seed: int,
    jobs: int,
    extra: dict[str, Any] | None = None,
    engine: str | None = None,
    exclude: Any = frozenset(),
) -> pd.DataFrame:
    """``u(X, σ) - 1/P`` for each challenger X on paired slices (about ``n`` games each).

    Columns: ``strategy, in_population, weight, games, score, gain, se, df, crit, ci_low,
    ci_high, conclusive`` (the interval excludes 0), then one row ``strategy = "exploitability
    (by these strategies)"`` with the largest gain and its Bonferroni 95 % interval over the
    challengers not in ``exclude`` (reference players: floors, never the best response). The
    unit is the slice (its mean score), so intervals are Student t with ``df`` = slices - 1
    (``crit`` is the quantile used).
    """
    players = pop.players
    s = slice_games(players)
    slices = max(2, -(-n // s))
    scen = with_strategies(pop.scenario, extra) if extra else pop.scenario
    player = Player(api, scen, players, jobs=jobs, engine=engine)
    field = Field.drawn(Mixture.from_weights(pop.mixture()))
    means = against_field(player, dict.fromkeys(challengers), field, seed, slices, "gains")
    weights = dict(zip(pop.names, pop.weights))
    dof = slices - 1
    t95 = float(sps.t.isf(0.025, dof))
    rows = []
    for name in challengers:
        m = means[name]
        score = float(m.mean())
        se = float(m.std(ddof=1) / math.sqrt(len(m)))
        gain = score - 1 / players
        rows.append(
            {
                "strategy": name,
                "in_population": name in pop.names,
                "weight": float(weights.get(name, 0.0)),
                "games": int(len(m) * s),
                "score": score,
                "gain": gain,
                "se": se,
                "df": dof,
                "crit": t95,
                "ci_low": gain - t95 * se,
                "ci_high": gain + t95 * se,
                "conclusive": bool(gain - t95 * se > 0 or gain + t95 * se < 0),
            }
        )
    df = pd.DataFrame(rows)
    real = df[~df["strategy"].isin(set(exclude))]
    k = len(real)
    best = real.loc[real["gain"].idxmax()]
    zb = float(sps.t.isf(0.025 / k, dof))
    rows.append(
        {
            "strategy": "exploitability (by these strategies)",
            "in_population": False,
            "weight": math.nan,
            "games": int(best["games"]),
            "score": float(best["score"]),
            "gain": float(best["gain"]),
            "se": float(best["se"]),
            "df": dof,
            "crit": zb,
            "ci_low": float(best["gain"] - zb * best["se"]),
            "ci_high": float(best["gain"] + zb * best["se"]),
            "conclusive": bool(best["gain"] - zb * best["se"] > 0),
        }
    )
    out = pd.DataFrame(rows)
    out["best_of"] = [""] * len(df) + [str(best["strategy"])]
    return out


#: the strong-play runs of a population (index in the seed tree: never reorder)
RUNS = ("seats", "gains")


def section_seed(seed: int, game: str, name: str, what: str) -> int:
    """Seeds of the strong-play runs: fixed by the section seed, the game, the population file's
    name (by its CRC-32: names are text, seed-tree indices are integers) and the run."""
    return derive_seed(
        seed, "strong", zlib.crc32(game.encode()), zlib.crc32(name.encode()), RUNS.index(what)
    )


def weights_table(found: list[Found]) -> pd.DataFrame:
    """One row per population file and member: weight, the solver that found the equilibrium
    (``nash``) and its Nash gap on the table it was measured on, or why the file is not used."""
    rows = []
    for f in found:
        if f.population is None:
            rows.append(
                {
                    "population": f.name,
                    "strategy": "(file not used)",
                    "weight": math.nan,
                    "players": 0,
                    "solver": "",
                    "nash_gap": math.nan,
                    "status": f.problem,
                }
            )
            continue
        p = f.population
        for name, w in zip(p.names, p.weights):
            rows.append(
                {
                    "population": f.name,
                    "strategy": name,
                    "weight": float(w),
                    "players": int(p.players),
                    "solver": p.file.solver,
                    "nash_gap": float(p.file.nash_gap),
                    "status": "used",
                }
            )
    return pd.DataFrame(
        rows,
        columns=["population", "strategy", "weight", "players", "solver", "nash_gap", "status"],
    )


def slice_rates(seats: pd.DataFrame, players: int) -> pd.DataFrame:
    """Win share by seat of :func:`play_under`'s games with the slice as the unit (games of a
    slice share one seat draw): per seat ``wins``, ``shared``, ``n`` (games), ``slices``,
    ``win_rate`` (mean of the slice means) and its Student t 95 % interval (``df`` = slices - 1,
    ``crit`` the quantile)."""
    rows = []
    for seat, g in seats.groupby("seat", sort=True):
        per = g.groupby("slice")["score"].mean().to_numpy(float)
        k = len(per)
        m = float(per.mean())
        se = float(per.std(ddof=1) / math.sqrt(k)) if k > 1 else 0.0
        dof = max(k - 1, 1)
        t95 = float(sps.t.isf(0.025, dof))
        sc = g["score"].astype(float)
        rows.append(
            {
                "seat": int(seat),
                "wins": int((sc == 1).sum()),
                "shared": int(((sc > 0) & (sc < 1)).sum()),
                "n": len(g),
                "slices": k,
                "win_rate": m,
                "ci_low": m - t95 * se,
                "ci_high": m + t95 * se,
                "df": dof,
                "crit": t95,
            }
        )
    return pd.DataFrame(rows)


def np_mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    m = float(np.mean(x))
    se = float(np.std(x, ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan
    return m, m - Z95 * se, m + Z95 * se
