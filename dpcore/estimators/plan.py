"""PLAN: variance-aware private mean estimation (Algorithm 1), with its variance estimators.

Algorithm 1 (specs/plan.md §2), with the stages as they appear in :func:`plan`::

    1. centre   mu~  = coordinate-wise private median               rho_center   (rho_center/d per coordinate)
    2. spread   s_i  = sigma^_i ** (-2 e),  e = 1/(p+2) by default    rho_variance (private sigma^, §4)
    3. radius   C    = private (n-k)/n quantile of ||(x_j - mu~) * s||_2 on [0, U]      rho_radius
    4. noise    eta  ~ N(0, (2C)^2 / (2 rho_noise) I_d)                                rho_noise
    5. output   mu~ + ( sum_j clip_C((x_j - mu~) * s) + eta ) / (n s)

Privacy
-------
* Neighbouring relation: replace-one, ``n`` public (specs/plan.md §1).
* zCDP composition: the four stages add up to ``rho``. Each stage is a
  :func:`dpcore.mechanisms.stage` of the ledger, and every noise draw inside it is made by a
  mechanism of :mod:`dpcore.mechanisms`, which writes the ledger line itself (sensitivity, scale,
  the calibration ratio, and the budget: an exponential-mechanism draw in ``eps`` is converted to
  ``eps**2 / 8`` rho, so the lines add up to ``rho`` to within a few ulps). Default split of the
  paper's experiments (§2 "Budgets", Listing 1): ``center 0.0625, variance 0.1875, radius 0.1875,
  noise 0.5625``.
* Centre: ``d`` one-dimensional private medians with ``rho_center / d`` each (exponential mechanism,
  ``eps = sqrt(8 rho')``, utility sensitivity 1 under replace-one; or the Gaussian binary search).
  Default since issue 12 round 2 (``center_step="coinpress"``): CoinPress in the scaled space, run
  after the variances: a private l2 spread (log-grid exponential mechanism on ``n // 2`` disjoint
  pair distances, one person in one pair, ``0.1 rho_center``) then ``T`` noisy clipped means in
  balls of public radius ``R_t`` (l2 sensitivity ``2 R_t``, Gaussian std ``2 R_t / (n sqrt(2 rho_t))``
  on the mean, ``rho_t``-zCDP, ``sum rho_t = 0.9 rho_center``); see :func:`coinpress_scaled_center`.
* Variances (real data, Algorithm 2 / §4c): one person sits in exactly one group of each column,
  so each private median of group statistics has the replace-one sensitivity of a quantile;
  ``rho_variance / d`` per coordinate. Default since issue 12, third pass: ``0.1 rho_variance``
  first buys :func:`variance_cap`, a private bound on every ``sigma_i^2`` (one log-grid
  exponential-mechanism median of ``n // 2`` disjoint pair distances, one person in one pair,
  rank utility with sensitivity 1), which tops the search ranges; the medians then get
  ``0.9 rho_variance / d`` each (the two parts sum to ``rho_variance`` exactly). Binary data
  (§4b): the vector of frequencies has l2 sensitivity ``||hi - lo||_2 / n = sqrt(d) / n``;
  Gaussian mechanism with ``rho_variance``.
* Radius: one 1-D private quantile of the ``n`` scaled norms with ``rho_radius`` (a row changes
  one norm).
* Noise: every clipped scaled row has l2 norm ``<= C``, so replacing one row moves the sum by at
  most ``2C`` (not ``C``: that would be add/remove). Gaussian mechanism: std ``2C / sqrt(2 rho_noise)
  = sqrt(2 C^2 / rho_noise)`` in scaled space; in original space coordinate ``i`` gets
  ``sqrt(2 C^2 / rho_noise) / (n s_i)`` (§2 "Noise", §9.3).

Everything else (the scale vector, the universe ``U``, the rank slack ``k``) is computed from
public values and from outputs of earlier private stages, so it is post-processing.

Decisions where the paper or the spec is silent or wrong (see specs/plan.md §10)
---------------------------------------------------------------------------------
* Chi-square median correction in the right direction (§10.1): ``sigma^2 = m / (k (1 - 2/(9k))^3)``,
  i.e. ``m * (9/7)^3`` for one pair per group.
* Radius universe: ``"trimmed"`` (the experiments' choice, default for scaled PLAN) is
  ``U = sqrt(ln max(n, d) ln(1/beta) * sum_i sigma^_i^2 s_i^2)``, which equals the spec's
  ``sqrt(ln max(n,d) ln(1/beta) ||sigma^||_1)`` for ``p = 2`` (§10.5) and is the same "expected
  squared scaled norm times a log margin" for any scaling exponent; it is capped at the safe
  ``"range"`` universe ``||(hi - lo) * s||_2`` (the largest scaled norm of a centred point of the
  box). PLAN without scaling and the binary instantiation use ``"range"`` (not the defect of
  §10.8; for 0/1 data it is ``||s||_2``, §10.6).
* Rank slack (§2, §10.16): ``k = sqrt(n) + rank error``; exponential mechanism: [R]'s
  ``sqrt((T/2) ln(T/beta) / rho_radius)`` with ``T = max(ln(width), 1)``, ``width`` the widest
  coordinate range; binary search: Lemma 2.8, ``sqrt(T ln(T/beta) / (2 rho_radius))`` with its
  actual ``T``. The clip quantile ``1 - k/n`` is clamped to ``[0.5, 1)``; a warning when
  ``k / n > 0.1``.
* ``sigma^`` is regularised as ``sigma^ + ||sigma^||_1 / d`` (§4a.3) for private variances; the
  oracle uses the true ``sigma`` as given (``regularise=False``) so the teaching picture shows the
  ideal scaling. A column with ``sigma^ = 0`` is floored at a tiny positive value.
* Binary data: the centre is the private frequency vector ``q~`` itself (clipped to the box),
  which is free post-processing, so the preprocessing share 0.25 goes to the variance stage.
* The variance and centre shares for oracle / no-scaling runs go to the centre (§5b).

References
----------
Aumüller, Lebeda, Nelson, Pagh. "PLAN: Variance-Aware Private Mean Estimation." PETS 2024
(arXiv 2306.08745v3): Algorithm 1, Listing 1, Algorithm 2 (App. D.1), Sections 4–7.
specs/plan.md §2–§5, §9, §10.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpcore import mechanisms, quantiles
from dpcore._validation import (
    RngLike,
    check_bounds,
    check_data,
    check_positive,
    check_probability,
)
from dpcore.estimate import (
    REPLACE_ONE,
    ZCDP_UNITS,
    Default,
    Diagnostics,
    Estimate,
    EstimatorSpec,
    register,
)
from dpcore.estimators._localise import coinpress_center, pair_distance_median, private_spread
from dpcore.privacy import Ledger
from dpcore.quantiles._common import check_public_bounds
from dpcore.quantiles.coordinate import (  # noqa: F401  (PLAN's names for the shared routines)
    C2F_BAR,
    C2F_BINS,
    C2F_FIRST_BAR,
    C2F_HISTOGRAM_SHARE,
    C2F_LEVELS,
    QuantileMethod,
    coarse_to_fine_median,
    private_quantile,
)
from dpcore.quantiles.exponential import exponential_quantile_fast  # noqa: F401

VarianceMethod = Literal["private", "oracle", "binary", "none"]
CenterStep = Literal["coarse_to_fine", "coinpress", "paper"]
RadiusStep = Literal["log_grid", "paper"]

#: The paper's experimental split (specs/plan.md §2 "Budgets").
DEFAULT_SPLIT: dict[str, float] = {
    "center": 0.0625,
    "variance": 0.1875,
    "radius": 0.1875,
    "noise": 0.5625,
}
#: Split when no variance is estimated (oracle, no scaling): the centre gets the preprocessing share.
NO_VARIANCE_SPLIT: dict[str, float] = {"center": 0.25, "radius": 0.1875, "noise": 0.5625}
#: Split of the binary instantiation: the centre is the free frequency vector.
BINARY_SPLIT: dict[str, float] = {"variance": 0.25, "radius": 0.1875, "noise": 0.5625}
STAGES = ("center", "variance", "radius", "noise")

STAGE_LABELS = {
    "center": "centre (coordinate medians)",
    "variance": "variances",
    "radius": "clip radius",
    "noise": "noisy sum",
}

_TINY = 1e-300


# ----------------------------------------------------------------------------------------------
# Algorithm 1, the deterministic core (lines 5, 7, 8) given centre, sigma^ and radius
# ----------------------------------------------------------------------------------------------


def default_scale_exponent(p: float) -> float:
    """PLAN's exponent ``e = 1/(p+2)``: ``s_i = sigma^_i ** (-2e) = (sigma^_i**2) ** (-1/(p+2))``."""
    return 1.0 / (check_positive(p, "p") + 2.0)


