"""Privacy audit: run an estimator many times, through its public registry entry, on worst-case
neighbouring data sets, and watch the audit turn the two output distributions into a lower bound
on the privacy loss next to the estimator's native claim; multi-stage estimators also show their
stage audits and the calibration check stage by stage. A toggle runs a broken-on-purpose variant.
Logic in dpcore.audit; figures in dpcore.figures.audit."""

import pandas as pd
import streamlit as st

from dpcore import registry
from dpcore.audit import VARIANT_LABELS, audit, calibration, pairs_for, variants_for
from dpcore.audit.explain import calibration_lines, calibration_verdict, claim_lines, parts_table
from dpcore.audit.neighbours import audit_dimension, is_binary
from dpcore.experiments.plain import audit_words
from dpcore.figures.audit import clearly_outside, distributions_figure, ratio_figure
from dpcore.figures.risk import audit_points, tradeoff_figure
from dpcore.privacy import Budget
from pages._float_lesson import render as float_lesson
from pages._plain import plain_box
from pages._ui import chart, settings, simulation_notice, user_errors

s = settings()
st.title("Privacy audit")
st.markdown(
    "A privacy guarantee is a promise about **two neighbouring data sets**: whatever the estimator "
    "releases, no outcome may be more than **e^ε** times as likely on one as on the other. Here we run "
    "an estimator thousands of times on worst-case pairs **D** and **D′** (rows at the corners of the "
    "box or outside it, several n and d), through the same public entry every other page uses, and "
    "ask the data: how large must ε (or, for a Gaussian release, μ) be to explain what we see? The "
    "answer is a **lower bound** that holds with the stated confidence. Above the estimator's own "
    "claim, the claim is false; below it, this audit found no violation (which is not a proof of "
    "privacy)."
)

PRIVATE = [spec for spec in registry.all_estimators() if spec.notion != "none"]
NAMES = [spec.name for spec in PRIVATE]
c1, c2, c3 = st.columns([2, 2, 1])
name = c1.selectbox(
    "Estimator",
    NAMES,
    index=NAMES.index("clipped_laplace"),
    key="audit_estimator",
    format_func=lambda k: registry.get(k).label,
)
spec = registry.get(name)
pairs = pairs_for(spec.neighbouring, n=2, d=audit_dimension(spec), outside=not is_binary(spec))
pair_keys = ["worst"] + [p.key for p in pairs]
pair_labels = {
    "worst": "let the audit pick the worst pair",
    **{
        p.key: p.label.replace("2 rows", "n rows").split(" in d = ")[0]
        + ", "
        + p.label.split("; ", 1)[1]
        for p in pairs
    },
}
pair_key = c2.selectbox(
    f"Neighbouring pair ({spec.neighbouring})",
    pair_keys,
    key="audit_pair",
    format_func=pair_labels.get,
)
draws = c3.select_slider(
    "Draws per data set",
    [500, 1000, 2000, 5000],
    value=2000,
    key="audit_draws",
    help="Per data set and per half: the first half picks the event, the second measures it.",
)
variants = variants_for(name)
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
        variants[1:],
        key="audit_variant",
        format_func=VARIANT_LABELS.get,
        horizontal=True,
    )
confidence = c6.select_slider("Confidence", [0.9, 0.95, 0.99], value=0.95, key="audit_conf")
GRID_LABELS = {
    "quick": "one cell (smallest n, d = 1)",
    "small": "n up to 20, d = 1 and 4",
    "default": "the full grid: n up to 200, d up to 16, two boxes",
}
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


@st.cache_data(show_spinner="Running the estimator on D and D′ ...", max_entries=32)
def _audit(
    name: str,
    unit: str,
    value: float,
    delta: float,
    variant: str,
    pair_key: str,
    draws: int,
    confidence: float,
    grid: str,
    seed: int,
):
    budget = Budget.from_unit(unit, value, delta)
    keys = None if pair_key == "worst" else [pair_key]
    return audit(
        name,
        budget,
        variant=variant,
        draws=draws,
        confidence=confidence,
        pair_keys=keys,
        grid=grid,
        calibrate=False,
        rng=seed,
    )


@st.cache_data(show_spinner=False, max_entries=32)
def _calibration(name: str, unit: str, value: float, delta: float):
    return calibration(name, Budget.from_unit(unit, value, delta))


with user_errors():
    budget = s.budget
    r = _audit(
        name, s.unit, s.budget_value, s.delta, variant, pair_key, draws, confidence, grid, s.seed
    )
    cal = _calibration(name, s.unit, s.budget_value, s.delta)

