"""IOME's diagnostics (what a run reports beyond the estimate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore.estimate import Diagnostics
from dpcore.estimators.iome.rotate import IdentityRotation
from dpcore.rotation import RandomizedHadamard


@dataclass(kw_only=True)
class IomeDiagnostics(Diagnostics):
    """IOME's specifics on top of :class:`~dpcore.estimate.Diagnostics` (docs/estimators/plan.md
    §5a).

    Attributes
    ----------
    rotation : RandomizedHadamard or IdentityRotation
        The public random rotation ``R``.
    center_rotated : array (D,)
        The private centre ``c`` in rotated (padded) space.
    box_center : array (d,)
        Centre ``m0`` of the public box the rows are shifted by before rotating.
    ball_center, ball_radius : array (d,), float
        The clip ball seen in original coordinates: a ball of that radius around that centre.
    clip_rank, clip_quantile : float
        IOME's clip rank ``m`` and the quantile ``m / n`` (clamped) the radius aims at.
    radius_universe : float
        Top ``U`` of the radius search.
    median_bounds : (lower, upper)
        Search range of the rotated coordinate medians.
    norms : array (n,)
        Row norms ``||R x_j - c||`` (data; for the pictures, never released).
    steps, padded_dim : int
        Search steps ``T`` and the rotated dimension ``D`` (``d`` padded to a power of two).
    budgets : dict
        rho of the centre, radius and noise stages.
    noise : array (d,)
        The final noise in original space (``mean - noiseless_mean``).
    """

    rotation: RandomizedHadamard | IdentityRotation
    center_rotated: np.ndarray
    box_center: np.ndarray
    ball_center: np.ndarray
    ball_radius: float
    clip_rank: float
    clip_quantile: float
    radius_universe: float
    median_bounds: tuple[Any, Any]
    norms: np.ndarray
    steps: int
    padded_dim: int
    budgets: dict[str, float]
    noise: np.ndarray
