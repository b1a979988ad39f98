"""The baselines the simplex paper compares with (docs/estimators/simplex.md §3), with their noise
variances.

* **B1** ``noisy_sum_mean(centred=False)``: known ``n``, ``μ̂ = L + (sum z + Z)/n`` (paper eq. 1;
  DiffPrivLib, Opacus). Variance ``v/n²``.
* **B1c** ``noisy_sum_mean(centred=True)`` [ext]: known ``n``, centred at the box centre ``c``:
  ``μ̂ = c + (sum (x - c) + Z)/n``; add/remove sensitivity halves to ``R/2``.
* **B2** ``plugin_mean``: noisy sum over noisy count, ``μ̂ = (S + Z_S)/max(N + Z_N, 1)`` with a
  budget split (equal by default, as OpenDP ``make_sum``/``make_count``, SmartNoise SQL and the
  paper's experiments). ``shift=True`` sums the shifted data ``z = x - L`` (the paper's ``[0, R]``
  setting) and adds ``L`` back; ``shift=False`` sums the raw clamped values, whose add/remove
  sensitivity is ``max(|L|, |U|)`` and whose error grows with the offset (not translation invariant).
  ``split="opendp"`` is OpenDP Polars ``dp.mean``: sum and count get the *same* noise scale, so the
  budget is split in proportion to sensitivity (``ε_S = ε Δ_S/(Δ_S + 1)``; Gaussian
  ``ρ_S = ρ Δ_S²/(Δ_S² + 1)``).
* **B3** ``centred_mean`` (App. C.1; current PipelineDP): ``μ̂ = c + (sum (x - c) + Z_S)/max(N + Z_N, 1)``
  with ``Δ_S = R/2``, equal split by default.
* **B4** ``resize_mean`` (App. C.2): ``ñ = max(round(N + Z_N), 1)``; subsample ``ñ`` rows without
  replacement if ``ñ < N``, else impute ``ñ - N`` rows (uniform on the box, or its midpoint, both
  scaled into the l1 ball of radius ``R`` when ``R`` is below the box's l1 diameter:
  :func:`imputation_top`); release the noisy sum of the resized shifted data with the replace-one
  sensitivity of a dataset of public size ``ñ`` and divide by ``ñ``. Its error is evaluated by
  simulation only.

Every count is floored at 1 (as PipelineDP does), which is also what makes the MSE of a ratio
finite (spec §3: exact moments of ``S/(N + Z_N)`` do not exist).

Privacy
-------
* Relations: B1 and B1c divide by the true ``n``, so they are registered under replace-one only (``n``
  public). Under add/remove ``n`` is private and the paper's "known n" comparison (``n`` as public
  side information, sensitivity ``R`` or ``R/2``) is not an add/remove guarantee; the functions still
  accept ``neighbouring="add-remove"`` for the simplex page's reproduction of that comparison. Under
  replace-one centring changes nothing: B1c has sensitivity ``||w||_p`` and equals B1 in
  distribution. B2, B3, B4 and OpenDP release a count and are add/remove only.
* Sensitivities of a sum over rows in the domain (box ``[0, w]`` intersected with the l1 ball of
  radius ``R``, spec §1 table): uncentred add/remove ``Δ1 = min(R, sum w)``, ``Δ2 = min(R, ||w||_2)``;
  replace-one ``Δ1 = min(2R, sum w)``, ``Δ2 = min(sqrt 2 R, ||w||_2)``; centred at ``w/2``:
  add/remove ``||w/2||_p``, replace-one ``||w||_p``; raw values: add/remove ``||max(|L|, |U|)||_p``.
  The count has add/remove sensitivity 1.
* Ledger: "noisy sum" ``f`` of the budget and "noisy count" the rest (B4 charges the count first),
  in ``ε`` (Laplace, pure DP) or ``ρ`` (Gaussian, zCDP). The charges sum to the budget.

References
----------
Fitzsimons, Honaker, Shoemate, Singhal. "Private Means and the Curious Incident of the Free Lunch."
arXiv:2408.10438 (2024), §3, §5, App. C. docs/estimators/simplex.md §1, §3, §4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpcore import limits, mechanisms
from dpcore._validation import RngLike, check_real
from dpcore.estimate import (
    ADD_REMOVE,
    PURE_UNITS,
    REPLACE_ONE,
    ZCDP_UNITS,
    Diagnostics,
    Estimate,
    EstimatorSpec,
    register,
)
from dpcore.estimators.simplex import (
    SIDE_INFORMATION_NOTE,
    Mechanism,
    Preprocessed,
    add_noise,
    check_known_n,
    check_relation,
    check_reps,
    mechanism_of,
    noise_variance,
    nonprivate_counts,
    preprocess,
)
from dpcore.privacy import Ledger

# --------------------------------------------------------------------------------------------
# sensitivities


def sum_sensitivity(
    data: Preprocessed, mechanism: Mechanism, neighbouring: str, centring: str
) -> float:
    """Sensitivity of ``sum_i u_i`` for the value transform ``centring`` (see the module docstring).

    ``centring``: ``"shift"`` (``u = z``), ``"centre"`` (``u = z - w/2``) or ``"raw"`` (``u = z + L``).
    """
    rel = check_relation(neighbouring)
    w, R = data.widths, data.radius
    p = 1 if mechanism == "laplace" else 2
    if centring == "shift":
        base = float(np.linalg.norm(w, p))
        return (
            min(R, base)
            if rel == "add-remove"
            else min((2.0 if p == 1 else math.sqrt(2.0)) * R, base)
        )
    if centring == "centre":
        return float(np.linalg.norm(w, p)) / (2.0 if rel == "add-remove" else 1.0)
    if centring == "raw":
        a = np.maximum(np.abs(data.lower), np.abs(data.upper))
        return float(np.linalg.norm(a, p)) if rel == "add-remove" else float(np.linalg.norm(w, p))
    raise ValueError(f"centring must be 'shift', 'centre' or 'raw'; got {centring!r}.")


def _values(data: Preprocessed, centring: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``u`` whose noisy sum is released, and the base added back to ``sum u / n``."""
    if centring == "shift":
        return data.z, data.lower
    if centring == "centre":
        return data.z - data.widths / 2.0, data.lower + data.widths / 2.0
    return data.z + data.lower, np.zeros(data.d)