first, second = claim_lines(spec, budget, r)
st.markdown(f"**{first}**")
st.caption(
    f"{second} The sidebar's data settings do not apply here: the audit builds its own tiny "
    f"worst-case data sets; the seed fixes the draws. Pair used: {r.pair.label} ({r.pair.cell}); "
    f"what was audited: {r.method}."
)
mu = r.claim.measure
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
plain_box(budget, words=audit_words(r, budget, delta=s.delta))
if len(r.parts) > 1:
    st.markdown(
        "**Audited stage by stage.** On a whole multi-stage estimator the black box has little "
        "power (its private centre, radius or interval move from run to run and hide the noise), "
        "so its final release is also audited alone, with the other stages' outputs fixed to "
        "public values. The headline above is the part with the largest bound over its claim."
    )
    st.dataframe(parts_table(r), hide_index=True)
st.markdown(
    "**The calibration check, stage by stage** (white box: every noise draw against the noise its "
    "budget charge requires, from one run on a public data set):"
)
st.markdown("\n".join(f"- {line}" for line in calibration_lines(cal)))
st.caption(calibration_verdict(cal))

hits_d, hits_dp = r.hits if r.event.numerator == "D" else r.hits[::-1]
code = (
    "from dpcore.audit import audit\n"
    "from dpcore.privacy import Budget\n"
    f"budget = Budget.from_unit({s.unit!r}, {s.budget_value!r}, {s.delta!r})\n"
    f"r = audit({name!r}, budget, variant={variant!r}, draws={draws}, confidence={confidence!r}, "
    f"pair_keys={None if pair_key == 'worst' else [pair_key]!r}, grid={grid!r}, calibrate=False, "
    f"rng={s.seed})\n"
    "print(r.summary())\n"
)
fig, df = distributions_figure(r)
chart(
    fig,
    df,
    "audit_distributions",
    f"Over {r.draws:,} fresh runs on each data set, the event **T {r.event.op} {r.event.threshold:.3g}** "
    f"(T = {r.event.statistic} of the release) happened **{hits_d}** times on D and **{hits_dp}** "
    f"times on D′: with {confidence:.0%} confidence the privacy loss is **at least {mu} = "
    f"{r.lower:.3f}**, against a claim of **{r.claim.value:.3f}**.",
    code + "from dpcore.figures.audit import distributions_figure\n"
    "fig, frame = distributions_figure(r)\n",
)
if mu == "ε":
    fig2, df2 = ratio_figure(r)
    chart(
        fig2,
        df2,
        "audit_ratio",
        f"Each dot is the log ratio of the two histograms in one bin: the claim allows it inside the "
        f"green band of width ±{r.claim.epsilon:.3g}"
        + (f" (up to δ = {r.claim.delta:g} of probability)" if r.claim.delta else "")
        + f". {int(clearly_outside(df2, r.claim.epsilon).sum())} bins land outside it by more than "
        "two standard errors; single bins are noisy, so the verdict comes from the audited bound, "
        "not from the dots.",
        code + "from dpcore.figures.audit import ratio_figure\nfig, frame = ratio_figure(r)\n",
    )
else:
    st.markdown(
        "A Gaussian release has no band its log ratio must stay in (the ratio grows without limit "
        "in the tails); its exact guarantee is **μ-Gaussian DP**: telling D from D′ is no easier "
        "than telling N(0, 1) from N(μ, 1). The audit measures how easily it can tell them apart."
    )
    pts = audit_points(r)
    fig3, df3 = tradeoff_figure(mu=r.claim.value, points=pts, points_label="the audit's tests")
    event = pts.iloc[0]
    top, bottom = (r.event.numerator, "D′" if r.event.numerator == "D" else "D")
    chart(
        fig3,
        df3,
        "audit_tradeoff",
        f"Every test of D against D′ has error rates on or above the curve μ = {r.claim.value:.3g} "
        f"allows (up to sampling noise). Saying “{top}” when the audit's event happens is wrong "
        f"on **{event.alpha:.1%}** of the releases from {bottom} (false positives) and misses "
        f"**{event.beta:.1%}** of those from {top} (false negatives); the other dots are the same "
        "test at other thresholds.",
        code + "from dpcore.figures.risk import audit_points, tradeoff_figure\n"
        "points = audit_points(r)\nprint(points)\nfig, frame = tradeoff_figure(\n"
        '    mu=r.claim.value, points=points, points_label="the audit\'s tests"\n)\n',
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
        "4. Pure ε-DP forces P_D(E) ≤ e^ε P_D′(E), so ε ≥ ln(p̲/p̄) = ε̂ with the stated confidence. "
        "A Gaussian release of ρ-zCDP is exactly μ-Gaussian DP with μ = √(2ρ), which forces "
        "μ ≥ Φ⁻¹(p̲) − Φ⁻¹(p̄) = μ̂. Any other ρ-zCDP claim is checked through the (ε, δ) it implies "
        "(Canonne–Kamath–Steinke)."
    )
    st.dataframe(pd.DataFrame([r.summary()]).T.rename(columns={0: "value"}).astype(str))
simulation_notice()
float_lesson(s)
