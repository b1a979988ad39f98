"""Privacy audit: run an estimator many times, through its public registry entry, on worst-case
neighbouring data sets, and watch the audit turn the two output distributions into a lower bound
on the privacy loss next to the estimator's native claim; multi-stage estimators also show their
stage audits and the calibration check stage by stage. A toggle runs a broken-on-purpose variant.
The numbers come from dpcore.views.privacy_audit (logic in dpcore.audit); figures in
dpcore.figures.audit."""

import streamlit as st

from dpcore.figures.audit import distributions_figure, ratio_figure
from dpcore.figures.risk import tradeoff_figure
from dpcore.views.privacy_audit import (
    CONFIDENCES,
    DRAWS,
    GRID_LABELS,
    VARIANT_LABELS,
    AuditSettings,
    options,
    private_estimators,
    view,
)
from pages._float_lesson import render as float_lesson
from pages._plain import plain_box
from pages._tables import data_table
from pages._ui import chart, settings, simulation_notice, user_errors
from pages._views import cached

s = settings()
st.title("Privacy audit")
st.markdown(
    "A privacy guarantee is a promise about **two neighbouring data sets**: whatever the estimator "
    "releases, no outcome may be more than **eᵋ** times as likely on one as on the other. Here we run "
    "an estimator thousands of times on worst-case pairs **D** and **D′** (rows at the corners of the "
    "box or outside it, several n and d), through the same public entry every other page uses, and "
    "ask the data: how large must ε (or, for a Gaussian release, μ) be to explain what we see? The "
    "answer is a **lower bound** that holds with the stated confidence. Above the estimator's own "
    "claim, the claim is false; below it, this audit found no violation (which is not a proof of "
    "privacy)."
)

LABELS = private_estimators()
NAMES = list(LABELS)
c1, c2, c3 = st.columns([2, 2, 1])
name = (
    c1.selectbox(
        "Estimator",
        NAMES,
        index=NAMES.index("clipped_laplace"),
        key="audit_estimator",
        format_func=lambda k: LABELS[k],
    )
    or "clipped_laplace"
)  # a selectbox with an index always has a value
opts = options(name)
pair_key = (
    c2.selectbox(
        f"Neighbouring pair ({opts.neighbouring})",
        list(opts.pair_labels),
        key="audit_pair",
        format_func=lambda k: opts.pair_labels[k],
    )
    or "worst"
)
draws = c3.select_slider(
    "Draws per data set",
    list(DRAWS),
    value=2000,
    key="audit_draws",
    help="Per data set and per half: the first half picks the event, the second measures it.",
)
c4, c5, c6 = st.columns([1, 2, 1])
broken = c4.toggle(
    "Break it on purpose",
    key="audit_broken",
    help="Run a deliberately broken variant under the same claim and watch the audit catch it.",
)
variant = "honest"
if broken:
    variant = c5.radio(
        "Broken variant",
        opts.variants[1:],
        key="audit_variant",
        format_func=VARIANT_LABELS.get,
        horizontal=True,
    )
confidence = c6.select_slider("Confidence", list(CONFIDENCES), value=0.95, key="audit_conf")
grid = st.radio(
    "Pairs tried",
    list(GRID_LABELS),
    index=1,
    key="audit_grid",
    format_func=GRID_LABELS.get,
    horizontal=True,
    help="The audit picks the pair, statistic and event on a first batch of draws; more pairs "
    "catch more kinds of bug and take longer.",
)

record = AuditSettings(s, name, pair_key, draws, confidence, grid, variant)
with user_errors(), st.spinner("Running the estimator on D and D′ ..."):
    v = cached(view)(record)
r, mu = v.result, v.measure