def _split(split: float | str, mechanism: Mechanism, sens: float) -> float:
    if isinstance(split, str):
        if split != "opendp":
            raise ValueError(f"split must be a fraction in (0, 1) or 'opendp'; got {split!r}.")
        return sens / (sens + 1.0) if mechanism == "laplace" else sens**2 / (sens**2 + 1.0)
    return check_real(
        split,
        "split (the budget fraction for the sum)",
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
        hint="Or pass 'opendp'.",
    )


def _unit(mechanism: Mechanism) -> tuple[str, str]:
    return ("ε", "Laplace") if mechanism == "laplace" else ("ρ", "Gaussian")


@dataclass(kw_only=True)
class NoisySumDiagnostics(Diagnostics):
    """The simplex baselines' specifics (docs/estimators/simplex.md §3, B1-B4); a field a baseline
    has not is ``None``.

    Attributes
    ----------
    mechanism : str
        ``"laplace"`` or ``"gaussian"``.
    sensitivity, noise_scale, noise_variance : float or None
        B1: the noisy sum's sensitivity, noise scale and variance.
    split : float or None
        B2-B4: the share of the budget spent on the sum.
    sum_sensitivity, sum_noise_variance, count_noise_variance, noisy_count : float or None
        B2/B3: the sum's sensitivity and noise variance, the count's noise variance, the noisy count.
    resized_n, imputed : int or None
        B4: the noisy size the data were resized to, and how many rows were imputed.
    theory : str or None
        B4: where its error comes from (simulation only).
    """

    mechanism: str
    sensitivity: float | None = None
    noise_scale: float | None = None
    noise_variance: float | None = None
    split: float | None = None
    sum_sensitivity: float | None = None
    sum_noise_variance: float | None = None
    count_noise_variance: float | None = None
    noisy_count: float | None = None
    resized_n: int | None = None
    imputed: int | None = None
    theory: str | None = None


