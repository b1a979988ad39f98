"""PLAN's options as one frozen value: :class:`PlanSpec`.

Every registered PLAN variant is a :class:`PlanSpec` (``dataclasses.replace`` of the family default
``plan``): the same stages with other options. A spec is callable like an estimator function,
``spec(x, rho=..., bounds=..., rng=..., **options)``, and its signature lists the options a caller
may change (the ones in ``fixed`` define the variant and are refused). The spec calls the runner
(:func:`~dpcore.estimators.plan.compose.run_plan`); the runner and the stages read the options
through the protocol :class:`~dpcore.estimators.plan.options.PlanOptions` and never import this
module.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1, Listing 1; docs/estimators/plan.md
§2–§5.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dpcore._validation import (
    check_flag,
    check_fractions,
    check_option,
    check_positive,
    check_probability,
    check_real,
    check_work_param,
)
from dpcore.estimate import Estimate
from dpcore.estimators._options import EstimatorOptions
from dpcore.estimators.plan.budget import STAGES
from dpcore.estimators.plan.compose import run_plan
from dpcore.estimators.plan.options import CenterStep, CentreRun, RadiusStep, VarianceMethod
from dpcore.estimators.plan.scale import default_scale_exponent
from dpcore.estimators.plan.variances import VARIANCE_CAP_SHARE
from dpcore.quantiles.coordinate import QuantileMethod


@dataclass(frozen=True, kw_only=True)
class PlanSpec(EstimatorOptions):
    """The options of one PLAN run (docs/estimators/plan.md §2–§5); calling a spec runs PLAN.

    ``spec(x, *, rho, bounds=None, sigma=None, rng=None, **options)`` replaces the options given
    (``dataclasses.replace``) and runs :func:`~dpcore.estimators.plan.compose.run_plan`. ``name`` is
    the function name the spec shows (``spec.__name__``); ``fixed`` lists the options that define
    the variant: they are left out of the signature and a different value is refused. The family
    default :data:`~dpcore.estimators.plan.plan` fixes none.

    Parameters of a call
    --------------------
    x : array (n, d)
        Data, one row per person.
    rho : float
        Total zCDP budget (replace-one neighbours, ``n`` public).
    bounds : (lower, upper)
        Public per-coordinate range (search range of the centre and variance quantiles, and the
        ``"range"`` radius universe).
    sigma : array (d,), optional
        Known per-coordinate standard deviations (only with ``variances="oracle"``).
    rng : None, int or Generator

    Attributes
    ----------
    variances : {"private", "oracle", "binary", "none"}
        How ``sigma^`` is obtained: Algorithm 2 (real data), the known ``sigma`` (teaching
        oracle, spends nothing), the Gaussian-mechanism frequencies (binary data, §4b), or
        ``sigma^ = 1`` (PLAN without scaling, §5b).
    p : float
        Target ``l_p`` error (PLAN's exponent ``1/(p+2)``).
    scale_exponent : float, optional
        Override ``e`` in ``s = sigma^ ** (-2e)``: 0 no scaling, ``1/(p+2)`` PLAN, ``1/2`` equal split.
    budget_split : dict, optional
        Fractions of ``rho`` per stage (``center``, ``variance``, ``radius``, ``noise``); summing to 1.
        Default: the paper's ``0.0625/0.1875/0.1875/0.5625``; without variance stage the centre
        gets ``0.25``; binary data ``variance 0.25`` (free centre). With the coarse-to-fine centre
        and no explicit split, the centre's share is raised to
        ``min(needed_center_share(n, d, rho), 0.5)`` when that is larger, the difference taken from
        the noise share (a rule on public values; the ledger shows the shares used, summing to
        ``rho`` exactly).
    quantile : {"exponential", "binary_search"}
        Private quantile routine for the centre, the variances and the radius.
    steps : int
        Binary-search steps ``T`` (only for ``quantile="binary_search"``).
    beta : float
        Failure probability in the rank slack and the trimmed universe (0.1 as in the paper).
    pairs_per_group : int
        ``k`` of Algorithm 2.
    radius_universe_kind : {"trimmed", "range"} or float, optional
        ``U``; default ``"trimmed"`` for scaled real data, ``"range"`` otherwise.
    center : {"median", "frequencies", "box"}, optional
        Private coordinate medians (default), the free private frequency vector (binary default),
        or the public box centre (spends nothing).
    regularise_sigma : bool, optional
        Add ``||sigma^||_1 / d``; default True except for the oracle.
    rank_slack_kind : "plan", "error_only" or float
        ``k = sqrt(n) + rank error`` (PLAN), the rank error alone, or ``k`` as given.
    center_step : {"coinpress", "coarse_to_fine", "paper"}
        How the centre is found (``center="median"``): ``"coinpress"`` (default;
        :func:`coinpress_scaled_center`: CoinPress's shrinking ball in the scaled space, run after
        the variances; ``coinpress_spread_share`` of ``rho_center`` for the private l2 spread, the
        rest over the public number of steps), ``"coarse_to_fine"``
        (:func:`coarse_to_fine_median`: two noisy-histogram zooms with half of ``rho_center``, then
        the exponential-mechanism median in the final window with the other half), or the paper's
        exponential mechanism over the whole public range. Both robust steps get the automatic
        centre share. On the paper's wide B/C ranges (``+-50 d sqrt(sigma_max)``) the
        per-coordinate zooms miss where CoinPress does not (docs/estimators/plan.md). With the
        oracle variances ``"coinpress"`` falls back to coarse-to-fine; without scaling
        (``variances="none"``: ``plan_noscale``, ``gaussian_private``) and with
        ``quantile="exponential"`` CoinPress runs on the rows themselves (``s = 1``).
    radius_step : {"log_grid", "paper"}
        How ``C`` is found (``quantile="exponential"``): the exponential mechanism over the public
        log grid ``U 1.002**-k`` on ``[U 1e-9, U]`` (default, :func:`dpcore.quantiles.exponential.log_grid_quantile`,
        rank slack ``sqrt(n) + 2 ln(G / beta) / sqrt(8 rho_radius)``), or the paper's exponential
        mechanism over the gaps of ``[0, U]`` with [R]'s rank slack.
    center_spread : float
        0 (default, honest). A positive value reproduces the authors' code ([R],
        docs/estimators/plan.md §10.10): the centre medians run on the tripled data
        ``{x - c, x, x + c}`` with the centre
        budget as given; one person then moves three points, so the release really costs
        ``9 rho_center`` (group privacy for zCDP, ``k**2 rho``), and the ledger charges that.
    coinpress_spread_share : float
        Share of ``rho_center`` for the private l2 spread of the CoinPress centre (0 takes the spread
        from ``sigma^`` instead, which is itself noisy at large ``d``).
    variance_cap_share : float
        Share of ``rho_variance`` for :func:`variance_cap`, a private bound on every ``sigma_i^2``
        that tops Algorithm 2's search ranges (default 0.1; 0 is the paper's Algorithm 2 alone,
        as in :func:`plan_as_published`). The two parts sum to ``rho_variance`` exactly.

    Returns
    -------
    Estimate
        ``diagnostics``: ``center``, ``scale``, ``clip_radius``, ``clipped`` (rows), ``noise_std``
        (original space), as a :class:`PlanDiagnostics` (``sigma_hat``, ``rank_slack``,
        ``clip_quantile``, ``radius_universe``, ``norms``, ``budgets`` per stage and more; read it
        with ``est.diagnostics_as(PlanDiagnostics)``).

    Privacy
    -------
    Replace-one, ``n`` public; ``rho``-zCDP in total (``rho + 8 rho_center`` with
    ``center_spread > 0``: ``1.5 rho`` at the paper's split).
    Ledger stages, each charged by the mechanisms that draw in it: "centre (coordinate medians)"
    (``rho_center``: medians of sensitivity 1, coarse-to-fine histograms of l2 sensitivity
    ``sqrt(2 d)``, or CoinPress means of l2 sensitivity ``2 R_t / n``; with ``center_spread > 0``
    the tripled data's sensitivity 3, charged ``9 rho_center``), "variances" (``rho_variance``:
    rank utilities of sensitivity 1, or the frequencies' l2 sensitivity ``||hi - lo||_2 / n``),
    "clip radius" (``rho_radius``: rank utility of sensitivity 1 over the ``n`` scaled norms) and
    "noisy sum" (``rho_noise``: l2 sensitivity ``2C`` of the clipped sum). Everything else is
    post-processing of public values and these releases. Public inputs that are NaN or infinite
    are refused before anything is drawn.

    Examples
    --------
    >>> import dataclasses
    >>> from dpcore.estimators.plan import plan, plan_l2
    >>> dataclasses.replace(plan_l2, scale_exponent=0.5).scale_exponent
    0.5
    >>> plan.fixed, plan_l2.fixed
    ((), ('variances', 'p'))
    """

    variances: VarianceMethod = "private"
    p: float = 2.0
    scale_exponent: float | None = None
    budget_split: Mapping[str, float] | None = None
    quantile: QuantileMethod = "exponential"
    steps: int = 20
    beta: float = 0.1
    pairs_per_group: int = 1
    radius_universe_kind: str | float | None = None
    center: str | None = None
    regularise_sigma: bool | None = None
    rank_slack_kind: str | float = "plan"
    center_step: CenterStep = "coinpress"
    radius_step: RadiusStep = "log_grid"
    center_spread: float = 0.0
    coinpress_spread_share: float = 0.1
    variance_cap_share: float = VARIANCE_CAP_SHARE
    name: str = field(default="plan", compare=False)
    fixed: tuple[str, ...] = field(default=("variances",), compare=False)

    call_keywords: ClassVar[tuple[str, ...]] = ("sigma",)

    def signature_keywords(self) -> tuple[str, ...]:
        """``sigma`` (the known standard deviations) is shown for the oracle, and wherever the
        variance method is free (the family default)."""
        free = "variances" not in self.fixed
        return ("sigma",) if self.variances == "oracle" or free else ()

    def run(
        self,
        x: Any,
        *,
        rho: float,
        bounds: Any = None,
        rng: Any = None,
        sigma: Any = None,
        **extra: Any,
    ) -> Estimate:
        """PLAN with these options (:func:`~dpcore.estimators.plan.compose.run_plan`)."""
        return run_plan(x, self, rho=rho, bounds=bounds, sigma=sigma, rng=rng)

    def resolved(self) -> PlanSpec:
        """The spec with every choice checked and every ``None`` default filled in.

        ``center``: frequencies for binary data, else the medians; ``regularise_sigma``: for
        private and binary variances; ``scale_exponent``: 0 without variances, else ``1/(p+2)``;
        ``radius_universe_kind``: ``"trimmed"`` for scaled real data, else ``"range"``.
        """
        v = self.variances
        if v not in ("private", "oracle", "binary", "none"):
            raise ValueError(
                f"variances must be 'private', 'oracle', 'binary' or 'none'; got {v!r}."
            )
        if self.quantile not in ("exponential", "binary_search"):
            raise ValueError(
                f"quantile must be 'exponential' or 'binary_search'; got {self.quantile!r}."
            )
        p = check_positive(self.p, "p")
        beta = check_probability(self.beta, "beta")
        center = self.center or ("frequencies" if v == "binary" else "median")
        if center not in ("median", "frequencies", "box"):
            raise ValueError(f"center must be 'median', 'frequencies' or 'box'; got {center!r}.")
        if center == "frequencies" and v != "binary":
            raise ValueError(
                "center='frequencies' reuses the private frequencies of variances='binary'."
            )
        self._check_steps()
        self._check_public_options()
        e = self.scale_exponent
        if e is None:
            e = 0.0 if v == "none" else default_scale_exponent(p)
        e = float(e)
        if not math.isfinite(e) or e < 0:
            raise ValueError(
                f"scale_exponent must be a finite number >= 0 (0 = no scaling); got {self.scale_exponent!r}."
            )
        universe = self.radius_universe_kind
        if universe is None:
            universe = "trimmed" if v in ("private", "oracle") and e > 0 else "range"
        regularise = self.regularise_sigma
        return dataclasses.replace(
            self,
            p=p,
            beta=beta,
            center=center,
            scale_exponent=e,
            radius_universe_kind=universe,
            regularise_sigma=v in ("private", "binary") if regularise is None else regularise,
            center_spread=float(self.center_spread),
            variance_cap_share=check_probability(
                self.variance_cap_share, "variance_cap_share", open_interval=False
            ),
        )

    def _check_public_options(self) -> None:
        """Each public option of the wrong type or out of range refused with its name
        (:mod:`dpcore._validation`), before anything is drawn."""
        check_fractions(self.budget_split, "budget_split", STAGES)
        if self.regularise_sigma is not None:  # None: the default for the variances
            check_flag(self.regularise_sigma, "regularise_sigma")
        check_option(self.rank_slack_kind, "rank_slack_kind", ("plan", "error_only"), low=0.0)
        if self.radius_universe_kind is not None:
            check_option(
                self.radius_universe_kind,
                "radius_universe_kind",
                ("trimmed", "range"),
                low=0.0,
                open_low=True,
            )
        check_work_param(self.pairs_per_group, "pairs_per_group")
        check_work_param(self.steps, "steps")
        check_real(self.coinpress_spread_share, "coinpress_spread_share", low=0.0, high=1.0)
        check_real(self.variance_cap_share, "variance_cap_share", low=0.0, high=1.0)
        if self.scale_exponent is not None:
            check_real(self.scale_exponent, "scale_exponent", low=0.0, hint="0 = no scaling.")

    def _check_steps(self) -> None:
        if self.center_step not in ("coarse_to_fine", "coinpress", "paper"):
            raise ValueError(
                "center_step must be 'coarse_to_fine', 'coinpress' or 'paper'; "
                f"got {self.center_step!r}."
            )
        if self.radius_step not in ("log_grid", "paper"):
            raise ValueError(
                f"radius_step must be 'log_grid' or 'paper'; got {self.radius_step!r}."
            )
        spread = float(self.center_spread)
        if not math.isfinite(spread) or spread < 0:
            raise ValueError(
                f"center_spread must be a finite number >= 0 (0 = honest); got {self.center_spread!r}."
            )

    @property
    def centre_run(self) -> CentreRun:
        """Which centre runs (of a :meth:`resolved` spec).

        CoinPress runs with the private variances and without scaling when the quantiles are
        exponential (``s = 1``); the oracle keeps the coarse-to-fine medians; the as-published
        tripled data (``center_spread > 0``) and ``center_step="paper"`` use the paper's medians.
        """
        if self.center != "median":
            return "frequencies" if self.center == "frequencies" else "box"
        honest = self.center_spread == 0
        exponential = self.quantile == "exponential"
        if (
            self.center_step == "coinpress"
            and honest
            and (self.variances == "private" or (self.variances == "none" and exponential))
        ):
            return "coinpress"
        if self.center_step in ("coarse_to_fine", "coinpress") and exponential and honest:
            return "coarse_to_fine"
        return "median"

    @property
    def log_grid_radius(self) -> bool:
        """Whether the clip radius is the log-grid exponential mechanism."""
        return self.radius_step == "log_grid" and self.quantile == "exponential"
