"""PLAN's first stage on binary data: the private frequencies ``q~`` (docs/estimators/plan.md §4b).

They give the binary instantiation both its centre (free post-processing) and its variances
``q~ (1 - q~)``; they are drawn first and charged as the variance stage, in that stage's place in
the ledger (:func:`~dpcore.estimators.plan.variances.estimate_variances` adds their ledger).

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), §5 (binary data); docs/estimators/plan.md §4b.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_bounds, check_data, check_positive
from dpcore.estimators.plan.budget import STAGE_LABELS
from dpcore.privacy import Ledger


@dataclass(frozen=True)
class Frequencies:
    """The frequency stage's output: ``q~``, its per-coordinate noise std and the stage's own
    ledger (its line joins the run's ledger at the variance stage)."""

    q: np.ndarray
    noise_std: float
    ledger: Ledger


def private_frequencies(
    X: np.ndarray, lo: np.ndarray, hi: np.ndarray, rho_variance: float, g: Any
) -> Frequencies:
    """The private frequencies ``q~`` of binary rows in the public box ``[lo, hi]``.

    Privacy
    -------
    Replace-one: the Gaussian mechanism on the clamped mean (l2 sensitivity ``||hi - lo||_2 / n``),
    ``rho_variance``-zCDP (:func:`binary_frequencies`), written
    to the returned ledger under the stage "variances".
    """
    ledger = Ledger("zcdp")
    with mechanisms.stage(ledger, STAGE_LABELS["variance"]):
        q, std = binary_frequencies(X, (lo, hi), rho=rho_variance, rng=g)
    return Frequencies(q, std, ledger)


def binary_frequencies(
    x: np.ndarray, bounds: tuple[Any, Any], *, rho: float, rng: RngLike = None
) -> tuple[np.ndarray, float]:
    """Private coordinate means by the Gaussian mechanism (docs/estimators/plan.md §4b.1).

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
