"""The Binary product page's view: one dataset at the sidebar's seed (PureDPPDE, naive Laplace and
one-radius truncated Laplace against the true ``p``), and the TV sweeps against ``n`` and ``d``.

Streams: the single run's (:func:`dpcore.experiments.studies.binary_single_run`:
``"sample:profile"``, ``"data"``, ``"noise:<estimator>"``, ``"sample:tv"``) come from the sidebar's
seed. The sweeps study the estimators, not the visitor's dataset: they draw from the streams
``"study:tv_n"`` and ``"study:tv_d"`` of :data:`STUDY_SEED`, the same for every visitor, and are
kept (:func:`_sweep`) across seeds.

References: ``docs/estimators/binary-product.md`` §6 (the page), ``docs/architecture.md`` (Data
flow).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpcore.data.binary import PROFILES, profile
from dpcore.estimators.binary_product import HEAVY_SUBSTITUTE_LABEL, BinaryProductDiagnostics
from dpcore.experiments.plain import PlainWords, choice_words
from dpcore.experiments.studies.binary_product import binary_single_run, simulate_tv
from dpcore.figures.binary_product import ladder_frame, sweep_winners, tv_headline, tv_summary
from dpcore.privacy import Budget
from dpcore.streams import Streams
from dpcore.theory.binary_product import (
    SEPARATION_BETA,
    SEPARATION_WARN,
    naive_dense,
    naive_sparse,
    nonprivate_dense,
    separation_light,
)
from dpcore.views._snippet import view_call
from dpcore.views.settings import DataSettings

__all__ = [
    "D_CHOICES",
    "HEAVY_SUBSTITUTE_LABEL",
    "NNZ_CAP",
    "N_CHOICES",
    "PROFILES",
    "ROUND_NOTE",
    "STUDY_SEED",
    "BinaryProductSettings",
    "BinaryProductView",
    "view",
]

#: the page's own choices of d and n (the estimator needs large n/d to show its effect)
D_CHOICES = (16, 32, 64, 128, 256, 512, 1024)
N_CHOICES = (10_000, 30_000, 100_000, 300_000, 1_000_000)
#: the estimators of the sweeps
ESTIMATORS = ("binary_pde", "binary_naive_laplace", "binary_truncated_laplace")
#: each simulated dataset of a sweep holds at most about this many ones (an interactive page)
NNZ_CAP = 3_000_000
#: the sweeps' seed: a study of the estimators, shared by every visitor
STUDY_SEED = 0
#: the d-sweep's rows per bit
RATIO_ND = 1200
TV_LABELS = {
    "pde": "PureDPPDE (practical)",
    "naive": "naive Laplace",
    "truncated": "one-radius truncated Laplace",
    "empirical": "non-private mean",
}
LIGHTS = {"green": "ok", "amber": "marginal", "red": "too low"}
#: what the round table's columns are
ROUND_NOTE = (
    "One row per sorting round: uᵣ (cap), τᵣ (threshold), |Sᵣ| (coordinates still in play), clip "
    "radius B, Laplace scale b, coordinates promoted, rows m. Separation τᵣ/b: the analysis wants "
    f'≳ 16 ln(dR/β) with β = {SEPARATION_BETA:g} ("ok"); below {SEPARATION_WARN:g} ("too low") '
    "many tiny pⱼ get promoted by noise alone."
)


@dataclass(frozen=True)
class BinaryProductSettings:
    """The sidebar's budget and seed (``data``) and the page's own data model."""

    data: DataSettings = field(default_factory=DataSettings)
    profile: str = "skewed"
    d: int = 512
    n: int = 300_000
    flip: bool = False

    def code(self) -> str:
        """The notebook lines that rebuild this view as ``v``."""
        return view_call(self)


@dataclass(frozen=True)
class BinaryProductView:
    """Everything the page shows."""

    settings: BinaryProductSettings
    budget: Budget
    epsilon: float
    rule: str
    tv: dict[str, float]
    headline: str
    flip_warning: bool
    ladder: pd.DataFrame
    rounds: tuple[dict[str, Any], ...]
    ladder_sentence: str
    words: PlainWords
    round_table: pd.DataFrame
    stage_table: pd.DataFrame
    ledger: pd.DataFrame
    n_grid: tuple[int, ...]
    d_grid: tuple[int, ...]
    sweep_n: pd.DataFrame
    curves_n: dict[str, tuple[np.ndarray, np.ndarray]]
    title_n: str
    words_n: str
    sweep_d: pd.DataFrame
    title_d: str
    words_d: str


def _affordable(name: str, n: int, d: int) -> bool:
    p = profile(name, d, rng=Streams(STUDY_SEED).rng("study:grid"))
    return n * float(p.sum()) <= NNZ_CAP


def grids(name: str, d: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The n values of the n-sweep (at ``d``) and the d values of the d-sweep (n = 1200 d) that
    stay under :data:`NNZ_CAP` ones per dataset (two small points when none does)."""
    n_grid = tuple(nn for nn in N_CHOICES if _affordable(name, nn, d))
    d_grid = tuple(dd for dd in (32, 64, 128, 256, 512) if _affordable(name, RATIO_ND * dd, dd))
    return (n_grid if len(n_grid) > 1 else (10_000, 30_000)), (
        d_grid if len(d_grid) > 1 else (16, 32)
    )


