"""S1, the simplex transformation and its one noisy release, and S2-S4, the post-processing of
that release (the free count, the projected sums, the combined count and the mean):
docs/estimators/simplex.md §2. Privacy as in :mod:`dpcore.estimators.simplex`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_positive
from dpcore.estimators.simplex._shared import (
    Mechanism,
    Preprocessed,
    Relation,
    add_noise,
    check_relation,
    check_reps,
    mechanism_of,
    noise_variance,
    preprocess,
)

# --------------------------------------------------------------------------------------------
# S1: the transformation and the release


def simplex_transform(z: np.ndarray, radius: float) -> np.ndarray:
    """Append the padding coordinate: ``y_i = (z_i, R - sum_j z_ij)`` (spec §2.1).

    ``z`` must already be clamped, shifted and l1-clipped (use :func:`preprocess`), so every
    ``y_i`` lies on ``R`` times the probability simplex: ``y >= 0`` and ``||y_i||_1 = R``.
    """
    Z = np.asarray(z, float)
    Z = Z.reshape(Z.shape[0], -1)
    if np.any(Z < 0) or np.any(Z.sum(axis=1) > radius * (1 + 1e-12)):
        raise ValueError(
            "z must be clamped and shifted first (z >= 0, row sums <= radius); use preprocess()."
        )
    pad = np.maximum(radius - Z.sum(axis=1), 0.0)
    return np.column_stack([Z, pad])


def simplex_sensitivity(neighbouring: str, radius: float) -> tuple[float, float]:
    """``(Δ1, Δ2)`` of the augmented column sums (spec §1 table).

    add/remove: one row of l1 norm ``R`` (and l2 norm <= R) appears or disappears: ``(R, R)``.
    replace-one: ``||y - y'||_1 <= 2R`` and ``||y - y'||_2² <= ||y||² + ||y'||² <= 2R²`` since
    ``y, y' >= 0``: ``(2R, sqrt(2) R)``, both attained at two different vertices.
    """
    rel = check_relation(neighbouring)
    R = check_positive(radius, "radius")
    return (R, R) if rel == "add-remove" else (2.0 * R, math.sqrt(2.0) * R)


@dataclass
class SimplexRelease:
    """The noisy augmented sums ``m = s + Z`` (shape ``(reps, d + 1)``) and what produced them."""

    m: np.ndarray
    s: np.ndarray
    variance: float  # per-coordinate noise variance v
    scale: float  # Laplace b or Gaussian sigma
    sensitivity: float
    mechanism: Mechanism
    budget: float
    neighbouring: Relation
    data: Preprocessed = field(repr=False)


def simplex_release(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    neighbouring: str = "add-remove",
    radius: float | None = None,
    reps: int = 1,
    rng: RngLike = None,
    note: str = "",
) -> SimplexRelease:
    """Algorithm S1: release the column sums of the simplex-augmented rows with one mechanism.

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
        Data; clamped to ``bounds`` first.
    epsilon, rho : float
        Exactly one: ``epsilon`` gives the Laplace mechanism (pure DP), ``rho`` the Gaussian (zCDP).
        The whole budget is spent on this one release.
    bounds : (lower, upper)
        Public range per column.
    neighbouring : {"add-remove", "replace-one"}
        Relation; sets the sensitivity (:func:`simplex_sensitivity`).
    radius : float, optional
        Public l1 bound ``R`` on the shifted rows (default ``sum_j (U_j - L_j)``).
    reps : int
        Number of independent releases (rows of ``m``), for simulation.
    rng : None, int, Generator or release backend
    note : str
        The ledger line's note (default: the mechanism, the number of sums and the sensitivity).

    Returns
    -------
    SimplexRelease

    Privacy
    -------
    One Laplace or Gaussian release through :mod:`dpcore.mechanisms`: charged to the active
    :func:`dpcore.mechanisms.stage` (once for all ``reps`` copies), or to nothing outside one.

    References
    ----------
    Paper §4 eq. (2)-(5) and App. B; docs/estimators/simplex.md §2.3 S1.
    """
    mech, budget = mechanism_of(epsilon, rho)
    rel = check_relation(neighbouring)
    data = preprocess(x, bounds, radius)
    y = simplex_transform(data.z, data.radius)
    s = y.sum(axis=0)
    d1, d2 = simplex_sensitivity(rel, data.radius)
    sens = d1 if mech == "laplace" else d2
    note = note or (
        f"{'Laplace' if mech == 'laplace' else 'Gaussian'} on the {data.d + 1} augmented sums, "
        f"{rel} sensitivity {sens:.4g}, {'ε' if mech == 'laplace' else 'ρ'} = {budget:.4g}"
    )
    m, scale = add_noise(s, mech, sens, budget, check_reps(reps), mechanisms.generator(rng), note)
    return SimplexRelease(
        m=m,
        s=s,
        variance=noise_variance(mech, sens, budget),
        scale=scale,
        sensitivity=sens,
        mechanism=mech,
        budget=budget,
        neighbouring=rel,
        data=data,
    )


# --------------------------------------------------------------------------------------------
# S2-S4: post-processing (batched over leading axes; pure functions of the release)


def free_count(m: np.ndarray, radius: float) -> np.ndarray:
    """S2 step 1: ``N̂ = sum_k m_k / R`` (signed sum, spec §8.5). Variance ``(d + 1) v / R²``."""
    return np.asarray(m, float).sum(axis=-1) / radius


def project_sums(m: np.ndarray, total: np.ndarray | float) -> np.ndarray:
    """S3: orthogonal projection of ``m`` onto ``{sum_k s_k = total}`` (the GLS/BLUE for iid noise).

    ``ŝ_k = m_k - (sum_k m_k - total) / (d + 1)``; with ``total = N R`` each ``ŝ_j`` has variance
    ``v d / (d + 1)``.
    """
    M = np.asarray(m, float)
    excess = (M.sum(axis=-1) - np.asarray(total, float)) / M.shape[-1]
    return M - excess[..., None]


def combine_counts(
    n_hat: np.ndarray, var_hat: float, n_extra: np.ndarray, var_extra: float
) -> tuple[np.ndarray, float, float]:
    """S4: inverse-variance combination ``N* = w N̂ + (1 - w) N'``.

    Returns ``(N*, Var(N*), w)`` with ``w = (1/var_hat) / (1/var_hat + 1/var_extra)`` in ``[0, 1]``.
    """
    w = (1.0 / var_hat) / (1.0 / var_hat + 1.0 / var_extra)
    n_star = w * np.asarray(n_hat, float) + (1.0 - w) * np.asarray(n_extra, float)
    return n_star, 1.0 / (1.0 / var_hat + 1.0 / var_extra), float(w)


def mean_from_sums(sums: np.ndarray, count: np.ndarray | float, lower: np.ndarray) -> np.ndarray:
    """``L_j + ŝ_j / max(count, 1)``: the floored count keeps the ratio finite (spec §2.3 S2.3)."""
    c = np.maximum(np.asarray(count, float), 1.0)
    return lower + np.asarray(sums, float) / np.asarray(c)[..., None]
