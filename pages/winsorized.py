"""Winsorized mean: the private modified winsorized mean (PMWM) on one column, what outliers do
to it and to the clipped mean, and subsample-and-aggregate with it. Spec:
docs/estimators/winsorized.md (developer reference; the page names the paper). The numbers come
from dpcore.views.winsorized."""

import streamlit as st

from dpcore.figures.dict_figure import plain_chart_dict
from dpcore.figures.style import plain
from dpcore.figures.winsorized import (
    contamination_figure,
    interval_histogram,
    sa_error_figure,
    sa_strip,
)
from dpcore.views.winsorized import (
    BETAS,
    CURVE_REPS,
    FIRST_CURVE_REPS,
    FIRST_SWEEP_REPS,
    STATISTICS,
    SWEEP_REPS,
    VERSION_HELP,
    CurveSettings,
    GroupSettings,
    WinsorizedSettings,
    curve_view,
    group_view,
    view,
)
from pages._plain import plain_box
from pages._ui import (
    chart,
    settings,
    simulation_notice,
    url_widget,
    user_errors,
    words_on_this_page,
)
from pages._views import cached

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
    help=VERSION_HELP,
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
    beta = url_widget(
        c6.select_slider,
        "Grid ratio β",
        list(BETAS),
        key="wins_beta",
        default=1.001,
        valid=BETAS.__contains__,
        help="The quantile walks step over a geometric grid with ratio β: smaller is finer and "
        "needs more steps.",
    )

controls = (s, version, eta, contam, shift, c_trim, beta)
# the first view runs the sweeps with fewer repetitions; the button below refines them
full = st.session_state.get("wins_full") == controls
record = WinsorizedSettings(*controls, sweep_reps=SWEEP_REPS if full else FIRST_SWEEP_REPS)
with user_errors(), st.spinner("Running the private winsorized mean and the clipped mean…"):
    v = cached(view)(record)
if v.not_eps_dp:
    st.warning(v.not_eps_dp, icon=":material/warning:")
a, b = v.bounds
st.caption(
    f"Budget: {v.rule}. Prior range [a, b] = [{a:.4g}, {b:.4g}] (public, loose on purpose). "
    f"n = {v.x.size:,}; {v.moved} points moved {shift:g} sd to the right."
)
if v.fallback:
    st.error(
        "**Fallback fired.** The two private quantiles crossed (L̂ > Û), so PMWM used the prior range "
        f"[{a:.4g}, {b:.4g}] instead: this release is a plain clipped mean with a wide noise scale. "
        "It happens when a quantile walk stops before it reaches the data (small n or budget)."
    )
for w in v.warnings:
    st.warning(w)

m1, m2, m3, m4 = st.columns(4)
m1.metric(
    "PMWM estimate",
    f"{v.estimate.mean[0]:.4g}",
    f"{v.estimate.mean[0] - v.truth:+.3g} vs the true mean",
    delta_color="off",
    help="The true mean of the distribution the clean data come from (outliers not included).",
)
m2.metric(
    "Clipped mean (public bounds)",
    f"{v.baseline.mean[0]:.4g}",
    f"{v.baseline.mean[0] - v.truth:+.3g} vs the true mean",
    delta_color="off",
)
m3.metric(
    "Noise scale",
    f"{v.noise_scale:.3g}",
    help="Laplace b = (Û − L̂)/(n ε₃)" if version == "pure" else "Gaussian sd = (Û − L̂)/(n √(2ρ₃))",
)
m4.metric(
    "Trim level τ (from η)",
    plain(v.tau),
    help="The share of points the interval leaves out on each side: "
    f"τ = min(max(c/n, η), max(0.025, η)) = {plain(v.tau)} here.",
)

# plotly's dict, not validated per seed (tests/figures/test_winsorized_dict.py)
fig, df = plain_chart_dict(interval_histogram, v.x, v.estimate, true_mean=v.truth)
chart(
    fig,
    df,
    "winsorized_interval",
    v.interval_sentence,
    record.code()
    + "from dpcore.figures.winsorized import interval_histogram\n"
    + "print(v.estimate.diagnostics.clip_interval, v.estimate.ledger.by_stage())\n"
    + "fig, frame = interval_histogram(v.x, v.estimate, true_mean=v.truth)\n",
)
plain_box(v.budget, words=v.words)  # one run each: the errors' range (the sweep below ranks them)
st.caption(f"Budget spent: {v.spent}.")

