"""The meta-game over the game protocol: payoff tables, symmetric equilibria, regrets.

A population of ``K`` strategies (at most :data:`MAX_POPULATION`) and a table size ``P`` (at
most :data:`MAX_PLAYERS`):

* **Payoff table.** ``u(X, M)`` is strategy X's expected score at a table where the other
  ``P - 1`` seats hold the multiset ``M`` of population members. Every multiset of size ``P`` (a
  *table*) is played on the same slices (common random numbers, seats rotated inside a slice;
  see :mod:`simulator.search`), and a table gives ``u(X, T - X)`` for each X it holds. A table of
  one strategy alone is not played: each seat scores ``1/P`` exactly. Up to
  :data:`MAX_MULTISETS` opponent multisets all are used; beyond, a uniform random sample of that
  many (drawn from ``derive_seed(entropy, "multisets")``, said in the output), and expected
  payoffs use self-normalised importance weights over the sample.
* **Equilibrium** (:func:`equilibrium`). A symmetric mixture σ is an equilibrium when its *Nash
  gap* ``max_X u(X, σ) - u(σ, σ)`` is 0; nothing is reported as one unless its gap on the table is
  at most :data:`MAX_NASH_GAP`. The solver works on the symmetric game itself (``u(X, σ)`` is a
  polynomial of degree ``P - 1`` in σ's ``K - 1`` free weights), never on the ``K^P`` profiles of
  the strategic form: **support enumeration** with root finding. For each support (a face of the
  simplex), the indifference equations (every member earns the same) are solved by
  Levenberg-Marquardt with the exact Jacobian from the face's centre and random points; each root,
  clipped to the simplex, is checked by its gap on the whole table. Why this method: it finds
  equilibria wherever they are (interior, on any face, unstable ones such as the centre of a
  rock-paper-scissors cycle, where the replicator dynamics orbit and never settle), its cost is
  fixed by ``K`` and ``P`` (``2^K - 1`` supports; about 2.5 s at ``K = P = 8``), it gives exact
  roots (gaps of about 1e-16, not an integrator's 1e-7), and it reports every equilibrium it
  meets, not only the attractors. Identical members (:func:`duplicates`) are solved as one.
  Several equilibria: each is reported with how many starts reached it, its gap and whether it is
  stable under the replicator dynamics (:func:`is_stable`); the one chosen is the most mixed
  (largest entropy) of the stable ones, or of all when none is stable.
* **α-Rank** (:func:`alpha_rank`, ``metagame --solver alpha-rank``): a ranking of the members,
  printed as a ranking and never called or saved as an equilibrium.
* **Regret.** ``u(σ, σ) - u(X, σ)`` for every X, in score units, with a percentile bootstrap
  interval that resamples games (the same game indices in every table, as the common random
  numbers pair them), σ held at its estimate. About 0 inside the support, above 0 outside. The
  Nash gap's interval is the same bootstrap's: its largest ``-regret`` in each replicate.
* **Verdict.** "X dominates" only when X alone is the equilibrium, the only one found, and every
  other regret's interval lies above 0; otherwise the equilibrium's support.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.linalg import null_space
from scipy.optimize import linprog, root
from scipy.special import gammaln
from scipy.stats import t as t_dist

from scenarios.populations import MAX_NASH_GAP
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

MAX_POPULATION = 8
#: what ``metagame --solver`` takes: a Nash equilibrium, or the α-Rank ranking
SOLVERS = ("nash", "alpha-rank")
#: the largest table the meta-game solves (every game's largest table)
MAX_PLAYERS = 8
MAX_MULTISETS = 500
#: root-finding starts per support: the face's centre and this many less one random points
SUPPORT_STARTS = 3
#: random starts per support of the second pass, run only when the first found no equilibrium
RETRY_STARTS = 24
#: at most this many solves again on a solution's own support (see _polish)
POLISH_ROUNDS = 3
#: a solution is exact when its Nash gap is at most this share of the payoffs' spread (rounding
#: error); one above it but within MAX_NASH_GAP is reported only when no exact one is found
PRECISE_GAP = 1e-9
#: solutions closer than this (L1) are one equilibrium
MERGE_L1 = 1e-3
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

    @functools.cached_property
    def counts(self) -> np.ndarray:
        """``(M, K)`` integer counts of the opponent multisets."""
        return np.asarray(self.opponents, dtype=np.int64).reshape(len(self.opponents), -1)

    @functools.cached_property
    def log_multinomial(self) -> np.ndarray:
        """``(M,)`` log multinomial coefficients ``log((P - 1)! / prod(c!))``."""
        return gammaln(self.players) - gammaln(self.counts + 1.0).sum(axis=1)

    def coefficients(self, sigma: np.ndarray) -> np.ndarray:
        """Weights of the opponent multisets when every opponent is drawn from ``sigma``."""
        powers = np.power(sigma[:, None], np.arange(self.players))  # (K, P): σ_i ** c
        w = np.exp(self.log_multinomial) * np.prod(
            powers[np.arange(len(sigma)), self.counts], axis=1
        )
        if self.sampled:  # NaN where the sample holds no multiset σ can draw
            total = w.sum()
            w = w / total if total > 0 else np.full_like(w, np.nan)
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


class NoEquilibriumFound(RuntimeError):
    """No mixture the solver tried has a Nash gap within :data:`MAX_NASH_GAP` (nothing is ever
    reported as an equilibrium without passing that check)."""


def nash_gap(table: PayoffTable, sigma: np.ndarray) -> float:
    """``max_X u(X, σ) - u(σ, σ)``: the largest gain of a pure strategy against ``σ`` (0 exactly
    at a symmetric equilibrium; NaN where the table cannot value ``σ``)."""
    sigma = np.asarray(sigma, dtype=float)
    f = table.payoffs(sigma)
    gap = float(f.max() - sigma @ f)
    return 0.0 if gap < 0 else gap  # rounding below 0; NaN stays NaN


@dataclass(frozen=True)
class _Face:
    """The symmetric game on the face of the simplex spanned by ``members``: their payoffs
    against the opponent multisets made of members only (the only ones a mixture on the face
    gives weight to), as polynomials in the members' weights."""

    members: tuple[int, ...]
    u: np.ndarray  # (s, m): u(X, M) for X a member, M an opponent multiset of members
    counts: np.ndarray  # (m, s): the multisets' counts per member
    coef: np.ndarray  # (m,): multinomial coefficients (P - 1)! / prod(c!)
    sampled: bool

    @classmethod
    def of(cls, table: PayoffTable, members: Sequence[int]) -> _Face:
        rows = list(members)
        inside = np.delete(table.counts, rows, axis=1).sum(axis=1) == 0
        return cls(
            tuple(rows),
            table.u[np.ix_(rows, inside)],
            table.counts[np.ix_(inside, rows)],
            np.exp(table.log_multinomial[inside]),
            table.sampled,
        )

    def values(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u(X, x)`` for each member X and its Jacobian ``d u(X, x) / d x_j`` (the
        polynomial's, so ``x`` may leave the simplex while a root finder searches)."""
        c = self.counts
        m, s = c.shape
        cols = np.arange(s)
        powers = np.power(x[:, None], np.arange(int(c.max(initial=0)) + 1))  # x_j ** e
        pw = powers[cols, c]  # (m, s)
        w = self.coef * pw.prod(axis=1)
        # d w / d x_j = coef * c_j x_j^(c_j - 1) * prod_{i != j} x_i^(c_i): c_j w / x_j, or
        # where a weight is 0, the products of the other columns from both sides
        if (x != 0).all():
            dw = c * (w[:, None] / x[None, :])
        else:
            left = np.ones((m, s))
            right = np.ones((m, s))
            np.cumprod(pw[:, :-1], axis=1, out=left[:, 1:])
            np.cumprod(pw[:, :0:-1], axis=1, out=right[:, -2::-1])
            dw = (self.coef[:, None] * c) * powers[cols, np.maximum(c - 1, 0)] * left * right
        f, jac = self.u @ w, self.u @ dw
        if self.sampled:  # self-normalised weights: the quotient's derivative
            total = w.sum()
            jac = jac / total - np.outer(f, dw.sum(axis=0)) / total**2
            f = f / total
        return f, jac


def _solve_face(face: _Face, x0: np.ndarray) -> np.ndarray:
    """A root of the face's indifference equations from ``x0``: ``u(X, x) = v`` for every member
    X and ``sum(x) = 1`` (``s + 1`` equations in the ``s`` weights and ``v``: ``K - 1`` free
    unknowns on the whole simplex). Levenberg-Marquardt (MINPACK through
    ``scipy.optimize.root``, exact Jacobian): it also converges where the Jacobian is singular
    (ties, a continuum of equilibria), where Powell's hybrid method stalls. A root off the
    simplex is clipped by the caller and fails the gap check."""
    s = len(face.members)

    def system(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f, jac = face.values(z[:s])
        r = np.empty(s + 1)
        r[:s] = f - z[s]
        r[s] = z[:s].sum() - 1.0
        j = np.zeros((s + 1, s + 1))
        j[:s, :s] = jac
        j[:s, s] = -1.0
        j[s, :s] = 1.0
        return r, j

    f0, _ = face.values(x0)
    z0 = np.append(x0, x0 @ f0)
    with np.errstate(all="ignore"):
        res = root(system, z0, jac=True, method="lm", options={"xtol": 1e-14, "ftol": 1e-14})
    return res.x[:s]


def duplicates(table: PayoffTable) -> list[int]:
    """For each member, the first member identical to it (itself if none). Y copies X when
    both score the same against every opponent multiset and, as an opponent, Y in place of
    one X changes nobody's score: moving weight between them changes no payoff, so they are
    one strategy under two names."""
    k = len(table.population)
    radix = table.players ** np.arange(k, dtype=np.int64)  # a multiset's key: counts in base P
    keys = table.counts @ radix
    order = np.argsort(keys)
    first = list(range(k))
    for y in range(k):
        for x in range(y):
            if first[x] != x or not np.array_equal(table.u[x], table.u[y]):
                continue
            has = np.flatnonzero(table.counts[:, x] > 0)
            moved = table.counts[has].copy()
            moved[:, x] -= 1
            moved[:, y] += 1
            want = moved @ radix
            cols = order[np.minimum(np.searchsorted(keys, want, sorter=order), len(keys) - 1)]
            if (keys[cols] == want).all() and np.array_equal(table.u[:, has], table.u[:, cols]):
                first[y] = x
                break
    return first


@dataclass
class EquilibriumPoint:
    """One symmetric equilibrium found: its weights, how many of the solver's starts ended at
    it, its Nash gap on the table, and whether it is stable under the replicator dynamics."""

    sigma: np.ndarray
    reached: int
    nash_gap: float
    stable: bool = False

    @property
    def entropy(self) -> float:
        w = self.sigma[self.sigma > 0]
        return float(-(w * np.log(w)).sum())


def is_stable(table: PayoffTable, sigma: np.ndarray) -> bool:
    """Asymptotically stable under the replicator dynamics: every strategy outside the support
    strictly loses against ``σ``, and the dynamics linearised on the support's face (the
    Jacobian of ``x_i (u(i, x) - u(x, x))`` on the tangent space ``sum(dx) = 0``) has only
    eigenvalues with negative real parts. A population of adapting players pushed a little
    away from ``σ`` comes back to it. Tolerances: 1e-9 of the payoffs' spread."""
    sigma = np.asarray(sigma, dtype=float)
    tol = 1e-9 * (float(np.ptp(table.u)) or 1.0)
    members = np.flatnonzero(sigma > 1e-9)
    f = table.payoffs(sigma)
    phi = float(sigma @ f)
    outside = np.setdiff1d(np.arange(len(sigma)), members)
    if (f[outside] > phi - tol).any():
        return False
    if len(members) == 1:
        return True
    face = _Face.of(table, members)
    x = sigma[members]
    fx, jac = face.values(x)
    dphi = fx + x @ jac
    d = x[:, None] * (jac - dphi[None, :])
    basis = null_space(np.ones((1, len(x))))
    eig = np.linalg.eigvals(basis.T @ d @ basis)
    return bool((eig.real < -tol).all())


@dataclass
class Equilibrium:
    """The symmetric equilibrium chosen, its Nash gap, and every one found (chosen first)."""

    sigma: np.ndarray
    nash_gap: float
    equilibria: list[EquilibriumPoint] = field(default_factory=list)
    starts: int = 0  # root-finding starts in all
    supports: int = 0  # supports tried
    duplicates: dict[str, str] = field(default_factory=dict)  # member -> the one it copies
    solver: str = "nash"


def _on_simplex(k: int, members: Sequence[int], x: np.ndarray) -> np.ndarray | None:
    """The members' weights ``x`` as a mixture of all ``k`` (negative weights clipped to 0), or
    None when nothing is left."""
    sigma = np.zeros(k)
    sigma[list(members)] = x
    if not np.isfinite(sigma).all():
        return None
    sigma = np.clip(sigma, 0.0, None)
    total = sigma.sum()
    return sigma / total if total > 0 else None


def _polish(table: PayoffTable, sigma: np.ndarray, gap: float) -> tuple[np.ndarray, float]:
    """``σ`` (of Nash gap ``gap``) and its gap after solving again on the face of its support
    from ``σ`` itself (a root just off the simplex, clipped, becomes the root of the smaller
    face nearby), while the gap falls, at most :data:`POLISH_ROUNDS` times."""
    for _ in range(POLISH_ROUNDS):
        members = np.flatnonzero(sigma > 0)
        if len(members) < 2 or not gap > 0:
            break
        better = _on_simplex(
            len(sigma), members, _solve_face(_Face.of(table, members), sigma[members])
        )
        new_gap = nash_gap(table, better) if better is not None else math.nan
        if not new_gap < gap:
            break
        sigma, gap = better, new_gap
    return sigma, gap


def equilibrium(table: PayoffTable, rng: np.random.Generator) -> Equilibrium:
    """A symmetric Nash equilibrium of ``table`` by support enumeration, checked by its gap.

    Members identical to an earlier one (:func:`duplicates`) are set aside (weight 0: the first
    of identical members holds their weight). For every support ``S`` of the others (smallest
    first, in population order), the indifference equations on ``S``'s face are solved
    (:func:`_solve_face`) from the face's centre and :data:`SUPPORT_STARTS` - 1 points drawn
    from a flat Dirichlet with ``rng``; every solution, clipped to the simplex, is kept when its
    Nash gap on the whole table (:func:`nash_gap`) is at most :data:`MAX_NASH_GAP`. When no
    start of that pass gives one, a second pass draws :data:`RETRY_STARTS` points per support.
    Solutions within :data:`MERGE_L1` (L1) are one equilibrium; ``reached`` counts the starts
    that ended there. The one reported: among the stable ones (:func:`is_stable`) if any, else
    among all, the most mixed (largest entropy); equal entropies go to the first found.

    Raises:
        NoEquilibriumFound: no start gave a mixture whose gap is within :data:`MAX_NASH_GAP`.
    """
    k = len(table.population)
    first = duplicates(table)
    distinct = [i for i in range(k) if first[i] == i]
    faces = [
        face
        for size in range(1, len(distinct) + 1)
        for members in itertools.combinations(distinct, size)
        if (face := _Face.of(table, members)).u.shape[1] > 0  # a sample may lack the face
    ]
    found: list[EquilibriumPoint] = []
    near: EquilibriumPoint | None = None
    precise = PRECISE_GAP * (float(np.ptp(table.u)) or 1.0)
    starts = 0
    for per_face in (SUPPORT_STARTS, RETRY_STARTS):
        for face in faces:
            size = len(face.members)
            if size == 1:
                x0s = [np.ones(1)] if per_face == SUPPORT_STARTS else []
            else:
                x0s = [np.full(size, 1.0 / size)] if per_face == SUPPORT_STARTS else []
                x0s += list(rng.dirichlet(np.ones(size), size=per_face - len(x0s)))
            for x0 in x0s:
                starts += 1
                x = x0 if size == 1 else _solve_face(face, x0)
                sigma = _on_simplex(k, face.members, x)
                if sigma is None:
                    continue
                gap = nash_gap(table, sigma)
                if not gap <= MAX_NASH_GAP:  # NaN fails too
                    continue
                if gap > precise:
                    sigma, gap = _polish(table, sigma, gap)
                if gap > precise:  # an approximate root: kept only if nothing better is found
                    if near is None or gap < near.nash_gap:
                        near = EquilibriumPoint(sigma, 1, gap)
                    continue
                for point in found:
                    if np.abs(point.sigma - sigma).sum() < MERGE_L1:
                        point.reached += 1
                        if gap < point.nash_gap:
                            point.sigma, point.nash_gap = sigma, gap
                        break
                else:
                    found.append(EquilibriumPoint(sigma, 1, gap))
        if found:
            break
    if not found and near is not None:
        found = [near]
    if not found:
        raise NoEquilibriumFound(
            f"no symmetric equilibrium found from {starts} starts on {len(faces)} supports: no "
            f"mixture tried has a Nash gap of at most {MAX_NASH_GAP:g} (nothing is reported)"
        )
    for point in found:
        point.stable = is_stable(table, point.sigma)
    pool = [p for p in found if p.stable] or found
    chosen = max(pool, key=lambda p: round(p.entropy, 9))  # the first of equal entropies
    ordered = [chosen, *(p for p in found if p is not chosen)]
    names = table.population
    return Equilibrium(
        chosen.sigma,
        chosen.nash_gap,
        ordered,
        starts,
        len(faces),
        {names[i]: names[first[i]] for i in range(k) if first[i] != i},
    )


def solve_two_player(table: PayoffTable) -> np.ndarray:
    """Symmetric equilibrium of a two-player constant-sum table by linear programming (an
    independent check of :func:`equilibrium` at two players).

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
    population: Sequence[str],
    sigma: np.ndarray,
    regret_ci: Mapping[str, Sequence[float]],
    found: int = 1,
) -> str:
    """One line: "X dominates" only when X alone is the equilibrium, the only one of the
    ``found`` equilibria, and every other regret's interval lies above 0; otherwise the
    equilibrium's support (and how many equilibria were found, when more than one)."""
    sup = support(population, sigma)
    others = f"; 1 of {found} equilibria found" if found > 1 else ""
    if len(sup) == 1:
        x = sup[0][0]
        unclear = [n for n in population if n != x and not regret_ci[n][0] > 0]
        if found > 1:
            return f"{x} alone is the equilibrium chosen{others}: no dominance shown"
        if not unclear:
            return f"{x} dominates: it alone is the equilibrium and every other regret is above 0"
        return (
            f"{x} alone is the equilibrium, but the regret of {', '.join(unclear)} is not "
            "clearly above 0: no dominance shown"
        )
    parts = ", ".join(f"{n} {w:.3f}" for n, w in sorted(sup, key=lambda t: -t[1]))
    return f"no dominant strategy; the equilibrium mixes {parts}{others}"


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
    """A measured table and what the solver says of it.

    With ``solver == "nash"``: ``eq`` the equilibrium, ``regret`` and ``regret_ci`` at it,
    ``gap_ci`` the bootstrap interval of its Nash gap. With ``"alpha-rank"``: ``ranking`` the
    α-Rank masses (a ranking, not an equilibrium: ``eq`` and the regrets are None).
    """

    table: PayoffTable
    eq: Equilibrium | None
    regret: np.ndarray | None
    regret_ci: dict[str, list[float]]
    verdict: str
    entropy: int
    iterations: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # strategies made by the search
    gap_ci: list[float] = field(default_factory=list)
    ranking: np.ndarray | None = None
    solver: str = "nash"

    def summary(self) -> dict[str, Any]:
        pop = list(self.table.population)
        if self.eq is None:
            assert self.ranking is not None
            return {
                "population": pop,
                "solver": self.solver,
                "ranking": ranking_rows(pop, self.ranking),
                "verdict": self.verdict,
            }
        assert self.regret is not None
        return {
            "population": pop,
            "solver": self.solver,
            "equilibrium": {n: float(w) for n, w in zip(pop, self.eq.sigma)},
            "nash_gap": {"value": self.eq.nash_gap, "ci95": list(self.gap_ci) or None},
            "equilibria": [
                {
                    "weights": {n: float(w) for n, w in zip(pop, point.sigma)},
                    "reached": point.reached,
                    "nash_gap": point.nash_gap,
                    "stable": point.stable,
                }
                for point in self.eq.equilibria
            ],
            "regret": {
                n: {"value": float(r), "ci95": list(self.regret_ci[n])}
                for n, r in zip(pop, self.regret)
            },
            "verdict": self.verdict,
        }


def ranking_rows(population: Sequence[str], mass: np.ndarray) -> list[dict[str, Any]]:
    """α-Rank's masses as rows ``strategy, rank, mass`` (rank 1 the largest; equal masses, to
    1e-12, share a rank)."""
    order = sorted(range(len(population)), key=lambda i: (-mass[i], i))
    rows, rank = [], 0
    for pos, i in enumerate(order):
        if pos == 0 or mass[i] < mass[order[pos - 1]] - 1e-12:
            rank = pos + 1
        rows.append({"strategy": population[i], "rank": rank, "mass": float(mass[i])})
    return rows


def analyse(
    table: PayoffTable, entropy: int, index: int = 0
) -> tuple[Equilibrium, np.ndarray, dict[str, list[float]], str, list[float]]:
    """Equilibrium, regrets with bootstrap intervals, the verdict and the Nash gap's bootstrap
    interval (games resampled, σ held) of a measured table."""
    eq = equilibrium(table, np.random.default_rng(derive_seed(entropy, "equilibrium", index)))
    reg = table.regret(eq.sigma)
    boot = bootstrap_regret(
        table, eq.sigma, np.random.default_rng(derive_seed(entropy, "bootstrap", index))
    )
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    ci = {n: [float(a), float(b)] for n, a, b in zip(table.population, lo, hi)}
    gaps = np.maximum((-boot).max(axis=1), 0.0)  # max_X u(X, σ) - u(σ, σ) per replicate
    gap_ci = [float(v) for v in np.percentile(gaps, [2.5, 97.5])]
    return eq, reg, ci, verdict(table.population, eq.sigma, ci, len(eq.equilibria)), gap_ci


def ranking_text(population: Sequence[str], mass: np.ndarray) -> str:
    parts = ", ".join(f"{r['strategy']} {r['mass']:.3f}" for r in ranking_rows(population, mass))
    return f"α-Rank ranking (a ranking, not an equilibrium): {parts}"


def metagame(
    game: Any,
    scenario: Any,
    population: Sequence[str],
    *,
    games: int,
    players: int | None = None,
    seed: int | None = None,
    jobs: int | None = 1,
    solver: str = "nash",
    iterate: int = 0,
    tune_kinds: Sequence[str] = (),
    tune_budget: int = 20_000,
    epsilon: float | None = None,
    command: str = "",
    on_note: Callable[[str], None] | None = None,
    engine: str | None = None,
) -> MetagameResult:
    """Payoff table of ``population`` and what ``solver`` says of it.

    ``solver="nash"``: the symmetric equilibrium (:func:`equilibrium`), regrets and the Nash
    gap with bootstrap intervals. ``"alpha-rank"``: the α-Rank ranking only (never an
    equilibrium; no regrets, no best responses).

    With ``iterate`` K (Nash only), up to K times: tune each kind against the equilibrium
    mixture (each opponent seat drawn from σ), measure the best validated one once more on
    fresh slices (``derive_seed(entropy, "exploitability", i)``: no winner's curse from the
    choice between kinds) and record its gain ``u(BR, σ) - 1/P``: the *exploitability lower
    bound (searched kinds, budget B)*, a lower bound because only those kinds with that budget
    were searched. The best response joins the population only when its gain is above 0 with
    95 % confidence (:func:`gain_test`); otherwise the iteration stops. With
    ``epsilon``, it also stops when the gain's 95 % upper bound is below ``epsilon``.

    Args:
        games: games per table (rounded up to whole slices).
        tune_kinds: kinds tuned for a best response (default: the population's kinds).
        engine: the game's engine for every game (``None``: the game's default).
    """
    check_game(game)
    population = list(population)
    if solver not in SOLVERS:
        raise UserError(f"--solver {solver}: not a solver (allowed: {', '.join(SOLVERS)})")
    if len(population) < 2:
        raise UserError("--population: at least 2 strategies (allowed: 2..8 names)")
    if len(set(population)) != len(population):
        raise UserError("--population: a strategy is listed twice (allowed: distinct names)")
    if len(population) + iterate > MAX_POPULATION:
        raise UserError(
            f"--population {len(population)} strategies + --iterate {iterate}: more than "
            f"{MAX_POPULATION} (allowed: at most {MAX_POPULATION} in all)"
        )
    if iterate and solver != "nash":
        raise UserError(
            f"--iterate with --solver {solver}: a best response answers an equilibrium, and "
            f"{solver} gives a ranking (allowed: --solver nash)"
        )
    check_strategies(game, scenario, population, "--population")
    players = resolve_players(game, scenario, players)
    if players > MAX_PLAYERS:
        raise UserError(
            f"--players {players}: the meta-game solves tables of at most {MAX_PLAYERS} "
            f"players (allowed: 2..{MAX_PLAYERS})"
        )
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
    if solver == "alpha-rank":
        table = measure(player, population, games_per_table=games, entropy=entropy, cache=cache)
        mass = alpha_rank(table)
        return MetagameResult(
            table,
            None,
            None,
            {},
            ranking_text(population, mass),
            entropy,
            ranking=mass,
            solver=solver,
        )
    figure = exploitability_figure(kinds, tune_budget)
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
        eq, reg, ci, text, gap_ci = analyse(table, entropy, index)
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
        # figure carries no winner's curse from the choice between kinds
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
        gain, se, (lo, hi), joined = gain_test(fresh, players)
        score = gain + 1.0 / players
        stopped = ""
        if not joined:
            stopped = (
                f"the best response's gain {gain:+.4f} is not above 0 with 95 % confidence "
                f"(its 95 % interval [{lo:+.4f}, {hi:+.4f}] reaches 0): it does not join"
            )
        elif epsilon is not None and hi < epsilon:
            joined = False
            stopped = f"the best response gains less than {epsilon} (95 % upper bound {hi:.4f})"
        row = {
            "iteration": index + 1,
            "population": list(population),
            "equilibrium": {n: float(w) for n, w in zip(population, eq.sigma)},
            "nash_gap": eq.nash_gap,
            "best_response": best.name,
            "best_response_kind": best.kind,
            "best_response_params": dict(best.params),
            "best_response_score": score,
            "figure": figure,
            "searched_kinds": list(kinds),
            "tune_budget": tune_budget,
            "exploitability_lower_bound": gain,
            "exploitability_lower_bound_ci95": [lo, hi],
            "gain_se": se,
            "joined": joined,
            "exploitability": gain,
            "exploitability_ci95": [lo, hi],
            "validation_games": slices * s,
        }
        iterations.append(row)
        if on_note:
            on_note(
                f"iteration {index + 1}: {figure} {gain:.4f} [{lo:.4f}, {hi:.4f}] by "
                f"{best.name}, which {'joins' if joined else 'does not join'} the population"
            )
        if not joined:
            row["stopped"] = stopped
            break
        player.extra[best.name] = best.decl
        population.append(best.name)
        index += 1
    return MetagameResult(
        table, eq, reg, ci, text, entropy, iterations, dict(player.extra), gap_ci=gap_ci
    )


def gain_test(
    slice_means: np.ndarray, players: int
) -> tuple[float, float, tuple[float, float], bool]:
    """Does a best response beat σ? Its gain ``u(BR, σ) - 1/P`` from the slice means of its
    fresh games (a slice is the unit: its opponents are one draw from σ), the gain's standard
    error, its 95 % interval by Student's t with ``slices - 1`` degrees of freedom, and whether
    the interval lies above 0: the gain is above 0 with 95 % confidence (one-sided level
    0.025 for normal slice means; skewed ones can raise it, so the level claimed is 0.05, and
    the false-join rate is checked by simulation in ``tests/test_metagame.py``)."""
    n = len(slice_means)
    gain = float(np.mean(slice_means)) - 1.0 / players
    se = float(np.std(slice_means, ddof=1) / math.sqrt(n))
    half = float(t_dist.ppf(0.975, n - 1)) * se
    return gain, se, (gain - half, gain + half), bool(gain - half > 0)


def exploitability_figure(kinds: Sequence[str], budget: int) -> str:
    """The name of ``--iterate``'s figure: what it is a lower bound over."""
    return (
        f"exploitability lower bound (searched kinds {', '.join(kinds)}, budget {budget:,} "
        "games per kind)"
    )


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
