"""Small-sample statistics for hints and the arena: intervals and paired tests.

Everything here is closed-form (no SciPy): Wilson intervals for shares, t
intervals for means, and McNemar's exact test for paired make/set results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable, Sequence

#: two-sided 95% normal quantile
Z95 = 1.959963984540054


#: t(0.975) for 1..30 degrees of freedom (the expansion below is used beyond).
_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
         2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
         2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
         2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272)


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom.

    A table up to 30, the Cornish-Fisher expansion around the normal
    quantile beyond (error below 1e-6 there).
    """
    if df <= 0:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a share ``successes / n``; ``z`` the normal quantile
    (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 and n the bound is exactly 0 or 1 (the formula leaves rounding dust).
    return (0.0 if successes == 0 else max(0.0, centre - half),
            1.0 if successes == n else min(1.0, centre + half))


@dataclass(frozen=True)
class MeanEstimate:
    """A sample mean with its standard error and 95% t interval.

    Attributes:
        n: The sample's size.
        mean: Its mean.
        sd: Its standard deviation (n - 1).
        se: The mean's standard error.
        low: The 95% t interval's low end.
        high: ... and its high end.
    """

    n: int
    mean: float
    sd: float
    se: float
    low: float
    high: float


def mean_estimate(n: int, total: float, total_sq: float) -> MeanEstimate:
    """Mean, standard deviation (n-1), standard error and 95% t interval of ``n`` values
    from their sum ``total`` and sum of squares ``total_sq``."""
    if n <= 0:
        return MeanEstimate(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = total / n
    if n == 1:
        return MeanEstimate(1, mean, math.nan, math.nan, -math.inf, math.inf)
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    sd = math.sqrt(var)
    se = sd / math.sqrt(n)
    half = t_quantile_975(n - 1) * se
    return MeanEstimate(n, mean, sd, se, mean - half, mean + half)


def weighted_mean_estimate(weight: float, total: float, total_sq: float, ess: float
                           ) -> MeanEstimate:
    """A weighted mean (``total`` = sum w x, ``total_sq`` = sum w x^2, ``weight`` = sum w)
    with its standard error at the effective sample size ``ess`` ((sum w)^2 / sum w^2,
    Kish) and a 95% t interval on ``ess - 1`` degrees of freedom."""
    if weight <= 0 or ess <= 0:
        return MeanEstimate(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = total / weight
    n = max(1, round(ess))
    if ess <= 1:
        return MeanEstimate(n, mean, math.nan, math.nan, -math.inf, math.inf)
    # The weighted variance, with Kish's small-sample correction ess / (ess - 1).
    var = max(0.0, total_sq / weight - mean * mean) * ess / (ess - 1)
    sd = math.sqrt(var)
    se = sd / math.sqrt(ess)
    half = t_quantile_975(max(1, n - 1)) * se
    return MeanEstimate(n, mean, sd, se, mean - half, mean + half)


def ratio_of_means(x: Sequence[float], y: Sequence[float], z: float = Z95
                   ) -> tuple[float, float, float]:
    """``mean(x) / mean(y)`` of paired samples (``x[i]`` and ``y[i]`` measured on one
    unit) and its interval by the delta method, which counts their covariance:
    (ratio, low, high), ``z`` standard errors either side (95% by default); NaNs with
    fewer than two pairs or a zero ``mean(y)``.

    >>> r, low, high = ratio_of_means([1.0, 2.0, 3.0], [2.0, 4.0, 6.0])
    >>> r, round(high - low, 12)
    (0.5, 0.0)
    """
    n = len(x)
    if n != len(y):
        raise ValueError("x and y must be paired")
    mx = sum(x) / n if n else math.nan
    my = sum(y) / n if n else math.nan
    if n < 2 or not my:
        return math.nan, math.nan, math.nan
    r = mx / my
    vx = sum((v - mx) ** 2 for v in x) / (n - 1)
    vy = sum((v - my) ** 2 for v in y) / (n - 1)
    cxy = sum((u - mx) * (v - my) for u, v in zip(x, y)) / (n - 1)
    half = z * math.sqrt(max(0.0, (vx - 2 * r * cxy + r * r * vy) / (n * my * my)))
    return r, r - half, r + half


def mean_of(values: Sequence[float]) -> MeanEstimate:
    """`mean_estimate` of a list of values."""
    return mean_estimate(len(values), float(sum(values)), float(sum(v * v for v in values)))


def clustered_mean(values: Sequence[float], clusters: Sequence[Hashable]) -> MeanEstimate:
    """The mean of ``values`` with a cluster-robust standard error: values of one cluster
    (``clusters[i]`` names the cluster of ``values[i]``) may be correlated, clusters are
    independent. With ``G`` clusters, ``Y_g`` the sum of cluster ``g``'s values and ``n_g``
    their count, the mean ``m = sum Y_g / N`` has the variance
    ``G / (G - 1) * sum (Y_g - m n_g)^2 / N^2`` (the sandwich estimator of a mean with
    the small-sample factor of Stata's CR1) and a 95% t interval on ``G - 1`` degrees of
    freedom; ``sd`` is the plain standard deviation of the values.

    With one value a cluster it is `mean_of`'s interval; with every cluster's values
    equal it is `mean_of` of one value a cluster.

    >>> e = clustered_mean([1.0, 1.0, 3.0, 3.0], ["a", "a", "b", "b"])
    >>> e.mean, round(e.se, 6), e.se == mean_of([1.0, 3.0]).se
    (2.0, 1.0, True)
    """
    n = len(values)
    if n != len(clusters):
        raise ValueError("one cluster a value")
    plain = mean_of(values)
    if n == 0:
        return plain
    sums: dict[Hashable, list[float]] = {}
    for x, c in zip(values, clusters):
        acc = sums.setdefault(c, [0.0, 0])
        acc[0] += x
        acc[1] += 1
    g = len(sums)
    mean = float(sum(values)) / n
    if g < 2:
        return MeanEstimate(n, mean, plain.sd, math.nan, -math.inf, math.inf)
    var = g / (g - 1) * sum((y - mean * k) ** 2 for y, k in sums.values()) / (n * n)
    se = math.sqrt(var)
    half = t_quantile_975(g - 1) * se
    return MeanEstimate(n, mean, plain.sd, se, mean - half, mean + half)


@dataclass(frozen=True)
class McNemar:
    """McNemar's test on paired binary results.

    ``b`` pairs where only the first result is a success, ``c`` where only the
    second is; ``p_value`` is the exact two-sided binomial test of b against
    Binomial(b + c, 1/2); ``chi2`` the continuity-corrected statistic.
    """

    b: int
    c: int
    chi2: float
    p_value: float


def mcnemar(b: int, c: int) -> McNemar:
    """McNemar's test (`McNemar`) of paired binary results: ``b`` pairs where only the
    first result is a success, ``c`` where only the second is."""
    n = b + c
    if n == 0:
        return McNemar(b, c, 0.0, 1.0)
    chi2 = (abs(b - c) - 1) ** 2 / n if abs(b - c) > 1 else 0.0
    k = min(b, c)
    # P(X <= k) for X ~ Bin(n, 1/2), summed in log space (n may be thousands)
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2)
            for i in range(k + 1)]
    top = max(logs)
    tail = math.exp(top) * sum(math.exp(x - top) for x in logs)
    return McNemar(b, c, chi2, min(1.0, 2 * tail))
