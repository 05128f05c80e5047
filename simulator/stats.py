"""Confidence intervals and standard errors for Monte Carlo results.

Every Monte Carlo figure Broadside prints is counts plus n; these helpers turn them into
intervals. Wilson is the default for proportions; Clopper-Pearson (exact) is offered for small n.
Both accept scalars or numpy arrays (vectorised), so a whole table gets its intervals at once.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special  # not scipy.stats: about 0.35 s to import, at every command

Z95 = float(special.ndtri(0.975))


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(special.ndtri(0.5 + confidence / 2.0))  # the normal quantile


def wilson_interval(k, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion ``k / n``.

    Matches ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`` but is vectorised.
    ``k`` may be fractional (ties shared as half wins). Returns ``(low, high)`` arrays or floats;
    with ``n == 0`` the interval is ``(0, 1)``.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / np.where(n > 0, n, 1), 0.5)
        denom = 1.0 + z * z / np.where(n > 0, n, 1)
        centre = (p + z * z / (2 * np.where(n > 0, n, 1))) / denom
        half = (z / denom) * np.sqrt(
            p * (1 - p) / np.where(n > 0, n, 1) + z * z / (4 * np.where(n > 0, n, 1) ** 2)
        )
    low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
    high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    # exact edges: k == 0 -> low 0, k == n -> high 1
    low = np.where(k <= 0, 0.0, low)
    high = np.where(k >= n, 1.0, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def clopper_pearson_interval(k, n, confidence: float = 0.95):
    """Exact (Clopper-Pearson) interval via beta quantiles (``scipy.special.betaincinv``, as
    ``scipy.stats.beta.ppf``); vectorised over integer ``k``, ``n``."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, special.betaincinv(k, n - k + 1, alpha / 2), 0.0)
        high = np.where(k < n, special.betaincinv(k + 1, n - k, 1 - alpha / 2), 1.0)
    low = np.nan_to_num(low, nan=0.0)
    high = np.nan_to_num(high, nan=1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def proportion_interval(k, n, confidence: float = 0.95, method: str = "wilson"):
    """Interval for a proportion by ``method`` (``wilson`` or ``exact``)."""
    if method == "wilson":
        return wilson_interval(k, n, confidence)
    if method in ("exact", "clopper-pearson"):
        return clopper_pearson_interval(k, n, confidence)
    raise ValueError(f"unknown interval method {method!r} (allowed: wilson, exact)")


def proportion_se(k, n):
    """Standard error of a proportion estimate ``k / n`` (plug-in)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        se = np.sqrt(p * (1 - p) / n)
    return float(se) if se.ndim == 0 else se


def mean_se(values) -> tuple[float, float]:
    """Sample mean and its standard error (``scipy.stats.sem``, ddof=1)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return math.nan, math.nan
    if values.size == 1:
        return float(values[0]), math.nan
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(values.size))


def mean_interval(values, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean with a normal-approximation interval: ``(mean, low, high)``."""
    m, se = mean_se(values)
    z = _z(confidence)
    return m, m - z * se, m + z * se


def mean_interval_from_moments(total: float, total_sq: float, n: int, confidence: float = 0.95):
    """Mean and interval from running sums (for chunked runs that do not keep every value)."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    m = total / n
    var = max(total_sq / n - m * m, 0.0) * n / max(n - 1, 1)
    se = math.sqrt(var / n)
    z = _z(confidence)
    return m, m - z * se, m + z * se


def clustered_wilson_interval(values, clusters, confidence: float = 0.95):
    """Wilson interval for the mean of values in [0, 1] whose rows come in clusters.

    Rows of one cluster (the seats of one game, the seat rotations of one deal that replay the
    same dice) may move together; treating them as independent would make the interval too
    narrow. The interval is Wilson's on the *effective* number of rows (Kish's design effect):
    ``n_eff = m (1 - m) / V``, where ``m`` is the mean and ``V`` the cluster-robust variance of
    ``m``, ``sum_c (sum_{i in c} (y_i - m))^2 / n^2``; ``n_eff`` is at most ``n`` (never narrower
    than independent rows; ``n`` also when ``V`` is 0). With one row per cluster and 0/1 values,
    ``n_eff = n`` exactly and this is :func:`wilson_interval`; with fractional values (shared
    wins) it is Wilson on the fractional count, as the games' summaries give it.

    Returns:
        ``(mean, n_eff, low, high)`` floats (NaN mean and ``(0, 1)`` for no rows).
    """
    y = np.asarray(values, dtype=float)
    n = y.size
    if n == 0:
        return math.nan, 0.0, 0.0, 1.0
    _, codes = np.unique(np.asarray(clusters), return_inverse=True)
    m = float(y.mean())
    v = float((np.bincount(codes.ravel(), weights=y - m) ** 2).sum()) / n**2
    n_eff = float(n)
    if v > 0 and m * (1.0 - m) / v < n * (1.0 - 1e-9):  # rounding at n_eff = n keeps n
        n_eff = m * (1.0 - m) / v
    lo, hi = wilson_interval(m * n_eff, n_eff, confidence)
    return m, n_eff, lo, hi
