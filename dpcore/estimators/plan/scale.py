"""PLAN's scale stage (Algorithm 1, line 5): ``sigma^`` regularised, then ``s = sigma^ ** (-2e)``.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1 line 5, §4a.3; docs/estimators/plan.md
§2, §4a.3, §9.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore._validation import check_positive
from dpcore.estimators.plan.options import PlanOptions
from dpcore.estimators.plan.variances import _floor_positive, regularise


@dataclass(frozen=True)
class Scale:
    """The scale stage's output: ``sigma^`` before and after regularising, and ``s``."""

    sigma_raw: np.ndarray
    sigma_hat: np.ndarray
    s: np.ndarray


def scale(sigma_raw: np.ndarray, spec: PlanOptions) -> Scale:
    """``sigma^`` (regularised as ``sigma^ + ||sigma^||_1 / d`` when the options say so, else only
    floored above 0) and the scale vector ``s`` (:func:`scale_vector`).

    Privacy
    -------
    Post-processing of the variance stage's release (or of public values): spends nothing.
    """
    sigma_hat = regularise(sigma_raw) if spec.regularise_sigma else _floor_positive(sigma_raw)
    return Scale(sigma_raw, sigma_hat, scale_vector(sigma_hat, spec.p, spec.scale_exponent))


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
