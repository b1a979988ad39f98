"""Seeded data generators: each returns a :class:`Dataset` with the sample, its true mean and the
true per-coordinate standard deviations.

Skew means variance skew: coordinate ``i`` (1-based) has ``sigma_i**2 = (d / i)**alpha``, the PLAN
paper's Gaussian B/C profile (docs/estimators/plan.md §7, Table 1). ``alpha = 0`` is no skew.

References
----------
Aumüller, Lebeda, Nelson, Pagh. "PLAN: Variance-Aware Private Mean Estimation." PETS 2024,
Section 7 and Appendix E (docs/estimators/plan.md §7).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import limits
from dpcore._validation import RngLike, as_generator, check_positive
from dpcore.data.dataset import Dataset


def _check_nd(n: int, d: int) -> tuple[int, int]:
    for name, v, lo in (("n", n, 2), ("d", d, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}.")
    return limits.check_size(int(n), int(d))  # the same limits as the CLI and the app


def zipf_std(d: int, alpha: float) -> np.ndarray:
    """``sigma_i = (d / i) ** (alpha / 2)`` for ``i = 1..d`` (so ``sigma_i**2 = (d/i)**alpha``)."""
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"skew alpha must be a finite number >= 0; got {alpha!r}.")
    i = np.arange(1, d + 1, dtype=float)
    return (d / i) ** (alpha / 2.0)


def _box(center: np.ndarray, half_width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return center - half_width, center + half_width


def _prior_bounds(
    mean: float, sigma: np.ndarray, width: float = 50.0
) -> tuple[np.ndarray, np.ndarray]:
    """The public prior range used for generated real data: ``mean ± width * max(sigma)`` per
    coordinate. It is loose on purpose (a user knows roughly where the data lives, not exactly)."""
    half = np.full_like(sigma, width * float(sigma.max()))
    return _box(np.full_like(sigma, float(mean)), half)


def gaussian(
    n: int, d: int, alpha: float = 0.0, *, mean: float = 10.0, rng: RngLike = None
) -> Dataset:
    """Independent Gaussian coordinates with Zipf variance skew ``sigma_i**2 = (d/i)**alpha``.

    ``alpha = 0`` is the PLAN paper's Gaussian A profile (unit variances), ``alpha = 2`` its Gaussian C;
    Gaussian B sweeps alpha in {0, 0.5, ..., 2}.
    """
    n, d = _check_nd(n, d)
    g = as_generator(rng)
    sigma = zipf_std(d, alpha)
    x = mean + g.standard_normal((n, d)) * sigma
    return Dataset(
        x,
        np.full(d, float(mean)),
        sigma,
        "real",
        _prior_bounds(mean, sigma),
        "gaussian",
        f"Gaussian, σᵢ² = (d/i)^{alpha:g}",
        {"alpha": alpha, "mean": mean},
    )


def correlated_gaussian(
    n: int,
    d: int,
    alpha: float = 2.0,
    *,
    variant: str = "C'",
    correlation: float = 0.5,
    mean: float = 10.0,
    rng: RngLike = None,
) -> Dataset:
    """Correlated Gaussians of the PLAN paper's Appendix E.

    * ``variant="C'"``: ``sigma_i**2 = (d/i)**alpha`` and ``Sigma_ij = correlation * sigma_i sigma_j``
      off the diagonal (the paper: correlation 0.5, alpha 2). Sampled without a d×d matrix as
      ``sigma ⊙ (sqrt(c) z_shared + sqrt(1-c) z)``.
    * ``variant="A'"``: ``Lambda_ij ~ U(0, 1/sqrt(d))`` for ``i < j``, ``Sigma = Lambda Lambda^T + I``;
      sampled as ``Lambda g + e``. ``alpha`` is ignored.
    """
    n, d = _check_nd(n, d)
    g = as_generator(rng)
    if variant == "C'":
        if not 0 <= correlation < 1:
            raise ValueError(f"correlation must be in [0, 1); got {correlation!r}.")
        sigma = zipf_std(d, alpha)
        z = math.sqrt(correlation) * g.standard_normal((n, 1)) + math.sqrt(
            1 - correlation
        ) * g.standard_normal((n, d))
        x = mean + z * sigma
        desc = f"Correlated Gaussian C′ (ρᵢⱼ = {correlation:g}, σᵢ² = (d/i)^{alpha:g})"
    elif variant == "A'":
        lam = np.triu(g.uniform(0.0, 1.0 / math.sqrt(d), size=(d, d)), k=1)
        x = mean + g.standard_normal((n, d)) @ lam.T + g.standard_normal((n, d))
        sigma = np.sqrt((lam**2).sum(axis=1) + 1.0)
        desc = "Correlated Gaussian A′ (Σ = ΛΛᵀ + I)"
    else:
        raise ValueError(f'variant must be "A\'" or "C\'"; got {variant!r}.')
    return Dataset(
        x,
        np.full(d, float(mean)),
        sigma,
        "real",
        _prior_bounds(mean, sigma),
        "correlated",
        desc,
        {"alpha": alpha, "variant": variant, "mean": mean},
    )


def student_t(
    n: int, d: int, alpha: float = 0.0, *, df: float = 3.0, mean: float = 10.0, rng: RngLike = None
) -> Dataset:
    """Heavy-tailed: ``mean + s_i t_df`` with ``s_i`` chosen so the standard deviation is
    ``sigma_i = (d/i)**(alpha/2)`` (needs ``df > 2``)."""
    n, d = _check_nd(n, d)
    if not df > 2:
        raise ValueError(f"df must be > 2 so the variance exists; got {df!r}.")
    g = as_generator(rng)
    sigma = zipf_std(d, alpha)
    s = sigma / math.sqrt(df / (df - 2.0))
    x = mean + g.standard_t(df, size=(n, d)) * s
    return Dataset(
        x,
        np.full(d, float(mean)),
        sigma,
        "real",
        _prior_bounds(mean, sigma),
        "student_t",
        f"Student t (df = {df:g}), σᵢ² = (d/i)^{alpha:g}",
        {"alpha": alpha, "df": df},
    )


def lognormal(
    n: int, d: int, alpha: float = 0.0, *, log_sigma: float = 1.0, rng: RngLike = None
) -> Dataset:
    """Right-skewed heavy tail: ``c_i * exp(N(0, log_sigma²))`` with ``c_i`` giving std ``sigma_i``."""
    n, d = _check_nd(n, d)
    check_positive(log_sigma, "log_sigma")
    g = as_generator(rng)
    sigma = zipf_std(d, alpha)
    s2 = log_sigma**2
    unit_mean = math.exp(s2 / 2.0)
    unit_std = math.sqrt(math.expm1(s2) * math.exp(s2))
    c = sigma / unit_std
    x = np.exp(log_sigma * g.standard_normal((n, d))) * c
    mu = c * unit_mean
    lo = np.zeros(d)
    hi = mu + 50.0 * float(sigma.max())
    return Dataset(
        x,
        mu,
        sigma,
        "real",
        (lo, hi),
        "lognormal",
        f"Log-normal (log σ = {log_sigma:g}), σᵢ² = (d/i)^{alpha:g}",
        {"alpha": alpha},
    )


def contaminated(
    n: int,
    d: int,
    alpha: float = 0.0,
    *,
    eta: float = 0.05,
    shift: float = 20.0,
    mean: float = 10.0,
    rng: RngLike = None,
) -> Dataset:
    """Gaussian (as :func:`gaussian`) with ``floor(eta n)`` rows replaced by outliers at
    ``mean + shift * sigma`` (an adversary moving a fraction ``eta`` of people). The target is the
    clean mean."""
    if not 0 <= eta < 0.5:
        raise ValueError(f"eta (contamination fraction) must be in [0, 0.5); got {eta!r}.")
    g = as_generator(rng)
    base = gaussian(n, d, alpha, mean=mean, rng=g)
    x = base.x.copy()
    k = int(math.floor(eta * base.n))
    if k:
        rows = g.choice(base.n, size=k, replace=False)
        x[rows] = mean + shift * base.true_std * (1.0 + 0.05 * g.standard_normal((k, base.d)))
    return Dataset(
        x,
        base.true_mean,
        base.true_std,
        "real",
        base.bounds,
        "contaminated",
        f"Gaussian with {eta:.0%} outliers at +{shift:g}σ",
        {"alpha": alpha, "eta": eta, "shift": shift},
    )


def bounded(
    n: int, d: int, alpha: float = 0.0, *, low: float = 0.0, high: float = 1.0, rng: RngLike = None
) -> Dataset:
    """Bounded data in ``[low, high]`` with public bounds: ``Beta(a_i, a_i)``-shaped coordinates whose
    spread shrinks with the skew (``a_i = (i)**alpha``; ``alpha = 0`` is uniform)."""
    n, d = _check_nd(n, d)
    if not high > low:
        raise ValueError(f"high must exceed low; got low={low!r}, high={high!r}.")
    g = as_generator(rng)
    a = np.arange(1, d + 1, dtype=float) ** alpha
    u = g.beta(a, a, size=(n, d))
    x = low + (high - low) * u
    w = high - low
    mu = np.full(d, (low + high) / 2.0)
    sigma = w * np.sqrt(a * a / ((2 * a) ** 2 * (2 * a + 1)))
    return Dataset(
        x,
        mu,
        sigma,
        "bounded",
        (np.full(d, float(low)), np.full(d, float(high))),
        "bounded",
        f"Bounded in [{low:g}, {high:g}] (Beta(aᵢ, aᵢ), aᵢ = i^{alpha:g})",
        {"alpha": alpha, "low": low, "high": high},
    )


def binary_product(
    n: int, d: int, alpha: float = 0.25, *, profile: str = "plan", rng: RngLike = None
) -> Dataset:
    """Independent bits with probabilities ``p``.

    * ``profile="plan"`` (PLAN paper, Table 1 "Binary"): ``p_i = 0.5`` for ``i <= ceil(alpha d)``
      and ``0.01`` otherwise; ``alpha`` in [0, 1] is the fraction of high-variance bits.
    * ``profile="zipf"``: ``p_i = 0.5 * i**(-alpha)`` (sparse, skewed probabilities).
    """
    n, d = _check_nd(n, d)
    g = as_generator(rng)
    if profile == "plan":
        if not 0 <= alpha <= 1:
            raise ValueError(
                f"for the PLAN binary profile alpha is a fraction in [0, 1]; got {alpha!r}."
            )
        p = np.full(d, 0.01)
        p[: int(math.ceil(alpha * d))] = 0.5
        desc = f"Binary product, {alpha:.0%} of bits with p = 0.5, the rest p = 0.01"
    elif profile == "zipf":
        if alpha < 0:
            raise ValueError(f"alpha must be >= 0; got {alpha!r}.")
        p = 0.5 * np.arange(1, d + 1, dtype=float) ** (-alpha)
        desc = f"Binary product, pᵢ = 0.5·i^(−{alpha:g})"
    else:
        raise ValueError(f"profile must be 'plan' or 'zipf'; got {profile!r}.")
    x = (g.random((n, d)) < p).astype(float)
    return Dataset(
        x,
        p,
        np.sqrt(p * (1 - p)),
        "binary",
        (np.zeros(d), np.ones(d)),
        f"binary_{profile}",
        desc,
        {"alpha": alpha, "profile": profile},
    )


@dataclass(frozen=True)
class DistributionSpec:
    """A generator as the app shows it: its label, data kind and what the skew slider means."""

    name: str
    label: str
    kind: str
    skew_label: str
    skew_range: tuple[float, float]
    default_skew: float
    make: Callable[..., Dataset]
    skew_applies: bool = True


DISTRIBUTIONS: dict[str, DistributionSpec] = {
    s.name: s
    for s in [
        DistributionSpec(
            "gaussian",
            "Gaussian",
            "real",
            "variance skew α (σᵢ² = (d/i)^α)",
            (0.0, 3.0),
            2.0,
            gaussian,
        ),
        DistributionSpec(
            "correlated",
            "Correlated Gaussian (C′)",
            "real",
            "variance skew α",
            (0.0, 3.0),
            2.0,
            correlated_gaussian,
        ),
        DistributionSpec(
            "student_t",
            "Heavy-tailed (Student t, df 3)",
            "real",
            "variance skew α",
            (0.0, 3.0),
            1.0,
            student_t,
        ),
        DistributionSpec(
            "lognormal",
            "Heavy-tailed (log-normal)",
            "real",
            "variance skew α",
            (0.0, 3.0),
            1.0,
            lognormal,
        ),
        DistributionSpec(
            "contaminated",
            "Contaminated Gaussian (5% outliers)",
            "real",
            "variance skew α",
            (0.0, 3.0),
            1.0,
            contaminated,
        ),
        DistributionSpec(
            "bounded",
            "Bounded in [0, 1]",
            "bounded",
            "concentration skew α",
            (0.0, 3.0),
            0.0,
            bounded,
        ),
        DistributionSpec(
            "binary_plan",
            "Binary product (PLAN paper)",
            "binary",
            "fraction α of p = 0.5 bits",
            (0.0, 1.0),
            0.25,
            binary_product,
        ),
        DistributionSpec(
            "binary_zipf",
            "Binary product (Zipf p)",
            "binary",
            "Zipf exponent α (pᵢ = 0.5·i^−α)",
            (0.0, 3.0),
            1.0,
            lambda n, d, alpha, rng=None: binary_product(n, d, alpha, profile="zipf", rng=rng),
        ),
    ]
}


def generate(
    distribution: str,
    n: int,
    d: int,
    skew: float | None = None,
    *,
    rng: RngLike = None,
    **params: Any,
) -> Dataset:
    """Draw a dataset from a named distribution of :data:`DISTRIBUTIONS`.

    Examples
    --------
    >>> ds = generate("gaussian", n=1000, d=8, skew=2.0, rng=0)
    >>> ds.x.shape
    (1000, 8)
    """
    try:
        spec = DISTRIBUTIONS[distribution]
    except KeyError:
        raise ValueError(
            f"unknown distribution {distribution!r}; choose one of {', '.join(DISTRIBUTIONS)}."
        ) from None
    alpha = spec.default_skew if skew is None else float(skew)
    lo, hi = spec.skew_range
    if not lo <= alpha <= hi:
        raise ValueError(f"skew for {spec.label} must be in [{lo:g}, {hi:g}]; got {alpha!r}.")
    return spec.make(n, d, alpha, rng=rng, **params)
