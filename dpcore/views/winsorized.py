"""The Winsorized mean page's view: PMWM and the clipped mean on one contaminated column, the
contamination sweep, and subsample-and-aggregate with PMWM.

Two records, because the page's group-size slider starts where the group-size curve says: the
page's :func:`view` gives the single run, both sweeps and the suggested group size;
:func:`group_view` gives the subsample-and-aggregate run at the group size the visitor picked.
Streams (:mod:`dpcore.streams`): ``"data"``, ``"contaminate"``, ``"noise:<estimator>"`` for each
single run, ``"study:contamination"`` and ``"study:group_size"`` for the two sweeps.

References: ``docs/estimators/winsorized.md`` (the estimator), ``docs/architecture.md`` (Data
flow).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from dpcore.estimate import Estimate
from dpcore.estimators.subsample_aggregate import SubsampleDiagnostics
from dpcore.estimators.winsorized import WinsorizedDiagnostics
from dpcore.estimators.winsorized_baselines import ClippedMeanDiagnostics
from dpcore.experiments.plain import PlainWords, release_words
from dpcore.experiments.studies.winsorized import (
    Statistic,
    contaminate,
    contamination_sweep,
    full_statistic,
    sa_error_by_group_size,
    suggested_group_size,
)
from dpcore.glossary import define
from dpcore.privacy import Budget
from dpcore.registry import get
from dpcore.views._snippet import view_call
from dpcore.views.settings import DataSettings, dataset

__all__ = [
    "BETAS",
    "STATISTICS",
    "VERSION_HELP",
    "CurveSettings",
    "CurveView",
    "GroupSettings",
    "GroupView",
    "WinsorizedSettings",
    "WinsorizedView",
    "curve_view",
    "group_view",
    "view",
]

#: the grid ratios the page offers
BETAS = (1.0005, 1.001, 1.005, 1.01, 1.05)
#: the statistics subsample-and-aggregate can compute per group
STATISTICS: tuple[Statistic, ...] = ("mean", "median", "variance (MLE)")
#: the help of the page's version control
VERSION_HELP = "pure ε: " + define("ε (pure DP)") + " ρ-zCDP: " + define("zCDP")
#: the contamination levels of the sweep, and its repetitions per level
LEVELS = tuple(float(v) for v in np.linspace(0, 0.4, 9))
SWEEP_REPS = 40
#: repetitions per group size of the subsample-and-aggregate curve
CURVE_REPS = 30
#: the page's first view: fewer repetitions (about a third of the CPU), refined to SWEEP_REPS and
#: CURVE_REPS on request. Over 20 seeds at the defaults, PMWM (η) stays below the clipped mean at
#: every level up to η, as with the full counts; single RMSEs move by up to a factor 2
#: (docs/speed.md, "Page first views")
FIRST_SWEEP_REPS = 12
FIRST_CURVE_REPS = 10
#: the registry entries the page runs, by version: PMWM, the clipped mean, S&A with PMWM
PMWM = {"pure": "pmwm", "zcdp": "pmwm_zcdp"}
CLIPPED = {"pure": "clipped_laplace", "zcdp": "clipped_box_zcdp"}
SA = {"pure": "sa_pmwm", "zcdp": "sa_pmwm_zcdp"}


@dataclass(frozen=True)
class WinsorizedSettings:
    """The sidebar's data and the page's controls (the page's cache key)."""

    data: DataSettings = field(default_factory=DataSettings)
    version: Literal["pure", "zcdp"] = "zcdp"
    eta: float = 0.10
    contamination: float = 0.05
    shift: float = 10.0
    c: float = 10.0
    beta: float = 1.001
    #: repetitions per level of the contamination sweep
    sweep_reps: int = SWEEP_REPS

    def code(self) -> str:
        """The notebook lines that rebuild this view as ``v``."""
        return view_call(self)


@dataclass(frozen=True)
class WinsorizedView:
    """Everything the page shows above the group-size slider."""

    settings: WinsorizedSettings
    budget: Budget
    rule: str
    not_eps_dp: str | None
    unit: str
    bounds: tuple[float, float]
    x: np.ndarray
    moved: int
    truth: float
    estimate: Estimate
    baseline: Estimate
    fallback: bool
    warnings: tuple[str, ...]
    noise_scale: float
    tau: float
    interval_sentence: str
    words: PlainWords
    spent: str
    sweep: pd.DataFrame
    sweep_sentence: str

    @property
    def code(self) -> str:
        return self.settings.code()


def _conversion(budget: Budget, version: str) -> tuple[float, str, str | None]:
    """The budget in ``version``'s unit, its rule, and the "Not ε-DP" note of a zCDP version run
    under a pure ε budget (at the ρ it implies)."""
    if version == "zcdp":
        conv = budget.implied_zcdp()
        note = (
            None
            if conv.meets_budget
            else f"**Not ε-DP.** A zCDP estimator cannot meet a pure ε budget. {conv.rule} Switch "
            "the sidebar budget to ρ or (ε, δ) for a guarantee it does meet."
        )
        return conv.value, conv.rule, note
    conv = budget.to_native("pure")
    return conv.value, conv.rule, None


def _column(s: WinsorizedSettings) -> tuple[np.ndarray, np.ndarray, tuple[float, float], float]:
    """The page's column: clean, with its outliers (stream ``"contaminate"``), the prior range
    and the true mean."""
    data = dataset(s.data)
    bounds = (float(data.bounds[0][0]), float(data.bounds[1][0]))
    clean = data.x[:, 0]
    rng = s.data.streams.rng("contaminate")
    return (
        clean,
        contaminate(clean, s.contamination, s.shift, rng=rng),
        bounds,
        float(data.true_mean[0]),
    )


def _sa_bounds(bounds: tuple[float, float], statistic: str) -> tuple[float, float]:
    """The public range of the group statistics: the data's, or [0, (spread/2)²] for a variance."""
    a, b = bounds
    return (a, b) if statistic != "variance (MLE)" else (0.0, ((b - a) / 2.0) ** 2)


def _interval_sentence(
    x: np.ndarray, est: Estimate, base: Estimate, truth: float, version: str
) -> str:
    dg = est.diagnostics_as(WinsorizedDiagnostics)
    assert dg.clip_interval is not None  # every winsorized estimate records it
    lo, hi = float(dg.clip_interval[0][0]), float(dg.clip_interval[1][0])
    pulled = int(((x < lo) | (x > hi)).sum())  # the histogram's "pulled" points
    noise_word = "Laplace scale" if version == "pure" else "Gaussian sd"
    base_scale = base.diagnostics_as(ClippedMeanDiagnostics).noise_scale[0]
    return (
        f"The private interval is [{lo:.3g}, {hi:.3g}]; {pulled} of {x.size:,} points "
        f"({pulled / x.size:.1%}) were pulled in to its edges. The noise added to the mean has "
        f"{noise_word} {dg.noise_scale[0]:.3g}, against {base_scale:.3g} for the clipped mean over "
        "the whole prior range: PMWM lands "
        f"{abs(est.mean[0] - truth):.3g} from the true mean, the clipped mean "
        f"{abs(base.mean[0] - truth):.3g}."
        + (" The fallback fired: the interval shown is the prior range." if dg.fallback[0] else "")
    )


def _sweep_sentence(sweep: pd.DataFrame, s: WinsorizedSettings) -> str:
    level = round(s.contamination / 0.05) * 0.05
    at = sweep[np.isclose(sweep.contamination, level)]
    pm = at[at.estimator.str.startswith(f"PMWM (η = {s.eta:g})")].rmse.iloc[0]
    cm = at[at.estimator.str.startswith("clipped")].rmse.iloc[0]
    return (
        f"With {level * 100:.0f}% of points moved {s.shift:g} sd to the right, PMWM with "
        f"η = {s.eta:g} misses the clean data's mean by {pm:.3g} (RMSE over {s.sweep_reps} runs) and "
        f"the clipped mean by {cm:.3g}: the clipped mean keeps every outlier inside its public "
        "range, PMWM pulls them in as long as η covers their share."
    )


def view(s: WinsorizedSettings) -> WinsorizedView:
    """The page's single runs, both sweeps and the suggested group size at ``s``.

    Raises ``ValueError`` (naming the fix) for an impossible budget or control.
    """
    budget = s.data.checked()
    _, rule, note = _conversion(budget, s.version)
    streams = s.data.streams
    clean, x, (a, b), truth = _column(s)
    pmwm, clipped = PMWM[s.version], CLIPPED[s.version]
    est = get(pmwm).run(
        x,
        budget,
        rng=streams.rng(f"noise:{pmwm}"),
        at_implied_level=True,
        bounds=(a, b),
        eta=s.eta,
        c=s.c,
        beta=s.beta,
    )
    base = get(clipped).run(
        x, budget, rng=streams.rng(f"noise:{clipped}"), at_implied_level=True, bounds=(a, b)
    )
    dg = est.diagnostics_as(WinsorizedDiagnostics)
    unit = "ε" if s.version == "pure" else "ρ"
    sweep = contamination_sweep(
        clean,
        np.asarray(LEVELS),
        shift=float(s.shift),
        notion=s.version,
        budget=budget,
        bounds=(a, b),
        eta=float(s.eta),
        c=float(s.c),
        reps=int(s.sweep_reps),
        rng=streams.seq("study:contamination"),
    )
    releases = {get(pmwm).label: est.mean, get(clipped).label: base.mean}
    return WinsorizedView(
        settings=s,
        budget=budget,
        rule=rule,
        not_eps_dp=note,
        unit=unit,
        bounds=(a, b),
        x=x,
        moved=int(math.floor(s.contamination * x.size)),
        truth=truth,
        estimate=est,
        baseline=base,
        fallback=bool(dg.fallback[0]),
        warnings=tuple(w for w in dg.warnings if not w.startswith("Fallback")),
        noise_scale=float(dg.noise_scale[0]),
        tau=float(dg.tau),
        interval_sentence=_interval_sentence(x, est, base, truth, s.version),
        words=release_words(
            budget, releases, truth, delta=s.data.delta, what="the mean", rank=False
        ),
        spent="; ".join(f"{k} {v:.3g}{unit}" for k, v in est.ledger.by_stage().items())
        + f" — total {est.ledger.total():.4g}{unit}",
        sweep=sweep,
        sweep_sentence=_sweep_sentence(sweep, s),
    )


@dataclass(frozen=True)
class CurveSettings:
    """The page's settings and the statistic subsample-and-aggregate computes per group."""

    page: WinsorizedSettings = field(default_factory=WinsorizedSettings)
    statistic: Statistic = "mean"
    #: random splits per group size
    reps: int = CURVE_REPS

    def code(self) -> str:
        """The notebook lines that rebuild this view as ``c``."""
        return view_call(self, name="c", function="curve_view")


@dataclass(frozen=True)
class CurveView:
    """The error of subsample-and-aggregate against the group size, and where to start."""

    settings: CurveSettings
    curve: pd.DataFrame
    sentence: str
    largest_group: int
    suggested_group: int


def _curve_sentence(curve: pd.DataFrame, reps: int) -> str:
    best = curve.loc[curve.rmse.idxmin()]
    fell = curve[curve.fallbacks > 0]
    return (
        f"Over {reps} random splits per size, the error is smallest with groups of "
        f"{int(best.group_size)} ({int(best.groups)} groups, RMSE {best.rmse:.3g}). Small groups "
        "give biased statistics (try the variance); too few groups leave the private quantiles "
        "too little data"
        + (
            f": from groups of {int(fell.group_size.min())} up, the aggregator fell back to the "
            "prior range in some runs (red crosses)."
            if len(fell)
            else "."
        )
    )


def curve_view(c: CurveSettings) -> CurveView:
    """RMSE of subsample-and-aggregate (PMWM aggregator) per group size, over random splits from
    the stream ``"study:group_size"``, and the group size the page's slider starts at."""
    s = c.page
    _, x, bounds, _ = _column(s)
    largest = max(2, min(500, x.size // 4))
    sizes = np.unique(np.geomspace(2, max(3, x.size // 8), 12).astype(int))
    curve = sa_error_by_group_size(
        x,
        c.statistic,
        sizes,
        notion=s.version,
        budget=s.data.checked(),
        bounds=_sa_bounds(bounds, c.statistic),
        reps=int(c.reps),
        rng=s.data.streams.seq("study:group_size"),
    )
    return CurveView(
        settings=c,
        curve=curve,
        sentence=_curve_sentence(curve, int(c.reps)),
        largest_group=largest,
        suggested_group=min(max(2, suggested_group_size(curve, largest)), largest),
    )


@dataclass(frozen=True)
class GroupSettings:
    """The page's settings and the group size picked on its slider."""

    curve: CurveSettings = field(default_factory=CurveSettings)
    group_size: int = 2

    def code(self) -> str:
        """The notebook lines that rebuild this view as ``g``."""
        return view_call(self, name="g", function="group_view")


@dataclass(frozen=True)
class GroupView:
    """Subsample-and-aggregate with PMWM at one group size."""

    settings: GroupSettings
    x: np.ndarray
    estimate: Estimate
    theta: np.ndarray
    groups: int
    fallback: bool
    full: float
    groups_sentence: str


def group_view(g: GroupSettings) -> GroupView:
    """Subsample-and-aggregate with PMWM on the page's column, ``g.group_size`` rows per group."""
    s, statistic = g.curve.page, g.curve.statistic
    budget = s.data.checked()
    streams = s.data.streams
    _, x, bounds, _ = _column(s)
    sa_bounds = _sa_bounds(bounds, statistic)
    sa = SA[s.version]
    stat = {"mean": "mean", "median": "median", "variance (MLE)": np.var}[statistic]
    est = get(sa).run(
        x,
        budget,
        rng=streams.rng(f"noise:{sa}"),
        at_implied_level=True,
        bounds=sa_bounds,
        statistic=stat,
        group_size=int(g.group_size),
    )
    dg = est.diagnostics_as(SubsampleDiagnostics)
    full = full_statistic(x, statistic)
    return GroupView(
        settings=g,
        x=x,
        estimate=est,
        theta=dg.group_statistics[:, 0],
        groups=int(dg.k),
        fallback=bool(dg.fallback_count),
        full=full,
        groups_sentence=f"{dg.k} groups of {g.group_size} rows: the private aggregate is "
        f"{est.mean[0]:.4g}, the non-private {statistic} of all the data is {full:.4g} "
        f"(difference {est.mean[0] - full:+.3g}). The target here is that non-private statistic "
        "of all the rows, outliers included, not the clean mean above.",
    )
