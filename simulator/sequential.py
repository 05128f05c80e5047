"""Group-sequential tests on paired differences, with alpha spending and Holm correction.

Game-agnostic statistics behind ``broadside compare``. Two rule sets are played on the same
seeds (common random numbers); each *unit* gives one paired difference ``d_i`` per metric
(variant minus base): a unit is one game, or with ``compare --population`` one table (a seat
draw played through every seat rotation; the unit is the table's mean difference, so the test's
variance counts how the effect varies between tables). We look at the data at ``K`` planned
points ``n_1 < ... < n_K = N_max`` and stop as soon as the evidence is strong enough, without
inflating the type-I error as naive peeking (testing at 1.96 after every batch) does.

Design (Jennison & Turnbull, *Group Sequential Methods*, 2000, ch. 3.8, 7 and 8):

* No look before :data:`MIN_UNITS` units: the looks are equally spaced, at most one per
  ``MIN_UNITS`` units (fewer than ``--looks`` when ``N_max`` is small), so the first look has at
  least ``MIN_UNITS`` units and nothing is decided on fewer.
* Under the null the canonical statistics ``(Z_1, ..., Z_K)`` are asymptotically multivariate
  normal with ``corr(Z_j, Z_k) = sqrt(t_j / t_k)``, ``t_k = n_k / N_max`` the information
  fraction. Two-sided boundaries ``c_k`` on that scale come from a Lan-DeMets spending function
  ``alpha(t)``: the probability under the null of first crossing at look ``k`` equals
  ``alpha(t_k) - alpha(t_{k-1})``. The default is the O'Brien-Fleming type, ``alpha/2`` per side
  spent as ``2 - 2 Phi(z_{1-alpha/4} / sqrt(t))`` (as gsDesign's ``sfLDOF``; hard to stop very
  early, close to a fixed test at the end); Pocock type ``alpha log(1 + (e - 1) t)`` is offered
  too. Boundaries are found by the recursive numerical integration of Armitage, McPherson and
  Rowe (1969) on the Brownian-motion scale ``S_k = Z_k sqrt(t_k)``.
* What a look says (:func:`look_evidence`) is the *smaller* of two standardised statistics, each
  guarding against one way small samples mislead:

  - ``z_t``: Student's ``t = mean / (sd / sqrt(n))`` carried to the normal scale at the same
    nominal level (``P(T_{n-1} >= |t|) = P(N(0,1) >= |z_t|)``; J&T 3.8's significance-level
    approach), so a small look pays for its estimated variance;
  - ``z_s``: the self-normalised sum ``(|sum d| - h) / sqrt(sum d^2)``, the standardised sum of
    the sign-flip (randomisation) distribution, whose variance given ``|d|`` is ``sum d^2``
    exactly under a symmetric null; ``h`` is the continuity correction of a lattice (every
    ``d`` a multiple of ``h``, e.g. 1 for win/loss outcomes, detected from the data, 0 when
    none): discrete outcomes, many of them ties, would otherwise cross a boundary that the
    normal curve puts between two attainable sums.

  A look whose differences are all equal (zero spread, e.g. two games both won by the same
  seat) is no evidence: its statistic is 0, never infinite. The statistic is at most
  ``sqrt(n)`` in size, so a near-constant look cannot give an extreme p-value either. Taking the
  smaller statistic can only lower the chance of crossing, so the design's alpha bounds the
  error whenever either statistic follows the canonical distribution; simulation
  (``tests/test_sequential.py``) checks 2,000 null comparisons with ties per size.
* The p-value at the stopping look uses the stage-wise ordering (J&T section 8.4): the chance
  under the null of stopping at an earlier look, plus that of reaching look ``k`` and seeing
  ``|Z_k|`` at least as large. It is ``<= alpha`` exactly when a boundary was crossed.
* Intervals are repeated confidence intervals ``mean +- c'_k se`` (J&T ch. 9), ``c'_k`` the
  95% boundary carried to Student's t with ``n_k - 1`` degrees of freedom, valid whatever the
  stopping rule; a look without spread has none.
* Several metrics: each metric runs the design at ``alpha / m`` and is frozen at its own first
  crossing; the run stops when every metric has crossed or at ``N_max``. The stage-wise p-values
  are then Holm-adjusted (valid under any dependence); a crossing at ``alpha / m`` always stays
  significant after Holm, and Holm may add metrics that did not cross.

:class:`SequentialComparison` runs one comparison look by look (what ``compare`` plays);
:func:`sequential_decisions` runs many at once on arrays (for checking error rates) with the
same functions, and the tests check that both agree.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import optimize, special
from scipy import stats as sps

SPENDING_FUNCTIONS = ("obrien-fleming", "pocock")
GRID_POINTS = 1201  # odd, for Simpson's rule


def spent_alpha(t, alpha: float, spending: str = "obrien-fleming"):
    """Cumulative two-sided alpha spent at information fraction ``t`` (Lan-DeMets).

    Args:
        t: information fraction(s) in [0, 1].
        alpha: overall two-sided type-I error.
        spending: ``obrien-fleming`` or ``pocock`` (Lan-DeMets types).
    """
    t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
    if spending == "obrien-fleming":
        # alpha/2 per side, each side spent as 2 - 2 Phi(z_{1 - alpha/4} / sqrt(t))
        # (gsDesign sfLDOF)
        z = sps.norm.isf(alpha / 4)
        with np.errstate(divide="ignore"):
            out = np.where(t > 0, 4 * sps.norm.sf(z / np.sqrt(np.where(t > 0, t, 1))), 0.0)
    elif spending == "pocock":
        out = alpha * np.log1p((math.e - 1) * t)
    else:
        raise ValueError(
            f"unknown spending function {spending!r} (allowed: {', '.join(SPENDING_FUNCTIONS)})"
        )
    return float(out) if out.ndim == 0 else out


def _normal_pdf(x: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _simpson_weights(n: int, h: float) -> np.ndarray:
    w = np.ones(n)
    w[1:-1:2] = 4
    w[2:-1:2] = 2
    return w * h / 3


@dataclass(frozen=True)
class GroupSequentialDesign:
    """A two-sided group-sequential design: looks, boundaries, and what it takes to get p-values.

    Build with :meth:`create`; ``bounds[k]`` is the z boundary at look ``k`` (stop when
    ``|Z_k| >= bounds[k]``).
    """

    alpha: float
    fractions: tuple[float, ...]  # information fraction of each look, increasing, last == 1
    spending: str
    bounds: tuple[float, ...]  # two-sided z boundaries
    cumulative_alpha: tuple[float, ...]  # alpha spent up to and including each look
    # sub-densities of S_k = Z_k sqrt(t_k) on the continuation region, per look (grid, density)
    _grids: tuple[np.ndarray, ...] = field(repr=False, compare=False, default=())
    _densities: tuple[np.ndarray, ...] = field(repr=False, compare=False, default=())

    @classmethod
    def create(
        cls, alpha: float = 0.05, looks: int | Sequence[float] = 5, spending: str = "obrien-fleming"
    ) -> GroupSequentialDesign:
        """Compute the boundaries of a design.

        Args:
            alpha: overall two-sided type-I error, in (0, 1).
            looks: number of equally spaced looks, or the information fractions themselves.
            spending: ``obrien-fleming`` or ``pocock``.
        """
        if isinstance(looks, int):
            fractions = tuple((k + 1) / looks for k in range(looks))
        else:
            fractions = tuple(float(t) for t in looks)
        return _design(float(alpha), fractions, spending)

    @property
    def num_looks(self) -> int:
        return len(self.fractions)

    def exit_probability(self, k: int, z):
        """P_0(no crossing before look ``k`` and ``|Z_k| >= z``) (0-based ``k``); ``z`` a number
        or an array (the answer has its shape)."""
        za = np.abs(np.asarray(z, dtype=float))
        t = self.fractions[k]
        if k == 0:
            out = 2 * special.ndtr(-za)
        else:
            grid, dens = self._grids[k - 1], self._densities[k - 1]
            w = _simpson_weights(len(grid), grid[1] - grid[0]) * dens
            sd = math.sqrt(t - self.fractions[k - 1])
            edge = za[..., None] * math.sqrt(t)
            tail = special.ndtr((grid - edge) / sd) + special.ndtr((-edge - grid) / sd)
            out = tail @ w
        out = np.where(np.isfinite(za), out, 0.0)
        return float(out) if out.ndim == 0 else out

    def p_value(self, k: int, z):
        """Stage-wise ordering p-value when stopping at look ``k`` (0-based) with statistic
        ``z`` (a number or an array)."""
        before = self.cumulative_alpha[k - 1] if k > 0 else 0.0
        out = np.minimum(1.0, before + np.asarray(self.exit_probability(k, z)))
        return float(out) if out.ndim == 0 else out


@lru_cache(maxsize=64)
def _design(alpha: float, fractions: tuple[float, ...], spending: str) -> GroupSequentialDesign:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not fractions or any(b <= a for a, b in itertools.pairwise(fractions)) or fractions[0] <= 0:
        raise ValueError("look fractions must be increasing and positive")
    if abs(fractions[-1] - 1.0) > 1e-12:
        raise ValueError("the last look must be at information fraction 1")
    cum = [spent_alpha(t, alpha, spending) for t in fractions]
    bounds: list[float] = []
    grids: list[np.ndarray] = []
    dens: list[np.ndarray] = []
    prev_t = 0.0
    for k, t in enumerate(fractions):
        target = cum[k] - (cum[k - 1] if k else 0.0)
        if k == 0:
            c = float(sps.norm.isf(target / 2)) if target > 0 else math.inf
        else:
            g, f = grids[-1], dens[-1]
            w = _simpson_weights(len(g), g[1] - g[0])
            sd = math.sqrt(t - prev_t)

            def excess(c, g=g, f=f, w=w, sd=sd, t=t, target=target):
                edge = c * math.sqrt(t)
                tail = special.ndtr((g - edge) / sd) + special.ndtr((-edge - g) / sd)
                return float(np.sum(w * f * tail)) - target

            if target <= 0:
                c = math.inf
            else:
                c = float(optimize.brentq(excess, 1e-6, 40.0, xtol=1e-10))
        bounds.append(c)
        # continuation sub-density of S_k on (-c sqrt(t), c sqrt(t))
        half = min(c, 12.0) * math.sqrt(t)
        grid = np.linspace(-half, half, GRID_POINTS)
        if k == 0:
            f_new = _normal_pdf(grid / math.sqrt(t)) / math.sqrt(t)
        else:
            g, f = grids[-1], dens[-1]
            w = _simpson_weights(len(g), g[1] - g[0])
            sd = math.sqrt(t - prev_t)
            kernel = _normal_pdf((grid[:, None] - g[None, :]) / sd) / sd
            f_new = kernel @ (w * f)
        grids.append(grid)
        dens.append(f_new)
        prev_t = t
    return GroupSequentialDesign(
        alpha=alpha,
        fractions=fractions,
        spending=spending,
        bounds=tuple(bounds),
        cumulative_alpha=tuple(cum),
        _grids=tuple(grids),
        _densities=tuple(dens),
    )


#: no look decides on fewer units (paired games, or tables with ``compare --population``)
MIN_UNITS = 10
#: differences are searched for a lattice among the multiples of ``1 / LATTICE_DENOMINATOR``
#: (2^6 3^3 5^2 7: every fraction whose denominator is at most 10, and means of up to 8 of them)
LATTICE_DENOMINATOR = 302_400
#: relative size below which the spread of a look's differences counts as none (float noise)
SPREAD_TOLERANCE = 1e-12


def look_sizes(max_units: int, looks: int, min_units: int = MIN_UNITS) -> list[int]:
    """Cumulative units of ``looks`` equally spaced looks ending at ``max_units``, at most one
    per ``min_units`` units (so the first look has at least ``min_units``).

    Raises:
        ValueError: ``max_units < min_units`` (no look could decide).
    """
    max_units, min_units = int(max_units), int(min_units)
    if min_units < 1 or max_units < min_units:
        raise ValueError(f"{max_units} units: at least {min_units} are needed for a look")
    looks = max(1, min(int(looks), max_units // min_units))
    # nearest integer, halves up (not Python's round-half-even, which may repeat a size)
    return [(2 * max_units * (k + 1) + looks) // (2 * looks) for k in range(looks)]


def prefix_lattice(units: np.ndarray) -> np.ndarray:
    """The lattice step of every prefix along the last axis: the largest ``h`` that makes each of
    ``units[..., :i + 1]`` an integer multiple of ``h``, among the multiples of
    ``1 / LATTICE_DENOMINATOR``; 0 where a value is off that grid (no lattice, no continuity
    correction) or every value so far is 0."""
    a = np.abs(np.asarray(units, dtype=float)) * LATTICE_DENOMINATOR
    r = np.rint(a)
    on = (np.abs(a - r) <= 1e-6 + 1e-9 * a) & (a < 2.0**53)
    on_so_far = np.logical_and.accumulate(on, axis=-1)
    g = np.gcd.accumulate(np.where(on, r, 0).astype(np.int64), axis=-1)
    return np.where(on_so_far, g / LATTICE_DENOMINATOR, 0.0)


@dataclass(frozen=True)
class Evidence:
    """What one look says about the mean paired difference (arrays over the leading axes of the
    units given to :func:`look_evidence`)."""

    n: int  # units at the look
    mean: np.ndarray
    se: np.ndarray  # sd / sqrt(n); 0 without spread
    t: np.ndarray  # Student's t (0 without spread)
    z_t: np.ndarray  # t carried to the normal scale at the same nominal level
    z_s: np.ndarray  # continuity-corrected self-normalised sum
    z: np.ndarray  # the statistic compared with the boundaries: the smaller of the two
    spread: np.ndarray  # False when every difference is the same (no evidence)
    lattice: np.ndarray  # the continuity correction h used by z_s


def look_evidence(units: np.ndarray, lattice: np.ndarray | float | None = None) -> Evidence:
    """The statistic of a look on ``units`` (shape ``(..., n)``: ``n`` paired differences per
    comparison); ``lattice`` the step of the values (default: :func:`prefix_lattice` of all).

    ``z`` is ``sign(mean) min(|z_t|, |z_s|)`` (module docstring), 0 when the differences have no
    spread or ``n < 2``.
    """
    u = np.asarray(units, dtype=float)
    n = u.shape[-1]
    h = prefix_lattice(u)[..., -1] if lattice is None else np.asarray(lattice, dtype=float)
    mean = u.mean(axis=-1)
    total = u.sum(axis=-1)
    if n < 2:
        zero = np.zeros_like(mean)
        return Evidence(n, mean, zero, zero, zero, zero, zero, zero.astype(bool), zero + h)
    hi, lo = u.max(axis=-1), u.min(axis=-1)
    spread = (hi - lo) > SPREAD_TOLERANCE * np.maximum(np.maximum(np.abs(hi), np.abs(lo)), 1e-300)
    se = np.where(spread, np.sqrt(u.var(axis=-1, ddof=1) / n), 0.0)
    t = np.where(spread, mean / np.where(spread, se, 1.0), 0.0)
    z_t = -special.ndtri_exp(sps.t.logsf(np.abs(t), n - 1))
    sq = np.sum(u * u, axis=-1)
    z_s = np.maximum(np.abs(total) - h, 0.0) / np.sqrt(np.where(spread, sq, 1.0))
    z = np.where(spread, np.sign(mean) * np.minimum(z_t, z_s), 0.0)
    return Evidence(n, mean, se, t, np.sign(t) * z_t, np.sign(total) * z_s, z, spread, h + 0 * z)


def t_boundary(z_boundary, n: int):
    """A z-scale boundary carried to Student's t with ``n - 1`` degrees of freedom (same
    nominal one-sided level)."""
    c = np.asarray(z_boundary, dtype=float)
    out = np.where(np.isfinite(c), sps.t.isf(sps.norm.sf(np.where(np.isfinite(c), c, 0)), n - 1), c)
    return float(out) if out.ndim == 0 else out


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (same order as given)."""
    return holm_rows(np.asarray(p_values, dtype=float)[None, :])[0].tolist()


