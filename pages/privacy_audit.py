"""Privacy audit: run an estimator many times, through its public registry entry, on two worst-case
neighbouring data sets, and watch the audit turn the two output distributions into a lower bound
on the privacy loss next to the claim. A toggle runs a broken-on-purpose variant. Logic in
dpcore.audit; figures in dpcore.figures.audit."""

import pandas as pd
import streamlit as st

from dpcore import registry
from dpcore.audit import VARIANT_LABELS, audit, pairs_for, variants_for
from dpcore.audit.neighbours import audit_dimension
from dpcore.figures.audit import clearly_outside, distributions_figure, ratio_figure
from dpcore.privacy import Budget
from pages._ui import chart, settings, simulation_notice, user_errors

s = settings()
st.title("Privacy audit")
st.markdown(
    "A privacy guarantee is a promise about **two neighbouring data sets**: whatever the estimator "
    "releases, no outcome may be more than **e^ε** times as likely on one as on the other. Here we run "
    "an estimator thousands of times on a worst-case pair **D** and **D′** (rows at the ends of the "
    "box, a tiny n), through the same public entry every other page uses, and ask the data: how large "
    "must ε be to explain what we see? The answer is a **lower bound** that holds with the stated "
    "confidence. Above the claim, the claim is false; below it, this audit found no violation "
    "(which is not a proof of privacy)."
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
pairs = pairs_for(spec.neighbouring, n=2, d=audit_dimension(spec))
pair_keys = ["worst"] + [p.key for p in pairs]
pair_labels = {
    "worst": "let the audit pick the worst pair",
    **{p.key: p.label.replace("2 rows", "n rows") for p in pairs},
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
    seed: int,
):
    budget = Budget.from_unit(unit, value, delta)
    keys = None if pair_key == "worst" else [pair_key]
    return audit(
        name, budget, variant=variant, draws=draws, confidence=confidence, pair_keys=keys, rng=seed
    )


with user_errors():
    budget = s.budget
    r = _audit(name, s.unit, s.budget_value, s.delta, variant, pair_key, draws, confidence, s.seed)

st.caption(
    f"Budget from the sidebar: {budget}; {spec.label} is {spec.notion} DP natively, "
    f"{budget.to_native(spec.notion).rule}. Declared relation: {spec.neighbouring}. "
    f"Pair used: {r.pair.label}. The sidebar's data settings do not apply here: the audit "
    "builds its own tiny worst-case data sets; the seed fixes the draws."
)
m1, m2, m3 = st.columns(3)
m1.metric(
    "Claimed ε" + (f" at δ = {r.claim.delta:g}" if r.claim.delta else ""),
    f"{r.claim.epsilon:.3f}",
    help=r.claim.describe(),
)
m2.metric(f"Audited ε̂ (lower bound, {confidence:.0%})", f"{r.epsilon_lower:.3f}")
m3.metric("Plug-in estimate of the loss on this event", f"{r.epsilon_point:.3f}")
if r.violated:
    st.error(
        f"Caught: the audit shows, at {confidence:.0%} confidence, a privacy loss of at least "
        f"{r.epsilon_lower:.3f} > the claimed {r.claim.epsilon:.3f}. "
        + (
            "This is the broken-on-purpose variant."
            if variant != "honest"
            else "This estimator does not keep its claim on this pair (see issue 11)."
        )
    )
else:
    st.success(
        f"No violation found: the lower bound {r.epsilon_lower:.3f} is at most the claim "
        f"{r.claim.epsilon:.3f}."
    )

hits_d, hits_dp = r.hits if r.event.numerator == "D" else r.hits[::-1]
code = (
    "from dpcore.audit import audit\n"
    "from dpcore.privacy import Budget\n"
    f"budget = Budget.from_unit({s.unit!r}, {s.budget_value!r}, {s.delta!r})\n"
    f"r = audit({name!r}, budget, variant={variant!r}, draws={draws}, confidence={confidence!r}, "
    f"pair_keys={None if pair_key == 'worst' else [pair_key]!r}, rng={s.seed})\n"
    "print(r.summary())\n"
)
fig, df = distributions_figure(r)
chart(
    fig,
    df,
    "audit_distributions",
    f"Over {r.draws:,} fresh runs on each data set, the event **T {r.event.op} {r.event.threshold:.3g}** "
    f"happened **{hits_d}** times on D and **{hits_dp}** times on D′: "
    f"with {confidence:.0%} confidence the privacy loss is **at least {r.epsilon_lower:.3f}**, against a "
    f"claim of **{r.claim.epsilon:.3f}**.",
    code,
)
fig2, df2 = ratio_figure(r)
chart(
    fig2,
    df2,
    "audit_ratio",
    f"Each dot is the log ratio of the two histograms in one bin: the claim allows it inside the "
    f"green band of width ±{r.claim.epsilon:.3g}"
    + (f" (up to δ = {r.claim.delta:g} of probability)" if r.claim.delta else "")
    + f". {int(clearly_outside(df2, r.claim.epsilon).sum())} bins land outside it by more than two standard "
    "errors; single bins are noisy, so the verdict comes from the audited bound, not from the dots.",
    code,
)
with st.expander("How the bound is computed"):
    st.markdown(
        "1. Reduce every release to one number **T**, the mean of its coordinates (post-processing, so "
        "it keeps the guarantee).\n"
        "2. On a first batch of draws, try thresholds t and events T > t, T < t (either data set on top) and "
        "pick the one that would give the largest bound.\n"
        "3. On a **fresh** batch, count how often that one event happens on D and on D′, and take exact "
        "Clopper–Pearson bounds: a lower bound p̲ for the top probability and an upper bound p̄ for the "
        "bottom one (each at half the error rate).\n"
        "4. (ε, δ)-DP forces P_D(E) ≤ e^ε P_D′(E) + δ, so ε ≥ ln((p̲ − δ)/p̄) = ε̂ with the stated "
        "confidence. A ρ-zCDP claim is checked through the (ε, δ) it implies (Canonne–Kamath–Steinke)."
    )
    st.dataframe(pd.DataFrame([r.summary()]).T.rename(columns={0: "value"}).astype(str))
simulation_notice()
