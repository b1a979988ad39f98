"""PLAN's diagnostics (what a run reports beyond the estimate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore.estimate import Diagnostics


@dataclass(kw_only=True)
class PlanDiagnostics(Diagnostics):
    """PLAN's specifics on top of :class:`~dpcore.estimate.Diagnostics` (docs/estimators/plan.md
    §2–§5).

    Also what ``gaussian_private`` and ``plan_*`` return (they run :func:`plan`).

    Attributes
    ----------
    sigma_hat, sigma_hat_raw : array (d,)
        The standard deviations used for scaling (regularised) and before regularising.
    scale_exponent, p : float
        Exponent ``e`` of ``s = sigma^^(-e)`` and the error norm ``p`` it was chosen for.
    rank_slack, clip_quantile : float
        Rank slack ``k`` and the quantile ``1 - k/n`` (clamped) the radius aims at.
    radius_universe : float
        Top ``U`` of the radius search; ``radius_universe_kind`` says how it was set.
    radius_universe_kind : str or float
    norms : array (n,)
        Scaled row norms ``||(x_j - mu~) s||`` (data; for the pictures, never released).
    noise_std_scaled : float
        Standard deviation ``tau`` of the noise on the clipped sum (scaled space).
    budgets, fractions : dict
        rho per stage and the split it came from.
    quantile, variances, center_method : str
        The quantile routine, the variance mode and the centre method that ran.
    noise : array (d,)
        The final noise in original space (``mean - noiseless_mean``).
    frequencies, frequency_noise_std : array (d,) and float, or None
        The private frequencies and their noise std (``variances="binary"`` only).
    center_window : (array, array) or None
        The final window of the coarse-to-fine centre (when that step ran).
    coinpress : dict or None
        The CoinPress centre's steps, radii and budgets (when that step ran).
    """

    sigma_hat: np.ndarray
    sigma_hat_raw: np.ndarray
    scale_exponent: float
    p: float
    rank_slack: float
    clip_quantile: float
    radius_universe: float
    radius_universe_kind: str | float
    norms: np.ndarray
    noise_std_scaled: float
    budgets: dict[str, float]
    fractions: dict[str, float]
    quantile: str
    variances: str
    center_method: str
    noise: np.ndarray
    frequencies: np.ndarray | None = None
    frequency_noise_std: float | None = None
    center_window: tuple[np.ndarray, np.ndarray] | None = None
    coinpress: dict[str, Any] | None = None