st.markdown(f"**{v.claim}**")
st.caption(
    f"{v.conversion} The sidebar's data settings do not apply here: the audit builds its own tiny "
    f"worst-case data sets; the seed fixes the draws. Pair used: {r.pair.label} ({r.pair.cell}); "
    f"what was audited: {r.method}."
)
m1, m2, m3 = st.columns(3)
m1.metric(
    f"Claimed {mu}" + (f" at δ = {r.claim.delta:g}" if mu == "ε" else " (Gaussian DP)"),
    f"{r.claim.value:.3f}",
    help=r.claim.describe(),
)
m2.metric(f"Audited {mu}̂ (lower bound, {confidence:.0%})", f"{r.lower:.3f}")
m3.metric("Plug-in estimate of the loss on this event", f"{r.epsilon_point:.3f}")
if r.violated:
    st.error(
        f"Caught: the audit shows, at {confidence:.0%} confidence, a privacy loss of at least "
        f"{mu} = {r.lower:.3f} > the claimed {r.claim.value:.3f}. "
        + (
            "This is the broken-on-purpose variant."
            if variant != "honest"
            else "This estimator does not keep its claim on this pair."
        )
    )
else:
    st.success(
        f"No violation found: the lower bound {mu} = {r.lower:.3f} is at most the claim "
        f"{r.claim.value:.3f}."
    )
plain_box(v.budget, words=v.words)
if v.parts is not None:
    st.markdown(
        "**Audited stage by stage.** On a whole multi-stage estimator the black box has little "
        "power (its private centre, radius or interval move from run to run and hide the noise), "
        "so its final release is also audited alone, with the other stages' outputs fixed to "
        "public values. The headline above is the part with the largest bound over its claim."
    )
    data_table(v.parts, hide_index=True)
st.markdown(
    "**The calibration check, stage by stage** (white box: every noise draw against the noise its "
    "budget charge requires, from one run on a public data set):"
)
st.markdown("\n".join(f"- {line}" for line in v.calibration))
st.caption(v.verdict)

code = record.code()
fig, df = distributions_figure(r)
chart(
    fig,
    df,
    "audit_distributions",
    v.distributions_sentence,
    code + "from dpcore.figures.audit import distributions_figure\n"
    "fig, frame = distributions_figure(r)\n",
)
if v.ratio_sentence is not None:
    fig2, df2 = ratio_figure(r)
    chart(
        fig2,
        df2,
        "audit_ratio",
        v.ratio_sentence,
        code + "from dpcore.figures.audit import ratio_figure\nfig, frame = ratio_figure(r)\n",
    )
if v.points is not None and v.tradeoff_sentence is not None:
    st.markdown(
        "A Gaussian release has no band its log ratio must stay in (the ratio grows without limit "
        "in the tails); its exact guarantee is **μ-Gaussian DP**: telling D from D′ is no easier "
        "than telling N(0, 1) from N(μ, 1). The audit measures how easily it can tell them apart."
    )
    fig3, df3 = tradeoff_figure(mu=r.claim.value, points=v.points, points_label="the audit's tests")
    chart(
        fig3,
        df3,
        "audit_tradeoff",
        v.tradeoff_sentence,
        code + "from dpcore.figures.risk import tradeoff_figure\n"
        "print(v.points)\nfig, frame = tradeoff_figure(\n"
        '    mu=r.claim.value, points=v.points, points_label="the audit\'s tests"\n)\n',
    )
with st.expander("How the bound is computed"):
    st.markdown(
        "1. Reduce every release to one number **T**: its first coordinate, the mean of its "
        "coordinates, or its distance from D's mean (post-processing, so each keeps the guarantee).\n"
        "2. On a first batch of draws, for every pair (rows at the corners or outside the box, several "
        "n and d), try thresholds t and events T > t, T < t (either data set on top) and pick the one "
        "that would give the largest bound over the claim.\n"
        "3. On a **fresh** batch, count how often that one event happens on D and on D′, and take exact "
        "Clopper–Pearson bounds: a lower bound p̲ for the top probability and an upper bound p̄ for the "
        "bottom one (each at half the error rate).\n"
        "4. Pure ε-DP forces P_D(E) ≤ eᵋ P_D′(E), so ε ≥ ln(p̲/p̄) = ε̂ with the stated confidence. "
        "A Gaussian release of ρ-zCDP is exactly μ-Gaussian DP with μ = √(2ρ), which forces "
        "μ ≥ Φ⁻¹(p̲) − Φ⁻¹(p̄) = μ̂. Any other ρ-zCDP claim is checked through the (ε, δ) it implies "
        "(Canonne–Kamath–Steinke)."
    )
    data_table(v.summary)
simulation_notice()
float_lesson(s)
