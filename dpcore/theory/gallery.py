"""Every estimator's clipping region and noise shape in two chosen coordinates (the "Side by side" page).

One function per family maps an :class:`~dpcore.registry.Estimate`'s diagnostics (``center``,
``scale``, ``clip_radius``, ``clip_interval``, ``noise_std``) to a shape in the plane of two
coordinates ``(i, j)``; nothing here re-derives a radius or a box, so a picture shows exactly what the
run used. :func:`run_gallery` makes one real run per estimator through the registry, and
:func:`release_draws` repeats one estimator's release on the same data (hypothetical outcomes).

Geometry, family by family (each a projection of the estimator's d-dimensional clipping set onto
the plane of coordinates ``i, j``):

* PLAN and the Gaussian mechanism with a private radius: ``{x : ||(x - c) * s||_2 <= C}``, an
  axis-aligned ellipsoid with semi-axes ``C / s_k``; its projection is the ellipse with semi-axes
  ``C / s_i, C / s_j`` around ``(c_i, c_j)`` (``s = 1``: a disk of radius ``C``).
  docs/estimators/plan.md §2, Algorithm 1 lines 5-8.
* Gaussian mechanism with public bounds: the same with ``s = 1``, ``c`` the box centre and ``C`` the
  box's half diagonal (docs/estimators/plan.md §5c).
* IOME: a ball of radius ``C`` around the private rotated median ``c`` in the rotated (zero-padded,
  dimension ``D``) space. A rotation keeps distances, so in original space the set is again a ball
  around ``R^T c``; the data live in the first ``d`` coordinates, which cut that ball in a ``d``-ball
  of radius ``sqrt(C^2 - ||pad||^2)`` (``ball_radius``) around the first ``d`` coordinates of
  ``R^T c``. Its projection on two coordinates is a disk of that radius (docs/estimators/plan.md
  §5a).
* Winsorized family and clipped means: the per-coordinate (private or public) intervals
  ``clip_interval``, a box (docs/estimators/winsorized.md §3).
* Simplex family: the box ``[L, U]`` cut by the l1 clip ``sum_k (x_k - L_k) <= R``; its projection is
  ``{L <= x <= U, (x_i - L_i) + (x_j - L_j) <= R}`` (docs/estimators/simplex.md §2.1, S1 step 1).
* Binary family: values stay in ``[0, 1]``; the truncated estimators (``clip_radius`` = row weight
  bound ``B``) keep rows with ``||x||_1 <= B``, projected: ``x_i + x_j <= B`` inside the unit square
  (docs/estimators/binary-product.md §2.4).

A projection is a *necessary* condition only: a point whose two coordinates lie inside the drawn
region can still be clipped because of its other ``d - 2`` coordinates.

Noise shapes: ``noise_std`` per coordinate, independent across coordinates (true for PLAN, IOME,
the Gaussian mechanism, the Laplace releases; for the simplex the coordinates are slightly
correlated and the marginal spread is drawn). Gaussian noise (zCDP estimators): the ellipse
``sum_k (u_k / std_k)^2 <= r^2`` with ``r^2`` the ``prob``-quantile of chi-square with 2 degrees of
freedom (``r^2 = -2 ln(1 - prob)``). Laplace noise (pure ε estimators, scale ``b = std / sqrt 2``):
the diamond ``sum_k |u_k| / b_k <= r`` with ``P(Gamma(2, 1) <= r) = prob``, i.e.
``1 - e^(-r)(1 + r) = prob``. Both are centred at the noiseless (clipped) mean, so the release lands
inside with probability ``prob`` given the run's centre, scale and radius.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Algorithm 1; docs/estimators/plan.md §2, §5a-§5c.
Lin, Kifer et al. (private modified winsorized mean), docs/estimators/winsorized.md §3.
Fitzsimons, Honaker, Shoemate, Singhal (2024), docs/estimators/simplex.md §2.1.
docs/estimators/binary-product.md §2.4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.special import lambertw

from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.estimators.iome import IomeDiagnostics

RegionKind = Literal["ellipse", "disk", "box", "polygon", "none"]
NoiseKind = Literal["gaussian", "laplace", "none"]
_OUTLINE = 181


@dataclass(frozen=True)
class Region:
    """An estimator's clipping region projected on two coordinates.

    Attributes
    ----------
    kind : {"ellipse", "disk", "box", "polygon", "none"}
    center : array (2,) or None
        Centre of an ellipse or disk.
    semi_axes : array (2,) or None
        Semi-axes of an ellipse (both equal for a disk).
    lower, upper : array (2,) or None
        Corners of a box (also the bounding box of a polygon).
    outline : array (k, 2)
        Closed outline to draw (empty for ``"none"``).
    note : str
        One sentence saying what the region is, for the page.
    """

    kind: RegionKind
    outline: np.ndarray
    note: str
    center: np.ndarray | None = None
    semi_axes: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None


@dataclass(frozen=True)
class NoiseShape:
    """The region holding the release with probability ``prob``, around the noiseless mean.

    ``scale`` is the per-coordinate standard deviation (Gaussian) or Laplace scale ``b``; ``radius``
    the Mahalanobis (Gaussian) or l1 (Laplace) radius in units of ``scale``.
    """

    kind: NoiseKind
    center: np.ndarray
    scale: np.ndarray
    radius: float
    prob: float
    outline: np.ndarray


@dataclass(frozen=True)
class GalleryEntry:
    """One estimator's run seen in two coordinates."""

    name: str
    label: str
    color: str
    family: str
    region: Region
    noise: NoiseShape
    release: np.ndarray
    noiseless: np.ndarray
    estimate: Estimate


