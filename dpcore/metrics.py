"""Error measures, and the split of an estimate's error into its three sources.

The split follows the exact identity of docs/estimators/plan.md §2 ("Error identity"):

    estimate - truth = (x̄ - truth)               sampling error
                     + (noiseless - x̄)            clipping bias
                     + (estimate - noiseless)     DP noise

where ``noiseless`` is :attr:`dpcore.estimate.Diagnostics.noiseless_mean`, the estimate with the
final release's noise removed. The three vectors add up to the total error exactly; their norms do
not (the triangle inequality), so charts show each norm beside the total.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore._validation import check_data


def _diff(estimate: Any, truth: Any) -> np.ndarray:
    e = np.atleast_1d(np.asarray(estimate, dtype=float))
    t = np.atleast_1d(np.asarray(truth, dtype=float))
    if e.shape[-1] != t.shape[-1]:
        raise ValueError(
            f"estimate and truth must have the same dimension; got {e.shape} and {t.shape}."
        )
    return e - t


def lp_error(estimate: Any, truth: Any, p: float = 2.0) -> np.ndarray | float:
    """``||estimate - truth||_p`` along the last axis (``p = np.inf`` for the max norm).

    A 2-D ``estimate`` (one row per repetition) gives one error per row.
    """
    if not (p == np.inf or (np.isfinite(p) and p > 0)):
        raise ValueError(f"p must be > 0 or numpy.inf; got {p!r}.")
    diff = _diff(estimate, truth)
    out = np.linalg.norm(diff, ord=p, axis=-1) if p >= 1 else (np.abs(diff) ** p).sum(-1) ** (1 / p)
    return float(out) if np.ndim(out) == 0 else out


def l1_error(estimate: Any, truth: Any) -> np.ndarray | float:
    return lp_error(estimate, truth, 1.0)


def l2_error(estimate: Any, truth: Any) -> np.ndarray | float:
    return lp_error(estimate, truth, 2.0)


def linf_error(estimate: Any, truth: Any) -> np.ndarray | float:
    return lp_error(estimate, truth, np.inf)


def tv_error(estimate: Any, truth: Any) -> np.ndarray | float:
    """``½ ||estimate - truth||_1``: the binary-data metric of the PLAN paper
    (docs/estimators/plan.md §4b, unnormalised) and the total-variation proxy for binary products
    (docs/estimators/binary-product.md)."""
    out = 0.5 * np.abs(_diff(estimate, truth)).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def mahalanobis_error(estimate: Any, truth: Any, std: Any) -> np.ndarray | float:
    """``sqrt(sum_i ((estimate_i - truth_i) / std_i)**2)``: the error in units of each coordinate's
    standard deviation (diagonal covariance)."""
    s = np.atleast_1d(np.asarray(std, dtype=float))
    if np.any(s <= 0) or not np.all(np.isfinite(s)):
        raise ValueError("std must be positive and finite in every coordinate.")
    out = np.sqrt(((_diff(estimate, truth) / s) ** 2).sum(axis=-1))
    return float(out) if np.ndim(out) == 0 else out


def error_split(estimate: Any, x: Any, truth: Any, p: float = 2.0) -> dict[str, float]:
    """Split an :class:`~dpcore.estimate.Estimate`'s error into sampling, clipping bias and noise.

    Returns the ``l_p`` norms of the three error vectors and of the total. The vectors themselves
    sum exactly to ``estimate.mean - truth``.
    """
    arr = check_data(x)
    xbar = np.atleast_1d(arr.mean(axis=0))
    mean = np.atleast_1d(np.asarray(estimate.mean, dtype=float))
    noiseless = np.atleast_1d(np.asarray(estimate.diagnostics.noiseless_mean, dtype=float))
    return {
        "sampling": float(lp_error(xbar, truth, p)),
        "clipping": float(lp_error(noiseless, xbar, p)),
        "noise": float(lp_error(mean, noiseless, p)),
        "total": float(lp_error(mean, truth, p)),
    }