if version == "zcdp":  # the accounting detail, after the chart it concerns
    st.caption(
        "ρ-zCDP version: the two quantile walks run as the pure-ε AboveThreshold walk at ε = √(2ρ_walk) "
        "per coordinate, which is ρ_walk-zCDP because ε-DP implies ε²/2-zCDP (Bun–Steinke), for any walk "
        "length; the mean gets Gaussian noise. The paper's Gaussian walk rests on its Lemma D.1, which "
        "is not proven for long walks, so it is not used here."
    )

# ---------------------------------------------------------------------------------------------
st.subheader("What outliers do")
chart(
    plain_chart_dict(contamination_figure, v.sweep, contam),
    v.sweep,
    "winsorized_contamination",
    v.sweep_sentence,
    record.code()
    + "from dpcore.figures.winsorized import contamination_figure\n"
    + f"fig = contamination_figure(v.sweep, {contam!r})\n",
)
if not full:
    st.button(
        f"Refine: {SWEEP_REPS} runs per level here, {CURVE_REPS} splits per group size below",
        key="wins_refine",
        on_click=lambda: st.session_state.update(wins_full=controls),
        help=f"The first view runs {FIRST_SWEEP_REPS} repetitions per contamination level and "
        f"{FIRST_CURVE_REPS} random splits per group size (about a third of the time); this reruns "
        "both with more, for smoother curves.",
    )

# ---------------------------------------------------------------------------------------------
st.subheader("Subsample and aggregate")
st.markdown(
    "Split the rows into k groups at random (the split never looks at the data), compute any statistic on each "
    "group, and release the **private winsorized mean of the k group statistics**. One person changes one "
    "group, so the aggregator sees a single swapped value. A statistic that fails on a group gets a fixed value."
)
s1, s2 = st.columns(2)
statistic = url_widget(
    s1.radio,
    "Statistic per group",
    list(STATISTICS),
    horizontal=True,
    key="wins_stat",
    default="mean",
    valid=STATISTICS.__contains__,
)
curve_record = CurveSettings(record, statistic, CURVE_REPS if full else FIRST_CURVE_REPS)
with user_errors(), st.spinner("Running subsample and aggregate over the group sizes…"):
    cv = cached(curve_view)(curve_record)
largest = cv.largest_group
if largest > 2:
    size = url_widget(
        s2.slider,
        "Units per group",
        2,
        largest,
        step=1,
        key="wins_size",
        default=cv.suggested_group,  # the best size where the fallback never fired
        valid=lambda n: isinstance(n, int) and 2 <= n <= largest,
    )
else:  # a slider needs min < max: with n <= 11 rows only groups of 2 are possible
    size = 2
    s2.caption(f"Units per group: 2 (with n = {v.x.size} rows there is no other choice).")
group_record = GroupSettings(curve_record, size)
with user_errors(), st.spinner("Running subsample and aggregate…"):
    g = cached(group_view)(group_record)
if g.fallback:
    st.error(
        "**Fallback fired in the aggregator**: its private interval was inverted, so the prior range was used."
    )
fig, df = plain_chart_dict(sa_strip, g.theta, g.estimate, g.full)
chart(
    fig,
    df,
    "winsorized_sa_groups",
    g.groups_sentence,
    group_record.code()
    + "from dpcore.figures.winsorized import sa_strip\n"
    + "fig, frame = sa_strip(g.theta, g.estimate, g.full)\n",
)
chart(
    plain_chart_dict(sa_error_figure, cv.curve, size),
    cv.curve,
    "winsorized_sa_error",
    cv.sentence,
    curve_record.code()
    + "from dpcore.figures.winsorized import sa_error_figure\n"
    + f"fig = sa_error_figure(c.curve, {size})\n",
)
simulation_notice()
