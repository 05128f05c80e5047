"""The meta-game over the game protocol: payoff tables, symmetric equilibria, regrets.

A population of ``K`` strategies (at most :data:`MAX_POPULATION`) and a table size ``P``:

* **Payoff table.** ``u(X, M)`` is strategy X's expected score at a table where the other
  ``P - 1`` seats hold the multiset ``M`` of population members. Every multiset of size ``P`` (a
  *table*) is played on the same slices (common random numbers, seats rotated inside a slice;
  see :mod:`simulator.search`), and a table gives ``u(X, T - X)`` for each X it holds. A table of
  one strategy alone is not played: each seat scores ``1/P`` exactly. Up to
  :data:`MAX_MULTISETS` opponent multisets all are used; beyond, a uniform random sample of that
  many (drawn from ``derive_seed(entropy, "multisets")``, said in the output), and expected
  payoffs use self-normalised importance weights over the sample.
* **Equilibrium.** Two players (always constant-sum: a game's scores add up to 1): the
  symmetric equilibrium of the matrix by a linear programme (``scipy.optimize.linprog``, HiGHS).
  More players: replicator dynamics from :data:`REPLICATOR_STARTS` interior random starts
  (``derive_seed(entropy, "replicator")``); the rest points they converge to are the stable ones,
  and the equilibrium is the one reached from the most starts. When some start does not converge
  (a cycle), α-Rank (:func:`alpha_rank`) gives the equilibrium instead. ``method`` says which.
* **Regret.** ``u(σ, σ) - u(X, σ)`` for every X, in score units, with a percentile bootstrap
  interval that resamples games (the same game indices in every table, as the common random
  numbers pair them), σ held at its estimate. About 0 inside the support, above 0 outside.
* **Verdict.** "X dominates" only when X alone is the equilibrium and every other regret's
  interval lies above 0; otherwise the equilibrium's support.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.special import gammaln

from simulator.errors import UserError
from simulator.runner import derive_seed
from simulator.search import (
    CANDIDATE_PREFIX,
    Field,
    Mixture,
    Player,
    Unit,
    against_field,
    check_game,
    check_strategies,
    draw_seats,
    resolve_players,
    root_entropy,
    slice_block,
    slice_games,
    slice_seed,
    tune,
)
from simulator.stats import Z95

MAX_POPULATION = 8
MAX_MULTISETS = 500
REPLICATOR_STARTS = 32
BOOTSTRAP = 1000
SUPPORT_TOL = 1e-3  # weights below this are outside the support (and shown as 0 in verdicts)
ALPHA_RANK_POPULATION = 50
ALPHA_RANK_ALPHA = 100.0  # ranking intensity on payoffs scaled to a spread of 1


# --------------------------------------------------------------------------------------------
# Payoff tables


def multisets(k: int, size: int) -> list[tuple[int, ...]]:
    """Every multiset of ``size`` members of ``range(k)`` as counts per member (sorted order)."""
    out = []
    for combo in itertools.combinations_with_replacement(range(k), size):
        counts = [0] * k
        for i in combo:
            counts[i] += 1
        out.append(tuple(counts))
    return out


def num_multisets(k: int, size: int) -> int:
    return math.comb(k + size - 1, size)


@dataclass
class PayoffTable:
    """``u(X, M)`` over a population, with per-game values for the bootstrap.

    Attributes:
        population: strategy names.
        players: table size P.
        opponents: the opponent multisets (counts per member, sum P - 1), all or a sample.
        sampled: True when ``opponents`` is a random sample of all multisets.
        u: ``(K, len(opponents))`` expected scores (NaN nowhere: every entry is estimated).
        per_game: ``(games, K, len(opponents))`` per-game values behind ``u`` (game ``g`` is the
            same slice game in every table).
    """

    population: tuple[str, ...]
    players: int
    opponents: list[tuple[int, ...]]
    sampled: bool
    u: np.ndarray
    per_game: np.ndarray | None = None
    total_multisets: int = 0
    games_per_table: int = 0

    def coefficients(self, sigma: np.ndarray) -> np.ndarray:
        """Weights of the opponent multisets when every opponent is drawn from ``sigma``."""
        counts = np.asarray(self.opponents, dtype=float)  # (M, K)
        m = self.players - 1
        logcoef = gammaln(m + 1) - gammaln(counts + 1).sum(axis=1)
        w = np.exp(logcoef) * np.prod(np.power(sigma[None, :], counts), axis=1)
        if self.sampled:
            total = w.sum()
            w = w / total if total > 0 else w
        return w

    def payoffs(self, sigma: np.ndarray) -> np.ndarray:
        """``u(X, σ)`` for every member X."""
        return self.u @ self.coefficients(np.asarray(sigma, dtype=float))

    def regret(self, sigma: np.ndarray) -> np.ndarray:
        """``u(σ, σ) - u(X, σ)`` for every member X."""
        f = self.payoffs(sigma)
        return float(sigma @ f) - f

    def matrix(self) -> pd.DataFrame:
        """Tidy long form: member, opponents (names), expected score."""
        rows = []
        for j, counts in enumerate(self.opponents):
            opp = ",".join(n for n, c in zip(self.population, counts) for _ in range(c))
            for i, name in enumerate(self.population):
                rows.append({"strategy": name, "opponents": opp, "score": float(self.u[i, j])})
        return pd.DataFrame(rows)


def table_from_function(
    population: Sequence[str], players: int, score: Callable[[str, tuple[str, ...]], float]
) -> PayoffTable:
    """An exact payoff table from ``score(X, opponents)`` (tests and known games)."""
    k = len(population)
    opps = multisets(k, players - 1)
    u = np.zeros((k, len(opps)))
    for j, counts in enumerate(opps):
        names = tuple(n for n, c in zip(population, counts) for _ in range(c))
        for i, x in enumerate(population):
            u[i, j] = score(x, names)
    return PayoffTable(tuple(population), players, opps, False, u, None, len(opps), 0)


# --------------------------------------------------------------------------------------------
# Equilibria


def solve_two_player(table: PayoffTable) -> np.ndarray:
    """Symmetric equilibrium of a two-player constant-sum table by linear programming.

    Maximise v subject to ``sum_i σ_i A[i, j] >= v`` for every column j, ``σ`` on the simplex.
    """
    a = table.u  # (K, K): a[i, j] = u(i vs j)
    k = a.shape[0]
    c = np.zeros(k + 1)
    c[-1] = -1.0  # maximise v
    a_ub = np.hstack([-a.T, np.ones((k, 1))])  # v - sum_i σ_i a[i, j] <= 0
    b_ub = np.zeros(k)
    a_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * k + [(None, None)],
        method="highs",
    )
    if not res.success:  # pragma: no cover - a bounded feasible LP always solves
        raise RuntimeError(f"linprog failed: {res.message}")
    sigma = np.clip(res.x[:k], 0.0, None)
    return sigma / sigma.sum()


def _scaled(table: PayoffTable) -> PayoffTable:
    spread = float(np.ptp(table.u)) or 1.0
    return PayoffTable(
        table.population,
        table.players,
        table.opponents,
        table.sampled,
        (table.u - table.u.min()) / spread,
    )


def _log_weights(table: PayoffTable) -> tuple[np.ndarray, np.ndarray]:
    counts = np.asarray(table.opponents, dtype=float)  # (M, K)
    logcoef = gammaln(table.players) - gammaln(counts + 1).sum(axis=1)
    return counts, logcoef


def replicator(
    table: PayoffTable,
    starts: np.ndarray,
    *,
    horizon: float = 2000.0,
    dt: float = 0.2,
    check_every: float = 50.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Integrate the replicator dynamics from each row of ``starts``: (end points, converged).

    Classical Runge-Kutta on log-weights (the simplex is kept exactly), payoffs scaled to a
    spread of 1 (time scale only: rest points and their stability do not change). A start has
    converged when its weights moved less than 1e-9 over the last ``check_every`` time units,
    the dynamics' speed there is below 1e-9 and no strategy, present or not, gains more than
    1e-7 against the point (it is a Nash equilibrium). A trajectory that stalls near a rest
    point some absent strategy invades (a saddle: the invader's weight has underflowed) gets
    that strategy's weight raised to 1e-3 of the total and goes on. Integration stops when every
    start has converged, or at ``horizon``.
    """
    scaled = _scaled(table)
    counts, logcoef = _log_weights(table)
    u = scaled.u  # (K, M)
    sampled = table.sampled

    def gains(y: np.ndarray) -> np.ndarray:
        logx = y - _logsumexp(y)
        w = np.exp(logcoef[None, :] + logx @ counts.T)  # (S, M)
        if sampled:
            w = w / w.sum(axis=1, keepdims=True)
        f = w @ u.T  # (S, K)
        return f - (np.exp(logx) * f).sum(axis=1, keepdims=True)

    y = np.log(np.asarray(starts, dtype=float))
    steps = round(check_every / dt)
    converged = np.zeros(len(y), dtype=bool)
    t = 0.0
    while t < horizon and not converged.all():
        active = ~converged
        ya = y[active]
        before = _softmax(ya)
        for _ in range(steps):
            k1 = gains(ya)
            k2 = gains(ya + 0.5 * dt * k1)
            k3 = gains(ya + 0.5 * dt * k2)
            k4 = gains(ya + dt * k3)
            ya = ya + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += steps * dt
        x = _softmax(ya)
        g = gains(ya)
        still = (np.abs(x - before).sum(axis=1) < 1e-9) & (np.abs(x * g).max(axis=1) < 1e-9)
        invaded = (g > 1e-7).any(axis=1)
        floor = _logsumexp(ya) + np.log(1e-3)
        bump = still & invaded
        ya[bump] = np.where(g[bump] > 1e-7, np.maximum(ya[bump], floor[bump]), ya[bump])
        y[active] = ya
        done = np.zeros(len(y), dtype=bool)
        done[np.flatnonzero(active)[still & ~invaded]] = True
        converged |= done
    return _softmax(y), converged


