"""Simplex-augmented private sums, counts and means: the "free lunch" (Fitzsimons et al. 2024).

Pseudocode (docs/estimators/simplex.md §2.3)
----------------------------------
S1 SimplexRelease
    1. ``z_i = clamp(x_i, L, U) - L`` per column, then l1-clip the row to ``sum_j z_ij <= R``
       (rescale ``z_i <- R z_i / sum_j z_ij``; spec §2.1). Clamping comes *before* augmenting.
    2. ``y_i = (z_i, R - sum_j z_ij)`` (every ``y_i >= 0`` with ``||y_i||_1 = R``), ``s = sum_i y_i``.
    3. Sensitivity of ``s`` (spec §1 table): add/remove ``Δ1 = Δ2 = R``; replace-one ``Δ1 = 2R``,
       ``Δ2 = sqrt(2) R``.
    4. ``m = s + Z`` with iid ``Lap(Δ1/ε)`` (``v = 2 b²``) or ``N(0, Δ2²/(2ρ))`` (``v = σ²``) noise in
       each of the ``d + 1`` coordinates; the budget is charged **once**.
S2 unknown n (post-processing): ``N̂ = sum_k m_k / R`` (``Var = (d+1) v / R²``),
    ``μ̂_j = L_j + m_j / max(N̂, 1)`` (the floored count; optionally clamp to ``[L_j, U_j]``).
S3 known n (post-processing): project onto ``sum_k s_k = N R``:
    ``ŝ_k = m_k - (T - N R)/(d+1)``, ``μ̂_j = L_j + ŝ_j / N``, ``Var(ŝ_j) = v d/(d+1)``.
S4 extra count budget: spend a fraction of the budget on ``N' = N + W``, combine
    ``N* = w N̂ + (1-w) N'`` by inverse variance (``w = Var(N̂)^-1 / (Var(N̂)^-1 + Var(W)^-1)``), and
    either the BLUE sums ``ŝ_k = m_k - (T - R N*)/(d+1)`` (``combine="blue"``, spec §2.3 S4 [ext])
    or the paper's ``m_j / N*`` (``combine="paper"``, §4.1.2).

Privacy
-------
* Neighbouring relation: add/remove (the paper's setting; ``N`` private, the free count is what it
  buys) or replace-one (``N`` public; only the known-``n`` estimate makes sense). Each registered
  entry declares its relation. Known ``n`` under add/remove is not DP: it is refused unless
  ``side_information=True`` asks for the paper's comparison, whose ledger then says so.
* Laplace variants are ``ε``-DP, Gaussian variants ``ρ``-zCDP, with the sensitivities above. Noise
  per coordinate is then exactly that of the plain full-budget sum under the same relation (paper
  eq. 5; spec §7.2): ``b = R/ε``, ``σ = R/sqrt(2ρ)`` (add/remove) and ``2R/ε``, ``R/sqrt(ρ)``
  (replace-one).
* Ledger: one stage "simplex release" (the whole budget, or ``(1 - count_fraction)`` of it) and,
  for S4, one stage "extra count" with ``count_fraction`` of the budget (sensitivity 1 under
  add/remove), each drawn and charged by :mod:`dpcore.mechanisms`. Everything after the release
  is post-processing.

Multi-column data with a box ``[L_j, U_j]`` use ``R = sum_j (U_j - L_j)`` by default (the l1 diameter
of the shifted box, so no row is rescaled); pass ``radius`` for a smaller public l1 bound. Note the
cost of that choice under Gaussian noise: the box itself has ``Δ2 = ||U - L||_2 < R`` (spec §8.4).

A seeded numpy generator is fine for teaching, not for a secure release (spec §8.10).

Layout: ``_shared`` (mechanism, relation, noise draw, clamped data; shared with the baselines),
``release`` (S1 and the post-processing S2-S4); this module composes them into the estimator,
re-exports them and registers the entries.

References
----------
Fitzsimons, Honaker, Shoemate, Singhal. "Private Means and the Curious Incident of the Free Lunch."
arXiv:2408.10438 (2024), §4, §4.1.2, §4.2 and Appendix B. docs/estimators/simplex.md §1, §2, §4, §7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_flag, check_real
from dpcore.estimate import Cost, Default, Diagnostics, Estimate
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.estimators.simplex._shared import (
    Combine,
    Mechanism,
    Preprocessed,
    Relation,
    add_noise,
    check_relation,
    check_reps,
    mechanism_of,
    noise_variance,
    nonprivate_counts,
    preprocess,
)
from dpcore.estimators.simplex.release import (
    SimplexRelease,
    combine_counts,
    free_count,
    mean_from_sums,
    project_sums,
    simplex_release,
    simplex_sensitivity,
    simplex_transform,
)
from dpcore.privacy import Ledger

# --------------------------------------------------------------------------------------------
# the estimator


@dataclass(kw_only=True)
class SimplexDiagnostics(Diagnostics):
    """The simplex estimator's specifics (docs/estimators/simplex.md §2.3, S1-S4).

    Attributes
    ----------
    radius : float
        Simplex radius R.
    noise_variance, noise_scale, sensitivity : float
        Variance and scale of each augmented sum's noise, and the release's sensitivity.
    m : array (d + 1,)
        The released noisy augmented sums.
    mechanism : str
        ``"laplace"`` or ``"gaussian"``.
    free_count, free_count_variance : float or None
        The count read off the release (S2) and its variance (unknown n only).
    extra_count, extra_count_variance, weight, combined_count, combined_count_variance : float or None
        S4: the extra noisy count, the inverse-variance weight w of the free count and the combined
        count (only with ``count_fraction > 0``).
    mean_unclamped, mean_clamped : array (d,)
        The mean before and after clamping to the box.
    """

    radius: float
    noise_variance: float
    noise_scale: float
    sensitivity: float
    m: np.ndarray
    mechanism: str
    mean_unclamped: np.ndarray
    mean_clamped: np.ndarray
    free_count: float | None = None
    free_count_variance: float | None = None
    extra_count: float | None = None
    extra_count_variance: float | None = None
    weight: float | None = None
    combined_count: float | None = None
    combined_count_variance: float | None = None


@dataclass
class _Draws:
    means: np.ndarray  # (reps, d)
    noiseless: np.ndarray  # (d,)
    ledger: Ledger
    noise_std: np.ndarray  # (d,) first-order std of the final noise in the mean
    extra: dict[str, Any]  # the fields of SimplexDiagnostics
    data: Preprocessed
    warnings: list[str]


#: The ledger note of a known-n estimate under add/remove (``side_information=True``).
SIDE_INFORMATION_NOTE = "not DP under add-remove: n used as public side information"


def check_known_n(known_n: bool, neighbouring: Relation, side_information: bool) -> None:
    """Refuse known ``n`` under add/remove unless ``side_information`` says it is meant.

    Under add/remove ``n`` is private: an estimate that divides by the true ``n`` is not DP for
    any ε (its noise scale is ∝ 1/n, so neighbours of sizes 2 and 3 are told apart). The paper
    still compares estimators "with n as public side information"; ``side_information=True``
    computes that comparison and labels its ledger :data:`SIDE_INFORMATION_NOTE`.
    """
    if known_n and neighbouring == "add-remove" and side_information is not True:
        raise ValueError(
            "known_n=True under add-remove neighbours is not differentially private (n is private "
            "and the estimate divides by it). Use neighbouring='replace-one' (n public), or pass "
            "side_information=True to compute the paper's 'n as public side information' "
            "comparison, which is labelled not DP under add-remove."
        )


def _check_options(
    rel: Relation, known_n: bool, side_information: bool, count_fraction: float, combine: str
) -> float:
    """The public options of :func:`simplex_mean` checked (before anything is charged)."""
    cf = check_real(
        count_fraction,
        "count_fraction (the share of the budget for an extra count)",
        low=0.0,
        high=1.0,
        open_high=True,
    )
    if combine not in ("blue", "paper"):
        raise ValueError(f"combine must be 'blue' or 'paper'; got {combine!r}.")
    if not known_n and rel == "replace-one":
        raise ValueError(
            "under replace-one neighbours n is public: use known_n=True "
            "(the free count is only useful when n is private, i.e. add/remove)."
        )
    if known_n and cf > 0:
        raise ValueError(
            "count_fraction > 0 buys an extra noisy count, which is pointless with known_n=True; "
            "set it to 0."
        )
    check_known_n(known_n, rel, side_information)
    return cf


def _with_extra_count(
    m: np.ndarray,
    rel_out: SimplexRelease,
    n_hat: np.ndarray,
    var_hat: float,
    n_extra: np.ndarray,
    var_w: float,
    combine: str,
    extra: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray]:
    """S4 (post-processing): the means from the free and the extra count combined, and their
    first-order variance times ``n²``; fills the S4 fields of ``extra``."""
    data, v = rel_out.data, rel_out.variance
    R, n, d = data.radius, data.n, data.d
    p = rel_out.s[:d] / (n * R)
    n_star, var_star, w = combine_counts(n_hat, var_hat, n_extra, var_w)
    extra.update(
        extra_count=float(n_extra[0]),
        extra_count_variance=var_w,
        weight=w,
        combined_count=float(n_star[0]),
        combined_count_variance=var_star,
    )
    if combine == "blue":
        sums = project_sums(m, R * n_star)[..., :d]
        alpha = w * (1.0 / (d + 1) - p) - 1.0 / (d + 1)
        var_mean = (
            v * ((1 + alpha) ** 2 + d * alpha**2)
            + R**2 * (1.0 / (d + 1) - p) ** 2 * (1 - w) ** 2 * var_w
        )
    else:
        sums = m[..., :d]
        var_mean = v * ((1 - p * w) ** 2 + d * (p * w) ** 2) + (p * R) ** 2 * (1 - w) ** 2 * var_w
    return mean_from_sums(sums, n_star, data.lower), var_mean


def _free_count_means(
    rel_out: SimplexRelease,
    ledger: Ledger,
    b_count: float,
    combine: str,
    reps: int,
    g: Any,
    extra: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray]:
    """S2 (the free count) or S4 (the free count combined with an extra noisy count, when
    ``b_count > 0``): the means of the ``reps`` releases and their noise variance (times n²)."""
    data, m, v, mech = rel_out.data, rel_out.m, rel_out.variance, extra["mechanism"]
    R, n, d = data.radius, data.n, data.d
    n_hat = free_count(m, R)
    var_hat = (d + 1) * v / R**2
    extra.update(free_count=float(n_hat[0]), free_count_variance=var_hat)
    if b_count > 0:
        unit = "ε" if mech == "laplace" else "ρ"
        with mechanisms.stage(ledger, "extra count"):
            n_extra, _ = add_noise(
                np.float64(n),
                mech,
                1.0,
                b_count,
                reps,
                g,
                f"noisy count, add/remove sensitivity 1, {unit} = {b_count:.4g}",
            )
        var_w = noise_variance(mech, 1.0, b_count)
        return _with_extra_count(m, rel_out, n_hat, var_hat, n_extra, var_w, combine, extra)
    p = rel_out.s[:d] / (n * R)
    means = mean_from_sums(m[..., :d], n_hat, data.lower)
    return means, v * (1 - 2 * p + (d + 1) * p**2)


def _simplex_draws(
    x: Any,
    *,
    epsilon: float | None,
    rho: float | None,
    bounds: Any,
    known_n: bool,
    neighbouring: str,
    count_fraction: float,
    combine: str,
    clamp: bool,
    radius: float | None,
    reps: int,
    rng: RngLike,
    side_information: bool = False,
) -> _Draws:
    mech, budget = mechanism_of(epsilon, rho)
    rel = check_relation(neighbouring)
    clamp = check_flag(clamp, "clamp")
    cf = _check_options(rel, known_n, side_information, count_fraction, combine)
    g = mechanisms.generator(rng)
    ledger = Ledger("pure" if mech == "laplace" else "zcdp")
    b_count = cf * budget
    b_release = budget - b_count
    key = "epsilon" if mech == "laplace" else "rho"
    release_budget: dict[str, Any] = {key: b_release}
    side = SIDE_INFORMATION_NOTE if known_n and rel == "add-remove" else ""
    with mechanisms.stage(ledger, "simplex release", note=side):
        rel_out = simplex_release(
            x, bounds=bounds, neighbouring=rel, radius=radius, reps=reps, rng=g, **release_budget
        )
    data = rel_out.data
    R, n, d, v = data.radius, data.n, data.d, rel_out.variance
    m = rel_out.m
    noiseless = data.lower + rel_out.s[:d] / n
    extra: dict[str, Any] = {
        "radius": R,
        "noise_variance": v,
        "noise_scale": rel_out.scale,
        "sensitivity": rel_out.sensitivity,
        "m": m[0].copy(),
        "mechanism": mech,
    }
    if known_n:
        sums = project_sums(m, n * R)[..., :d]
        means = data.lower + sums / n
        std = np.full(d, math.sqrt(v * d / (d + 1)) / n)
    else:
        means, var_mean = _free_count_means(rel_out, ledger, b_count, combine, reps, g, extra)
        std = np.sqrt(var_mean) / n
    clamped = np.clip(means, data.lower, data.upper)
    extra["mean_unclamped"] = means[0].copy()
    extra["mean_clamped"] = clamped[0].copy()
    out = clamped if clamp else means
    return _Draws(out, noiseless, ledger, std, extra, data, [])


def simplex_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    known_n: bool = False,
    neighbouring: str = "add-remove",
    count_fraction: float = 0.0,
    combine: str = "blue",
    clamp: bool = False,
    radius: float | None = None,
    rng: RngLike = None,
    side_information: bool = False,
) -> Estimate:
    """Private mean through the simplex transformation (Algorithms S1 + S2/S3/S4).

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
        Data, clamped to ``bounds`` first.
    epsilon, rho : float
        Exactly one total budget: ``epsilon`` for Laplace noise (pure DP), ``rho`` for Gaussian
        noise (zCDP).
    bounds : (lower, upper)
        Public range per column.
    known_n : bool
        ``True``: S3, the projection estimate with the true ``n`` (public under replace-one).
        ``False``: S2, the mean from the free count (floored at 1).
    neighbouring : {"add-remove", "replace-one"}
        Relation; replace-one requires ``known_n=True`` and doubles ``Δ1`` (``Δ2`` grows by sqrt 2).
        ``known_n=True`` under add-remove is refused unless ``side_information=True``.
    count_fraction : float in [0, 1)
        S4: share of the budget spent on an extra noisy count combined with the free one by inverse
        variance weighting (unknown ``n`` only). ``0`` spends everything on the release.
    combine : {"blue", "paper"}
        With an extra count: the BLUE sums re-projected onto ``R N*`` (never worse), or the paper's
        ``m_j / N*``.
    clamp : bool
        Clamp the final mean to ``[L, U]`` (free post-processing). Both versions are in
        the :class:`SimplexDiagnostics`.
    radius : float, optional
        Public l1 bound on the shifted rows (default: the l1 diameter of the box).
    rng : None, int, Generator or release backend
    side_information : bool
        Only with ``known_n=True`` under add-remove: compute the paper's "n as public side
        information" comparison. It is **not DP under add-remove** (``n`` is private there), and
        its ledger says so (:data:`SIDE_INFORMATION_NOTE`).

    Returns
    -------
    Estimate
        The :class:`SimplexDiagnostics` hold the release ``m``, the free count, the weight ``w`` (S4), the
        noise variance ``v`` and the sensitivity used; ``noise_std`` is the first-order standard
        deviation of the final noise (spec §4).

    Privacy
    -------
    ε-DP (Laplace) or ρ-zCDP (Gaussian) under ``neighbouring``: one stage "simplex release" (and
    "extra count" with ``count_fraction > 0``) through :mod:`dpcore.mechanisms`; the rest is
    post-processing. Known ``n`` is DP under replace-one only.

    Examples
    --------
    >>> est = simplex_mean([0.2, 0.4, 0.9], epsilon=1.0, bounds=(0, 1), rng=0)
    >>> est.ledger.by_stage()
    {'simplex release': 1.0}

    References
    ----------
    Paper §4.1, §4.1.2, §4.2, App. B; docs/estimators/simplex.md §2.3 (S1-S4) and §4.
    """
    dr = _simplex_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        known_n=known_n,
        neighbouring=neighbouring,
        count_fraction=count_fraction,
        combine=combine,
        clamp=clamp,
        radius=radius,
        reps=1,
        rng=rng,
        side_information=side_information,
    )
    diag = SimplexDiagnostics(
        noiseless_mean=dr.noiseless,
        center=None,
        clip_interval=(dr.data.lower, dr.data.upper),
        clipped=dr.data.clipped,
        noise_std=dr.noise_std,
        warnings=dr.warnings,
        nonprivate=nonprivate_counts(dr.data),
        **dr.extra,
    )
    return Estimate(mean=dr.means[0], ledger=dr.ledger, diagnostics=diag)


def simplex_mean_draws(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    known_n: bool = False,
    neighbouring: str = "add-remove",
    count_fraction: float = 0.0,
    combine: str = "blue",
    clamp: bool = False,
    radius: float | None = None,
    reps: int = 1000,
    rng: RngLike = None,
    side_information: bool = False,
) -> np.ndarray:
    """``reps`` independent runs of :func:`simplex_mean` on the same data, shape ``(reps, d)``.

    Same code path as :func:`simplex_mean` (one vectorised call, the same refusals), for
    simulation and the page. The draws go through :mod:`dpcore.mechanisms` outside any ledger
    stage, so nothing is charged: they simulate one release, they are not releases.
    """
    return _simplex_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        known_n=known_n,
        neighbouring=neighbouring,
        count_fraction=count_fraction,
        combine=combine,
        clamp=clamp,
        radius=radius,
        reps=check_reps(reps),
        rng=rng,
        side_information=side_information,
    ).means


# --------------------------------------------------------------------------------------------
# registry


@dataclass(frozen=True, kw_only=True)
class SimplexOptions(EstimatorOptions):
    """A registered variant of :func:`simplex_mean` (see it for each option), called as
    ``registry.get(name).func(x, epsilon=..., bounds=..., rng=...)`` (``rho=`` for a zCDP one).

    ``notion`` picks the budget and the noise (Laplace for ``"pure"``, Gaussian for ``"zcdp"``);
    :meth:`draws` is the batched path (:func:`simplex_mean_draws`) with the same options.
    """

    notion: Literal["pure", "zcdp"] = "pure"
    known_n: bool = False
    neighbouring: Relation = "add-remove"
    count_fraction: float = 0.0
    combine: Combine = "blue"
    clamp: bool = False
    radius: float | None = None
    side_information: bool = False
    name: str = field(default="simplex_mean", compare=False)
    fixed: tuple[str, ...] = field(default=("notion",), compare=False)

    def run(self, x: Any, *, rng: RngLike, bounds: Any = None, **budget: Any) -> Estimate:
        """:func:`simplex_mean` with these options; ``budget`` is ``epsilon=`` or ``rho=``."""
        return simplex_mean(x, bounds=bounds, rng=rng, **budget, **self.options())

    def draws(self, x: Any, **kw: Any) -> np.ndarray:
        """:func:`simplex_mean_draws` with these options (``kw`` replaces any of them)."""
        return simplex_mean_draws(x, **{**self.options(), **kw})


#: The simplex family's defaults.
SIMPLEX = Family(
    family="simplex",
    data_kinds=frozenset({"bounded", "binary"}),
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)
# The known-n estimate (S3) divides by the true n, so it is private only when n is public, i.e.
# under replace-one. Under add/remove n is private (D = two zeros and D' = three zeros already give
# a likelihood ratio ~5.4 > e at ε = 1), so it is registered under replace-one only; the function
# computes known n under add/remove only with ``side_information=True`` (the paper's "n as public
# side information" comparison on the simplex page), and its ledger says it is not DP.
_FREE = SimplexOptions()
_KNOWN_N = SimplexOptions(known_n=True, neighbouring="replace-one")
_FREE_GAUSS = SimplexOptions(notion="zcdp")
_KNOWN_N_GAUSS = SimplexOptions(notion="zcdp", known_n=True, neighbouring="replace-one")

SIMPLEX.register(
    "simplex_laplace",
    "Simplex (ε)",
    700,
    _FREE,
    color="#EE7733",
    cost=Cost(per_value_us=0.11, overhead_ms=2.0),
    detail="Simplex, free count (Laplace, pure ε)",
    batched=_FREE.draws,
    default=Default(rank=80, kinds=frozenset({"bounded"}), units=frozenset({"eps"})),
    description=(
        "Append R − Σz to each clamped row and release all column sums with one Laplace "
        "mechanism; the count comes free: mean = L + R·m_j / Σm."
    ),
)
SIMPLEX.register(
    "simplex_gauss",
    "Simplex (ρ)",
    710,
    _FREE_GAUSS,
    color="#80cbc4",
    detail="Simplex, free count (Gaussian, zCDP)",
    batched=_FREE_GAUSS.draws,
    description=(
        "Append R − Σz to each clamped row and release all column sums with one Gaussian "
        "mechanism; the count comes free: mean = L + R·m_j / Σm."
    ),
)
SIMPLEX.register(
    "simplex_known_n_laplace_replace",
    "Simplex, known n (ε)",
    720,
    _KNOWN_N,
    color="#44337A",
    detail="Simplex, known n, replace-one (Laplace, pure ε)",
    batched=_KNOWN_N.draws,
    default=Default(rank=90, kinds=frozenset({"bounded"}), units=frozenset({"eps"})),
    description=(
        "Append R − Σz to each clamped row and release all column sums with one Laplace "
        "mechanism; n is public: project onto Σ = nR (variance × d/(d+1))."
    ),
)
SIMPLEX.register(
    "simplex_known_n_gauss_replace",
    "Simplex, known n (ρ)",
    730,
    _KNOWN_N_GAUSS,
    color="#E69F00",
    detail="Simplex, known n, replace-one (Gaussian, zCDP)",
    batched=_KNOWN_N_GAUSS.draws,
    default=Default(rank=90, kinds=frozenset({"bounded"})),
    description=(
        "Append R − Σz to each clamped row and release all column sums with one Gaussian "
        "mechanism; n is public: project onto Σ = nR (variance × d/(d+1))."
    ),
)

__all__ = [
    "SIDE_INFORMATION_NOTE",
    "SIMPLEX",
    "Combine",
    "Mechanism",
    "Preprocessed",
    "Relation",
    "SimplexDiagnostics",
    "SimplexOptions",
    "SimplexRelease",
    "add_noise",
    "check_known_n",
    "check_relation",
    "check_reps",
    "combine_counts",
    "free_count",
    "mean_from_sums",
    "mechanism_of",
    "noise_variance",
    "nonprivate_counts",
    "preprocess",
    "project_sums",
    "simplex_mean",
    "simplex_mean_draws",
    "simplex_release",
    "simplex_sensitivity",
    "simplex_transform",
]