def _estimate(
    means: np.ndarray,
    noiseless: np.ndarray,
    ledger: Ledger,
    std: np.ndarray,
    data: Preprocessed,
    extra: dict[str, Any],
    center: np.ndarray | None = None,
) -> Estimate:
    """One release as an Estimate; ``extra`` holds the fields of :class:`NoisySumDiagnostics`."""
    diag = NoisySumDiagnostics(
        noiseless_mean=noiseless,
        center=center,
        clip_interval=(data.lower, data.upper),
        clipped=data.clipped,
        noise_std=std,
        nonprivate=nonprivate_counts(data),
        **extra,
    )
    return Estimate(mean=means[0], ledger=ledger, diagnostics=diag)


# --------------------------------------------------------------------------------------------
# B1 / B1c: known n


def _noisy_sum_draws(
    x: Any,
    *,
    epsilon: float | None,
    rho: float | None,
    bounds: Any,
    centred: bool,
    neighbouring: str,
    radius: float | None,
    reps: int,
    rng: RngLike,
    side_information: bool = False,
):
    mech, budget = mechanism_of(epsilon, rho)
    rel = check_relation(neighbouring)
    check_known_n(True, rel, side_information)
    data = preprocess(x, bounds, radius)
    centring = "centre" if centred else "shift"
    u, base = _values(data, centring)
    sens = sum_sensitivity(data, mech, rel, centring)
    n = data.n
    unit, name = _unit(mech)
    ledger = Ledger("pure" if mech == "laplace" else "zcdp")
    side = SIDE_INFORMATION_NOTE if rel == "add-remove" else ""
    with mechanisms.stage(ledger, "noisy sum", note=side):
        noisy, scale = add_noise(
            u.sum(axis=0),
            mech,
            sens,
            budget,
            reps,
            mechanisms.generator(rng),
            f"{name}, {rel} sensitivity {sens:.4g}"
            + (" (centred at the box centre)" if centred else "")
            + f", {unit} = {budget:.4g}",
        )
    v = noise_variance(mech, sens, budget)
    return (
        base + noisy / n,
        base + u.mean(axis=0),
        ledger,
        np.full(data.d, math.sqrt(v) / n),
        data,
        {"sensitivity": sens, "noise_scale": scale, "noise_variance": v, "mechanism": mech},
    )


def noisy_sum_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    centred: bool = False,
    neighbouring: str = "add-remove",
    radius: float | None = None,
    rng: RngLike = None,
    side_information: bool = False,
) -> Estimate:
    """B1 / B1c: noisy sum divided by the known ``n`` (paper eq. 1; spec §3).

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
    epsilon, rho : float
        Exactly one: Laplace (pure DP) or Gaussian (zCDP); the whole budget goes to the sum.
    bounds : (lower, upper)
        Public range; data are clamped to it.
    centred : bool
        B1c: sum ``x - c`` with ``c`` the box centre (add/remove sensitivity ``R/2`` at d = 1).
    neighbouring : {"add-remove", "replace-one"}
        Replace-one (``n`` public). Add-remove is refused unless ``side_information=True``: the
        estimate divides by the true ``n``, which is private under add-remove.
    radius : float, optional
        Public l1 bound on the shifted rows (the simplex's domain; default the box's l1 diameter).
    rng : None, int, Generator or release backend
    side_information : bool
        Under add-remove only: compute the paper's "n as public side information" comparison,
        **not DP under add-remove**; its ledger says so.

    Returns
    -------
    Estimate
        Variance ``v/n²`` with ``v`` the noise variance of the sum.

    Privacy
    -------
    Under replace-one, ε-DP (Laplace) or ρ-zCDP (Gaussian): one stage "noisy sum" through
    :mod:`dpcore.mechanisms`, sensitivity :func:`sum_sensitivity`.

    References
    ----------
    Paper §3 eq. (1); docs/estimators/simplex.md §3 (B1, B1c) and §4.
    """
    means, noiseless, ledger, std, data, extra = _noisy_sum_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        centred=centred,
        neighbouring=neighbouring,
        radius=radius,
        reps=1,
        rng=rng,
        side_information=side_information,
    )
    return _estimate(
        means,
        noiseless,
        ledger,
        std,
        data,
        extra,
        center=data.lower + data.widths / 2 if centred else None,
    )


# --------------------------------------------------------------------------------------------
# B2 / B3 / OpenDP: noisy sum over noisy count