# ---------------------------------------------------------------------------------------------
# outlines


def ellipse_outline(
    center: np.ndarray | Sequence[float], semi_axes: np.ndarray | Sequence[float]
) -> np.ndarray:
    """Closed outline of an axis-aligned ellipse, shape (181, 2)."""
    center, semi_axes = np.asarray(center, float), np.asarray(semi_axes, float)
    t = np.linspace(0.0, 2.0 * math.pi, _OUTLINE)
    return np.column_stack(
        [center[0] + semi_axes[0] * np.cos(t), center[1] + semi_axes[1] * np.sin(t)]
    )


def diamond_outline(
    center: np.ndarray | Sequence[float], half_diagonals: np.ndarray | Sequence[float]
) -> np.ndarray:
    """Closed outline of the l1 diamond ``|u|/a + |v|/b <= 1`` around ``center``, shape (5, 2)."""
    cx, cy = np.asarray(center, float)
    a, b = np.asarray(half_diagonals, float)
    return np.array([[cx + a, cy], [cx, cy + b], [cx - a, cy], [cx, cy - b], [cx + a, cy]])


def box_outline(
    lower: np.ndarray | Sequence[float], upper: np.ndarray | Sequence[float]
) -> np.ndarray:
    (x0, y0), (x1, y1) = np.asarray(lower, float), np.asarray(upper, float)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]])


def _cut_box(lower: np.ndarray, upper: np.ndarray, radius: float) -> np.ndarray:
    """Outline of ``{lower <= x <= upper, (x_0 - lower_0) + (x_1 - lower_1) <= radius}``."""
    w = upper - lower
    if radius >= w[0] + w[1]:
        return box_outline(lower, upper)
    pts = [(0.0, 0.0), (min(w[0], radius), 0.0)]
    if radius > w[0]:
        pts.append((w[0], radius - w[0]))
    if radius > w[1]:
        pts.append((radius - w[1], w[1]))
    pts.append((0.0, min(w[1], radius)))
    pts.append((0.0, 0.0))
    return lower + np.array(pts)


# ---------------------------------------------------------------------------------------------
# radii holding a stated probability


def gaussian_radius(prob: float) -> float:
    """``r`` with ``P(chi2_2 <= r^2) = prob``: the 2-D standard normal lies in the disk of radius r."""
    _check_prob(prob)
    return math.sqrt(-2.0 * math.log1p(-prob))


def laplace_radius(prob: float) -> float:
    """``r`` with ``P(|L1| + |L2| <= r) = prob`` for independent standard Laplace ``L1, L2``.

    ``|L_k| ~ Exp(1)``, so the sum is Gamma(2, 1): ``1 - e^(-r)(1 + r) = prob``, solved by the
    Lambert W function's lower branch: ``r = -1 - W_{-1}(-(1 - prob)/e)``.
    """
    _check_prob(prob)
    return float(-1.0 - lambertw(-(1.0 - prob) / math.e, k=-1).real)


