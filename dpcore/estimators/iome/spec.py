"""IOME's options as one frozen value: :class:`IomeSpec`, with the two presets.

The spec calls the runner (:func:`~dpcore.estimators.iome.compose.run_iome`); the runner and the
stages read the options through the protocol :class:`~dpcore.estimators.iome.options.IomeOptions`
and never import this module.

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §10.17.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from dpcore._validation import (
    check_flag,
    check_positive,
    check_probability,
    check_real,
    check_work_param,
)
from dpcore.estimate import Estimate
from dpcore.estimators._options import EstimatorOptions
from dpcore.estimators.iome.compose import run_iome

#: The two presets of docs/estimators/plan.md §5a.
PRESETS: dict[str, dict[str, float]] = {
    "original": {"steps": 10, "radius_share": 0.25, "offset_factor": 1.0},
    "paper": {"steps": 20, "radius_share": 0.01, "offset_factor": 2.0},
}


@dataclass(frozen=True, kw_only=True)
class IomeSpec(EstimatorOptions):
    """IOME's options (docs/estimators/plan.md §5a); calling a spec runs IOME.

    ``spec(x, *, rho, bounds=None, rng=None, **options)`` replaces the options given
    (``dataclasses.replace``) and runs :func:`~dpcore.estimators.iome.compose.run_iome`. Each
    registered variant is ``dataclasses.replace`` of the family default
    :data:`~dpcore.estimators.iome.iome`.

    Parameters of a call
    --------------------
    x : array (n, d)
    rho : float
        Total zCDP budget (replace-one).
    bounds : (lower, upper)
        Public box for the data.
    rng : None, int or Generator

    Attributes
    ----------
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
        IOME's ``T``-step binary searches (``"binary_search"``, the family default's), or
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
        """IOME with these options (:func:`~dpcore.estimators.iome.compose.run_iome`)."""
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