def _ratio_draws(
    x: Any,
    *,
    epsilon: float | None,
    rho: float | None,
    bounds: Any,
    centring: str,
    split: float | str,
    radius: float | None,
    reps: int,
    rng: RngLike,
):
    mech, budget = mechanism_of(epsilon, rho)
    data = preprocess(x, bounds, radius)
    u, base = _values(data, centring)
    sens = sum_sensitivity(data, mech, "add-remove", centring)
    f = _split(split, mech, sens)
    g = mechanisms.generator(rng)
    b_sum = f * budget
    b_count = budget - b_sum
    unit, name = _unit(mech)
    ledger = Ledger("pure" if mech == "laplace" else "zcdp")
    with mechanisms.stage(ledger, "noisy sum"):
        S, _ = add_noise(
            u.sum(axis=0),
            mech,
            sens,
            b_sum,
            reps,
            g,
            f"{name}, add/remove sensitivity {sens:.4g}, {unit} = {b_sum:.4g}",
        )
    with mechanisms.stage(ledger, "noisy count"):
        N, _ = add_noise(
            np.float64(data.n),
            mech,
            1.0,
            b_count,
            reps,
            g,
            f"{name}, add/remove sensitivity 1, {unit} = {b_count:.4g}",
        )
    means = base + S / np.maximum(N, 1.0)[:, None]
    v_s, v_n = noise_variance(mech, sens, b_sum), noise_variance(mech, 1.0, b_count)
    mu_u = u.mean(axis=0)
    std = np.sqrt(v_s + mu_u**2 * v_n) / data.n  # delta method, spec §3
    extra = {
        "split": f,
        "sum_sensitivity": sens,
        "sum_noise_variance": v_s,
        "count_noise_variance": v_n,
        "noisy_count": float(N[0]),
        "mechanism": mech,
    }
    return means, base + mu_u, ledger, std, data, extra


def plugin_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    split: float | str = 0.5,
    shift: bool = True,
    radius: float | None = None,
    rng: RngLike = None,
) -> Estimate:
    """B2: noisy sum over noisy count (add/remove; paper §3; spec §3 B2 and OpenDP ``dp.mean``).

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
    epsilon, rho : float
        Exactly one total budget (Laplace/pure DP or Gaussian/zCDP).
    bounds : (lower, upper)
        Public range; data are clamped to it.
    split : float in (0, 1) or "opendp"
        Fraction of the budget for the sum (the paper's experiments: 0.5); ``"opendp"`` gives both
        releases the same noise scale.
    shift : bool
        Sum ``x - L`` (the paper's ``[0, R]`` setting) or the raw clamped values (sensitivity
        ``max(|L|, |U|)``; error grows with the offset).
    radius : float, optional
    rng : None, int or Generator

    Returns
    -------
    Estimate
        First-order MSE ``(v_S + μ_u² v_N)/n²`` with ``μ_u`` the mean of the summed values (spec §3).

    References
    ----------
    Paper §3 and §5; docs/estimators/simplex.md §3 (B2, OpenDP) and §4.
    """
    out = _ratio_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        centring="shift" if shift else "raw",
        split=split,
        radius=radius,
        reps=1,
        rng=rng,
    )
    return _estimate(*out)


def centred_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    split: float = 0.5,
    radius: float | None = None,
    rng: RngLike = None,
) -> Estimate:
    """B3: centred noisy sum over noisy count floored at 1 (App. C.1; PipelineDP ``compute_dp_mean``).

    ``μ̂ = c + (sum (x - c) + Z_S)/max(N + Z_N, 1)`` with ``c`` the box centre, ``Δ_S = R/2`` and
    ``Δ_N = 1`` under add/remove; ``split`` of the budget to the sum (PipelineDP: 0.5).

    Under Gaussian noise with the equal split this has exactly the distribution of the simplex
    free-count mean (spec §4): the simplex's ``(m_1 - m_2)/2`` and ``(m_1 + m_2)/R`` are independent
    Gaussians with these same variances.

    References
    ----------
    Paper App. C.1; docs/estimators/simplex.md §3 (B3) and §4.
    """
    out = _ratio_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        centring="centre",
        split=split,
        radius=radius,
        reps=1,
        rng=rng,
    )
    means, noiseless, ledger, std, data, extra = out
    return _estimate(
        means, noiseless, ledger, std, data, extra, center=data.lower + data.widths / 2
    )