def holm_rows(p: np.ndarray) -> np.ndarray:
    """Holm step-down adjustment of every row of ``p`` (shape ``(..., m)``)."""
    p = np.asarray(p, dtype=float)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1)
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked), axis=-1)
    out = np.empty_like(p)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def unit_means(values: np.ndarray, per_unit: int) -> np.ndarray:
    """Means of consecutive groups of ``per_unit`` values along the last axis."""
    v = np.asarray(values, dtype=float)
    if v.shape[-1] % per_unit:
        raise ValueError(f"{v.shape[-1]} values are not whole units of {per_unit}")
    return v.reshape(*v.shape[:-1], -1, per_unit).mean(axis=-1)


def sequential_decisions(
    units: Mapping[str, np.ndarray],
    *,
    alpha: float = 0.05,
    looks: int = 5,
    spending: str = "obrien-fleming",
    min_units: int = MIN_UNITS,
    games_per_unit: int = 1,
) -> dict[str, np.ndarray]:
    """Many comparisons at once: what :class:`SequentialComparison` decides on each.

    Args:
        units: per metric, an array ``(reps, N)`` of paired per-game differences (all metrics
            the same shape); comparison ``r`` sees row ``r`` of every metric.
        alpha, looks, spending, min_units, games_per_unit: as for
            :class:`SequentialComparison` with ``max_n = N``.

    Returns:
        Arrays ``(reps, m)`` in the metrics' order: ``z`` and ``look`` (0-based) at each metric's
        stopping look, ``crossed``, ``p_value``, ``p_holm``, ``decided``; and ``stop_look``
        ``(reps,)``.
    """
    names = list(units)
    per = int(games_per_unit)
    arrays = [np.asarray(units[name], dtype=float) for name in names]
    arrays = [unit_means(u[:, : u.shape[1] // per * per], per) for u in arrays]
    reps, n_max = arrays[0].shape
    sizes = look_sizes(n_max, looks, min_units)
    design = GroupSequentialDesign.create(
        alpha / len(names), tuple(s / n_max for s in sizes), spending
    )
    k_looks = len(sizes)
    z = np.empty((reps, len(names), k_looks))
    for j, u in enumerate(arrays):
        lattice = prefix_lattice(u)
        for k, n in enumerate(sizes):
            z[:, j, k] = look_evidence(u[:, :n], lattice[:, n - 1]).z
    crossed = np.abs(z) >= np.asarray(design.bounds)
    any_cross = crossed.any(axis=-1)
    first = np.where(any_cross, np.argmax(crossed, axis=-1), k_looks - 1)
    stop = np.where(any_cross.all(axis=1), first.max(axis=1), k_looks - 1)
    look = np.where(any_cross, first, stop[:, None])
    z_stop = np.take_along_axis(z, look[..., None], axis=-1)[..., 0]
    p = np.empty_like(z_stop)
    for k in range(k_looks):
        at = look == k
        p[at] = design.p_value(k, z_stop[at])
    p_holm = holm_rows(p)
    return {
        "z": z_stop,
        "look": look,
        "crossed": any_cross,
        "p_value": p,
        "p_holm": p_holm,
        "decided": p_holm <= alpha,
        "stop_look": stop,
    }


@dataclass
class MetricState:
    """One metric's sequential state: frozen at its first crossing."""

    name: str
    base_values: list[np.ndarray] = field(default_factory=list)
    variant_values: list[np.ndarray] = field(default_factory=list)
    units: list[np.ndarray] = field(default_factory=list)  # paired unit differences per look
    crossed_at: int | None = None  # look index of the first crossing
    # summary at the stopping look (its crossing, or the last look taken)
    look: int = -1
    n: int = 0  # games
    n_units: int = 0
    z: float = 0.0
    t: float = 0.0
    mean_diff: float = math.nan
    se: float = math.nan
    base_mean: float = math.nan
    variant_mean: float = math.nan
    history: list[dict] = field(default_factory=list)


class SequentialComparison:
    """Feed paired per-game metric values look by look; it says when to stop and what was found.

    Example::

        cmp = SequentialComparison(["win-rate:runner"], alpha=0.05, max_n=4000, looks=5)
        for k, n_k in enumerate(cmp.sizes):
            base, variant = play(games cmp.done .. n_k)      # same seeds for both
            cmp.add_look({"win-rate:runner": (base, variant)})
            if cmp.should_stop():
                break
        results = cmp.results()

    With ``games_per_unit=G`` the unit of the test is a group of ``G`` consecutive games (a
    table): the looks fall on whole units, at most ``max_n // G`` of them, and each unit's mean
    paired difference is one observation.
    """

    def __init__(
        self,
        metrics: Sequence[str],
        *,
        alpha: float = 0.05,
        max_n: int,
        looks: int = 5,
        spending: str = "obrien-fleming",
        games_per_unit: int = 1,
        min_units: int = MIN_UNITS,
    ):
        if not metrics:
            raise ValueError("at least one metric is needed")
        if len(set(metrics)) != len(metrics):
            raise ValueError("metric names must be unique")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        if games_per_unit < 1:
            raise ValueError(f"games_per_unit must be at least 1, got {games_per_unit}")
        self.alpha = float(alpha)
        self.games_per_unit = int(games_per_unit)
        self.min_units = int(min_units)
        max_units = int(max_n) // self.games_per_unit
        self.unit_sizes = look_sizes(max_units, looks, self.min_units)
        self.sizes = [u * self.games_per_unit for u in self.unit_sizes]
        self.max_n = self.sizes[-1]
        fractions = tuple(s / max_units for s in self.unit_sizes)
        self.design = GroupSequentialDesign.create(self.alpha / len(metrics), fractions, spending)
        self.ci_design = GroupSequentialDesign.create(0.05, fractions, spending)
        self.metrics = {name: MetricState(name) for name in metrics}
        self.looks_taken = 0

    @property
    def min_games(self) -> int:
        """Games before which nothing can be decided (the first look's size)."""
        return self.sizes[0]

    @property
    def done(self) -> int:
        """Games analysed so far."""
        return self.sizes[self.looks_taken - 1] if self.looks_taken else 0

    def next_size(self) -> int | None:
        """Cumulative games needed for the next look (``None`` when the design is exhausted)."""
        return self.sizes[self.looks_taken] if self.looks_taken < len(self.sizes) else None

    def add_look(self, values: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """Add the next batch: per metric, (base values, variant values) of the same games."""
        k = self.looks_taken
        if k >= len(self.sizes):
            raise ValueError("every planned look has been taken")
        need = self.sizes[k] - self.done
        for name, state in self.metrics.items():
            base, variant = (np.asarray(v, dtype=float) for v in values[name])
            if base.shape != (need,) or variant.shape != (need,):
                raise ValueError(f"{name}: expected {need} paired values at look {k + 1}")
            state.base_values.append(base)
            state.variant_values.append(variant)
            state.units.append(unit_means(variant - base, self.games_per_unit))
            if state.crossed_at is not None:
                continue  # frozen at its crossing
            b = np.concatenate(state.base_values)
            v = np.concatenate(state.variant_values)
            ev = look_evidence(np.concatenate(state.units))
            state.look, state.n, state.n_units = k, b.size, ev.n
            state.z, state.t = float(ev.z), float(ev.t)
            state.mean_diff, state.se = float(ev.mean), float(ev.se)
            state.base_mean, state.variant_mean = float(b.mean()), float(v.mean())
            crossed = abs(state.z) >= self.design.bounds[k]
            state.history.append(
                {
                    "look": k + 1,
                    "n_games": b.size,
                    "n_units": ev.n,
                    "difference": state.mean_diff,
                    "se": state.se,
                    "t": state.t,
                    "z": state.z,
                    "boundary": self.design.bounds[k],
                    "crossed": bool(crossed),
                }
            )
            if crossed:
                state.crossed_at = k
        self.looks_taken += 1

    def should_stop(self) -> bool:
        """True when every metric has crossed its boundary or every look has been taken."""
        if self.looks_taken >= len(self.sizes):
            return True
        return all(s.crossed_at is not None for s in self.metrics.values())

    def results(self) -> list[dict]:
        """Per metric: means, difference, repeated 95% CI, stage-wise and Holm p-values,
        decision."""
        rows = []
        for state in self.metrics.values():
            k = state.look
            p = self.design.p_value(k, state.z) if k >= 0 else 1.0
            spread = k >= 0 and state.se > 0
            c = t_boundary(self.ci_design.bounds[k], state.n_units) if spread else math.nan
            ci = (state.mean_diff - c * state.se, state.mean_diff + c * state.se)
            rows.append(
                {
                    "name": state.name,
                    "base": state.base_mean,
                    "variant": state.variant_mean,
                    "difference": state.mean_diff,
                    "ci95": list(ci) if spread else [math.nan, math.nan],
                    "se": state.se,
                    "z": state.z,
                    "t": state.t,
                    "df": state.n_units - 1 if k >= 0 else math.nan,
                    "p_value": p,
                    "n_games": state.n,
                    "n_units": state.n_units,
                    "look": k + 1,
                    "boundary": self.design.bounds[k] if k >= 0 else math.nan,
                    "crossed": state.crossed_at is not None,
                }
            )
        adj = holm([r["p_value"] for r in rows])
        for r, pa in zip(rows, adj):
            r["p_holm"] = pa
            r["decided"] = bool(pa <= self.alpha)
        return rows

    def history(self) -> list[dict]:
        """Every look of every metric (for reports)."""
        return [{"metric": s.name, **h} for s in self.metrics.values() for h in s.history]