def _check_prob(prob: float) -> None:
    if not 0.0 < prob < 1.0:
        raise ValueError(
            f"prob must be a probability strictly between 0 and 1 (e.g. 0.95); got {prob!r}."
        )


# ---------------------------------------------------------------------------------------------
# one function per family: diagnostics -> region in coordinates (i, j)


def _pair(coords: Sequence[int], d: int) -> list[int]:
    cs = [int(c) for c in coords]
    if len(cs) != 2 or cs[0] == cs[1] or any(not 0 <= c < d for c in cs):
        raise ValueError(
            f"coords must be two different 0-based coordinates in [0, {d - 1}]; got {list(coords)}."
        )
    return cs


def scaled_ball_region(est: Estimate, coords: Sequence[int]) -> Region:
    """PLAN (and the Gaussian mechanism, ``s = 1``): the ellipse ``C / s`` around the centre."""
    dg = est.diagnostics
    if dg.center is None or dg.scale is None or dg.clip_radius is None:
        raise ValueError(
            "scaled_ball_region needs diagnostics center, scale and clip_radius (a PLAN or "
            "Gaussian-mechanism estimate)."
        )
    cs = _pair(coords, dg.center.size)
    center = np.asarray(dg.center, float)[cs]
    semi = float(dg.clip_radius) / np.asarray(dg.scale, float)[cs]
    isotropic = bool(np.allclose(dg.scale, dg.scale.flat[0]))
    kind: RegionKind = "disk" if isotropic else "ellipse"
    note = (
        f"ball of radius C = {dg.clip_radius:.3g} around the centre (no scaling)"
        if isotropic
        else f"ellipse ||(x − c)·s|| ≤ C = {dg.clip_radius:.3g} mapped back: semi-axes C/s = "
        f"{semi[0]:.3g}, {semi[1]:.3g}"
    )
    return Region(kind, ellipse_outline(center, semi), note, center=center, semi_axes=semi)


def rotated_ball_region(est: Estimate, coords: Sequence[int]) -> Region:
    """IOME: the rotated ball mapped back (a ball again), cut by the data's subspace."""
    dg = est.diagnostics
    if not isinstance(dg, IomeDiagnostics) or dg.center is None:
        raise ValueError("rotated_ball_region needs an IOME estimate (IomeDiagnostics).")
    cs = _pair(coords, dg.center.size)
    center = np.asarray(dg.center, float)[cs]
    r = float(dg.ball_radius)
    semi = np.array([r, r])
    note = (
        f"ball of radius C = {dg.clip_radius:.3g} around the private median of the rotated data, rotated "
        f"back (rotations keep balls round); cut by the data's {dg.center.size} coordinates it has radius "
        f"{r:.3g}"
    )
    return Region("disk", ellipse_outline(center, semi), note, center=center, semi_axes=semi)