# --------------------------------------------------------------------------------------------
# B4: resize


def uniform_sum(k: np.ndarray, d: int, g: np.random.Generator) -> np.ndarray:
    """Sums of ``k[r]`` iid uniform rows on ``[0, 1)^d``, shape ``(len(k), d)``, in O(53 d) per row.

    ``Generator.random`` returns ``m / 2**53`` with ``m`` uniform on 53 bits, i.e. 53 independent
    fair bits ``b_j`` weighted ``2**-j``. The sum of ``k`` such values is therefore exactly
    ``sum_j 2**-j Binomial(k, 1/2)`` with one independent binomial per bit: the same distribution
    as summing ``k`` rows of ``g.random``, without materialising them (``k`` may be 10**12 when the
    count's budget is small; spec §3 B4 imputes uniform rows).
    """
    k = np.asarray(k, dtype=np.int64)
    bits = g.binomial(k[:, None, None], 0.5, size=(k.size, d, 53))
    return bits @ np.ldexp(1.0, -np.arange(1, 54))


def imputation_top(widths: np.ndarray, radius: float, impute: str) -> np.ndarray:
    """The corner ``t`` of the box ``[0, t]`` that B4's imputed rows are drawn from.

    ``impute="uniform"``: rows uniform on ``[0, t]``; ``"midpoint"``: every row is ``t / 2``. The
    resized data must lie in the domain the sum's sensitivity assumes (the box ``[0, w]`` inside
    the l1 ball of radius ``R``), so ``t`` is ``w`` scaled by the smallest factor that keeps every
    imputed row in the ball: ``min(1, R / Σw)`` for uniform rows (the far corner ``w`` has l1
    norm ``Σw``), ``min(1, 2R / Σw)`` for the midpoint. At the default radius ``R = Σw`` both
    factors are 1, so ``t = w``.

    Examples
    --------
    >>> imputation_top(np.array([1.0, 1.0]), 2.0, "uniform").tolist()
    [1.0, 1.0]
    >>> imputation_top(np.array([1.0, 1.0]), 0.5, "midpoint").tolist()
    [0.5, 0.5]
    """
    w = np.asarray(widths, dtype=float)
    total = float(np.sum(w))
    reach = total if impute == "uniform" else total / 2.0
    return w if reach <= radius else w * (radius / reach)


def imputed_rows(k: int, widths: Any, radius: float, impute: str, g: Any) -> np.ndarray:
    """``k`` imputed rows of B4 materialised, shape ``(k, d)`` (the estimator sums them in O(d)
    with :func:`uniform_sum`; this is the same distribution row by row, for checks)."""
    top = imputation_top(np.asarray(widths, dtype=float), radius, impute)
    if impute == "uniform":
        return top * g.random((k, top.size))
    return np.broadcast_to(top / 2.0, (k, top.size)).copy()