def _logsumexp(y: np.ndarray) -> np.ndarray:
    top = y.max(axis=1, keepdims=True)
    return top + np.log(np.exp(y - top).sum(axis=1, keepdims=True))


def _softmax(y: np.ndarray) -> np.ndarray:
    x = np.exp(y - y.max(axis=1, keepdims=True))
    return x / x.sum(axis=1, keepdims=True)


def _clean(x: np.ndarray) -> np.ndarray:
    x = np.where(x < 1e-6, 0.0, x)
    return x / x.sum()


def rest_points(
    table: PayoffTable, rng: np.random.Generator, starts: int = REPLICATOR_STARTS
) -> tuple[list[tuple[np.ndarray, int]], int]:
    """Rest points reached from ``starts`` interior starts: ``([(point, starts reaching it)],
    starts that did not converge)``, most reached first (ties: first found)."""
    k = len(table.population)
    x0 = rng.dirichlet(np.ones(k), size=starts)
    ends, ok = replicator(table, x0)
    found: list[list[Any]] = []
    for x, good in zip(ends, ok):
        if not good:
            continue
        x = _clean(x)
        for entry in found:
            if np.abs(entry[0] - x).sum() < 1e-3:
                entry[1] += 1
                break
        else:
            found.append([x, 1])
    order = sorted(range(len(found)), key=lambda i: (-found[i][1], i))
    return [(found[i][0], found[i][1]) for i in order], int((~ok).sum())


