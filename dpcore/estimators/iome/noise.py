"""IOME's last stage: the shifted clipped mean with Gaussian noise, rotated back.

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §9.8, §10.17.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import _kernels, mechanisms
from dpcore.estimators._localise import clipped_sum
from dpcore.estimators.iome.radius import Radius
from dpcore.estimators.iome.rotate import Rotated
from dpcore.privacy import Ledger


@dataclass(frozen=True)
class Noise:
    """The noise stage's output in original (padded) coordinates, before adding back ``m0``: the
    noisy mean, the same without noise, the centre ``R^T c``, and the noise std ``tau``."""

    noisy: np.ndarray
    noiseless: np.ndarray
    centre: np.ndarray
    tau: float


def noise(
    rot: Rotated, c: np.ndarray, rad: Radius, rho_noise: float, ledger: Ledger, g: Any
) -> Noise:
    """The shifted clipped mean with Gaussian noise, rotated back by ``R^T`` (padding kept).

    Privacy
    -------
    Replace-one: each clipped row has norm ``<= C``, so the clipped mean moves by ``<= 2C / n``;
    stage "noisy sum", std ``tau = 2C / (n sqrt(2 p2))``, ``p2``-zCDP. ``c`` is an earlier release.
    """
    C, n = rad.C, rot.xr.shape[0]
    z = _clipped_sum(rot.xr, c, C, rad.norms) / n
    tau = math.sqrt(2.0 * C * C / rho_noise) / n
    with mechanisms.stage(ledger, "noisy sum"):
        rel = mechanisms.gaussian(
            z + c,  # c is an earlier release: the sensitivity is that of the clipped mean z
            sensitivity=2.0 * C / n,
            rho=rho_noise,
            rng=g,
            scale=tau,
            note=f"Gaussian mechanism, l2 sensitivity 2C = {2 * C:.4g} on the sum",
        )
    back = rot.R.inverse(np.vstack([z + c, rel.value, c]), keep_padding=True)
    return Noise(back[1], back[0], back[2], tau)


def _clipped_sum(xr: np.ndarray, c: np.ndarray, C: float, norms: np.ndarray) -> np.ndarray:
    """``sum_j min(1, C / ||xr_j - c||) (xr_j - c)``, clipped by the radius stage's ``norms`` (the
    same ``c``, so the same values as forming them again): on large arrays one compiled read of
    the rows for the sum alone (:func:`dpcore._kernels.scaled_weighted_sum`), else the numpy
    blocks of :func:`dpcore.estimators._localise.clipped_sum` (whose norms are those values)."""
    if not _kernels.use_kernels(xr):
        return clipped_sum(xr, c, C)
    f = np.minimum(1.0, C / np.maximum(norms, 1e-300))
    return np.asarray(_kernels.scaled_weighted_sum(xr, c, np.ones(xr.shape[1]), f))
