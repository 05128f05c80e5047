"""Group-sequential tests on paired differences, with alpha spending and Holm correction.

Game-agnostic statistics behind ``broadside compare``. Two rule sets are played on the same
seeds (common random numbers); game ``i`` gives one paired difference ``d_i`` per metric
(variant minus base). We look at the data at ``K`` planned points ``n_1 < ... < n_K = N_max``
and stop as soon as the evidence is strong enough, without inflating the type-I error as naive
peeking (testing at 1.96 after every batch) does.

Design (Jennison & Turnbull, *Group Sequential Methods*, 2000, ch. 7 and 8):

* The z statistic at look ``k`` is ``Z_k = mean(d) / (sd(d) / sqrt(n_k))``. Under the null,
  ``(Z_1, ..., Z_K)`` is asymptotically multivariate normal with ``corr(Z_j, Z_k) =
  sqrt(t_j / t_k)`` where ``t_k = n_k / N_max`` is the information fraction (canonical joint
  distribution).
* Two-sided boundaries ``c_k`` come from a Lan-DeMets spending function ``alpha(t)``: the
  probability under the null of first crossing at look ``k`` equals ``alpha(t_k) -
  alpha(t_{k-1})``. The default is the O'Brien-Fleming type, ``alpha/2`` per side spent as
  ``2 - 2 Phi(z_{1-alpha/4} / sqrt(t))`` (as gsDesign's ``sfLDOF``; hard to stop very early,
  close to a fixed test at the end); Pocock type ``alpha log(1 + (e - 1) t)`` is offered too.
* Boundaries are found by the recursive numerical integration of Armitage, McPherson and Rowe
  (1969) on the Brownian-motion scale ``S_k = Z_k sqrt(t_k)``: the sub-density of ``S_k`` on the
  continuation region is propagated look by look on a grid, and each ``c_k`` is solved by root
  finding so that the exit probability equals the alpha spent at that look.
* The p-value at the stopping look uses the stage-wise ordering (J&T section 8.4): the chance
  under the null of stopping at an earlier look, plus that of reaching look ``k`` and seeing
  ``|Z_k|`` at least as large. It is a valid p-value for the design and is ``<= alpha`` exactly
  when a boundary was crossed.
* Intervals are repeated confidence intervals ``mean +- c_k(0.05) se`` (J&T ch. 9), valid
  whatever the stopping rule.
* Several metrics: each metric runs the design at ``alpha / m`` and is frozen at its own first
  crossing; the run stops when every metric has crossed or at ``N_max``. The stage-wise p-values
  are then Holm-adjusted (valid under any dependence); a crossing at ``alpha / m`` always stays
  significant after Holm, and Holm may add metrics that did not cross.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import optimize
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

    def exit_probability(self, k: int, z: float) -> float:
        """P_0(no crossing before look ``k`` and ``|Z_k| >= z``) (0-based ``k``)."""
        z = abs(float(z))
        if not math.isfinite(z):
            return 0.0
        t = self.fractions[k]
        if k == 0:
            return float(2 * sps.norm.sf(z))
        grid, dens = self._grids[k - 1], self._densities[k - 1]
        w = _simpson_weights(len(grid), grid[1] - grid[0])
        sd = math.sqrt(t - self.fractions[k - 1])
        edge = z * math.sqrt(t)
        tail = sps.norm.sf((edge - grid) / sd) + sps.norm.cdf((-edge - grid) / sd)
        return float(np.sum(w * dens * tail))

    def p_value(self, k: int, z: float) -> float:
        """Stage-wise ordering p-value when stopping at look ``k`` (0-based) with statistic
        ``z``."""
        before = self.cumulative_alpha[k - 1] if k > 0 else 0.0
        return float(min(1.0, before + self.exit_probability(k, z)))


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
                tail = sps.norm.sf((edge - g) / sd) + sps.norm.cdf((-edge - g) / sd)
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
            f_new = sps.norm.pdf(grid / math.sqrt(t)) / math.sqrt(t)
        else:
            g, f = grids[-1], dens[-1]
            w = _simpson_weights(len(g), g[1] - g[0])
            sd = math.sqrt(t - prev_t)
            kernel = sps.norm.pdf((grid[:, None] - g[None, :]) / sd) / sd
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


def look_sizes(max_n: int, looks: int, min_first: int = 1) -> list[int]:
    """Cumulative sample sizes of ``looks`` equally spaced looks ending at ``max_n``."""
    if max_n < looks:
        looks = max(1, max_n)
    sizes = [max(min_first, round(max_n * (k + 1) / looks)) for k in range(looks)]
    sizes[-1] = max_n
    out: list[int] = []
    for s in sizes:
        if not out or s > out[-1]:
            out.append(min(s, max_n))
    return out


def paired_z(diffs: np.ndarray) -> tuple[float, float, float]:
    """Mean, standard error and z of paired differences (``z = 0`` when all are zero)."""
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if n == 0:
        return math.nan, math.nan, 0.0
    m = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    if not se or not math.isfinite(se):
        # every difference identical: no evidence unless all differ in the same direction
        z = 0.0 if m == 0 else math.copysign(math.inf, m)
        return m, 0.0 if n > 1 else math.nan, z
    return m, se, m / se


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (same order as given)."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        adj[idx] = running
    return adj.tolist()


@dataclass
class MetricState:
    """One metric's sequential state: frozen at its first crossing."""

    name: str
    base_values: list[np.ndarray] = field(default_factory=list)
    variant_values: list[np.ndarray] = field(default_factory=list)
    crossed_at: int | None = None  # look index of the first crossing
    # summary at the stopping look (its crossing, or the last look taken)
    look: int = -1
    n: int = 0
    z: float = 0.0
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
    """

    def __init__(
        self,
        metrics: Sequence[str],
        *,
        alpha: float = 0.05,
        max_n: int,
        looks: int = 5,
        spending: str = "obrien-fleming",
        min_first: int = 1,
    ):
        if not metrics:
            raise ValueError("at least one metric is needed")
        if len(set(metrics)) != len(metrics):
            raise ValueError("metric names must be unique")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        self.alpha = float(alpha)
        self.max_n = int(max_n)
        self.sizes = look_sizes(self.max_n, looks, min_first)
        fractions = tuple(s / self.max_n for s in self.sizes)
        self.design = GroupSequentialDesign.create(self.alpha / len(metrics), fractions, spending)
        self.ci_design = GroupSequentialDesign.create(0.05, fractions, spending)
        self.metrics = {name: MetricState(name) for name in metrics}
        self.looks_taken = 0

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
            if state.crossed_at is not None:
                continue  # frozen at its crossing
            b = np.concatenate(state.base_values)
            v = np.concatenate(state.variant_values)
            mean, se, z = paired_z(v - b)
            state.look, state.n, state.z, state.mean_diff, state.se = k, b.size, z, mean, se
            state.base_mean, state.variant_mean = float(b.mean()), float(v.mean())
            crossed = abs(z) >= self.design.bounds[k]
            state.history.append(
                {
                    "look": k + 1,
                    "n_games": b.size,
                    "difference": mean,
                    "se": se,
                    "z": z,
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
            c = self.ci_design.bounds[k] if k >= 0 else math.nan
            se = state.se if math.isfinite(state.se) else math.nan
            ci = (
                (state.mean_diff - c * se, state.mean_diff + c * se)
                if math.isfinite(se)
                else (math.nan, math.nan)
            )
            rows.append(
                {
                    "name": state.name,
                    "base": state.base_mean,
                    "variant": state.variant_mean,
                    "difference": state.mean_diff,
                    "ci95": list(ci),
                    "se": state.se,
                    "z": state.z,
                    "p_value": p,
                    "n_games": state.n,
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


def simulate_rejection_rate(
    design: GroupSequentialDesign,
    sizes: Sequence[int],
    diff_sampler,
    reps: int,
    rng: np.random.Generator,
    naive: bool = False,
) -> float:
    """Fraction of ``reps`` sequential runs that reject, for checking the type-I error.

    ``diff_sampler(rng, reps, n)`` returns an array ``(reps, n)`` of paired differences. With
    ``naive=True`` every look is tested at the fixed-sample 1.96 (the peeking the design avoids).
    """
    d = diff_sampler(rng, reps, sizes[-1])
    rejected = np.zeros(reps, dtype=bool)
    z_fixed = float(sps.norm.isf(design.alpha / 2))
    for k, n in enumerate(sizes):
        x = d[:, :n]
        m = x.mean(axis=1)
        se = x.std(axis=1, ddof=1) / math.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, m / np.where(se > 0, se, 1), np.where(m == 0, 0.0, np.inf))
        bound = z_fixed if naive else design.bounds[k]
        rejected |= np.abs(z) >= bound
    return float(rejected.mean())