def alpha_rank(
    table: PayoffTable, alpha: float = ALPHA_RANK_ALPHA, m: int = ALPHA_RANK_POPULATION
) -> np.ndarray:
    """Single-population α-Rank (Omidshafiei et al. 2019) of a symmetric table.

    A Markov chain over monomorphic populations of ``m`` players: a mutant τ in a population of
    σ fixates with the Fermi-process probability at ranking intensity ``alpha`` (payoffs scaled to
    a spread of 1); opponents of a player are drawn without replacement from the population. The
    stationary distribution ranks the strategies.
    """
    scaled = _scaled(table)
    k = len(table.population)
    p1 = table.players - 1
    index = {c: j for j, c in enumerate(table.opponents)}

    def fitness(focal: int, other: int, n_focal: int) -> float:
        """Mean score of a ``focal`` player when ``n_focal`` of the m players are focal."""
        total = 0.0
        others_f, others_o = n_focal - 1, m - n_focal
        for j in range(p1 + 1):  # j focal opponents, p1 - j of the other strategy
            if j > others_f or p1 - j > others_o:
                continue
            prob = math.comb(others_f, j) * math.comb(others_o, p1 - j) / math.comb(m - 1, p1)
            counts = [0] * k
            counts[focal] += j
            counts[other] += p1 - j
            jj = index.get(tuple(counts))
            if jj is None:  # a sampled table lacks this multiset: its mean payoff stands in
                total += prob * float(scaled.u[focal].mean())
            else:
                total += prob * float(scaled.u[focal, jj])
        return total

    trans = np.zeros((k, k))
    for s in range(k):
        for t in range(k):
            if s == t:
                continue
            # fixation of one t mutant among m - 1 s players
            logs = []
            acc = 0.0
            for n_t in range(1, m):
                diff = fitness(t, s, n_t) - fitness(s, t, m - n_t)
                acc += -alpha * diff
                logs.append(acc)
            logs = np.array(logs)
            top = max(0.0, float(logs.max()))
            rho = math.exp(-top) / (math.exp(-top) + float(np.exp(logs - top).sum()))
            trans[s, t] = rho / (k - 1)
        trans[s, s] = 1.0 - trans[s].sum()
    w, v = np.linalg.eig(trans.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1.0))])
    pi = np.abs(pi) / np.abs(pi).sum()
    return pi