@functools.lru_cache(maxsize=32)
def _sweep(
    name: str, grid: tuple[tuple[int, int], ...], epsilon: float, flip: bool, stream: str
) -> pd.DataFrame:
    """The TV sweep over ``grid`` (mean of 2 repetitions), kept across seeds and visitors."""
    records = simulate_tv(
        name,
        list(grid),
        Budget.pure(epsilon),
        seeds=2,
        estimators=ESTIMATORS,
        rng=Streams(STUDY_SEED).seq(stream),
        flip=flip,
    )
    return pd.DataFrame(records)


@dataclass(frozen=True)
class _Sweeps:
    """The TV sweeps' part of the view: a function of the study's public settings only."""

    n_grid: tuple[int, ...]
    d_grid: tuple[int, ...]
    sweep_n: pd.DataFrame
    curves_n: dict[str, tuple[np.ndarray, np.ndarray]]
    words_n: str
    sweep_d: pd.DataFrame
    words_d: str


@functools.lru_cache(maxsize=32)
def _sweeps(name: str, d: int, eps: float, flip: bool) -> _Sweeps:
    """Both sweeps' summaries, theory curves and words at the study's settings, kept across seeds
    and visitors as :func:`_sweep` keeps the runs (the summaries' pandas work cost every new seed
    about as much as the ladder's chart). Never changed by a view."""
    n_grid, d_grid = grids(name, d)
    raw_n = _sweep(name, tuple((nn, d) for nn in n_grid), eps, flip, "study:tv_n")
    raw_d = _sweep(name, tuple((RATIO_ND * dd, dd) for dd in d_grid), eps, flip, "study:tv_d")
    sum_n, sum_d = (
        tv_summary(raw_n.to_dict("records"), "n"),
        tv_summary(raw_d.to_dict("records"), "d"),
    )
    ns = np.geomspace(n_grid[0], n_grid[-1], 40)
    return _Sweeps(
        n_grid=n_grid,
        d_grid=d_grid,
        sweep_n=sum_n,
        curves_n={
            "naive, sparse theory d²/(2εn)": (ns, naive_sparse(ns, d, eps)),
            "naive, dense theory (p ≡ ½)": (ns, naive_dense(ns, d, eps)),
            "non-private, dense 0.4√(d/n)": (ns, nonprivate_dense(ns, d)),
        },
        words_n=sweep_winners(sum_n, "n"),
        sweep_d=sum_d,
        words_d=_d_words(sum_d, d_grid),
    )


