"""What the simplex estimators and their baselines share: the mechanism of a budget, the
neighbouring relation, the noise draw and the clamped, shifted data (docs/estimators/simplex.md §1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpcore import mechanisms
from dpcore._validation import check_bounds, check_data, check_positive

Mechanism = Literal["laplace", "gaussian"]
Relation = Literal["add-remove", "replace-one"]
Combine = Literal["blue", "paper"]

# --------------------------------------------------------------------------------------------
# shared helpers (also used by the simplex baselines)


def mechanism_of(epsilon: float | None, rho: float | None) -> tuple[Mechanism, float]:
    """Return ``("laplace", ε)`` or ``("gaussian", ρ)``; exactly one budget must be given."""
    if (epsilon is None) == (rho is None):
        raise ValueError(
            "pass exactly one budget: epsilon= (Laplace, pure DP) or rho= (Gaussian, zCDP)."
        )
    if epsilon is not None:
        return "laplace", check_positive(epsilon, "epsilon")
    return "gaussian", check_positive(rho, "rho")


def check_relation(neighbouring: str) -> Relation:
    """Validate the neighbouring relation name."""
    if neighbouring not in ("add-remove", "replace-one"):
        raise ValueError(
            f"neighbouring must be 'add-remove' or 'replace-one'; got {neighbouring!r}."
        )
    return neighbouring  # type: ignore[return-value]


def noise_variance(mechanism: Mechanism, sensitivity: float, budget: float) -> float:
    """Per-coordinate noise variance ``v``: Laplace ``2 (Δ1/ε)²``, Gaussian ``Δ2²/(2ρ)`` (spec §1)."""
    if mechanism == "laplace":
        return 2.0 * (sensitivity / budget) ** 2
    return sensitivity**2 / (2.0 * budget)


def add_noise(
    value: np.ndarray | np.float64,
    mechanism: Mechanism,
    sensitivity: float,
    budget: float,
    reps: int,
    rng: Any,
    note: str = "",
) -> tuple[np.ndarray, float]:
    """``reps`` independent releases of ``value`` (shape ``(reps,) + value.shape``) and the scale.

    Parameters
    ----------
    value : float or array
        The exact query answer.
    mechanism : {"laplace", "gaussian"}
        :func:`dpcore.mechanisms.laplace` (``b = Δ1/ε``) or :func:`dpcore.mechanisms.gaussian`
        (``σ = Δ2/√(2ρ)``).
    sensitivity, budget : float
        The query's sensitivity in the mechanism's norm, and ``ε`` or ``ρ``.
    reps : int
        Simulated copies of the same release (iid noise per row and coordinate).
    rng : Generator or release backend
    note : str
        What the release is, for the ledger line.

    Returns
    -------
    (ndarray, float)
        The noisy copies and the noise scale.

    Privacy
    -------
    Inside a :func:`dpcore.mechanisms.stage` the release is charged once (``reps`` copies are a
    simulation of one release); outside any stage nothing is charged.
    """
    draw = mechanisms.laplace if mechanism == "laplace" else mechanisms.gaussian
    rel = draw(value, sensitivity, budget, rng=rng, reps=reps, note=note)
    return np.asarray(rel.value, float), float(rel.scale)


def check_reps(reps: int) -> int:
    """Validate a repetition count."""
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise ValueError(f"reps must be a positive integer; got {reps!r}.")
    return int(reps)


@dataclass
class Preprocessed:
    """Data clamped to the public box, shifted to start at 0, and l1-clipped to ``radius``."""

    z: np.ndarray  # (n, d), z >= 0, row sums <= radius
    lower: np.ndarray  # (d,)
    upper: np.ndarray  # (d,)
    radius: float
    clipped: np.ndarray  # (n,) bool: row changed by clamping or rescaling (diagnostic only)
    was_1d: bool

    @property
    def widths(self) -> np.ndarray:
        return self.upper - self.lower

    @property
    def n(self) -> int:
        return int(self.z.shape[0])

    @property
    def d(self) -> int:
        return int(self.z.shape[1])


def preprocess(
    x: Any, bounds: Any, radius: float | None = None, *, min_rows: int = 1
) -> Preprocessed:
    """Clamp to ``bounds``, shift to ``[0, U - L]`` and l1-clip rows to ``radius`` (spec §2.1).

    ``radius`` defaults to ``sum_j (U_j - L_j)`` (so nothing inside the box is rescaled); for one
    column that is ``R = U - L``.
    """
    arr = check_data(x, min_rows=min_rows)
    X = arr.reshape(arr.shape[0], -1)
    d = X.shape[1]
    lo, hi = check_bounds(bounds, d)
    if not np.all(np.isfinite(hi - lo)) or not math.isfinite(float(np.sum(hi - lo))):
        raise ValueError(
            "bounds are too wide: the box's widths U - L (or their sum, the l1 diameter) overflow "
            "to infinity; pass a narrower public range."
        )
    R = float(np.sum(hi - lo)) if radius is None else check_positive(radius, "radius")
    z = np.clip(X, lo, hi) - lo
    changed = np.any((X < lo) | (X > hi), axis=1)
    tot = z.sum(axis=1)
    over = tot > R
    if np.any(over):
        z[over] *= (R / tot[over])[:, None]
    return Preprocessed(
        z=z, lower=lo, upper=hi, radius=R, clipped=changed | over, was_1d=arr.ndim == 1
    )


def nonprivate_counts(data: Preprocessed) -> dict[str, int]:
    """The data-dependent counts for ``Diagnostics.nonprivate`` (not private, teaching only): rows
    changed by clamping or l1 rescaling, and the true ``n`` (private under add/remove)."""
    return {"clamped_rows": int(data.clipped.sum()), "n": data.n}
