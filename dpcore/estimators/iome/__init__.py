"""IOME-style mean estimation: random rotation, private coordinate medians, shifted clipped mean.

The baseline the PLAN paper compares with (Huang, Liang and Yi 2021), as run by the PLAN authors
(docs/estimators/plan.md §5a)::

    0. x~ = x - m0                    m0 = centre of the public box (public, free)
    1. xr = R x~                      R = (H D3)(H D2)(H D1), zero padding to D = 2^ceil(log2 d)
    2. c  = coordinate-wise private median of xr by binary search        prop * rho  (/D per coord.)
    3. shifted clipped mean with rho' = (1 - prop) rho:
         p1 = radius share of rho', p2 = the rest
         m  = floor(n - f * (2 sqrt(D/(2 p2)) + sqrt(T/(2 p1))))          (f = offset factor)
         C  = private binary-search quantile of ||xr_j - c||_2 at rank m on [0, U]      p1
         z  = mean_j clip_C(xr_j - c) + N(0, (2C)^2/(2 p2) / n^2 I_D)                   p2
    4. output  m0 + R^T (z + c), first d coordinates

Presets (labelled as such in the registry):

* ``"IOME (original parameters)"``: ``T = 10`` steps, ``p1 = 0.25 rho'``, ``p2 = 0.75 rho'``,
  offset factor 1 (the public IOME code's defaults).
* ``"IOME (as run in the PLAN paper)"``: ``T = 20``, ``p1 = 0.01 rho'``, ``p2 = 0.99 rho'``, offset
  doubled (the PLAN authors' code [R]; the 1%/99% split is not mentioned in the paper, §10.17).

Privacy
-------
* Neighbouring relation: replace-one, ``n`` public. The rotation and ``m0`` are data independent.
* Medians: ``D`` binary searches with ``T`` Gaussian counts each (sensitivity 1), ``prop rho / D``
  per rotated coordinate, ``prop rho`` in total. CoinPress centre instead (``center_step="coinpress"``):
  the private spread (log-grid exponential mechanism on ``n // 2`` disjoint pair distances, one
  person in one pair, ``spread_share * prop rho``) then ``T`` noisy clipped means in balls of public
  radius ``R_t`` (l2 sensitivity ``2 R_t`` under replace-one, Gaussian std ``2 R_t / (n sqrt(2 rho_t))``
  on the mean, ``rho_t``-zCDP), ``sum rho_t`` = the rest of ``prop rho``.
* Radius: one binary search on the ``n`` norms, ``p1``.
* Noise: each clipped row has norm ``<= C``; replacing a row moves the sum by ``<= 2C``; Gaussian
  std ``2C / sqrt(2 p2)`` on the sum, ``2C / (n sqrt(2 p2))`` on the mean, in every rotated
  coordinate. Rotating back keeps the noise isotropic, so every original coordinate gets the same
  std (the "noise shape" PLAN improves on).
* Ledger: ``prop rho + p1 + p2 = rho``; every line is written by the :mod:`dpcore.mechanisms` call
  that drew the noise, inside the stage it belongs to (an exponential-mechanism line converts
  ``eps**2 / 8``, so the total is ``rho`` to within a few ulps).

Decisions (the spec is silent or the authors' choice does not transfer)
----------------------------------------------------------------------
* Search ranges. [R] searches the rotated medians in ``[lo/sqrt d, hi/sqrt d]`` for symmetric boxes
  around data near 0, which misses the medians of data far from the origin. We subtract the public
  box centre ``m0`` first and search each rotated median in ``[-h, h]`` with
  ``h = ||hw||_2 sqrt(2 ln(2 D n / beta) / D)`` (``hw`` the box half widths; the IOME paper's high
  probability bound on a rotated coordinate of a vector of norm ``||hw||_2``), and the radius in
  ``[0, ||hw||_2 + h sqrt(D)]`` (the largest ``||xr - c||`` for ``x`` in the box).
* Budgets per rotated coordinate use the padded dimension ``D``.
* ``m`` is clamped to ``[n/2, n - 1/2]`` with a warning when the offset is larger than ``n/2``.

References
----------
Huang, Liang, Yi. "Instance-optimal Mean Estimation Under Differential Privacy." NeurIPS 2021.
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7 and Appendix F; docs/estimators/plan.md
§5a, §9.8, §9.11, §10.17.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import (
    RngLike,
    check_data,
    check_flag,
    check_positive,
    check_probability,
    check_real,
    check_work_param,
)
from dpcore.estimate import (
    REPLACE_ONE,
    ZCDP_UNITS,
    Cost,
    Default,
    Diagnostics,
    Estimate,
    EstimatorSpec,
    register,
)
from dpcore.estimators._options import EstimatorOptions
from dpcore.estimators.iome.stages import (
    IdentityRotation,
    Radius,
    Rotated,
    centre,
    clip_rank,
    noise,
    radius,
    rotate,
    split_budget,
)
from dpcore.privacy import Ledger
from dpcore.quantiles._common import check_public_bounds
from dpcore.rotation import RandomizedHadamard

#: The two presets of docs/estimators/plan.md §5a.
PRESETS: dict[str, dict[str, float]] = {
    "original": {"steps": 10, "radius_share": 0.25, "offset_factor": 1.0},
    "paper": {"steps": 20, "radius_share": 0.01, "offset_factor": 2.0},
}


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


@dataclass(frozen=True, kw_only=True)
class IomeSpec(EstimatorOptions):
    """IOME's options (see :func:`iome` for each one); each registered variant is one of these.

    Examples
    --------
    >>> from dpcore.estimators.iome import iome_paper
    >>> (iome_paper.steps, iome_paper.radius_share, iome_paper.center_step)
    (20, 0.01, 'coinpress')
    """

    steps: int = 20
    median_share: float = 0.25
    radius_share: float = 0.01
    offset_factor: float = 2.0
    beta: float = 0.1
    rotate: bool = True
    median_bounds: tuple[Any, Any] | None = None
    radius_upper: float | None = None
    radius_step: str = "log_grid"
    center_step: str = "binary_search"
    spread: float | None = None
    spread_share: float = 0.1
    name: str = field(default="iome", compare=False)

    def run(
        self, x: Any, *, rho: float, bounds: Any = None, rng: Any = None, **extra: Any
    ) -> Estimate:
        """IOME with these options (:func:`run_iome`)."""
        return run_iome(x, self, rho=rho, bounds=bounds, rng=rng)

    def checked(self) -> IomeSpec:
        """The spec with every option checked (a ``ValueError`` naming the fix otherwise)."""
        check_flag(self.rotate, "rotate")
        check_real(self.offset_factor, "offset_factor", low=0.0)
        check_work_param(self.steps, "steps")
        check_real(
            self.spread_share, "spread_share", low=0.0, high=1.0, open_low=True, open_high=True
        )
        f = float(self.offset_factor)
        if not math.isfinite(f) or f < 0:
            raise ValueError(
                f"offset_factor must be a finite number >= 0; got {self.offset_factor!r}."
            )
        if self.center_step not in ("coinpress", "coarse_to_fine", "binary_search"):
            raise ValueError(
                "center_step must be 'coinpress', 'coarse_to_fine' or 'binary_search'; "
                f"got {self.center_step!r}."
            )
        if self.radius_step not in ("log_grid", "binary_search"):
            raise ValueError(
                f"radius_step must be 'log_grid' or 'binary_search'; got {self.radius_step!r}."
            )
        spread, upper = self.spread, self.radius_upper
        return dataclasses.replace(
            self,
            median_share=check_probability(self.median_share, "median_share"),
            radius_share=check_probability(self.radius_share, "radius_share"),
            offset_factor=f,
            beta=check_probability(self.beta, "beta"),
            spread=None if spread is None else check_positive(spread, "spread"),
            radius_upper=None if upper is None else check_positive(upper, "radius_upper"),
        )


def run_iome(
    x: np.ndarray,
    spec: IomeSpec,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    rng: RngLike = None,
) -> Estimate:
    """IOME with the options of ``spec``: rotate, centre, radius, noise, rotate back.

    Privacy
    -------
    Replace-one, ``n`` public; ``rho``-zCDP: the centre ``prop rho``, the radius ``p1``, the noise
    ``p2`` (:func:`split_budget`), each a ledger stage whose mechanisms write their own lines. The
    rotation and ``m0`` are data independent. Public inputs are checked before anything is drawn.
    """
    X = check_data(x, ndim=2, min_rows=2)
    d = X.shape[1]
    rho = check_positive(rho, "rho")
    lo, hi = check_public_bounds(bounds, d)
    spec = spec.checked()
    g = mechanisms.generator(rng)
    budgets = split_budget(rho, spec)
    ledger = Ledger("zcdp")
    warnings_: list[str] = []

    rot = rotate(X, lo, hi, spec, g)
    c = centre(rot, spec, budgets["center"], ledger, g)
    rad = radius(rot, c, spec, budgets, ledger, warnings_, g)
    noisy, noiseless, centre_back, tau = noise(rot, c, rad, budgets["noise"], ledger, g)
    mean, center = rot.m0 + noisy[:d], rot.m0 + centre_back[:d]
    pad_norm = float(np.linalg.norm(centre_back[d:]))
    diag = IomeDiagnostics(
        noiseless_mean=rot.m0 + noiseless[:d],
        center=center,
        scale=np.ones(d),
        clip_radius=rad.C,
        clipped=rad.norms > rad.C,
        noise_std=np.full(d, tau),
        warnings=warnings_,
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
        steps=spec.steps,
        padded_dim=rot.dim,
        budgets=budgets,
        noise=mean - (rot.m0 + noiseless[:d]),
    )
    return Estimate(mean=mean, ledger=ledger, diagnostics=diag)


def iome(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    steps: int = 20,
    median_share: float = 0.25,
    radius_share: float = 0.01,
    offset_factor: float = 2.0,
    beta: float = 0.1,
    rotate: bool = True,
    median_bounds: tuple[Any, Any] | None = None,
    radius_upper: float | None = None,
    radius_step: str = "log_grid",
    center_step: str = "binary_search",
    spread: float | None = None,
    spread_share: float = 0.1,
    rng: RngLike = None,
) -> Estimate:
    """IOME-style private mean (rotation + private coordinate medians + shifted clipped mean).

    Parameters
    ----------
    x : array (n, d)
    rho : float
        Total zCDP budget (replace-one).
    bounds : (lower, upper)
        Public box for the data.
    steps : int
        Binary-search steps ``T`` (medians and radius).
    median_share : float
        ``prop``: fraction of ``rho`` for the coordinate medians.
    radius_share : float
        Fraction of ``rho' = (1 - prop) rho`` for the clip radius (``p1``); the rest is the noise
        (``p2``).
    offset_factor : float
        ``f`` in the clip rank (1 original, 2 as run in the PLAN paper).
    beta : float
        Failure probability in the rotated search range.
    rotate : bool
        ``False`` replaces the rotation by the identity (then IOME is PLAN without scaling with
        binary searches; spec §9.8).
    median_bounds, radius_upper : optional
        Override the search ranges of the medians (in rotated, ``m0``-shifted coordinates) and of
        the radius.
    radius_step : {"log_grid", "binary_search"}
        How the clip radius is found with budget ``p1``. ``"log_grid"`` (default): the
        exponential mechanism over the public grid ``U 1.002**-k`` spanning ``[U 1e-9, U]``
        (:func:`dpcore.quantiles.exponential.log_grid_quantile`, ``eps = sqrt(8 p1)``, rank utility of
        sensitivity 1, ``p1``-zCDP); a thin budget costs rank, never scale. ``"binary_search"``:
        IOME's ``T`` noisy halvings of ``[0, U]`` (``p1``-zCDP), where one early wrong turn is
        never undone (with the paper's 1% radius share about one run in ten ends with a radius
        hundreds of times too large).
    center_step : {"coinpress", "coarse_to_fine", "binary_search"}
        How the centre ``c`` (rotated space) is found with ``prop rho``:
        ``"coinpress"`` (the robust ``iome_paper`` default): CoinPress's shrinking ball
        (:func:`dpcore.estimators._localise.coinpress_center`; Biswas et al. 2020) from the public
        ball ``B(0, ||hw||_2)`` that holds the shifted box, the l2 spread ``gamma`` either the public
        ``spread`` or :func:`~dpcore.estimators._localise.private_spread` with ``spread_share`` of
        ``prop rho``, the rest split equally over the public number of steps. Rotation invariant, so
        the rotated range ``[-h, h]`` plays no part (on Gaussian A, d = 1024, every run stays
        close to the median where the binary searches miss by orders of magnitude at small rho).
        IOME's ``T``-step binary searches (``"binary_search"``, the function's default), or
        :func:`dpcore.quantiles.coarse_to_fine_median` (two noisy histogram zooms with half
        the budget, then the exponential-mechanism median in the final window; ``prop rho``-zCDP
        in total). The coarse-to-fine step does not help IOME much: the rotated search range
        ``[-h, h]`` is several times wider than the original one, and at A, d = 1024, rho = 1/8
        both median steps leave some rotated medians far from the data.
    spread : float, optional
        Public bound on the l2 spread ``||x - mu||_2`` of the rows (for ``center_step="coinpress"``);
        ``None`` (default): estimated privately with ``spread_share * prop rho``.
    spread_share : float
        Share of the centre budget for the private spread (0.1).
    rng : None, int or Generator

    Returns
    -------
    Estimate
        ``diagnostics``: ``center`` (the private centre mapped back to original space),
        ``clip_radius``, ``clipped``, ``noise_std`` (isotropic), as an :class:`IomeDiagnostics`
        (``rotation``, ``center_rotated`` ``c``, ``box_center`` ``m0``, ``ball_center`` and
        ``ball_radius`` (the clip ball as seen in original coordinates: a ball of that radius around
        that centre), ``clip_rank``, ``budgets``, ...).

    Privacy
    -------
    Replace-one, ``n`` public; ``rho``-zCDP. Stages: the centre (``prop rho``: ``D`` medians of
    sensitivity 1, or CoinPress's spread and Gaussian steps of l2 sensitivity ``2 R_t / n``),
    "clip radius" (``p1``: one rank quantile of the ``n`` norms, sensitivity 1) and "noisy sum"
    (``p2``: l2 sensitivity ``2C / n`` of the clipped mean). The rotation and ``m0`` are data
    independent. Non-finite public inputs are refused before anything is drawn.

    References
    ----------
    Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a.
    """
    spec = IomeSpec(
        steps=steps,
        median_share=median_share,
        radius_share=radius_share,
        offset_factor=offset_factor,
        beta=beta,
        rotate=rotate,
        median_bounds=median_bounds,
        radius_upper=radius_upper,
        radius_step=radius_step,
        center_step=center_step,
        spread=spread,
        spread_share=spread_share,
    )
    return run_iome(x, spec, rho=rho, bounds=bounds, rng=rng)


#: The original code's parameters (``T = 10``, 25%/75% radius/noise split, offset x1).
iome_original = IomeSpec(steps=10, radius_share=0.25, offset_factor=1.0, name="iome_original")
#: The PLAN paper's parameters (``T = 20``, 1%/99% split, offset doubled), the robust log-grid
#: radius and the CoinPress centre.
iome_paper = IomeSpec(
    steps=20, radius_share=0.01, offset_factor=2.0, center_step="coinpress", name="iome_paper"
)
#: IOME exactly as the PLAN authors ran it: the paper preset with the binary-search radius.
iome_as_published = dataclasses.replace(
    iome_paper, center_step="binary_search", radius_step="binary_search", name="iome_as_published"
)

register(
    EstimatorSpec(
        name="iome_original",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="IOME (original)",
        detail="IOME (original parameters)",
        order=400,
        color="#fd8d3c",
        notion="zcdp",
        data_kinds=frozenset({"real", "bounded", "binary"}),
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=iome_original,
        family="IOME",
        description="Random Hadamard rotation, private coordinate medians by binary search (10 steps), "
        "shifted clipped mean; the original code's parameters.",
    )
)


register(
    EstimatorSpec(
        name="iome_as_published",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="IOME as published",
        detail="IOME as published (binary-search radius)",
        order=410,
        color="#fc9272",
        notion="zcdp",
        data_kinds=frozenset({"real", "bounded", "binary"}),
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=iome_as_published,
        family="IOME",
        description="Reproduction of the PLAN authors' IOME: 20 noisy halvings of the radius range with 1% of the "
        "budget; one early wrong turn leaves the radius hundreds of times too large in about one run in ten.",
    )
)
register(
    EstimatorSpec(
        name="iome_paper",
        cost=Cost(per_value_us=0.25, overhead_ms=9.0),
        label="IOME",
        detail="IOME (PLAN paper's parameters, robust centre and radius)",
        order=420,
        color="#D55E00",
        notion="zcdp",
        data_kinds=frozenset({"real", "bounded", "binary"}),
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=iome_paper,
        family="IOME",
        default=Default(rank=20),
        description="IOME with the PLAN authors' changes (20 search steps, a doubled clip offset, 1%/99% "
        "radius/noise split), the centre found by CoinPress's shrinking ball and the radius by the "
        "exponential mechanism on a log grid.",
    )
)


__all__ = [
    "PRESETS",
    "IdentityRotation",
    "IomeDiagnostics",
    "IomeSpec",
    "Radius",
    "RandomizedHadamard",
    "Rotated",
    "centre",
    "clip_rank",
    "iome",
    "iome_as_published",
    "iome_original",
    "iome_paper",
    "noise",
    "radius",
    "rotate",
    "run_iome",
    "split_budget",
]
