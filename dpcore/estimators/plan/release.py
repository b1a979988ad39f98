"""PLAN's release stage (Algorithm 1, lines 7 and 8): clip the scaled rows at ``C``, add Gaussian
noise to their sum, unscale and recentre; and :func:`plan_core`, lines 5, 7 and 8 for a given
centre, ``sigma^`` and clip radius.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1; docs/estimators/plan.md §2, §9.2–9.6.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import _kernels, mechanisms
from dpcore._validation import RngLike, check_data, check_positive
from dpcore.estimators.plan.budget import STAGE_LABELS
from dpcore.estimators.plan.scale import scale_vector
from dpcore.privacy import Ledger

_TINY = 1e-300


@dataclass(frozen=True)
class Release:
    """The release stage's output: the estimate, the same without noise, the noise ``eta`` on the
    scaled sum, its standard deviation ``tau`` and the stage's public warnings."""

    mean: np.ndarray
    noiseless: np.ndarray
    eta: np.ndarray
    tau: float
    warnings: tuple[str, ...] = ()


def release(
    X: np.ndarray,
    mu: np.ndarray,
    s: np.ndarray,
    radius: float,
    norms: np.ndarray,
    rho_noise: float,
    ledger: Ledger,
    g: Any,
    rows: np.ndarray | None = None,
) -> Release:
    """Clip, add Gaussian noise, unscale, recentre: ``mu~ + (sum_j clip_C(y_j) + eta) / (n s)``.

    ``norms`` are the scaled norms ``||(x_j - mu~) s||`` the clip radius ``C = radius`` was found
    on (:func:`~dpcore.estimators.plan.threshold.threshold`); ``rows``, when given, the scaled rows
    themselves (:func:`scaled_rows`).

    Privacy
    -------
    Replace-one: every clipped scaled row has norm ``<= C``, so the sum moves by at most ``2C``;
    stage "noisy sum", ``eta ~ N(0, 2 C^2 / rho_noise I)``, ``rho_noise``-zCDP.
    """
    C = radius
    n = X.shape[0]
    factor = np.minimum(1.0, C / np.maximum(norms, _TINY))
    clipped_sum = scaled_weighted_sum(X, mu, s, factor, rows)  # sum_j min(1, C / ||y_j||) y_j
    tau = math.sqrt(2.0 * C * C / rho_noise)
    with mechanisms.stage(ledger, STAGE_LABELS["noise"]):
        noisy_sum, eta = _noisy_sum(clipped_sum, 2.0 * C, rho_noise, tau, g)
    mean = mu + noisy_sum / (n * s)
    # Uses only private outputs (centre, radius, estimate) and public s: no extra privacy cost.
    pull = float(np.linalg.norm((mean - mu) * s))
    warnings_: tuple[str, ...] = ()
    if pull > 0.5 * C:
        warnings_ = (
            f"the private centre lies far from the estimate (shift {pull:.3g} in scaled units against a clip "
            f"radius {C:.3g}): some centre coordinates probably landed outside the data, which inflates the "
            "radius and the noise. More budget, more n or a tighter public range fixes it.",
        )
    return Release(mean, mu + clipped_sum / (n * s), eta, tau, warnings_)


@dataclass(frozen=True)
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


def _block_rows(n: int, d: int) -> int:
    """Rows of a block of :func:`_scaled_rows` (about 2^16 values)."""
    return max(1, min(n, (1 << 16) // d))


def scaled_rows(X: np.ndarray, center: np.ndarray, s: np.ndarray) -> np.ndarray | None:
    """The scaled rows ``(X - center) * s`` as one array when they are one block of
    :func:`_scaled_rows` (the same values, formed the same way), else ``None`` (large arrays are
    not copied). :func:`scaled_norms` and :func:`scaled_weighted_sum` take it as ``rows`` and skip
    forming it again."""
    n, d = X.shape
    if _kernels.use_kernels(X) or n > _block_rows(n, d):
        return None
    y = np.subtract(X, center)
    y *= s
    return y


def scaled_norms(
    X: np.ndarray, center: np.ndarray, s: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """``||(x_j - center) * s||`` for every row: one compiled pass on large arrays
    (:func:`dpcore._kernels.scaled_norms`), else block by block (:func:`_scaled_rows`), or from
    ``rows`` (:func:`scaled_rows`) when given."""
    if rows is not None:
        return _row_norms(rows)
    if _kernels.use_kernels(X):
        return _kernels.scaled_norms(X, center, s)
    norms = np.empty(X.shape[0])
    for block, y in _scaled_rows(X, center, s):
        norms[block] = _row_norms(y)
    return norms


def scaled_weighted_sum(
    X: np.ndarray,
    center: np.ndarray,
    s: np.ndarray,
    w: np.ndarray,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """``sum_j w_j (x_j - center) * s``: one compiled pass on large arrays
    (:func:`dpcore._kernels.scaled_weighted_sum`), else block by block (:func:`_scaled_rows`)."""
    if _kernels.use_kernels(X):
        return _kernels.scaled_weighted_sum(X, center, s, w)
    total = np.zeros(X.shape[1])
    if rows is not None:  # one block, already formed
        total += w @ rows
        return total
    for block, y in _scaled_rows(X, center, s):
        total += w[block] @ y
    return total


def _scaled_rows(
    X: np.ndarray, center: np.ndarray, s: np.ndarray
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, y)`` with ``y = (X[rows] - center) * s`` for blocks of rows.

    One reused block buffer instead of an ``(n, d)`` temporary (a fresh large array costs page
    faults that can exceed the arithmetic on a shared machine).
    """
    n, d = X.shape
    size = _block_rows(n, d)
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
    PLAN, Algorithm 1; docs/estimators/plan.md §2 and §9.2–9.6.
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
