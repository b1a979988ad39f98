"""Winsorized mean: the private modified winsorized mean (PMWM) on one column, what outliers do
to it and to the clipped mean, and subsample-and-aggregate with it. Spec:
docs/estimators/winsorized.md (developer reference; the page names the paper)."""

import numpy as np
import streamlit as st

from dpcore.estimators.subsample_aggregate import SubsampleDiagnostics
from dpcore.estimators.winsorized import WinsorizedDiagnostics
from dpcore.estimators.winsorized_baselines import ClippedMeanDiagnostics
from dpcore.experiments.plain import release_words
from dpcore.experiments.studies import (
    contaminate,
    contamination_sweep,
    full_statistic,
    sa_error_by_group_size,
)
from dpcore.experiments.studies.winsorized import suggested_group_size
from dpcore.figures.style import plain
from dpcore.figures.winsorized import (
    contamination_figure,
    interval_histogram,
    sa_error_figure,
    sa_strip,
)
from dpcore.glossary import define
from dpcore.registry import get
from pages._plain import plain_box
from pages._pool import SharedCache, call_on, prefetch
from pages._ui import (
    CACHE_TTL,
    chart,
    dataset,
    native_budget,
    settings,
    simulation_notice,
    url_widget,
    user_errors,
    words_on_this_page,
)

s = settings()
st.title("Winsorized mean")
st.markdown(
    "The private modified winsorized mean (**PMWM**): find a private interval **[L̂, Û]** around "
    "the bulk of the data with two *unbounded* private quantile "
    "searches (they walk a geometric grid from the prior range, so the range may be very loose), pull every "
    "point outside it in to its edge, and add noise scaled to the interval's width. Outliers cost a little "
    "bias instead of a wide interval. (Ramsay and Spicker, *Improved subsample-and-aggregate via the private "
    "modified winsorized mean*, 2025.) This page uses the **first column** of the sidebar's data."
)
words_on_this_page("PMWM", "zCDP", "ε (pure DP)", "clipping bias", "sensitivity")

# ---------------------------------------------------------------------------------------------
# local controls

c1, c2, c3, c4 = st.columns(4)
version = url_widget(
    c1.radio,
    "Version",
    ["pure", "zcdp"],
    key="wins_version",
    default="zcdp" if s.unit == "rho" else "pure",
    horizontal=True,
    format_func={"pure": "pure ε (Laplace)", "zcdp": "ρ-zCDP (Gaussian mean)"}.get,
    help="pure ε: " + define("ε (pure DP)") + " ρ-zCDP: " + define("zCDP"),
)
eta = url_widget(
    c2.slider,
    "η: expected share of outliers",
    0.0,
    0.45,
    step=0.01,
    key="wins_eta",
    default=0.10,
    help="Sets the trim level τ, the share of points the interval leaves out on each side: "
    "τ = min(max(c/n, η), max(0.025, η)), which is η itself once η ≥ 0.025.",
)
contam = url_widget(
    c3.slider,
    "Contamination: share of points made outliers",
    0.0,
    0.4,
    step=0.01,
    key="wins_contam",
    default=0.05,
)
shift = url_widget(
    c4.slider,
    "Outlier position (standard deviations to the right)",
    2.0,
    40.0,
    step=1.0,
    key="wins_shift",
    default=10.0,
)
with st.expander("Advanced: the trim floor c and the quantile grid β"):
    c5, c6 = st.columns(2)
    c_trim = url_widget(
        c5.number_input,
        "c: points to trim per side with no outliers",
        0.5,
        500.0,
        step=0.5,
        key="wins_c",
        default=10.0,
        format="%g",
        help="With η = 0 the interval still leaves out c points on each side (τ = c/n).",
    )
    BETAS = [1.0005, 1.001, 1.005, 1.01, 1.05]
    beta = url_widget(
        c6.select_slider,
        "Grid ratio β",
        BETAS,
        key="wins_beta",
        default=1.001,
        valid=BETAS.__contains__,
        help="The quantile walks step over a geometric grid with ratio β: smaller is finer and "
        "needs more steps.",
    )

with user_errors():
    conv = native_budget(s.budget, version)
    budget = conv.value
    data = dataset(s)
    a, b = float(data.bounds[0][0]), float(data.bounds[1][0])
    clean = data.x[:, 0]
    truth = float(data.true_mean[0])
    x = contaminate(clean, contam, shift, rng=s.seed)
unit = "ε" if version == "pure" else "ρ"
#: The registry entries this page runs, by version: PMWM, the clipped mean, S&A with PMWM.
PMWM = {"pure": "pmwm", "zcdp": "pmwm_zcdp"}[version]
CLIPPED = {"pure": "clipped_laplace", "zcdp": "clipped_box_zcdp"}[version]
SA = {"pure": "sa_pmwm", "zcdp": "sa_pmwm_zcdp"}[version]