@dataclass
class Equilibrium:
    sigma: np.ndarray
    method: str  # "linprog", "replicator" or "alpha-rank"
    rest_points: list[tuple[np.ndarray, int]] = field(default_factory=list)
    starts: int = 0
    not_converged: int = 0


def equilibrium(table: PayoffTable, rng: np.random.Generator) -> Equilibrium:
    """The symmetric equilibrium of ``table`` (see the module docstring for the method)."""
    if table.players == 2 and not table.sampled:
        sigma = solve_two_player(table)
        return Equilibrium(sigma, "linprog", [(sigma, 1)], 1, 0)
    points, failed = rest_points(table, rng)
    if failed or not points:
        return Equilibrium(alpha_rank(table), "alpha-rank", points, REPLICATOR_STARTS, failed)
    return Equilibrium(points[0][0], "replicator", points, REPLICATOR_STARTS, 0)


# --------------------------------------------------------------------------------------------
# Regrets and verdicts


def bootstrap_regret(
    table: PayoffTable, sigma: np.ndarray, rng: np.random.Generator, replicates: int = BOOTSTRAP
) -> np.ndarray:
    """``(replicates, K)`` regrets at ``sigma`` from tables rebuilt on resampled games."""
    assert table.per_game is not None
    w = table.coefficients(sigma)
    per_u = table.per_game @ w  # (games, K): u(X, σ) per game
    per_r = (per_u @ sigma)[:, None] - per_u  # regret per game
    n = per_r.shape[0]
    out = np.empty((replicates, per_r.shape[1]))
    step = max(1, 2_000_000 // max(n, 1))
    for lo in range(0, replicates, step):
        hi = min(replicates, lo + step)
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=hi - lo)
        out[lo:hi] = counts @ per_r / n
    return out


