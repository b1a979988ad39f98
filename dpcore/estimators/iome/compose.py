"""IOME composed from its stages: :func:`run_iome` (rotate, centre, radius, noise, rotate back).

Each stage takes its inputs, its part of the budget, the ledger and the generator, and returns a
frozen result (:mod:`.rotate`, :mod:`.centre`, :mod:`.radius`, :mod:`.noise`); the diagnostics and
the warnings are assembled from those results at the end.

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §9.8, §10.17.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_data, check_positive
from dpcore.estimate import Estimate
from dpcore.estimators.iome.centre import centre
from dpcore.estimators.iome.diagnostics import IomeDiagnostics
from dpcore.estimators.iome.noise import Noise, noise
from dpcore.estimators.iome.options import IomeOptions
from dpcore.estimators.iome.radius import Radius, radius
from dpcore.estimators.iome.rotate import Rotated, rotate
from dpcore.privacy import Ledger, split_budget
from dpcore.quantiles._common import check_public_bounds


def stage_budgets(rho: float, spec: IomeOptions) -> dict[str, float]:
    """``prop rho`` for the centre, then ``p1`` (radius) and ``p2`` (noise) of the rest, summing
    to ``rho`` exactly (:func:`dpcore.privacy.split_budget`). Public values only."""
    prop, p1 = spec.median_share, spec.radius_share
    fractions = {"center": prop, "radius": (1.0 - prop) * p1, "noise": (1.0 - prop) * (1.0 - p1)}
    return split_budget(rho, fractions)


def run_iome(
    x: np.ndarray,
    spec: IomeOptions,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    rng: RngLike = None,
) -> Estimate:
    """IOME with the options ``spec``: rotate, centre, radius, noise, rotate back.

    Privacy
    -------
    Replace-one, ``n`` public; ``rho``-zCDP: the centre ``prop rho``, the radius ``p1``, the noise
    ``p2`` (:func:`stage_budgets`), each a ledger stage whose mechanisms write their own lines. The
    rotation and ``m0`` are data independent. Public inputs are checked before anything is drawn.
    """
    X = check_data(x, ndim=2, min_rows=2)
    d = X.shape[1]
    rho = check_positive(rho, "rho")
    lo, hi = check_public_bounds(bounds, d)
    spec = spec.checked()
    g = mechanisms.generator(rng)
    budgets = stage_budgets(rho, spec)
    ledger = Ledger("zcdp")

    rot = rotate(X, lo, hi, spec, g)
    c = centre(rot, spec, budgets["center"], ledger, g)
    rad = radius(rot, c, spec, budgets, ledger, g)
    out = noise(rot, c, rad, budgets["noise"], ledger, g)
    mean = rot.m0 + out.noisy[:d]
    diag = _diagnostics(rot, c, rad, out, spec.steps, budgets, mean)
    return Estimate(mean=mean, ledger=ledger, diagnostics=diag)


def _diagnostics(
    rot: Rotated,
    c: np.ndarray,
    rad: Radius,
    out: Noise,
    steps: int,
    budgets: dict[str, float],
    mean: np.ndarray,
) -> IomeDiagnostics:
    """What the run reports, from the stages' results (public outputs, and the data's norms for
    the pictures)."""
    d = mean.size
    center = rot.m0 + out.centre[:d]
    noiseless = rot.m0 + out.noiseless[:d]
    pad_norm = float(np.linalg.norm(out.centre[d:]))
    return IomeDiagnostics(
        noiseless_mean=noiseless,
        center=center,
        scale=np.ones(d),
        clip_radius=rad.C,
        clipped=rad.norms > rad.C,
        noise_std=np.full(d, out.tau),
        warnings=list(rad.warnings),
        rotation=rot.R,
        center_rotated=c,
        box_center=rot.m0,
        ball_center=center,
        ball_radius=math.sqrt(max(rad.C * rad.C - pad_norm * pad_norm, 0.0)),
        clip_rank=rad.rank,
        clip_quantile=rad.quantile,
        radius_universe=rad.universe,
        median_bounds=rot.median_bounds,
        norms=rad.norms,
        steps=steps,
        padded_dim=rot.dim,
        budgets=budgets,
        noise=mean - noiseless,
    )