def _ladder_sentence(ladder: pd.DataFrame, ex: BinaryProductDiagnostics) -> str:
    final = ladder["group"].to_numpy() == "final"  # NumPy, not a pandas groupby (per seed)
    noise = ladder["noise_std_pde"].to_numpy()[final]
    light_txt = (
        f"The {int(final.sum())} light coordinates share noise std "
        f"{float(np.nanmedian(noise)):.2g}, "
        if final.any()
        else "No coordinate reached the final round; "
    )
    return (
        f"{light_txt}against {ladder['noise_std_naive'].iloc[0]:.2g} for naive Laplace in every "
        f"coordinate. {int((ex.group > 0).sum())} coordinates were promoted into "
        f"{len(ex.buckets)} heavy buckets over {len(ex.rounds)} sorting rounds; bucket Tᵣ gets "
        "noise ∝ √uᵣ (uᵣ = 2⁻ʳ), so the heavier the bucket, the more noise it can afford."
    )


def _round_table(ex: BinaryProductDiagnostics, d: int) -> pd.DataFrame:
    """One row per sorting round, with the separation's traffic light."""
    hidden = ("coords", "noiseless", "noisy")
    rt = pd.DataFrame([{k: v for k, v in r.items() if k not in hidden} for r in ex.rounds])
    if len(rt):
        lights = separation_light(rt["separation"], int(d), int(ex.R))
        rt["traffic light"] = [LIGHTS[light] for light in lights]
    return rt


def _d_words(summary: pd.DataFrame, d_grid: tuple[int, ...]) -> str:
    piv = summary.pivot(index="d", columns="estimator", values="tv_mean")
    naive, pde = piv["binary_naive_laplace"], piv["binary_pde"]
    return (
        f"At fixed n/d = {RATIO_ND:,}, naive Laplace's TV goes from {naive.iloc[0]:.3f} to "
        f"{naive.iloc[-1]:.3f} as d grows, PureDPPDE's from {pde.iloc[0]:.3f} to "
        f"{pde.iloc[-1]:.3f}; naive/PureDPPDE ratio at d = {d_grid[-1]}: "
        f"{(naive / pde).iloc[-1]:.1f}. " + sweep_winners(summary, "d")
    )


def view(s: BinaryProductSettings) -> BinaryProductView:
    """The single run at the sidebar's seed and both TV sweeps at ``s``.

    Raises ``ValueError`` (naming the fix) when the budget has no pure ε or the data are too
    small for the estimator.
    """
    budget = s.data.checked()
    conv = budget.to_native("pure")
    eps, d = conv.value, int(s.d)
    res = binary_single_run(s.profile, d, int(s.n), budget, s.data.streams, bool(s.flip))
    p, pde, naive, tv = res["p"], res["pde"], res["naive"], res["tv"]
    ex = pde.diagnostics_as(BinaryProductDiagnostics)
    ladder = ladder_frame(p, pde, naive)
    sw = _sweeps(s.profile, d, eps, bool(s.flip))
    private = {TV_LABELS[k]: [tv[k]] for k in ("pde", "naive", "truncated")}
    return BinaryProductView(
        settings=s,
        budget=budget,
        epsilon=eps,
        rule=conv.rule,
        tv=dict(tv),
        headline=tv_headline(tv, TV_LABELS),
        flip_warning=bool(np.any(p > 0.5)) and not s.flip,
        ladder=ladder,
        rounds=tuple(ex.rounds),
        ladder_sentence=_ladder_sentence(ladder, ex),
        words=choice_words(
            budget,
            private,
            delta=s.data.delta,
            what=f"the {d} bit frequencies",
            distance=" (total variation, 0 to 1)",
        ),
        round_table=_round_table(ex, d),
        stage_table=pd.DataFrame([dict(stage) for stage in ex.stages]),
        ledger=pd.DataFrame(pde.ledger.to_records()),
        n_grid=sw.n_grid,
        d_grid=sw.d_grid,
        sweep_n=sw.sweep_n,
        curves_n=sw.curves_n,
        title_n=f"TV against n (d = {d}, ε = {eps:g}, profile {s.profile}; mean ± sd of 2 "
        f"repetitions, study seed {STUDY_SEED})",
        words_n=sw.words_n,
        sweep_d=sw.sweep_d,
        title_d=f"TV against d at n = {RATIO_ND}·d (ε = {eps:g}, profile {s.profile})",
        words_d=sw.words_d,
    )