def support(population: Sequence[str], sigma: np.ndarray) -> list[tuple[str, float]]:
    return [(n, float(w)) for n, w in zip(population, sigma) if w >= SUPPORT_TOL]


def verdict(
    population: Sequence[str], sigma: np.ndarray, regret_ci: Mapping[str, Sequence[float]]
) -> str:
    """One line: "X dominates" only when X alone is the equilibrium and every other regret's
    interval lies above 0; otherwise the equilibrium's support."""
    sup = support(population, sigma)
    if len(sup) == 1:
        x = sup[0][0]
        unclear = [n for n in population if n != x and not regret_ci[n][0] > 0]
        if not unclear:
            return f"{x} dominates: it alone is the equilibrium and every other regret is above 0"
        return (
            f"{x} alone is the equilibrium, but the regret of {', '.join(unclear)} is not "
            "clearly above 0: no dominance shown"
        )
    parts = ", ".join(f"{n} {w:.3f}" for n, w in sorted(sup, key=lambda t: -t[1]))
    return f"no dominant strategy; the equilibrium mixes {parts}"


# --------------------------------------------------------------------------------------------
# Playing a population


@dataclass
class TableCache:
    """Per-game results of tables already played (a growing population replays none)."""

    entropy: int
    slices: int
    results: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)