def _interval(
    est: Estimate, coords: Sequence[int], who: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All ``d`` clip intervals of ``est`` and the two in ``coords``: ``(lo_all, hi_all, lo, hi)``."""
    dg = est.diagnostics
    if dg.clip_interval is None:
        raise ValueError(
            f"{who} needs diagnostics.clip_interval (a winsorized, clipped-mean or simplex estimate)."
        )
    lo_all, hi_all = (
        np.broadcast_to(np.asarray(v, float), np.shape(est.mean)) for v in dg.clip_interval
    )
    cs = _pair(coords, lo_all.size)
    return lo_all, hi_all, lo_all[cs].copy(), hi_all[cs].copy()


def box_region(est: Estimate, coords: Sequence[int]) -> Region:
    """Winsorized means and clipped means: the box of per-coordinate clip intervals."""
    _, _, lo, hi = _interval(est, coords, "box_region")
    note = f"box of per-coordinate clip intervals [{lo[0]:.3g}, {hi[0]:.3g}] × [{lo[1]:.3g}, {hi[1]:.3g}]"
    return Region("box", box_outline(lo, hi), note, lower=lo, upper=hi)


def simplex_region(est: Estimate, coords: Sequence[int]) -> Region:
    """Simplex family: the box ``[L, U]`` cut by the l1 clip ``sum (x - L) <= R``."""
    lo_all, hi_all, lo, hi = _interval(est, coords, "simplex_region")
    radius = getattr(est.diagnostics, "radius", None)  # SimplexDiagnostics; the baselines have none
    R = float(radius) if radius is not None else float(np.sum(hi_all - lo_all))
    outline = _cut_box(lo, hi, R)
    cut = R < float(np.sum(hi - lo))
    note = (
        f"box [L, U] cut by the ℓ1 clip Σ(x − L) ≤ R = {R:.3g}"
        if cut
        else f"box [L, U] (the ℓ1 clip R = {R:.3g} does not cut these two coordinates)"
    )
    return Region("polygon" if cut else "box", outline, note, lower=lo, upper=hi)


def binary_region(est: Estimate, coords: Sequence[int]) -> Region:
    """Binary family: the unit square, cut by the row-weight truncation ``x_i + x_j <= B`` if any."""
    d = np.size(est.mean)
    _pair(coords, d)
    lo, hi = np.zeros(2), np.ones(2)
    B = est.diagnostics.clip_radius
    if B is None:
        return Region(
            "box",
            box_outline(lo, hi),
            "no truncation in these coordinates: 0/1 values stay in the unit square "
            "(rows are truncated by weight inside the estimator's buckets)",
            lower=lo,
            upper=hi,
        )
    outline = _cut_box(lo, hi, float(B))
    return Region(
        "polygon" if B < 2 else "box",
        outline,
        f"rows truncated to weight ||x||₁ ≤ B = {B:.3g}: here x_i + x_j ≤ B",
        lower=lo,
        upper=hi,
    )


def no_region(est: Estimate, coords: Sequence[int]) -> Region:
    _pair(coords, np.size(est.mean))
    return Region("none", np.empty((0, 2)), "no clipping")


def region_of(spec: EstimatorSpec, est: Estimate, coords: Sequence[int]) -> Region:
    """The clipping region of ``est`` (from ``spec``'s family and diagnostics) in ``coords``."""
    dg = est.diagnostics
    if isinstance(dg, IomeDiagnostics):
        return rotated_ball_region(est, coords)
    if dg.clip_radius is not None and dg.center is not None and dg.scale is not None:
        return scaled_ball_region(est, coords)
    if spec.family.startswith("simplex"):
        return simplex_region(est, coords)
    if spec.family == "binary product":
        return binary_region(est, coords)
    if dg.clip_interval is not None:
        return box_region(est, coords)
    return no_region(est, coords)


def noise_shape(
    spec: EstimatorSpec, est: Estimate, coords: Sequence[int], prob: float = 0.95
) -> NoiseShape:
    """The ellipse (Gaussian, zCDP) or diamond (Laplace, pure ε) holding the release with ``prob``."""
    cs = _pair(coords, np.size(est.mean))
    center = np.asarray(est.diagnostics.noiseless_mean, float).ravel()[cs]
    std = est.diagnostics.noise_std
    std2 = (
        np.zeros(2)
        if std is None
        else np.broadcast_to(np.asarray(std, float), np.shape(est.mean))[cs].copy()
    )
    if spec.notion == "none" or not np.any(std2 > 0):
        return NoiseShape("none", center, std2, 0.0, prob, np.empty((0, 2)))
    if spec.notion == "pure":
        b = std2 / math.sqrt(2.0)
        r = laplace_radius(prob)
        return NoiseShape("laplace", center, b, r, prob, diamond_outline(center, r * b))
    r = gaussian_radius(prob)
    return NoiseShape("gaussian", center, std2, r, prob, ellipse_outline(center, r * std2))


def entry(
    spec: EstimatorSpec, est: Estimate, coords: Sequence[int], prob: float = 0.95
) -> GalleryEntry:
    """One estimator's run as a :class:`GalleryEntry` in ``coords``."""
    cs = _pair(coords, np.size(est.mean))
    return GalleryEntry(
        spec.name,
        spec.label,
        spec.color,
        spec.family,
        region_of(spec, est, cs),
        noise_shape(spec, est, cs, prob),
        np.asarray(est.mean, float).ravel()[cs],
        np.asarray(est.diagnostics.noiseless_mean, float).ravel()[cs],
        est,
    )