@st.cache_resource(show_spinner=False)
def _sweeps() -> SharedCache:
    """Finished contamination sweeps keyed on their arguments, shared by all sessions."""
    return SharedCache(16)


# The contamination sweep (both estimators 40 times at 9 levels, most of the page's work) starts
# now on this session's lane of the shared pool, while the script draws the single run above it
# (not in the script thread, on one core).
_sweep_kw = dict(
    shift=float(shift),
    notion=version,
    budget=s.budget,
    bounds=(a, b),
    eta=float(eta),
    c=float(c_trim),
    reps=40,
    rng=int(s.seed),
)
_levels = np.linspace(0, 0.4, 9)
sweep_wait = prefetch(
    _sweeps(),
    (s.distribution, s.n, s.d, s.skew, tuple(sorted(_sweep_kw.items()))),  # the seed is rng
    lambda ex: call_on(ex, contamination_sweep, clean, _levels, **_sweep_kw),
)
st.caption(
    f"Budget: {conv.rule}. Prior range [a, b] = [{a:.4g}, {b:.4g}] (public, loose on purpose). "
    f"n = {x.size:,}; {int(np.floor(contam * x.size))} points moved {shift:g} sd to the right."
)


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _one_run(
    distribution: str,
    n: int,
    d: int,
    skew: float,
    seed: int,
    budget_key: tuple,
    version: str,
    eta: float,
    c: float,
    beta: float,
    contam: float,
    shift: float,
) -> tuple:
    x = contaminate(dataset(s).x[:, 0], contam, shift, rng=seed)
    run = dict(at_implied_level=True, bounds=(a, b))
    est = get(PMWM).run(x, s.budget, rng=seed, eta=eta, c=c, beta=beta, **run)
    base = get(CLIPPED).run(x, s.budget, rng=seed + 1, **run)
    return est, base


budget_key = (s.unit, s.budget_value, s.delta)
with user_errors(), st.spinner("Running the private winsorized mean and the clipped mean…"):
    est, base = _one_run(
        s.distribution,
        s.n,
        s.d,
        s.skew,
        s.seed,
        budget_key,
        version,
        eta,
        c_trim,
        beta,
        contam,
        shift,
    )

dg = est.diagnostics_as(WinsorizedDiagnostics)
L, U = float(dg.clip_interval[0][0]), float(dg.clip_interval[1][0])
fallback = bool(dg.fallback[0])
if fallback:
    st.error(
        "**Fallback fired.** The two private quantiles crossed (L̂ > Û), so PMWM used the prior range "
        f"[{a:.4g}, {b:.4g}] instead: this release is a plain clipped mean with a wide noise scale. "
        "It happens when a quantile walk stops before it reaches the data (small n or budget)."
    )
for w in dg.warnings:
    if not w.startswith("Fallback"):
        st.warning(w)

m1, m2, m3, m4 = st.columns(4)
m1.metric(
    "PMWM estimate",
    f"{est.mean[0]:.4g}",
    f"{est.mean[0] - truth:+.3g} vs the true mean",
    delta_color="off",
    help="The true mean of the distribution the clean data come from (outliers not included).",
)
m2.metric(
    "Clipped mean (public bounds)",
    f"{base.mean[0]:.4g}",
    f"{base.mean[0] - truth:+.3g} vs the true mean",
    delta_color="off",
)
m3.metric(
    "Noise scale",
    f"{dg.noise_scale[0]:.3g}",
    help="Laplace b = (Û − L̂)/(n ε₃)" if version == "pure" else "Gaussian sd = (Û − L̂)/(n √(2ρ₃))",
)
m4.metric(
    "Trim level τ (from η)",
    plain(dg.tau),
    help="The share of points the interval leaves out on each side: "
    f"τ = min(max(c/n, η), max(0.025, η)) = {plain(dg.tau)} here.",
)