def scale_vector(
    sigma_hat: np.ndarray, p: float = 2.0, scale_exponent: float | None = None
) -> np.ndarray:
    """The scale vector ``s = sigma^ ** (-2 e)`` of Algorithm 1, line 5.

    ``e = 1/(p+2)`` by default (``p = 2``: ``s = sigma^^(-1/2)``; ``p = 1``: ``sigma^^(-2/3)``);
    ``e = 0`` is no scaling, ``e = 1/2`` the equal split ``s = 1/sigma^`` (Mahalanobis style).
    """
    sig = np.asarray(sigma_hat, dtype=float)
    if sig.ndim != 1 or not np.all(np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError(
            "sigma_hat must be a 1-D array of positive finite numbers (one per coordinate)."
        )
    e = default_scale_exponent(p) if scale_exponent is None else float(scale_exponent)
    if not math.isfinite(e) or e < 0:
        raise ValueError(
            f"scale_exponent must be a finite number >= 0 (0 = no scaling); got {scale_exponent!r}."
        )
    return sig ** (-2.0 * e)


@dataclass
class PlanCore:
    """Result of :func:`plan_core` (Algorithm 1 lines 5–8 for a given centre, sigma^ and C).

    Attributes
    ----------
    mean : ndarray (d,)
        The output ``mu~ + (sum_j clip(y_j) + eta) / (n s)``.
    noiseless_mean : ndarray (d,)
        The same without ``eta``.
    scale : ndarray (d,)
        ``s``.
    norms : ndarray (n,)
        ``||y_j||_2`` of the scaled centred rows ``y_j = (x_j - mu~) * s``.
    clipped : bool ndarray (n,)
        ``norms > C``.
    clipped_sum : ndarray (d,)
        ``sum_j min(1, C/||y_j||) y_j`` (scaled space).
    noise : ndarray (d,)
        ``eta`` (scaled space, added to the sum).
    noise_std_scaled : float
        ``sqrt(2 C^2 / rho_noise)``, the std of each coordinate of ``eta``.
    noise_std : ndarray (d,)
        Per-coordinate std of the output noise in original space, ``noise_std_scaled / (n s)``.
    """

    mean: np.ndarray
    noiseless_mean: np.ndarray
    scale: np.ndarray
    norms: np.ndarray
    clipped: np.ndarray
    clipped_sum: np.ndarray
    noise: np.ndarray
    noise_std_scaled: float
    noise_std: np.ndarray


def _row_norms(y: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", y, y))


def _scaled_rows(
    X: np.ndarray, center: np.ndarray, s: np.ndarray
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, y)`` with ``y = (X[rows] - center) * s`` for blocks of rows.

    One reused block buffer instead of an ``(n, d)`` temporary (a fresh large array costs page
    faults that can exceed the arithmetic on a shared machine).
    """
    n, d = X.shape
    size = max(1, min(n, (1 << 16) // d))
    buf = np.empty((size, d))
    for j in range(0, n, size):
        y = buf[: min(size, n - j)]
        np.subtract(X[j : j + size], center, out=y)
        y *= s
        yield slice(j, j + y.shape[0]), y


def plan_core(
    x: np.ndarray,
    center: np.ndarray,
    sigma_hat: np.ndarray,
    radius: float,
    *,
    rho_noise: float,
    p: float = 2.0,
    scale_exponent: float | None = None,
    rng: RngLike = None,
) -> PlanCore:
    """Algorithm 1 lines 5, 7 and 8 for a given centre, ``sigma^`` and clip radius ``C``.

    ``y_j = (x_j - center) * s``; ``z = sum_j min(1, C/||y_j||) y_j``; ``eta ~ N(0, 2C^2/rho_noise I)``;
    returns ``center + (z + eta) / (n s)``.

    Parameters
    ----------
    x : array (n, d)
    center : array (d,)
    sigma_hat : array (d,), positive
    radius : float, > 0
        ``C`` in scaled space.
    rho_noise : float
        zCDP budget of the Gaussian release.
    p, scale_exponent : see :func:`scale_vector`.
    rng : None, int or Generator

    Returns
    -------
    PlanCore

    Privacy
    -------
    Replace-one, ``n`` public. For fixed (public or privately computed) ``center``,
    ``sigma_hat`` and ``radius`` the l2 sensitivity of ``z`` is ``2C``; ``eta`` is drawn by
    :func:`dpcore.mechanisms.gaussian` (``rho_noise``-zCDP), charged to the caller's open stage.

    References
    ----------
    PLAN, Algorithm 1; specs/plan.md §2 and §9.2–9.6.
    """
    X = check_data(x, ndim=2)
    n, d = X.shape
    c = np.broadcast_to(np.asarray(center, dtype=float), (d,))
    C = check_positive(radius, "radius")
    r3 = check_positive(rho_noise, "rho_noise")
    s = scale_vector(np.broadcast_to(np.asarray(sigma_hat, dtype=float), (d,)), p, scale_exponent)
    y = X - c
    y *= s
    norms = _row_norms(y)
    factor = np.minimum(1.0, C / np.maximum(norms, _TINY))
    clipped_sum = factor @ y
    tau = math.sqrt(2.0 * C * C / r3)  # = (2C) / sqrt(2 rho_noise)
    noisy_sum, eta = _noisy_sum(clipped_sum, 2.0 * C, r3, tau, mechanisms.generator(rng))
    noiseless = c + clipped_sum / (n * s)
    mean = c + noisy_sum / (n * s)
    return PlanCore(
        mean=mean,
        noiseless_mean=noiseless,
        scale=s,
        norms=norms,
        clipped=norms > C,
        clipped_sum=clipped_sum,
        noise=eta,
        noise_std_scaled=tau,
        noise_std=tau / (n * s),
    )


# ----------------------------------------------------------------------------------------------
# private building blocks
# ----------------------------------------------------------------------------------------------


def _noisy_sum(
    clipped_sum: np.ndarray, sensitivity: float, rho: float, tau: float, rng: Any
) -> tuple[np.ndarray, np.ndarray]:
    """``(clipped_sum + eta, eta)`` with Gaussian ``eta`` of std ``tau``: ``rho``-zCDP for an l2
    ``sensitivity`` (:func:`dpcore.mechanisms.gaussian`, charged to the caller's open stage)."""
    rel = mechanisms.gaussian(
        clipped_sum,
        sensitivity=sensitivity,
        rho=rho,
        rng=rng,
        scale=tau,
        note=f"Gaussian mechanism on the clipped sum, l2 sensitivity 2C = {sensitivity:.4g}",
    )
    return np.asarray(rel.value, dtype=float), np.asarray(rel.noise, dtype=float)


#: Largest share of ``rho`` the robust default moves to the centre when the range is wide (IOME's
#: median share).
MAX_AUTO_CENTER_SHARE = 0.5


def needed_center_share(
    n: int,
    d: int,
    rho: float,
    *,
    bins: int = C2F_BINS,
    levels: int = C2F_LEVELS,
    histogram_share: float = C2F_HISTOGRAM_SHARE,
) -> float:
    """Smallest share of ``rho`` for which the coarse-to-fine centre's zoom test is safe.

    The test accepts three adjacent bins when their noisy count reaches ``3n/4``; that sum carries
    Gaussian noise of std ``sigma_t = sqrt(3 d / rho_l)`` with ``rho_l = histogram_share * share * rho
    / levels``. Among the ``bins * d`` candidate windows an empty one passes about
    ``bins * d * Phi(-z)`` times, ``z = 0.75 n / sigma_t``; ``z >= sqrt(2 ln(bins d))`` keeps that
    below one. Solving for the share gives ``2 ln(bins d) * 3 d * levels / (0.5625 n**2 * histogram_share * rho)``.
    Public inputs only.
    """
    n, d = int(n), int(d)
    rho = check_positive(rho, "rho")
    need_sq = 2.0 * math.log(bins * d)
    return need_sq * 3.0 * d * levels / (0.5625 * n * n * histogram_share * rho)


def _warn_thin_center(
    warnings_: list[str],
    n: int,
    d: int,
    rho: float,
    lo: np.ndarray,
    hi: np.ndarray,
    center_share: float | None,
) -> None:
    """Append :func:`thin_budget_risk`'s public warning (robust centre steps) when it has one."""
    risk = thin_budget_risk(n, d, rho, float(np.max(hi - lo)), center_share=center_share)
    if risk is not None:
        warnings_.append("the centre's budget is thin. " + risk)


def thin_budget_risk(
    n: int, d: int, rho: float, width: float, *, center_share: float | None = None
) -> str | None:
    """Before a run: a sentence when PLAN's centre budget is too thin for the range, else ``None``.

    Public inputs only (``n``, ``d``, ``rho``, the range ``width``). ``center_share`` is the share
    of ``rho`` the centre gets; ``None`` means the robust default, which raises the paper's 0.0625
    up to :data:`MAX_AUTO_CENTER_SHARE` when needed (:func:`needed_center_share`). When even that is
    not enough, some coordinates of the centre will likely land outside the data, the clip radius
    grows with them and the error is many times the typical one.

    Calibration (issue 12, round 2, benchmarks/results/paper_grid_round2.md): with the default
    CoinPress centre and the 0.2% log-grid radius no measured cell of the paper's grid had a run
    beyond 3x its median except PLAN, C, d = 1024, rho = 1/16 (30 seeds: 10% of runs beyond 3x,
    worst 3.3x). That tail did not come from the centre but from Algorithm 2's per-coordinate
    variance medians (one or two of 1024 landing up to 4e5 sigma_i high on the +-1.6e6 range), so
    this centre rule rightly did not flag it; the third pass removes it with :func:`variance_cap`
    and :func:`variance_floor_ratio` (50 grid seeds: 2 -> 1 run beyond 3x). The rest of that tail
    (grid seed 20: the largest variance estimated 2e-11 too low) is what the second sentence,
    :func:`expected_low_variances`, warns about: it is above :data:`LOW_VARIANCE_ALERT` at that cell
    (0.7) and below it at every other B/C cell of the grid; it also speaks for the thin A cells
    (d >= 256 at small rho, n = 4000), where the misses happen but do no harm because every
    coordinate has the same spread, hence its conditional wording. The centre sentence flags none of
    the grid's cells and flags budgets below the grid (e.g. A, d = 1024, rho = 1/32), where the
    centre share would have to exceed :data:`MAX_AUTO_CENTER_SHARE`.

    References
    ----------
    Issue 12 of this project; specs/plan.md §2 (budgets), §10.10.
    """
    check_positive(width, "width")
    need = needed_center_share(n, d, rho)
    share = MAX_AUTO_CENTER_SHARE if center_share is None else float(center_share)
    low = expected_low_variances(n, d, rho)
    parts = []
    if need > share:
        rho_needed = rho * need / share
        n_needed = math.ceil(n * math.sqrt(need / share))
        parts.append(
            f"The budget is too thin for the range: PLAN's centre gets rho = {share * rho:.3g} for d = {d} "
            f"coordinates over a range {width:.3g} wide, and with n = {n} some coordinates of the centre will "
            f"likely land outside the data, making the error many times the typical one (n >= {n_needed} or "
            f"rho >= {rho_needed:.3g} avoids it)."
        )
    if low >= LOW_VARIANCE_ALERT:
        low = max(low, 1.0)  # "about 1" when the expected count is between the alert and 1
        parts.append(
            f"PLAN's per-coordinate variance estimates are thin: about {low:.0f} of the d = {d} private "
            "variances per run will land far below their data. That is harmless when the coordinates "
            "vary alike, but when a few vary much more than the rest (skewed data), such a miss on one "
            "of them inflates the clip radius and the noise, and some runs are several times worse "
            "than the typical one."
        )
    return " ".join(parts) or None


#: Expected number of variance medians per run below their data at which :func:`thin_budget_risk`
#: speaks (PLAN, C, d = 1024, rho = 1/16, the one cell of the paper's grid where it mattered: 0.7).
LOW_VARIANCE_ALERT = 0.1
#: Nats of low utility below Algorithm 2's data with :func:`variance_floor_ratio` (the empty stretch,
#: ~14, and the lower tail of ``log chi2_1`` below its 1% quantile, ~9) and the density of
#: ``log chi2_1`` at its median (``pdf(0.455) * 0.455 = 0.214``).
_LOW_NATS = 23.0
_LOG_CHI2_DENSITY = 0.214


def expected_low_variances(n: int, d: int, rho: float) -> float:
    """Public estimate of how many of PLAN's ``d`` variance medians per run land below their data.

    Each median is the exponential mechanism with ``eps = sqrt(8 rho_med / d)``
    (``rho_med = 0.1875 (1 - VARIANCE_CAP_SHARE) rho``) over ``m = n // 2`` group values in log space.
    A point at the bottom of the data has utility ``m/2`` below the median, so the low stretch of
    about :data:`_LOW_NATS` nats carries weight ``_LOW_NATS exp(-eps m / 4)`` against about
    ``(4 / eps) / (m f)`` near the median (``f`` the density of ``log chi2_1`` there; Gaussian
    coordinates). Returns ``d`` times that probability. Public inputs only.

    References
    ----------
    McSherry and Talwar (FOCS 2007); issue 12 of this project; specs/plan.md §4c.
    """
    n, d = int(n), int(d)
    rho_med = DEFAULT_SPLIT["variance"] * (1.0 - VARIANCE_CAP_SHARE) * check_positive(rho, "rho")
    eps = math.sqrt(8.0 * rho_med / d)
    m = n // 2
    central = (4.0 / eps) / (m * _LOG_CHI2_DENSITY)
    return d * _LOW_NATS * math.exp(-eps * m / 4.0) / central


def coinpress_scaled_center(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    sigma_hat: np.ndarray,
    s: np.ndarray,
    *,
    rho: float,
    beta: float = 0.1,
    spread_share: float = 0.0,
    rng: RngLike = None,
) -> tuple[np.ndarray, dict]:
    """PLAN's centre by CoinPress in the scaled space ``y = x * s`` (``rho``-zCDP, replace-one).

    Runs :func:`dpcore.estimators._localise.coinpress_center` on the rows ``x_j * s`` from the public
    ball around the box centre that holds the scaled box (radius ``||(hi - lo) / 2 * s||_2``), with
    the l2 spread ``gamma`` from the private ``sigma^`` (an earlier output, so post-processing): for
    ``y - mu`` with independent coordinates of std ``a_i = sigma^_i s_i``, Laurent and Massart's bound
    ``||y - mu||^2 <= sum a_i^2 + 2 sqrt(sum a_i^4 L) + 2 max a_i^2 L``, ``L = ln(n / beta)``, holds
    for every row with probability ``1 - beta``. The privacy of each step is CoinPress's (l2
    sensitivity ``2 R_t`` of the clipped sum); the steps share ``rho`` equally. Returns the centre in
    original units and CoinPress's info (plus ``gamma``).

    Privacy
    -------
    Replace-one, ``n`` public: ``spread_share rho`` for the private spread (log-grid exponential
    mechanism, sensitivity 1), the rest over CoinPress's ``T`` Gaussian steps (l2 sensitivity
    ``2 R_t / n`` of the clipped mean); ``rho``-zCDP in all, charged by the mechanisms to the
    caller's open stage.

    References
    ----------
    Biswas, Dong, Kamath, Ullman, "CoinPress" (NeurIPS 2020), Algorithm 1; Laurent and Massart (2000),
    Lemma 1; issue 12 of this project.
    """
    n = X.shape[0]
    g = mechanisms.generator(rng)
    m0 = (lo + hi) / 2.0
    r0 = float(np.linalg.norm((hi - lo) / 2.0 * s))
    Y = X * s
    if spread_share > 0:
        rho_sp = rho - (rho - rho * spread_share)  # the CoinPress steps get rho - rho_sp exactly
        gamma = private_spread(Y, 2.0 * r0, rho=rho_sp, beta=beta, rng=g)
    else:
        rho_sp = 0.0
        a2 = (sigma_hat * s) ** 2
        L = math.log(n / beta)
        gamma = math.sqrt(
            float(a2.sum())
            + 2.0 * math.sqrt(float(np.sum(a2 * a2)) * L)
            + 2.0 * float(a2.max()) * L
        )
    c, info = coinpress_center(Y, m0 * s, r0, gamma, rho=rho - rho_sp, beta=beta, rng=g)
    return np.clip(c / s, lo, hi), {**info, "gamma": gamma, "spread_budget": rho_sp}


def chi_square_median_factor(k: int) -> float:
    """Wilson–Hilferty median of ``chi^2_k`` divided by ``k``: ``(1 - 2/(9k))^3`` (``(7/9)^3`` for k=1).

    Algorithm 2's group statistic is ``sigma^2 chi^2_k`` for Gaussian data, so the private median
    is divided by ``k * (1 - 2/(9k))^3`` (specs/plan.md §4c, §10.1 — the paper's §7.1 prints the
    reciprocal).
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"pairs_per_group must be a positive integer; got {k!r}.")
    return (1.0 - 2.0 / (9.0 * k)) ** 3


def variance_estimate(
    x: np.ndarray,
    bounds: tuple[Any, Any],
    *,
    rho: float,
    pairs_per_group: int = 1,
    method: QuantileMethod = "exponential",
    steps: int = 20,
    scale: Literal["log", "linear"] = "log",
    floor_ratio: float = 1e-30,
    max_variance: float | None = None,
    rng: RngLike = None,
) -> np.ndarray:
    """Algorithm 2 (VarianceEstimate, App. D.1) on every coordinate: private ``sigma^2``.

    Shuffle the rows, cut them into ``n' = floor(n / (2k))`` groups of ``k`` disjoint pairs, per
    coordinate ``y_g = sum_pairs (x_a - x_b)^2 / 2``, take the private median of ``y_1..y_n'`` on
    ``[0, k (hi - lo)^2 / 2]`` with ``rho / d`` per coordinate, and divide by ``k (1 - 2/(9k))^3``
    (the chi-square median correction, §10.1). Privacy: the shuffle is data independent and every
    row lands in one group, so replacing a row changes one group value per column: a replace-one
    neighbour of the group data, and the private median costs ``rho / d`` per column.

    ``scale="log"`` (default, [ours]) takes the private median of ``log y`` on
    ``[log(floor_ratio * top), log(top)]`` and exponentiates it. The median commutes with the
    monotone map, each person still holds one value per column, and the search range is public,
    so privacy is unchanged. The floor sits far below any real spread (``1e-30 top``): values
    clamped to a floor near the data would tie, and tied values leave only zero-length intervals,
    which the mechanism never picks (with ``1e-12`` the Gaussian C preset at ``d = 1024`` lost
    its low-variance coordinates this way). Why: on the linear range ``[0, top]`` with ``top = k (hi - lo)^2 / 2``
    the empty interval above the data is ~``top`` long, and with a small per-coordinate budget the
    exponential mechanism picks it for low-variance coordinates (e.g. Gaussian B, ``n = 4000``,
    ``d = 128``, ``rho = 0.125``: over 10% of coordinates get ``sigma^ / sigma`` of about 10^4).
    In log space that interval is only ``log(top / max y)`` long. ``scale="linear"`` is the
    spec's literal ``[0, 2M^2]`` version. (The authors' code masks the problem with a "spreading"
    trick that triples every point, which is a privacy bug: specs/plan.md §10.10.)

    ``max_variance`` (public, or the output of an earlier private step such as
    :func:`variance_cap`) lowers the top of every search range to
    ``min(k (hi - lo)^2 / 2, k (1 - 2/(9k))^3 max_variance)``, so no ``sigma^2`` exceeds it; the
    range stays independent of this step's data, so the privacy argument is unchanged.

    Returns
    -------
    ndarray (d,)
        ``sigma^2`` (biased low by about 3% for Gaussian data with ``k = 1``: ``median(chi^2_1) =
        0.4549 < (7/9)^3 = 0.4705``, so ``sigma^2 -> 0.967 sigma^2``; §9.16).

    Privacy
    -------
    Replace-one, ``n`` public: one group value per person and column, so the ``d`` private medians
    (sensitivity 1) cost ``rho / d`` each, ``rho``-zCDP in all, charged by the mechanisms to the
    caller's open stage. The shuffle and the search ranges are data independent.

    References
    ----------
    PLAN, Algorithm 2 and Lemma D.1; specs/plan.md §4a.2, §4c, §10.1–10.2.
    """
    X = check_data(x, ndim=2)
    n, d = X.shape
    k = int(pairs_per_group)
    factor = chi_square_median_factor(k)
    groups = n // (2 * k)
    if groups < 1:
        raise ValueError(
            f"variance estimation needs at least 2*pairs_per_group = {2 * k} rows; got n = {n}."
        )
    lo, hi = check_bounds(bounds, d)
    g = mechanisms.generator(rng)
    perm = g.permutation(n)[: 2 * k * groups]
    first, second = perm[0::2], perm[1::2]
    a = X[first]
    for j in range(0, first.size, 256):  # in blocks of rows: no second (n/2, d) temporary
        a[j : j + 256] -= X[second[j : j + 256]]
    np.square(a, out=a)
    a *= 0.5
    if k > 1:
        a = a.reshape(groups, k, d).sum(axis=1)
    top = k * (hi - lo) ** 2 / 2.0
    if max_variance is not None:
        top = np.minimum(top, k * factor * check_positive(max_variance, "max_variance"))
    if scale == "log":
        check_positive(floor_ratio, "floor_ratio")
        floor = floor_ratio * top
        log_a = np.log(np.maximum(a, floor, out=a), out=a)  # in place: a is not used again
        med = np.exp(
            private_quantile(
                log_a, 0.5, (np.log(floor), np.log(top)), rho=rho, method=method, steps=steps, rng=g
            )
        )
    elif scale == "linear":
        med = private_quantile(
            a, 0.5, (np.zeros(d), top), rho=rho, method=method, steps=steps, rng=g
        )
    else:
        raise ValueError(f"scale must be 'log' or 'linear'; got {scale!r}.")
    return np.asarray(med, dtype=float) / (k * factor)


#: Share of the variance budget that :func:`plan` spends on :func:`variance_cap` (issue 12,
#: third pass).
VARIANCE_CAP_SHARE = 0.1


def variance_cap(
    x: np.ndarray,
    bounds: tuple[Any, Any],
    *,
    rho: float,
    beta: float = 0.1,
    rng: RngLike = None,
) -> float:
    """A private upper bound on every coordinate variance ``sigma_i^2`` (``rho``-zCDP, replace-one).

    The rows are cut into ``m = n // 2`` disjoint public pairs (consecutive rows) and ``D_j`` is
    the l2 distance within pair ``j``. ``r`` = the private median of the ``D_j`` by the exponential
    mechanism over the log grid below the public diameter ``||hi - lo||_2``
    (:func:`dpcore.estimators._localise.pair_distance_median`; one person sits in one pair, so one
    ``D_j`` changes: rank utility with sensitivity 1, ``eps = sqrt(8 rho)``, ``rho``-zCDP). With
    probability ``1 - beta`` at least ``m/2 - e`` distances lie at or below ``r``, ``e`` =
    :func:`dpcore.quantiles.log_grid_rank_error`, so ``r`` is at least the ``q``-quantile of ``D``
    with ``q = 1/2 - e/m``. Every coordinate's share ``D_j^2 >= (x_ai - x_bi)^2 = 2 sigma_i^2 Z^2``
    (Gaussian data), so that quantile is at least ``sigma_i sqrt(2 chi2_1^{-1}(q))`` and
    ``sigma_i^2 <= r^2 / (2 chi2_1^{-1}(q))`` for every ``i`` (``q`` floored at 0.01).

    Why (issue 12, third pass): Algorithm 2's per-coordinate medians get ``rho_variance / d`` each;
    on the paper's wide ranges (Gaussian C, ``d = 1024``, ``rho = 1/16``: ``+-1.6e6``, ``eps = 0.01``
    per coordinate) one or two of the 1024 medians land in the empty stretch above the data, up to
    ``4e5 sigma_i``; ``s_i = sigma^_i^(-1/2)`` then sends ``sqrt(sigma^_i)`` of noise into that
    coordinate (measured: 4 of 30 runs with 3-5x the median error, all from that noise). One extra
    1-D median on ``n / 2`` values is accurate at a tenth of the variance share and bounds every
    ``sigma^_i`` by about ``1.7 ||sigma||_2``.

    Budget split: :func:`plan` spends :data:`VARIANCE_CAP_SHARE` of ``rho_variance`` here and the
    rest on Algorithm 2's medians (sequential composition, the two parts sum to ``rho_variance``
    exactly; specs/plan.md §2 "Budgets", §4c).

    Privacy
    -------
    Replace-one, ``n`` public: one exponential-mechanism draw, utility sensitivity 1,
    ``rho``-zCDP, charged to the caller's open stage.

    References
    ----------
    McSherry and Talwar (FOCS 2007); PLAN, Algorithm 2; specs/plan.md §1 (replace-one), §4a.2,
    §4c; issue 12 of this project.
    """
    from statistics import NormalDist

    X = check_data(x, ndim=2, min_rows=2)
    n, d = X.shape
    lo, hi = check_bounds(bounds, d)
    rho = check_positive(rho, "rho")
    b = check_probability(beta, "beta")
    r = pair_distance_median(X, float(np.linalg.norm(hi - lo)), rho=rho, rng=rng)
    q = max(0.5 - quantiles.log_grid_rank_error(rho, b) / (n // 2), 0.01)
    chi2_q = NormalDist().inv_cdf((1.0 + q) / 2.0) ** 2
    return r * r / (2.0 * chi2_q)


def variance_floor_ratio(d: int) -> float:
    """Floor of Algorithm 2's log search range relative to its capped top: ``1e-8 / d^2``.

    With :func:`variance_cap` the top is about ``3 ||sigma||_2^2``. A coordinate whose scale matters
    has ``sigma_i >= ||sigma||_1 / (10 d) >= ||sigma||_2 / (10 d)`` (below that the regulariser
    ``||sigma^||_1 / d`` decides its scale), so ``sigma_i^2 >= top / (300 d^2)`` and the floor sits at
    ``3e-6 sigma_i^2`` or lower: only the ``P(chi2_1 < 3e-6) = 0.14%`` lowest group values of such a
    coordinate are clamped (ties far from the median). Why: the empty stretch of the log range below
    the data is what the exponential mechanism picks when it underestimates a variance; for a large
    ``sigma_i`` that is harmful (``s_i = sigma^_i^(-1/2)`` inflates the scaled norms, the radius and
    the noise: PLAN, C, d = 1024, rho = 1/16, grid seed 0: ``sigma^_2 = 7e-11 sigma_2``, error 3x the
    median). The ``1e-30`` floor left about 50 nats below the data there; this one about 14, so
    such picks are about 3.5x rarer. Public (a function of ``d``); privacy unchanged.

    References
    ----------
    Issue 12 of this project; specs/plan.md §4a.3, §4c.
    """
    return 1e-8 / float(max(int(d), 1)) ** 2


def binary_frequencies(
    x: np.ndarray, bounds: tuple[Any, Any], *, rho: float, rng: RngLike = None
) -> tuple[np.ndarray, float]:
    """Private coordinate means by the Gaussian mechanism (specs/plan.md §4b.1).

    Rows are clamped into the public box; ``q~ = mean + N(0, ||hi-lo||_2^2 / (2 rho n^2) I)``.

    Returns ``(q~, per-coordinate noise std)``.

    Privacy
    -------
    Replace-one, ``n`` public: the mean of the clamped rows has l2 sensitivity
    ``||hi - lo||_2 / n`` (``sqrt(d)/n`` for 0/1 data), so the release is ``rho``-zCDP
    (:func:`dpcore.mechanisms.gaussian`, charged to the caller's open stage).
    """
    X = check_data(x, ndim=2)
    n, d = X.shape
    lo, hi = check_bounds(bounds, d)
    mean = np.clip(X, lo, hi).mean(axis=0)
    sens = float(np.linalg.norm(hi - lo)) / n
    rho = check_positive(rho, "rho")
    std = sens / math.sqrt(2.0 * rho)
    noisy = mechanisms.gaussian(
        mean,
        sensitivity=sens,
        rho=rho,
        rng=mechanisms.generator(rng),
        scale=std,
        note=f"Gaussian mechanism on the frequencies, l2 sensitivity ||hi-lo||/n = {sens:.4g}",
    ).value
    return np.asarray(noisy, dtype=float), std


def binary_variances(q_tilde: np.ndarray) -> np.ndarray:
    """``sigma^2 = q~ (1 - q~)`` floored at ``d^(-2/5)`` (Lemma 5.3; specs/plan.md §4b.1)."""
    q = np.asarray(q_tilde, dtype=float)
    return np.maximum(q * (1.0 - q), q.size ** (-0.4))


def regularise(sigma_hat: np.ndarray) -> np.ndarray:
    """``sigma^ + ||sigma^||_1 / d`` (specs/plan.md §4a.3), floored at a tiny positive value."""
    sig = np.maximum(np.asarray(sigma_hat, dtype=float), 0.0)
    out = sig + sig.sum() / sig.size
    return _floor_positive(out)


def _floor_positive(sig: np.ndarray) -> np.ndarray:
    """Replace ``sigma^ = 0`` by a tenth of the mean ``sigma^`` (1 if all are 0).

    Only degenerate columns are affected (e.g. the never-inked border pixels of the digits data):
    left near 0 they would get an enormous scale ``s``, and the private median of a constant
    column lies anywhere in the box (the continuous exponential mechanism gives the single point
    no mass), so the scaled norms would be dominated by that column and every row clipped.
    """
    mean = float(np.mean(sig)) if sig.size else 0.0
    if mean <= 0:
        return np.ones_like(sig)
    return np.where(sig > 0, np.maximum(sig, 1e-12 * float(np.max(sig))), 0.1 * mean)


def rank_slack(
    n: int,
    rho_radius: float,
    *,
    width: float,
    method: QuantileMethod = "exponential",
    steps: int = 20,
    beta: float = 0.1,
    include_sqrt_n: bool = True,
) -> float:
    """``k = sqrt(n) + rank error`` of the clip quantile (specs/plan.md §2, §10.16).

    Exponential mechanism: [R]'s ``sqrt((T/2) ln(T/beta) / rho_radius)`` with ``T = max(ln width, 1)``.
    Binary search: Lemma 2.8, ``sqrt(T ln(T/beta) / (2 rho_radius))`` with ``T = steps``.
    ``include_sqrt_n=False`` drops the ``sqrt(n)`` term (clip essentially nothing).
    """
    r = check_positive(rho_radius, "rho_radius")
    b = check_probability(beta, "beta")
    if method == "exponential":
        T = max(math.log(check_positive(width, "width")), 1.0)
        err = math.sqrt(T / 2.0 * math.log(T / b) / r)
    elif method == "binary_search":
        err = quantiles.rank_error_bound(steps, r, b)
    else:
        raise ValueError(f"quantile must be 'exponential' or 'binary_search'; got {method!r}.")
    return (math.sqrt(n) if include_sqrt_n else 0.0) + err


def radius_universe(
    kind: str | float,
    *,
    sigma_hat: np.ndarray,
    scale: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    n: int,
    beta: float = 0.1,
) -> float:
    """Upper end ``U`` of the clip-radius search ``[0, U]`` (specs/plan.md §2, §10.5–10.8).

    ``"range"``: ``||(hi - lo) * s||_2``, the largest scaled norm of ``x - c`` with ``x`` and ``c`` in
    the box (safe). ``"trimmed"``: ``sqrt(ln max(n, d) ln(1/beta) sum_i sigma^_i^2 s_i^2)`` (for
    ``p = 2``: ``sqrt(ln max(n,d) ln(1/beta) ||sigma^||_1)``), capped at ``"range"``. A number is
    used as given.
    """
    safe = float(np.linalg.norm((hi - lo) * scale))
    if isinstance(kind, (int, float, np.floating, np.integer)) and not isinstance(kind, bool):
        return check_positive(kind, "radius_universe")
    if kind == "range":
        return safe
    if kind == "trimmed":
        d = scale.size
        expected_sq = float(np.sum((sigma_hat * scale) ** 2))
        u = math.sqrt(math.log(max(n, d, 3)) * math.log(1.0 / beta) * expected_sq)
        return min(u, safe) if u > 0 else safe
    raise ValueError(
        f"radius_universe must be 'trimmed', 'range' or a positive number; got {kind!r}."
    )


def _check_split(
    split: dict[str, float] | None, default: dict[str, float], used: set[str]
) -> dict[str, float]:
    fr = dict(default if split is None else split)
    unknown = set(fr) - set(STAGES)
    if unknown:
        raise ValueError(
            f"budget_split has unknown stage(s) {sorted(unknown)}; use {list(STAGES)}."
        )
    vals = np.array(list(fr.values()), dtype=float)
    if (
        np.any(~np.isfinite(vals))
        or np.any(vals < 0)
        or not math.isclose(float(vals.sum()), 1.0, rel_tol=1e-9)
    ):
        raise ValueError(f"budget_split fractions must be >= 0 and sum to 1; got {fr}.")
    for stage in used:
        if fr.get(stage, 0.0) <= 0:
            raise ValueError(
                f"budget_split must give the {stage!r} stage a positive share; got {fr}."
            )
    for stage, v in fr.items():
        if v > 0 and stage not in used:
            raise ValueError(
                f"budget_split gives {stage!r} a share but this configuration spends nothing "
                f"there; move it to one of {sorted(used)}."
            )
    return fr


def _stage_budgets(rho: float, fractions: dict[str, float]) -> dict[str, float]:
    """Per-stage budgets whose float sum is exactly ``rho`` (the last stage takes the remainder)."""
    stages = [s for s in STAGES if fractions.get(s, 0.0) > 0]
    out: dict[str, float] = {}
    for s in stages[:-1]:
        out[s] = rho * fractions[s]
    out[stages[-1]] = rho - math.fsum(out.values())
    for _ in range(256):  # the remainder may be off by an ulp of rho: step it by its own ulps
        gap = rho - math.fsum(out.values())
        if gap == 0:
            break
        out[stages[-1]] = math.nextafter(out[stages[-1]], math.inf if gap > 0 else -math.inf)
    return out


def _oracle_sigma(sigma: Any, d: int) -> np.ndarray:
    """The known standard deviations of ``variances="oracle"``, checked before anything is spent."""
    if sigma is None:
        raise ValueError(
            "variances='oracle' needs the known standard deviations: pass sigma=(d,) array."
        )
    raw = np.broadcast_to(np.asarray(sigma, dtype=float), (d,)).copy()
    if not np.all(np.isfinite(raw)) or np.any(raw < 0):
        raise ValueError(
            "sigma must be finite and >= 0 in every coordinate (no NaN or infinity); pass the "
            "known per-coordinate standard deviations."
        )
    return raw


def _c2f_centre(
    X: np.ndarray, lo: np.ndarray, hi: np.ndarray, rho_c: float, ledger: Ledger, g: Any
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The centre stage by :func:`~dpcore.quantiles.coarse_to_fine_median` (``rho_c``-zCDP).

    Privacy
    -------
    Replace-one: ``C2F_LEVELS`` noisy histograms (l2 sensitivity ``sqrt(2 d)``) with
    ``C2F_HISTOGRAM_SHARE rho_c`` together, then ``d`` exponential-mechanism medians (utility
    sensitivity 1) with the rest; the mechanisms charge the stage ``rho_c`` in all.
    """
    d = X.shape[1]
    note = (
        f"{d} coarse-to-fine private medians: {C2F_LEVELS} noisy {C2F_BINS}-bin histograms "
        f"(rho {C2F_HISTOGRAM_SHARE * rho_c:.4g}) then the exponential mechanism "
        f"in the window (rho {rho_c - C2F_HISTOGRAM_SHARE * rho_c:.4g})"
    )
    with mechanisms.stage(ledger, STAGE_LABELS["center"], note=note):
        return coarse_to_fine_median(X, (lo, hi), rho=rho_c, rng=g)


def _median_centre(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rho_c: float,
    spread: float,
    quantile: QuantileMethod,
    steps: int,
    ledger: Ledger,
    warnings_: list[str],
    g: Any,
) -> np.ndarray:
    """The centre stage by ``d`` private medians over the whole public range.

    Privacy
    -------
    Replace-one: ``rho_c / d`` per coordinate, utility (or count) sensitivity 1, ``rho_c`` in all.
    With ``spread > 0`` (the authors' code, specs/plan.md §10.10) the medians run on the tripled
    data ``{x - spread, x, x + spread}`` with the noise of ``rho_c``; one person moves three
    points, so the sensitivity is 3 and the mechanisms charge the true ``9 rho_c``.
    """
    n, d = X.shape
    if spread > 0:
        data, k = np.concatenate([X - spread, X, X + spread]), 3
        note = (
            f"as published: {d} medians of the tripled data {{x - {spread:g}, x, x + {spread:g}}} "
            f"run with rho {rho_c:.4g}; one person moves 3 points, so the true cost is "
            f"9 x {rho_c:.4g} (specs/plan.md §10.10)"
        )
    else:
        data, k = X, 1
        note = f"{d} private medians ({quantile}), rho/d = {rho_c / d:.4g} each"
    with mechanisms.stage(ledger, STAGE_LABELS["center"], note=note):
        mu_t = private_quantile(
            data, 0.5, (lo, hi), rho=rho_c, method=quantile, steps=steps, rng=g, points_per_person=k
        )
    if spread == 0 and quantile == "exponential":
        # Public check: the empty stretch of the range beside the data (length up to the width)
        # outweighs the median's utility advantage eps n / 4 when eps n / 4 < ln(width n).
        eps_col = math.sqrt(8.0 * rho_c / d)
        if eps_col * n / 4.0 < math.log(float(np.max(hi - lo)) * n):
            warnings_.append(
                f"the centre's budget is thin: rho/d = {rho_c / d:.2g} per coordinate over a range "
                f"{float(np.max(hi - lo)):.3g} wide, so some private medians may land far from the data "
                f"(PLAN needs n >> sqrt(d / rho); more n, more budget or a tighter public range fixes it)."
            )
    return np.asarray(mu_t, dtype=float)


def _private_sigma(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rho_v: float,
    cap_share: float,
    pairs_per_group: int,
    quantile: QuantileMethod,
    steps: int,
    beta: float,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """The variance stage: :func:`variance_cap` then Algorithm 2 (:func:`variance_estimate`).

    Privacy
    -------
    Replace-one: the cap is one log-grid exponential-mechanism median of disjoint pair distances
    (sensitivity 1) with ``cap_share rho_v``; the ``d`` medians of Algorithm 2's group values
    (one person in one group per column) get the rest, ``/ d`` each. Both charge the stage
    "variances", ``rho_v`` in all.
    """
    d = X.shape[1]
    label = STAGE_LABELS["variance"]
    rho_var, cap = rho_v, None
    if cap_share > 0:  # the medians get rho_v - rho_cap exactly; rho_cap + that = rho_v
        rho_cap = rho_v - (rho_v - rho_v * cap_share)
        note = f"a private cap on every sigma^2 (pair-distance median on a log grid, rho {rho_cap:.4g})"
        with mechanisms.stage(ledger, label, note=note):
            cap = variance_cap(X, (lo, hi), rho=rho_cap, beta=beta, rng=g)
        rho_var = rho_v - rho_cap
    note = f"Algorithm 2: {d} private medians of pair statistics, rho/d = {rho_var / d:.4g} each"
    with mechanisms.stage(ledger, label, note=note + ("" if cap is None else ", below the cap")):
        var = variance_estimate(
            X,
            (lo, hi),
            rho=rho_var,
            pairs_per_group=pairs_per_group,
            method=quantile,
            steps=steps,
            max_variance=cap,
            floor_ratio=1e-30 if cap is None else variance_floor_ratio(d),
            rng=g,
        )
    return np.sqrt(np.maximum(var, 0.0))


# ----------------------------------------------------------------------------------------------
# the estimator
# ----------------------------------------------------------------------------------------------


def plan(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    sigma: np.ndarray | None = None,
    variances: VarianceMethod = "private",
    p: float = 2.0,
    scale_exponent: float | None = None,
    budget_split: dict[str, float] | None = None,
    quantile: QuantileMethod = "exponential",
    steps: int = 20,
    beta: float = 0.1,
    pairs_per_group: int = 1,
    radius_universe_kind: str | float | None = None,
    center: str | None = None,
    regularise_sigma: bool | None = None,
    rank_slack_kind: str | float = "plan",
    center_step: CenterStep = "coinpress",
    radius_step: RadiusStep = "log_grid",
    center_spread: float = 0.0,
    coinpress_spread_share: float = 0.1,
    variance_cap_share: float = VARIANCE_CAP_SHARE,
    rng: RngLike = None,
) -> Estimate:
    """PLAN (Algorithm 1) with a private centre, variance-aware scaling and a private clip radius.

    Parameters
    ----------
    x : array (n, d)
        Data, one row per person.
    rho : float
        Total zCDP budget (replace-one neighbours, ``n`` public).
    bounds : (lower, upper)
        Public per-coordinate range (search range of the centre and variance quantiles, and the
        ``"range"`` radius universe).
    sigma : array (d,), optional
        Known per-coordinate standard deviations (only with ``variances="oracle"``).
    variances : {"private", "oracle", "binary", "none"}
        How ``sigma^`` is obtained: Algorithm 2 (real data), the known ``sigma`` (teaching
        oracle, spends nothing), the Gaussian-mechanism frequencies (binary data, §4b), or
        ``sigma^ = 1`` (PLAN without scaling, §5b).
    p : float
        Target ``l_p`` error (PLAN's exponent ``1/(p+2)``).
    scale_exponent : float, optional
        Override ``e`` in ``s = sigma^ ** (-2e)``: 0 no scaling, ``1/(p+2)`` PLAN, ``1/2`` equal split.
    budget_split : dict, optional
        Fractions of ``rho`` per stage (``center``, ``variance``, ``radius``, ``noise``); summing to 1.
        Default: the paper's ``0.0625/0.1875/0.1875/0.5625``; without variance stage the centre
        gets ``0.25``; binary data ``variance 0.25`` (free centre). With the coarse-to-fine centre
        and no explicit split, the centre's share is raised to
        ``min(needed_center_share(n, d, rho), 0.5)`` when that is larger, the difference taken from
        the noise share (a rule on public values; the ledger shows the shares used, summing to
        ``rho`` exactly).
    quantile : {"exponential", "binary_search"}
        Private quantile routine for the centre, the variances and the radius.
    steps : int
        Binary-search steps ``T`` (only for ``quantile="binary_search"``).
    beta : float
        Failure probability in the rank slack and the trimmed universe (0.1 as in the paper).
    pairs_per_group : int
        ``k`` of Algorithm 2.
    radius_universe_kind : {"trimmed", "range"} or float, optional
        ``U``; default ``"trimmed"`` for scaled real data, ``"range"`` otherwise.
    center : {"median", "frequencies", "box"}, optional
        Private coordinate medians (default), the free private frequency vector (binary default),
        or the public box centre (spends nothing).
    regularise_sigma : bool, optional
        Add ``||sigma^||_1 / d``; default True except for the oracle.
    rank_slack_kind : "plan", "error_only" or float
        ``k = sqrt(n) + rank error`` (PLAN), the rank error alone, or ``k`` as given.
    center_step : {"coarse_to_fine", "paper"}
        How the coordinate medians are found (``center="median"``, ``quantile="exponential"``):
        :func:`coarse_to_fine_median` (default, issue 12: two noisy-histogram zooms with half of
        ``rho_center``, then the exponential-mechanism median in the final window with the other
        half), ``"coinpress"`` (default, issue 12 second pass; :func:`coinpress_scaled_center`:
        CoinPress's shrinking ball in the scaled space, run after the variances;
        ``coinpress_spread_share`` of ``rho_center`` for the private l2 spread, the rest over the
        public number of steps; the same automatic centre share as coarse-to-fine), or the paper's
        exponential mechanism over the whole public range. Measured (10-20 seeds): the two match on
        Gaussian A (d = 1024, rho = 1/16: medians 5.6 / 5.7), but on the paper's wide B/C ranges
        (+-50 d sqrt(sigma_max)) the per-coordinate zooms miss: B, alpha = 2, rho = 1/16: median
        9.4 against 1268; C, d = 1024, rho = 1/16: 15 against 154 000.
        With the oracle variances ``"coinpress"`` falls back to coarse-to-fine. Without scaling
        (``variances="none"``: ``plan_noscale``, ``gaussian_private``) and with
        ``quantile="exponential"`` CoinPress runs on the rows themselves (``s = 1``; issue 12,
        third pass: ``gaussian_private`` on Gaussian A, d = 1024, rho = 1/16, 30 seeds: one run
        74x the median with the coarse-to-fine centre, a coordinate of the centre 394 off; worst
        1.9x with CoinPress, median 2.78 -> 2.76).
    radius_step : {"log_grid", "paper"}
        How ``C`` is found (``quantile="exponential"``): the exponential mechanism over the public
        log grid ``U 1.002**-k`` on ``[U 1e-9, U]`` (default, :func:`dpcore.quantiles.exponential.log_grid_quantile`,
        rank slack ``sqrt(n) + 2 ln(G / beta) / sqrt(8 rho_radius)``), or the paper's exponential
        mechanism over the gaps of ``[0, U]`` with [R]'s rank slack.
    center_spread : float
        0 (default, honest). A positive value reproduces the authors' code ([R], specs/plan.md
        §10.10): the centre medians run on the tripled data ``{x - c, x, x + c}`` with the centre
        budget as given; one person then moves three points, so the release really costs
        ``9 rho_center`` (group privacy for zCDP, ``k**2 rho``), and the ledger charges that.
    coinpress_spread_share : float
        Share of ``rho_center`` for the private l2 spread of the CoinPress centre (0 takes the spread
        from ``sigma^`` instead: measured worse at d = 1024, where ``sigma^`` itself is noisy).
    variance_cap_share : float
        Share of ``rho_variance`` for :func:`variance_cap`, a private bound on every ``sigma_i^2``
        that tops Algorithm 2's search ranges (default 0.1; 0 is the paper's Algorithm 2 alone,
        as in :func:`plan_as_published`). The two parts sum to ``rho_variance`` exactly.
    rng : None, int or Generator

    Returns
    -------
    Estimate
        ``diagnostics``: ``center``, ``scale``, ``clip_radius``, ``clipped`` (rows), ``noise_std``
        (original space), as a :class:`PlanDiagnostics` (``sigma_hat``, ``rank_slack``,
        ``clip_quantile``, ``radius_universe``, ``norms``, ``budgets`` per stage and more; read it
        with ``est.diagnostics_as(PlanDiagnostics)``).

    Privacy
    -------
    Replace-one, ``n`` public; ``rho``-zCDP in total (``rho + 8 rho_center`` with
    ``center_spread > 0``: ``1.5 rho`` at the paper's split).
    Ledger stages, each charged by the mechanisms that draw in it: "centre (coordinate medians)"
    (``rho_center``: medians of sensitivity 1, coarse-to-fine histograms of l2 sensitivity
    ``sqrt(2 d)``, or CoinPress means of l2 sensitivity ``2 R_t / n``; with ``center_spread > 0``
    the tripled data's sensitivity 3, charged ``9 rho_center``), "variances" (``rho_variance``:
    rank utilities of sensitivity 1, or the frequencies' l2 sensitivity ``||hi - lo||_2 / n``),
    "clip radius" (``rho_radius``: rank utility of sensitivity 1 over the ``n`` scaled norms) and
    "noisy sum" (``rho_noise``: l2 sensitivity ``2C`` of the clipped sum). Everything else is
    post-processing of public values and these releases. Public inputs that are NaN or infinite
    are refused before anything is drawn.

    References
    ----------
    Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1, Listing 1, Algorithm 2;
    specs/plan.md §2–§5, §10.
    """
    X = check_data(x, ndim=2, min_rows=2)
    n, d = X.shape
    rho = check_positive(rho, "rho")
    lo, hi = check_public_bounds(bounds, d)
    if variances not in ("private", "oracle", "binary", "none"):
        raise ValueError(
            f"variances must be 'private', 'oracle', 'binary' or 'none'; got {variances!r}."
        )
    if quantile not in ("exponential", "binary_search"):
        raise ValueError(f"quantile must be 'exponential' or 'binary_search'; got {quantile!r}.")
    p = check_positive(p, "p")
    beta = check_probability(beta, "beta")
    if center is None:
        center = "frequencies" if variances == "binary" else "median"
    if center not in ("median", "frequencies", "box"):
        raise ValueError(f"center must be 'median', 'frequencies' or 'box'; got {center!r}.")
    if center == "frequencies" and variances != "binary":
        raise ValueError(
            "center='frequencies' reuses the private frequencies of variances='binary'."
        )
    if regularise_sigma is None:
        regularise_sigma = variances in ("private", "binary")
    if variances == "none":
        e = 0.0 if scale_exponent is None else float(scale_exponent)
    else:
        e = default_scale_exponent(p) if scale_exponent is None else float(scale_exponent)
    if radius_universe_kind is None:
        radius_universe_kind = (
            "trimmed" if variances in ("private", "oracle") and e > 0 else "range"
        )

    used = {"radius", "noise"}
    if center == "median":
        used.add("center")
    if variances in ("private", "binary"):
        used.add("variance")
    if used == {"center", "variance", "radius", "noise"}:
        default = DEFAULT_SPLIT
    elif "variance" in used:
        default = BINARY_SPLIT  # free centre: the preprocessing share goes to the variances
    elif "center" in used:
        default = NO_VARIANCE_SPLIT
    else:
        default = {"radius": 0.4375, "noise": 0.5625}
    fractions = _check_split(budget_split, default, used)
    # CoinPress runs with the private variances (the paper's PLAN) and without scaling (s = 1; with
    # binary searches that configuration stays the paper's, IOME without rotation, §9.8); the
    # oracle teaching variant keeps the coarse-to-fine centre.
    cp_center = (
        center_step == "coinpress"
        and center_spread == 0
        and (variances == "private" or (variances == "none" and quantile == "exponential"))
    )
    robust_center = (
        (center_step == "coarse_to_fine" or (center_step == "coinpress" and not cp_center))
        and quantile == "exponential"
        and center_spread == 0
    )
    auto_share = budget_split is None and (robust_center or cp_center) and "center" in used
    if auto_share:
        # Public rule (n, d, rho only): a wide range needs more for the centre; taken from the noise.
        share = min(max(fractions["center"], needed_center_share(n, d, rho)), MAX_AUTO_CENTER_SHARE)
        if share > fractions["center"]:
            fractions = {
                **fractions,
                "noise": fractions["noise"] - (share - fractions["center"]),
                "center": share,
            }
    budgets = _stage_budgets(rho, fractions)

    if center_step not in ("coarse_to_fine", "coinpress", "paper"):
        raise ValueError(
            f"center_step must be 'coarse_to_fine', 'coinpress' or 'paper'; got {center_step!r}."
        )
    if radius_step not in ("log_grid", "paper"):
        raise ValueError(f"radius_step must be 'log_grid' or 'paper'; got {radius_step!r}.")
    spread = float(center_spread)
    if not math.isfinite(spread) or spread < 0:
        raise ValueError(
            f"center_spread must be a finite number >= 0 (0 = honest); got {center_spread!r}."
        )
    if variances == "oracle":
        sigma_known = _oracle_sigma(sigma, d)
    cap_share = check_probability(variance_cap_share, "variance_cap_share", open_interval=False)
    if not math.isfinite(e) or e < 0:
        raise ValueError(
            f"scale_exponent must be a finite number >= 0 (0 = no scaling); got {scale_exponent!r}."
        )

    g = mechanisms.generator(rng)
    ledger = Ledger("zcdp")
    warnings_: list[str] = []
    extra: dict[str, Any] = {}

    # -- stage 1: centre ------------------------------------------------------------------------
    q_tilde = None
    # the frequencies are charged as the variance stage, in that stage's place in the ledger
    freq_ledger = Ledger("zcdp")
    if variances == "binary":
        with mechanisms.stage(freq_ledger, STAGE_LABELS["variance"]):
            q_tilde, f_std = binary_frequencies(X, (lo, hi), rho=budgets["variance"], rng=g)
        extra["frequencies"] = q_tilde
        extra["frequency_noise_std"] = f_std
    coinpress = center == "median" and cp_center
    if coinpress:
        mu_t = None  # found in scaled space once sigma^ is known (below)
    elif center == "median" and robust_center:
        # (Running Algorithm 2 first and flooring the bins at sigma^ was measured worse on the
        # paper's grid at d = 1024, rho = 1/8: sigma^ is itself noisy there.)
        mu_t, window = _c2f_centre(X, lo, hi, budgets["center"], ledger, g)
        extra["center_window"] = window
        _warn_thin_center(warnings_, n, d, rho, lo, hi, None if auto_share else fractions["center"])
    elif center == "median":
        mu_t = _median_centre(
            X, lo, hi, budgets["center"], spread, quantile, steps, ledger, warnings_, g
        )
        if spread > 0:
            warnings_.append(
                f"as published: the centre spends 9x its share ({9 * budgets['center']:.4g} instead of "
                f"{budgets['center']:.4g}), so the total is {rho + 8 * budgets['center']:.4g}, not {rho:.4g}."
            )
    elif center == "frequencies":
        mu_t = np.clip(q_tilde, lo, hi)
    else:
        mu_t = (lo + hi) / 2.0

    # -- stage 2: variances -----------------------------------------------------------------
    if variances == "private":
        raw = _private_sigma(
            X,
            lo,
            hi,
            budgets["variance"],
            cap_share,
            pairs_per_group,
            quantile,
            steps,
            beta,
            ledger,
            g,
        )
    elif variances == "binary":
        raw = np.sqrt(binary_variances(q_tilde))
        ledger.absorb(freq_ledger)
    elif variances == "oracle":
        raw = sigma_known
    else:
        raw = np.ones(d)
    sigma_hat = regularise(raw) if regularise_sigma else _floor_positive(raw)
    s = scale_vector(sigma_hat, p, e)
    if coinpress:
        note = (
            f"CoinPress in scaled space: a private l2 spread ({coinpress_spread_share:g} of the "
            "centre's rho), then noisy clipped means in shrinking public balls"
        )
        with mechanisms.stage(ledger, STAGE_LABELS["center"], note=note):
            mu_t, cp = coinpress_scaled_center(
                X,
                lo,
                hi,
                sigma_hat,
                s,
                rho=budgets["center"],
                beta=beta,
                spread_share=coinpress_spread_share,
                rng=g,
            )
        extra["coinpress"] = cp
        _warn_thin_center(warnings_, n, d, rho, lo, hi, None if auto_share else fractions["center"])

    # -- stage 3: clip radius ---------------------------------------------------------------------
    width = float(np.max(hi - lo))
    log_grid = radius_step == "log_grid" and quantile == "exponential"
    if (rank_slack_kind in {"plan", "error_only"}) and log_grid:
        k = (math.sqrt(n) if rank_slack_kind == "plan" else 0.0) + quantiles.log_grid_rank_error(
            budgets["radius"], beta
        )
    elif rank_slack_kind in {"plan", "error_only"}:
        k = rank_slack(
            n,
            budgets["radius"],
            width=width,
            method=quantile,
            steps=steps,
            beta=beta,
            include_sqrt_n=rank_slack_kind == "plan",
        )
    else:
        k = float(rank_slack_kind)
        if not math.isfinite(k) or k < 0:
            raise ValueError(
                f"rank_slack_kind must be 'plan', 'error_only' or a number >= 0; got {rank_slack_kind!r}."
            )
    q_clip = min(max(1.0 - k / n, 0.5), 1.0 - 0.5 / n)
    if k / n > 0.1:
        warnings_.append(
            f"rank slack k = {k:.1f} is {k / n:.0%} of n: the clip quantile is clamped to "
            f"{q_clip:.3f}; n is small for this budget (PLAN needs n >> sqrt(d/rho))."
        )
    U = radius_universe(
        radius_universe_kind, sigma_hat=sigma_hat, scale=s, lo=lo, hi=hi, n=n, beta=beta
    )
    norms = np.empty(n)
    for rows, y in _scaled_rows(X, mu_t, s):  # y_j = (x_j - mu~) * s
        norms[rows] = _row_norms(y)
    if log_grid:
        how = f"exponential mechanism on a log grid in [{U * 1e-9:.3g}, {U:.4g}]"
    else:
        how = f"on [0, {U:.4g}] ({quantile})"
    note = f"private {q_clip:.4f}-quantile of the scaled norms {how}"
    with mechanisms.stage(ledger, STAGE_LABELS["radius"], note=note):
        if log_grid:
            # The grid stops at the (trimmed) universe U: a radius capped there bounds the noise
            # even when a few centre coordinates are off (a grid up to the whole range was
            # measured worse).
            C = quantiles.log_grid_quantile(norms, q_clip, U, rho=budgets["radius"], rng=g)
        else:
            C = float(
                private_quantile(
                    norms,
                    q_clip,
                    (0.0, U),
                    rho=budgets["radius"],
                    method=quantile,
                    steps=steps,
                    rng=g,
                )
            )
    C = max(C, U * 1e-12)

    # -- stage 4: clip, noise, unscale, recentre (Algorithm 1 lines 7-8) -------------------------
    factor = np.minimum(1.0, C / np.maximum(norms, _TINY))
    clipped_sum = np.zeros(d)
    for rows, y in _scaled_rows(X, mu_t, s):  # sum_j min(1, C / ||y_j||) y_j
        clipped_sum += factor[rows] @ y
    tau = math.sqrt(2.0 * C * C / budgets["noise"])
    with mechanisms.stage(ledger, STAGE_LABELS["noise"]):
        noisy_sum, eta = _noisy_sum(clipped_sum, 2.0 * C, budgets["noise"], tau, g)
    noiseless = mu_t + clipped_sum / (n * s)
    mean = mu_t + noisy_sum / (n * s)
    clipped = norms > C
    # Uses only private outputs (centre, radius, estimate) and public s: no extra privacy cost.
    pull = float(np.linalg.norm((mean - mu_t) * s))
    if pull > 0.5 * C:
        warnings_.append(
            f"the private centre lies far from the estimate (shift {pull:.3g} in scaled units against a clip "
            f"radius {C:.3g}): some centre coordinates probably landed outside the data, which inflates the "
            "radius and the noise. More budget, more n or a tighter public range fixes it."
        )

    extra.update(
        {
            "sigma_hat": sigma_hat,
            "sigma_hat_raw": raw,
            "scale_exponent": e,
            "p": p,
            "rank_slack": k,
            "clip_quantile": q_clip,
            "radius_universe": U,
            "radius_universe_kind": radius_universe_kind,
            "norms": norms,
            "noise_std_scaled": tau,
            "budgets": dict(budgets),
            "fractions": dict(fractions),
            "quantile": quantile,
            "variances": variances,
            "center_method": center,
            "noise": eta / (n * s),
        }
    )
    diag = PlanDiagnostics(
        noiseless_mean=noiseless,
        center=mu_t,
        scale=s,
        clip_radius=C,
        clipped=clipped,
        noise_std=tau / (n * s),
        warnings=warnings_,
        **extra,
    )
    return Estimate(mean=mean, ledger=ledger, diagnostics=diag)


# ----------------------------------------------------------------------------------------------
# registered variants
# ----------------------------------------------------------------------------------------------


@dataclass(kw_only=True)
class PlanDiagnostics(Diagnostics):
    """PLAN's specifics on top of :class:`~dpcore.estimate.Diagnostics` (specs/plan.md §2–§5).

    Also what ``gaussian_private`` and ``plan_*`` return (they run :func:`plan`).

    Attributes
    ----------
    sigma_hat, sigma_hat_raw : array (d,)
        The standard deviations used for scaling (regularised) and before regularising.
    scale_exponent, p : float
        Exponent ``e`` of ``s = sigma^^(-e)`` and the error norm ``p`` it was chosen for.
    rank_slack, clip_quantile : float
        Rank slack ``k`` and the quantile ``1 - k/n`` (clamped) the radius aims at.
    radius_universe : float
        Top ``U`` of the radius search; ``radius_universe_kind`` says how it was set.
    radius_universe_kind : str
    norms : array (n,)
        Scaled row norms ``||(x_j - mu~) s||`` (data; for the pictures, never released).
    noise_std_scaled : float
        Standard deviation ``tau`` of the noise on the clipped sum (scaled space).
    budgets, fractions : dict
        rho per stage and the split it came from.
    quantile, variances, center_method : str
        The quantile routine, the variance mode and the centre method that ran.
    noise : array (d,)
        The final noise in original space (``mean - noiseless_mean``).
    frequencies, frequency_noise_std : array (d,) and float, or None
        The private frequencies and their noise std (``variances="binary"`` only).
    center_window : (array, array) or None
        The final window of the coarse-to-fine centre (when that step ran).
    coinpress : dict or None
        The CoinPress centre's steps, radii and budgets (when that step ran).
    """

    sigma_hat: np.ndarray
    sigma_hat_raw: np.ndarray
    scale_exponent: float
    p: float
    rank_slack: float
    clip_quantile: float
    radius_universe: float
    radius_universe_kind: str
    norms: np.ndarray
    noise_std_scaled: float
    budgets: dict[str, float]
    fractions: dict[str, float]
    quantile: str
    variances: str
    center_method: str
    noise: np.ndarray
    frequencies: np.ndarray | None = None
    frequency_noise_std: float | None = None
    center_window: tuple[np.ndarray, np.ndarray] | None = None
    coinpress: dict[str, Any] | None = None


def plan_l2(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    rng: RngLike = None,
    **params: Any,
) -> Estimate:
    """PLAN for l2 error on real data with private variances (Algorithm 2) — the paper's §4a."""
    return plan(x, rho=rho, bounds=bounds, variances="private", p=2.0, rng=rng, **params)


def plan_binary(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    rng: RngLike = None,
    **params: Any,
) -> Estimate:
    """PLAN's binary instantiation (p = 1, total-variation metric; §4b): Gaussian-mechanism
    frequencies give the centre and ``sigma^2 = q~(1-q~)`` floored at ``d^(-2/5)``; ``s = sigma^^(-2/3)``;
    radius universe ``||s||_2``. Bounds default to the unit box."""
    X = check_data(x, ndim=2)
    if bounds is None:
        bounds = (np.zeros(X.shape[1]), np.ones(X.shape[1]))
    return plan(X, rho=rho, bounds=bounds, variances="binary", p=1.0, rng=rng, **params)


def plan_as_published(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    rng: RngLike = None,
    **params: Any,
) -> Estimate:
    """PLAN as the authors' code runs it (reproduction, not a private release at ``rho``).

    The paper's centre and radius steps (exponential mechanism over the whole range, [R]'s rank
    slack) and the centre medians on the tripled data ``{x - 0.1, x, x + 0.1}`` (specs/plan.md
    §10.10). The ledger charges the true cost ``9 rho_center`` for the centre, so it totals
    ``rho + 8 * 0.0625 rho = 1.5 rho`` with the default split.
    """
    kw = {
        "center_step": "paper",
        "radius_step": "paper",
        "center_spread": 0.1,
        "variance_cap_share": 0.0,
        **params,
    }
    return plan(x, rho=rho, bounds=bounds, variances="private", p=2.0, rng=rng, **kw)


def plan_oracle(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    sigma: np.ndarray | None = None,
    rng: RngLike = None,
    **params: Any,
) -> Estimate:
    """PLAN with the true standard deviations (teaching oracle; not a private variance estimate)."""
    return plan(
        x,
        rho=rho,
        bounds=bounds,
        sigma=sigma,
        variances="oracle",
        rng=rng,
        **params,
    )


def plan_noscale(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    rng: RngLike = None,
    **params: Any,
) -> Estimate:
    """PLAN without scaling (``sigma^ = 1``; Section 6, §5b), radius universe from the data range."""
    return plan(x, rho=rho, bounds=bounds, variances="none", rng=rng, **params)


def plan_equal_split(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    rng: RngLike = None,
    **params: Any,
) -> Estimate:
    """Teaching contrast: scale by ``sigma^^(-1)`` (Mahalanobis-style equal split, exponent 1/2)."""
    return plan(
        x,
        rho=rho,
        bounds=bounds,
        variances="private",
        scale_exponent=0.5,
        rng=rng,
        **params,
    )


_REAL = frozenset({"real", "bounded"})

register(
    EstimatorSpec(
        name="plan",
        label="PLAN (ℓ2, private variances)",
        color="#0072B2",
        notion="zcdp",
        data_kinds=_REAL,
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=plan_l2,
        family="PLAN",
        default=Default(rank=10),
        description=(
            "Private centre, scale coordinate i by σ̂ᵢ^(-1/2), clip at a private norm quantile, "
            "Gaussian noise."
        ),
    )
)

register(
    EstimatorSpec(
        name="plan_as_published",
        label="PLAN as published (spends 9× centring budget)",
        color="#9ecae1",
        notion="zcdp",
        data_kinds=_REAL,
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=plan_as_published,
        family="PLAN",
        spend_factor=1.5,
        description=(
            "Reproduction of the authors' code: the centre medians run on the tripled data "
            "{x−0.1, x, x+0.1}, so one person moves three points and the centre really costs 9× "
            "its share (1.5 ρ in total); the ledger shows the true spend. The paper's radius "
            "step."
        ),
    )
)

register(
    EstimatorSpec(
        name="plan_l1",
        label="PLAN (ℓ1, binary data)",
        color="#56B4E9",
        notion="zcdp",
        data_kinds=frozenset({"binary"}),
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=plan_binary,
        family="PLAN",
        default=Default(rank=10),
        description=(
            "PLAN for 0/1 data and total-variation error: private frequencies, scale by σ̂ᵢ^(-2/3)."
        ),
    )
)

register(
    EstimatorSpec(
        name="plan_oracle",
        label="PLAN with known variances (oracle)",
        color="#6baed6",
        notion="zcdp",
        data_kinds=_REAL,
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=plan_oracle,
        family="PLAN",
        uses_oracle=True,
        description=(
            "PLAN scaled with the true σ (teaching only: the variances are not estimated "
            "privately)."
        ),
    )
)

register(
    EstimatorSpec(
        name="plan_noscale",
        label="PLAN without scaling",
        color="#238b45",
        notion="zcdp",
        data_kinds=_REAL,
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=plan_noscale,
        family="PLAN",
        description=(
            "PLAN with every σ̂ᵢ = 1: private centre and radius, isotropic noise (the paper's "
            "Section 6)."
        ),
    )
)

register(
    EstimatorSpec(
        name="plan_equal_split",
        label="Equal split (scale by σ̂⁻¹)",
        color="#a1d99b",
        notion="zcdp",
        data_kinds=_REAL,
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=plan_equal_split,
        family="PLAN",
        description=(
            "Mahalanobis-style scaling s = 1/σ̂: a teaching contrast that over-corrects the "
            "variance skew."
        ),
    )
)