def measure(
    player: Player,
    population: Sequence[str],
    *,
    games_per_table: int,
    entropy: int,
    cache: TableCache | None = None,
    desc: str = "payoff table",
) -> PayoffTable:
    """Play the population's tables and build the payoff table (see the module docstring)."""
    k, p = len(population), player.players
    s = player.games
    slices = -(-games_per_table // s)
    n_games = slices * s
    total = num_multisets(k, p - 1)
    if total <= MAX_MULTISETS:
        opps = multisets(k, p - 1)
        sampled = False
    else:
        # a uniform sample of opponent multisets by name, so a growing population keeps its draws
        rng = np.random.default_rng(derive_seed(entropy, "multisets", k))
        every = multisets(k, p - 1)
        pick = np.sort(rng.choice(len(every), size=MAX_MULTISETS, replace=False))
        opps = [every[i] for i in pick]
        sampled = True
    tables: dict[tuple[str, ...], None] = {}
    for counts in opps:
        for x in range(k):
            full = list(counts)
            full[x] += 1
            names = tuple(n for n, c in zip(population, full) for _ in range(c))
            if len(set(names)) > 1:
                tables[names] = None
    cache = cache if cache is not None else TableCache(entropy, slices)
    todo = [t for t in tables if t not in cache.results]
    units = [Unit(t, slice_seed(entropy, j)) for t in todo for j in range(slices)]
    arrays = player.run(units, desc, entropy)
    for i, t in enumerate(todo):
        cache.results[t] = np.concatenate(arrays[i * slices : (i + 1) * slices], axis=0)
    per_game = np.zeros((n_games, k, len(opps)))
    for j, counts in enumerate(opps):
        for x in range(k):
            full = list(counts)
            full[x] += 1
            names = tuple(n for n, c in zip(population, full) for _ in range(c))
            if len(set(names)) == 1:
                per_game[:, x, j] = 1.0 / p
            else:
                col = list(dict.fromkeys(names)).index(population[x])
                per_game[:, x, j] = cache.results[names][:, col]
    return PayoffTable(
        tuple(population), p, opps, sampled, per_game.mean(axis=0), per_game, total, n_games
    )


@dataclass
class MetagameResult:
    table: PayoffTable
    eq: Equilibrium
    regret: np.ndarray
    regret_ci: dict[str, list[float]]
    verdict: str
    entropy: int
    iterations: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # strategies made by the search

    def summary(self) -> dict[str, Any]:
        pop = list(self.table.population)
        return {
            "population": pop,
            "equilibrium": {n: float(w) for n, w in zip(pop, self.eq.sigma)},
            "rest_points": [
                {n: float(w) for n, w in zip(pop, point)} for point, _ in self.eq.rest_points
            ],
            "regret": {
                n: {"value": float(r), "ci95": list(self.regret_ci[n])}
                for n, r in zip(pop, self.regret)
            },
            "verdict": self.verdict,
        }


def analyse(table: PayoffTable, entropy: int, index: int = 0) -> tuple[Equilibrium, Any, Any, str]:
    """Equilibrium, regrets with bootstrap intervals and the verdict of a measured table."""
    eq = equilibrium(table, np.random.default_rng(derive_seed(entropy, "replicator", index)))
    reg = table.regret(eq.sigma)
    boot = bootstrap_regret(
        table, eq.sigma, np.random.default_rng(derive_seed(entropy, "bootstrap", index))
    )
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    ci = {n: [float(a), float(b)] for n, a, b in zip(table.population, lo, hi)}
    return eq, reg, ci, verdict(table.population, eq.sigma, ci)


def metagame(
    game: Any,
    scenario: Any,
    population: Sequence[str],
    *,
    games: int,
    players: int | None = None,
    seed: int | None = None,
    jobs: int | None = 1,
    iterate: int = 0,
    tune_kinds: Sequence[str] = (),
    tune_budget: int = 20_000,
    epsilon: float = 0.005,
    command: str = "",
    on_note: Callable[[str], None] | None = None,
    engine: str | None = None,
) -> MetagameResult:
    """Payoff table, equilibrium and regrets of ``population``; with ``iterate`` K, grow the
    population by up to K best responses (tuned against the equilibrium mixture: each
    opponent seat drawn from σ), stopping early when the best response's gain over
    ``u(σ, σ) = 1/P`` is below ``epsilon`` with 95 % confidence. The best of the tuned kinds
    (by its own validation) is measured once more on fresh slices
    (``derive_seed(entropy, "exploitability", i)``) for the exploitability.

    Args:
        games: games per table (rounded up to whole slices).
        tune_kinds: kinds tuned for a best response (default: the population's kinds).
        engine: the game's engine for every game (``None``: the game's default).
    """
    check_game(game)
    population = list(population)
    if len(population) < 2:
        raise UserError("--population: at least 2 strategies (allowed: 2..8 names)")
    if len(set(population)) != len(population):
        raise UserError("--population: a strategy is listed twice (allowed: distinct names)")
    if len(population) + iterate > MAX_POPULATION:
        raise UserError(
            f"--population {len(population)} strategies + --iterate {iterate}: more than "
            f"{MAX_POPULATION} (allowed: at most {MAX_POPULATION} in all)"
        )
    check_strategies(game, scenario, population, "--population")
    players = resolve_players(game, scenario, players)
    strategies = game.strategies(scenario)
    kinds = list(tune_kinds) or list(dict.fromkeys(strategies[n].kind for n in population))
    known_kinds = game.kinds(scenario)
    for kd in kinds:
        if kd not in known_kinds:
            from scenarios.strategies import unknown_name_message

            raise UserError("--tune-kind: " + unknown_name_message("kind", kd, known_kinds))
    if iterate:
        from simulator.search import plan, starting_points

        for kd in kinds:  # a budget too small for one batch stops here, before work
            plan(tune_budget, players, starts=1 + len(starting_points(scenario, known_kinds, kd)))
    manifest = {
        "search": "metagame",
        "population": population,
        "players": players,
        "games": games,
        "scenario_hash": scenario.content_hash,
    }
    entropy = root_entropy(seed, manifest)
    player = Player(game, scenario, players, jobs=jobs, manifest=manifest, engine=engine)
    s = slice_games(players)
    cache = TableCache(entropy, -(-games // s))
    iterations: list[dict[str, Any]] = []
    index = 0
    while True:
        table = measure(
            player,
            population,
            games_per_table=games,
            entropy=entropy,
            cache=cache,
            desc=f"payoff table {index}",
        )
        eq, reg, ci, text = analyse(table, entropy, index)
        if index >= iterate:
            break
        sigma = Mixture.from_weights(dict(zip(population, eq.sigma)))
        best = None
        for kd in kinds:
            res = tune(
                game,
                scenario,
                kd,
                budget=tune_budget,
                field=Field.drawn(sigma),
                players=players,
                seed=derive_seed(entropy, "best-response", index, kinds.index(kd)),
                jobs=jobs,
                name=f"br{index + 1}_{kd}",
                extra=player.extra,
                command=command,
                engine=engine,
            )
            if best is None or res.validation["score"] > best.validation["score"]:
                best = res
        assert best is not None
        # the best of several validated kinds is measured once more on fresh slices, so the
        # exploitability carries no winner's curse from the choice between kinds
        slices = best.schedule.validation_slices
        fresh = against_field(
            player,
            {"best-response": best.decl},
            Field.drawn(sigma),
            derive_seed(entropy, "exploitability", index),
            slices,
            f"exploitability {index + 1}",
        )["best-response"]
        player.extra.pop(f"{CANDIDATE_PREFIX}best-response", None)
        score = float(fresh.mean())
        se = float(fresh.std(ddof=1) / math.sqrt(len(fresh)))
        gain = score - 1.0 / players
        lo, hi = gain - Z95 * se, gain + Z95 * se
        row = {
            "iteration": index + 1,
            "population": list(population),
            "equilibrium": {n: float(w) for n, w in zip(population, eq.sigma)},
            "method": eq.method,
            "best_response": best.name,
            "best_response_kind": best.kind,
            "best_response_params": dict(best.params),
            "best_response_score": score,
            "exploitability": gain,
            "exploitability_ci95": [lo, hi],
            "validation_games": slices * s,
        }
        iterations.append(row)
        if on_note:
            on_note(
                f"iteration {index + 1}: exploitability {gain:.4f} [{lo:.4f}, {hi:.4f}] "
                f"by {best.name}"
            )
        if hi < epsilon:
            row["stopped"] = f"best response gains less than {epsilon} (95 % upper bound {hi:.4f})"
            break
        player.extra[best.name] = best.decl
        population.append(best.name)
        index += 1
    return MetagameResult(table, eq, reg, ci, text, entropy, iterations, dict(player.extra))


def play_population(
    game: Any,
    scenario: Any,
    mixture: Mixture,
    *,
    players: int,
    n: int,
    seed: int | None = None,
    jobs: int | None = 1,
    extra: Mapping[str, Any] | None = None,
    engine: str | None = None,
) -> pd.DataFrame:
    """Play ``n`` games (rounded up to whole slices) with every seat drawn from ``mixture``.

    Slice ``j``'s seats come from the runner's ``"sample"`` stream of block ``j``
    (:func:`~simulator.search.slice_block`), its dice from ``slice_seed(entropy, j)``; so the
    same seed seats the same strategies under two rule sets (``compare --population``). Returns
    one row per game and strategy present: ``slice, game`` (counted across slices),
    ``strategy``, ``seats`` (how many it held) and ``score`` (its mean score over them).
    """
    check_game(game)
    s = slice_games(players)
    slices = -(-n // s)
    entropy = root_entropy(seed, {"search": "population", "players": players, "n": n})
    player = Player(game, scenario, players, jobs=jobs, extra=dict(extra or {}), engine=engine)
    tables = [
        draw_seats(mixture, players, slice_block(entropy, j, s).rng("sample"))
        for j in range(slices)
    ]
    units = [Unit(t, slice_seed(entropy, j)) for j, t in enumerate(tables)]
    arrays = player.run(units, "population games", entropy)
    rows = []
    for j, (t, a) in enumerate(zip(tables, arrays)):
        names = list(dict.fromkeys(t))
        for i, name in enumerate(names):
            rows.append(
                pd.DataFrame(
                    {
                        "slice": j,
                        "game": j * s + np.arange(s),
                        "strategy": name,
                        "seats": t.count(name),
                        "score": a[:, i],
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)