fig, df = interval_histogram(x, est, true_mean=truth)
#: notebook code: the data, the budget and the page's column with its outliers
x_code = (
    s.code() + "from dpcore.experiments.studies import contaminate\n"
    f"x = contaminate(data.x[:, 0], {contam!r}, {shift!r}, rng={s.seed})\n"
)
pulled = int((df.status != "kept").sum())
noise_word = "Laplace scale" if version == "pure" else "Gaussian sd"
chart(
    fig,
    df,
    "winsorized_interval",
    f"The private interval is [{L:.3g}, {U:.3g}]; {pulled} of {x.size:,} points ({pulled / x.size:.1%}) were pulled "
    f"in to its edges. The noise added to the mean has {noise_word} {dg.noise_scale[0]:.3g}, against "
    f"{base.diagnostics_as(ClippedMeanDiagnostics).noise_scale[0]:.3g} for the clipped mean over the whole "
    "prior range: PMWM lands "
    f"{abs(est.mean[0] - truth):.3g} from the true mean, the clipped mean {abs(base.mean[0] - truth):.3g}."
    + (" The fallback fired: the interval shown is the prior range." if fallback else ""),
    x_code
    + "from dpcore import registry\nfrom dpcore.figures.winsorized import interval_histogram\n"
    f"est = registry.run({PMWM!r}, x, budget, rng={s.seed}, at_implied_level=True, bounds=({a!r}, {b!r}), "
    f"eta={eta!r}, c={c_trim!r}, beta={beta!r})\n"
    "print(est.diagnostics.clip_interval, est.diagnostics.fallback, est.ledger.by_stage())\n"
    "fig, frame = interval_histogram(x, est, true_mean=float(data.true_mean[0]))\n",
)

releases = {get(PMWM).label: est.mean, get(CLIPPED).label: base.mean}  # the chart's two runs
words = release_words(s.budget, releases, truth, delta=s.delta, what="the mean", rank=False)
plain_box(s.budget, words=words)  # one run each: the errors' range (the sweep below ranks them)
st.caption(
    "Budget spent: "
    + "; ".join(f"{k} {v:.3g}{unit}" for k, v in est.ledger.by_stage().items())
    + f" — total {est.ledger.total():.4g}{unit}."
)

if version == "zcdp":  # the accounting detail, after the chart it concerns
    st.caption(
        "ρ-zCDP version: the two quantile walks run as the pure-ε AboveThreshold walk at ε = √(2ρ_walk) "
        "per coordinate, which is ρ_walk-zCDP because ε-DP implies ε²/2-zCDP (Bun–Steinke), for any walk "
        "length; the mean gets Gaussian noise. The paper's Gaussian walk rests on its Lemma D.1, which "
        "is not proven for long walks, so it is not used here."
    )

# ---------------------------------------------------------------------------------------------
st.subheader("What outliers do")


with user_errors(), st.spinner("Repeating both estimators 40 times at each contamination level…"):
    sweep = sweep_wait()
at = sweep[np.isclose(sweep.contamination, round(contam / 0.05) * 0.05)]
pm = at[at.estimator.str.startswith(f"PMWM (η = {eta:g})")].rmse.iloc[0]
cm = at[at.estimator.str.startswith("clipped")].rmse.iloc[0]
chart(
    contamination_figure(sweep, contam),
    sweep,
    "winsorized_contamination",
    f"With {round(contam / 0.05) * 5:.0f}% of points moved {shift:g} sd to the right, PMWM with η = {eta:g} misses "
    f"the clean data's mean by {pm:.3g} (RMSE over 40 runs) and the clipped mean by {cm:.3g}: the "
    "clipped mean keeps every outlier inside its public range, PMWM pulls them in as long as η "
    "covers their share.",
    s.code() + "import numpy as np\nfrom dpcore.experiments.studies import contamination_sweep\n"
    "from dpcore.figures.winsorized import contamination_figure\n"
    f"sweep = contamination_sweep(data.x[:, 0], np.linspace(0, 0.4, 9), shift={shift!r}, "
    f"notion={version!r}, budget=budget, bounds=({a!r}, {b!r}), eta={eta!r}, c={c_trim!r}, "
    f"reps=40, rng={s.seed})\nfig = contamination_figure(sweep, {contam!r})\n",
)

