"""B4, resize: the data resized to a noisy count, then a noisy sum over that public size
(docs/estimators/simplex.md §3 B4, the paper's App. C.2). Privacy as in
:mod:`dpcore.estimators.simplex_baselines`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcore import limits, mechanisms
from dpcore._validation import RngLike
from dpcore.estimate import (
    Estimate,
)
from dpcore.estimators.simplex import (
    Mechanism,
    Preprocessed,
    add_noise,
    mechanism_of,
    noise_variance,
    preprocess,
)
from dpcore.estimators.simplex_baselines._shared import (
    _estimate,
    _split,
    _unit,
    sum_sensitivity,
)
from dpcore.privacy import Ledger

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


def _noisy_size(
    n: int, mech: Mechanism, b_count: float, reps: int, g: Any, ledger: Ledger
) -> np.ndarray:
    """B4's first stage: the noisy count (add/remove sensitivity 1), rounded and floored at 1:
    the public size ``ñ`` of each of the ``reps`` resized data sets."""
    count_scale = 1.0 / b_count if mech == "laplace" else 1.0 / math.sqrt(2.0 * b_count)
    if count_scale > limits.MAX_COUNT_NOISE_SCALE:
        raise ValueError(
            f"resize: the count's budget {b_count:.3g} gives a noise scale of {count_scale:.3g} rows, "
            f"above the limit of {limits.MAX_COUNT_NOISE_SCALE:g} (dpcore.limits); give the count "
            "more budget (a larger total or a smaller split)."
        )
    unit, name = _unit(mech)
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
    return np.clip(np.rint(N), 1.0, 2.0**62).astype(np.int64)  # (reps,)


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
    unit, name = _unit(mech)
    ledger = Ledger("pure" if mech == "laplace" else "zcdp")
    n_t = _noisy_size(n, mech, b_count, reps, g, ledger)
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