def _resized_sums(
    data: Preprocessed, n_t: np.ndarray, impute: str, g: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The sum of each resized data set (shape ``(reps, d)``) and the rows imputed in each.

    Subsample: the first ``min(n_t, n)`` rows of a uniform random permutation, one per
    repetition. Impute ``n_t - n`` rows when the noisy count is above ``n``: only their sum
    enters, drawn in O(d); they lie in the box ``[0, top]`` inside the l1 ball of radius ``R``
    (:func:`imputation_top`). Not a noise draw: a resampling of public size ``n_t``.
    """
    reps, (n, d) = n_t.size, data.z.shape
    order = np.argsort(g.random((reps, n)), axis=1)
    csum = np.concatenate([np.zeros((reps, 1, d)), np.cumsum(data.z[order], axis=1)], axis=1)
    kept = np.take_along_axis(csum, np.minimum(n_t, n)[:, None, None], axis=1)[:, 0, :]
    k_add = np.maximum(n_t - n, 0)
    if k_add.any():
        top = imputation_top(data.widths, data.radius, impute)
        kept = kept + top * (
            uniform_sum(k_add, d, g) if impute == "uniform" else k_add[:, None] / 2.0
        )
    return kept, k_add


def _resize_draws(
    x: Any,
    *,
    epsilon: float | None,
    rho: float | None,
    bounds: Any,
    split: float,
    impute: str,
    radius: float | None,
    reps: int,
    rng: RngLike,
):
    mech, budget = mechanism_of(epsilon, rho)
    if impute not in ("uniform", "midpoint"):
        raise ValueError(f"impute must be 'uniform' or 'midpoint'; got {impute!r}.")
    data = preprocess(x, bounds, radius)
    f = _split(split, mech, 1.0)
    g = mechanisms.generator(rng)
    b_sum = f * budget
    b_count = budget - b_sum
    n, d = data.n, data.d
    count_scale = 1.0 / b_count if mech == "laplace" else 1.0 / math.sqrt(2.0 * b_count)
    if count_scale > limits.MAX_COUNT_NOISE_SCALE:
        raise ValueError(
            f"resize: the count's budget {b_count:.3g} gives a noise scale of {count_scale:.3g} rows, "
            f"above the limit of {limits.MAX_COUNT_NOISE_SCALE:g} (dpcore.limits); give the count "
            "more budget (a larger total or a smaller split)."
        )
    unit, name = _unit(mech)
    ledger = Ledger("pure" if mech == "laplace" else "zcdp")
    with mechanisms.stage(ledger, "noisy count"):
        N, _ = add_noise(
            np.float64(n),
            mech,
            1.0,
            b_count,
            reps,
            g,
            f"{name}, add/remove sensitivity 1, {unit} = {b_count:.4g}",
        )
    # post-processing of the noisy count: round, floor at 1 and cap (the cap is never reached
    # at the scale allowed above, but keeps the int64 cast exact)
    n_t = np.clip(np.rint(N), 1.0, 2.0**62).astype(np.int64)  # (reps,)
    kept, k_add = _resized_sums(data, n_t, impute, g)
    # the resized data has public size n_t and every row in the domain: replace-one sensitivity
    sens = sum_sensitivity(data, mech, "replace-one", "shift")
    with mechanisms.stage(ledger, "noisy sum"):
        Z, _ = add_noise(
            np.zeros(d),
            mech,
            sens,
            b_sum,
            reps,
            g,
            f"{name} on the resized data, sensitivity {sens:.4g}, {unit} = {b_sum:.4g}",
        )
    means = data.lower + (kept + Z) / n_t[:, None]
    noiseless = data.lower + kept / n_t[:, None]
    std = np.sqrt(np.full(d, noise_variance(mech, sens, b_sum))) / n
    extra = {
        "split": f,
        "resized_n": int(n_t[0]),
        "sum_sensitivity": sens,
        "mechanism": mech,
        "imputed": int(k_add[0]),
        "theory": "simulation only (spec §3 B4)",
    }
    return means, noiseless, ledger, std, data, extra


def resize_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    split: float = 0.5,
    impute: str = "uniform",
    radius: float | None = None,
    rng: RngLike = None,
) -> Estimate:
    """B4: resize the data to a noisy count, then a noisy sum over that public size (App. C.2).

    ``diagnostics.noiseless_mean`` is the resized data's mean (it contains the resampling error of
    this run); ``noise_std`` is the sum's noise only, ``sqrt(v_S)/n``.

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
    epsilon, rho : float
        Exactly one total budget (Laplace/pure DP or Gaussian/zCDP).
    bounds : (lower, upper)
        Public range; data are clamped to it.
    split : float in (0, 1)
        Fraction of the budget for the sum; the count gets the rest.
    impute : {"uniform", "midpoint"}
        Rows added when the noisy count exceeds ``n``: uniform on the box or its midpoint, scaled
        into the l1 ball of radius ``radius`` when it is smaller (:func:`imputation_top`).
    radius : float, optional
        Public l1 bound on the shifted rows (default: the box's l1 diameter).
    rng : None, int, Generator or release backend

    Privacy
    -------
    Add/remove: stage "noisy count" (sensitivity 1), then stage "noisy sum" on a data set of the
    public size ``ñ`` whose rows (kept or imputed) all lie in the box inside the l1 ball, so the
    replace-one sensitivity :func:`sum_sensitivity` holds; ``split`` and ``1 - split`` of the
    budget, drawn and charged through :mod:`dpcore.mechanisms`.

    References
    ----------
    Paper App. C.2 (after Covington's generalized resize); docs/estimators/simplex.md §3 (B4).
    """
    out = _resize_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        split=split,
        impute=impute,
        radius=radius,
        reps=1,
        rng=rng,
    )
    means, noiseless, *rest = out
    return _estimate(means, noiseless[0], *rest)


# --------------------------------------------------------------------------------------------
# batched draws for simulation (the same code paths as the estimators)


def baseline_draws(
    kind: str,
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    reps: int = 1000,
    rng: RngLike = None,
    **params: Any,
) -> np.ndarray:
    """``reps`` independent runs of a baseline on the same data, shape ``(reps, d)``.

    ``kind`` is ``"b1"`` (``centred=``, ``neighbouring=``, ``side_information=``), ``"plugin"``
    (``split=``, ``shift=``), ``"centred"`` (``split=``), ``"opendp"`` or ``"resize"``
    (``split=``, ``impute=``); every kind takes ``radius=``. The same code paths and refusals as
    the estimators; the draws go through :mod:`dpcore.mechanisms` outside any ledger stage, so
    nothing is charged (a simulation of one release, not a release).
    """
    reps = check_reps(reps)
    common = {
        "epsilon": epsilon,
        "rho": rho,
        "bounds": bounds,
        "radius": params.pop("radius", None),
        "reps": reps,
        "rng": rng,
    }
    if kind == "b1":
        return _noisy_sum_draws(
            x,
            centred=params.pop("centred", False),
            neighbouring=params.pop("neighbouring", "add-remove"),
            side_information=params.pop("side_information", False),
            **common,
        )[0]
    if kind == "plugin":
        return _ratio_draws(
            x,
            centring="shift" if params.pop("shift", True) else "raw",
            split=params.pop("split", 0.5),
            **common,
        )[0]
    if kind == "opendp":
        return _ratio_draws(x, centring="raw", split="opendp", **common)[0]
    if kind == "centred":
        return _ratio_draws(x, centring="centre", split=params.pop("split", 0.5), **common)[0]
    if kind == "resize":
        return _resize_draws(
            x, split=params.pop("split", 0.5), impute=params.pop("impute", "uniform"), **common
        )[0]
    raise ValueError(
        f"kind must be one of 'b1', 'plugin', 'opendp', 'centred', 'resize'; got {kind!r}."
    )


# --------------------------------------------------------------------------------------------
# registry

_KINDS = frozenset({"bounded", "binary"})


# B1 and B1c divide by the true n: private only when n is public (replace-one), so that is the only
# relation they are registered under. Under replace-one the centred sum's sensitivity is the full
# width ||U - L||_p (a row moves from one corner of the box to the other), not the add/remove ||w||_p/2.
def _plugin_draws(x: Any, **kw: Any) -> np.ndarray:
    """Batched B2, or its OpenDP-style equal-scale variant (``split="opendp"``)."""
    if kw.get("split") == "opendp":
        kw.pop("split")
        kw.pop("shift", None)
        return baseline_draws("opendp", x, **kw)
    return baseline_draws("plugin", x, **kw)


def _batched_b1(x: Any, **kw: Any) -> np.ndarray:
    """Batched B1 (``noisy_sum_mean``)."""
    return baseline_draws("b1", x, **kw)


def _batched_centred(x: Any, **kw: Any) -> np.ndarray:
    """Batched B3 (``centred_mean``)."""
    return baseline_draws("centred", x, **kw)


def _batched_resize(x: Any, **kw: Any) -> np.ndarray:
    """Batched B4 (``resize_mean``)."""
    return baseline_draws("resize", x, **kw)


_SUM_KNOWN_N_REPLACE = register(
    EstimatorSpec(
        name="sum_known_n_laplace_replace",
        label="Noisy sum / n (ε)",
        detail="Noisy sum / n, replace-one (Laplace)",
        order=800,
        color="#009988",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="replace-one",
        units=PURE_UNITS,
        relations=REPLACE_ONE,
        func=noisy_sum_mean,
        params={"neighbouring": "replace-one"},
        family="simplex baseline",
        batched=_batched_b1,
        description="B1 under replace-one (n public): sensitivity U − L.",
    )
)
register(
    replace(
        _SUM_KNOWN_N_REPLACE,
        name="sum_known_n_gauss_replace",
        label="Noisy sum / n (ρ)",
        detail="Noisy sum / n, replace-one (Gaussian)",
        order=810,
        color="#fdae6b",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

_CENTRED_SUM_KNOWN_N = register(
    EstimatorSpec(
        name="centred_sum_known_n_laplace",
        label="Centred sum / n (ε)",
        detail="Centred noisy sum / n, replace-one (Laplace)",
        order=820,
        color="#9467bd",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="replace-one",
        units=PURE_UNITS,
        relations=REPLACE_ONE,
        func=noisy_sum_mean,
        params={"centred": True, "neighbouring": "replace-one"},
        family="simplex baseline",
        batched=_batched_b1,
        description=(
            "B1c under replace-one (n public): centre at the box midpoint, noisy sum / n, "
            "sensitivity U − L."
        ),
    )
)
register(
    replace(
        _CENTRED_SUM_KNOWN_N,
        name="centred_sum_known_n_gauss",
        label="Centred sum / n (ρ)",
        detail="Centred noisy sum / n, replace-one (Gaussian)",
        order=830,
        color="#c5b0d5",
        notion="zcdp",
        units=ZCDP_UNITS,
        description=(
            "B1c under replace-one (n public): centre at the box midpoint, noisy sum / n, "
            "sensitivity ‖U − L‖."
        ),
    )
)

_PLUGIN = register(
    EstimatorSpec(
        name="plugin_laplace",
        label="Sum / noisy count (ε)",
        detail="Noisy sum / noisy count (Laplace)",
        order=840,
        color="#d62728",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=plugin_mean,
        family="simplex baseline",
        batched=_plugin_draws,
        description="B2: equal budget split between a noisy sum and a noisy count.",
    )
)
register(
    replace(
        _PLUGIN,
        name="plugin_gauss",
        label="Sum / noisy count (ρ)",
        detail="Noisy sum / noisy count (Gaussian)",
        order=850,
        color="#ff9896",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

_CENTRED_PLUGIN = register(
    EstimatorSpec(
        name="centred_plugin_laplace",
        label="Centred sum / count (ε)",
        detail="Centred sum / noisy count (Laplace)",
        order=860,
        color="#1f77b4",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=centred_mean,
        family="simplex baseline",
        batched=_batched_centred,
        description="B3 (PipelineDP): centred noisy sum over a noisy count, equal split.",
    )
)
register(
    replace(
        _CENTRED_PLUGIN,
        name="centred_plugin_gauss",
        label="Centred sum / count (ρ)",
        detail="Centred sum / noisy count (Gaussian)",
        order=870,
        color="#aec7e8",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

_RESIZE = register(
    EstimatorSpec(
        name="resize_laplace",
        label="Resize (ε)",
        detail="Resize (Laplace)",
        order=880,
        color="#a6761d",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=resize_mean,
        family="simplex baseline",
        batched=_batched_resize,
        description="B4: resize the data to a noisy count, then noisy sum / that count.",
    )
)
register(
    replace(
        _RESIZE,
        name="resize_gauss",
        label="Resize (ρ)",
        detail="Resize (Gaussian)",
        order=890,
        color="#c49c94",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

# Our own code in the style of OpenDP's dp.mean (it never calls opendp); the real library runs
# in dpcore.estimators.peers.
_NOISY_SUM_COUNT_EQUAL_SCALE = register(
    EstimatorSpec(
        name="noisy_sum_count_equal_scale_laplace",
        label="One-scale sum/count (ε)",
        detail="Noisy sum / noisy count, equal noise scales (Laplace)",
        order=900,
        color="#e377c2",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=plugin_mean,
        params={"split": "opendp", "shift": False},
        family="simplex baseline",
        batched=_plugin_draws,
        description=(
            "Our raw noisy sum / noisy count with the same noise scale, as OpenDP's dp.mean does "
            "it."
        ),
    )
)
register(
    replace(
        _NOISY_SUM_COUNT_EQUAL_SCALE,
        name="noisy_sum_count_equal_scale_gauss",
        label="One-scale sum/count (ρ)",
        detail="Noisy sum / noisy count, equal noise scales (Gaussian)",
        order=910,
        color="#f7b6d2",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)