# ---------------------------------------------------------------------------------------------
st.subheader("Subsample and aggregate")
st.markdown(
    "Split the rows into k groups at random (the split never looks at the data), compute any statistic on each "
    "group, and release the **private winsorized mean of the k group statistics**. One person changes one "
    "group, so the aggregator sees a single swapped value. A statistic that fails on a group gets a fixed value."
)
s1, s2 = st.columns(2)
STATS = ["mean", "median", "variance (MLE)"]
statistic = url_widget(
    s1.radio,
    "Statistic per group",
    STATS,
    horizontal=True,
    key="wins_stat",
    default="mean",
    valid=STATS.__contains__,
)
max_size = max(2, min(500, x.size // 4))
spread = float(b - a)
sa_bounds = (a, b) if statistic != "variance (MLE)" else (0.0, (spread / 2.0) ** 2)


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _sa_curve(
    distribution: str,
    n: int,
    d: int,
    skew: float,
    seed: int,
    version: str,
    budget: float,
    statistic: str,
    contam: float,
    shift: float,
):
    xx = contaminate(dataset(s).x[:, 0], contam, shift, rng=seed)
    sizes = np.unique(np.geomspace(2, max(3, xx.size // 8), 12).astype(int))
    curve = sa_error_by_group_size(
        xx, statistic, sizes, notion=version, budget=s.budget, bounds=sa_bounds, reps=30, rng=seed
    )
    return full_statistic(xx, statistic), curve


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _sa_run(
    distribution: str,
    n: int,
    d: int,
    skew: float,
    seed: int,
    budget_key: tuple,
    version: str,
    statistic: str,
    size: int,
    contam: float,
    shift: float,
):
    xx = contaminate(dataset(s).x[:, 0], contam, shift, rng=seed)
    stat = {"mean": "mean", "median": "median", "variance (MLE)": np.var}[statistic]
    return get(SA).run(
        xx,
        s.budget,
        rng=seed,
        at_implied_level=True,
        bounds=sa_bounds,
        statistic=stat,
        group_size=size,
    )


with user_errors(), st.spinner("Running subsample and aggregate over the group sizes…"):
    full, curve = _sa_curve(
        s.distribution, s.n, s.d, s.skew, s.seed, version, budget, statistic, contam, shift
    )
best_size = suggested_group_size(curve, max_size)  # where the fallback never fired
if max_size > 2:
    size = url_widget(
        s2.slider,
        "Units per group",
        2,
        max_size,
        step=1,
        key="wins_size",
        default=min(max(2, best_size), max_size),
        valid=lambda v: isinstance(v, int) and 2 <= v <= max_size,
    )
else:  # a slider needs min < max: with n <= 11 rows only groups of 2 are possible
    size = 2
    s2.caption(f"Units per group: 2 (with n = {x.size} rows there is no other choice).")
with user_errors(), st.spinner("Running subsample and aggregate…"):
    sa_est = _sa_run(
        s.distribution,
        s.n,
        s.d,
        s.skew,
        s.seed,
        budget_key,
        version,
        statistic,
        size,
        contam,
        shift,
    )
sa_dg = sa_est.diagnostics_as(SubsampleDiagnostics)
theta = sa_dg.group_statistics[:, 0]
k = sa_dg.k
if sa_dg.fallback_count:
    st.error(
        "**Fallback fired in the aggregator**: its private interval was inverted, so the prior range was used."
    )
fig, df = sa_strip(theta, sa_est, full)
chart(
    fig,
    df,
    "winsorized_sa_groups",
    f"{k} groups of {size} rows: the private aggregate is {sa_est.mean[0]:.4g}, the non-private {statistic} of all "
    f"the data is {full:.4g} (difference {sa_est.mean[0] - full:+.3g}). The target here is that non-private "
    "statistic of all the rows, outliers included, not the clean mean above.",
    x_code + "import numpy as np\nfrom dpcore import registry\n"
    "from dpcore.experiments.studies import full_statistic\nfrom dpcore.figures.winsorized import sa_strip\n"
    f"est = registry.run({SA!r}, x, budget, rng={s.seed}, at_implied_level=True, bounds={sa_bounds!r}, "
    f"statistic={'np.var' if statistic == 'variance (MLE)' else repr(statistic)}, group_size={size})\n"
    "theta = est.diagnostics.group_statistics[:, 0]  # one statistic per group\n"
    f"fig, frame = sa_strip(theta, est, full_statistic(x, {statistic!r}))\n",
)
best = curve.loc[curve.rmse.idxmin()]
chart(
    sa_error_figure(curve, size),
    curve,
    "winsorized_sa_error",
    f"Over 30 random splits per size, the error is smallest with groups of {int(best.group_size)} "
    f"({int(best.groups)} groups, RMSE {best.rmse:.3g}). Small groups give biased statistics (try the variance); "
    "too few groups leave the private quantiles too little data"
    + (
        f": from groups of {int(curve[curve.fallbacks > 0].group_size.min())} up, the aggregator fell back to the "
        "prior range in some runs (red crosses)."
        if (curve.fallbacks > 0).any()
        else "."
    ),
    x_code + "from dpcore.experiments.studies import sa_error_by_group_size\n"
    "from dpcore.figures.winsorized import sa_error_figure\n"
    f"curve = sa_error_by_group_size(x, {statistic!r}, {curve.group_size.tolist()}, "
    f"notion={version!r}, budget=budget, bounds={sa_bounds!r}, reps=30, rng={s.seed})\n"
    f"fig = sa_error_figure(curve, {size})\n",
)
simulation_notice()
