"""Privacy budget: the conversions between ε, (ε, δ) and ρ, the odds framing, and how each
registered estimator would split the chosen budget."""

import math

import pandas as pd
import streamlit as st

from dpcore import registry
from dpcore.experiments import default_estimators
from dpcore.figures.style import epsilon_delta_curve, ledger_chart, ledger_frame
from dpcore.privacy import Budget
from pages._ui import (
    CACHE_TTL,
    Settings,
    chart,
    dataset,
    settings,
    simulation_notice,
    user_errors,
    words_on_this_page,
)

s = settings()
st.title("Privacy budget")
st.markdown(
    "A DP guarantee bounds how much **one person** can change what anyone sees. Three units are in use; "
    "smaller numbers are always more private. This page converts between them and shows how each "
    "estimator spends the budget you chose in the sidebar."
)
words_on_this_page("ε (pure DP)", "(ε, δ)-DP", "zCDP", "ρ", "CKS", "add-remove", "replace-one")

with user_errors():
    budget = s.budget
    zconv = budget.implied_zcdp(s.delta)  # meets_budget is False only under a pure ε budget
    rho = zconv.value
    eps_pure = budget.to_native("pure").value
    eps_cks, _ = budget.to_approx(s.delta, "cks")
    eps_std, _ = budget.to_approx(s.delta, "standard")

st.subheader(f"Your budget: {budget}")
c1, c2, c3 = st.columns(3)
c1.metric(
    "as ρ (zCDP)" if zconv.meets_budget else "ρ that ε-DP implies (weaker, not ε-DP)",
    f"{rho:.4g}",
    help=zconv.rule,
)
c2.metric(
    f"as ε at δ = {s.delta:g}", f"{eps_cks:.3g}", help="Canonne–Kamath–Steinke conversion (tighter)"
)
c3.metric(
    "as pure ε run by pure-DP estimators", f"{eps_pure:.3g}", help=budget.to_native("pure").rule
)
if zconv.meets_budget:
    st.caption(
        f"Conversions applied — zCDP estimators: {zconv.rule}. "
        f"Pure-DP estimators: {budget.to_native('pure').rule}."
    )
else:
    st.warning(
        f"**zCDP estimators cannot meet a pure ε budget.** {zconv.rule} So they are left out of "
        "every ranking under this budget; pure-DP estimators run at ε as given."
    )

st.subheader("Which way each implication runs")
st.markdown(
    "A guarantee can be converted into a **weaker** one, never into a stronger one:\n\n"
    "| from | to | valid? | used for |\n|---|---|---|---|\n"
    "| pure ε-DP | ε²/2-zCDP | yes (Bun–Steinke) | a pure-DP estimator meets a ρ budget at ε = √(2ρ) |\n"
    "| pure ε-DP | (ε, δ)-DP | yes | a pure-DP estimator meets an (ε, δ) budget at ε |\n"
    "| ρ-zCDP | (ε, δ)-DP | yes (CKS, or ρ + 2√(ρ ln 1/δ)) | a zCDP estimator meets an (ε, δ) budget at the "
    "largest ρ that converts to it |\n"
    "| ρ-zCDP | pure ε-DP | **no**: the Gaussian mechanism is not ε-DP for any ε | nothing: under a pure "
    "budget zCDP estimators are left out |\n"
    "| (ε, δ)-DP | pure ε-DP or zCDP | **no** | nothing |"
)


def _times(eps: float) -> str:
    """``e**eps`` as "N times", without overflow for the largest budgets dpcore.limits allows."""
    if eps > 40:
        return f"about 10^{eps / math.log(10):.0f} times"
    factor = math.exp(eps)
    return f"{factor:.3g} times" if factor < 1000 else f"about {factor:,.0f} times"


st.subheader("The odds framing")
odds_eps = eps_pure if budget.notion != "approx" else budget.epsilon
if budget.notion == "zcdp":
    st.markdown(
        f"With ρ = {rho:g}, any outcome can become at most **{_times(eps_cks)}** more (or less) likely "
        f"because of one person, except with probability δ = {s.delta:g} (ε = {eps_cks:.3g} by the tighter "
        f"conversion; the textbook bound ρ + 2√(ρ ln 1/δ) says ε = {eps_std:.3g})."
    )
else:
    slack = "" if budget.notion == "pure" else f", except with probability δ = {budget.delta:g}"
    st.markdown(
        f"With ε = {odds_eps:g}, any outcome can become at most **e^ε = {_times(odds_eps)}** more (or less) "
        f"likely because one person's data is in the data set{slack}."
    )

fig, df = epsilon_delta_curve(rho)
chart(
    fig,
    df,
    "epsilon_delta",
    f"At δ = 10⁻⁶, ρ = {rho:.3g} gives ε = {budget.to_approx(1e-6, 'cks')[0]:.3g} by the tighter conversion "
    f"and {budget.to_approx(1e-6, 'standard')[0] if budget.notion == 'zcdp' else eps_std:.3g} by the textbook one; "
    "halving δ costs little ε.",
    f"from dpcore.privacy import zcdp_to_approx\nzcdp_to_approx({rho!r}, 1e-6, method='cks')",
)

st.subheader("Conversion table")
rows = []
for r in (0.01, 0.0625, 0.125, 0.25, 0.5, 1.0, 2.0):
    rows.append(
        {
            "ρ": r,
            "ε (δ=1e-6), standard": Budget.zcdp(r).to_approx(1e-6, "standard")[0],
            "ε (δ=1e-6), CKS": Budget.zcdp(r).to_approx(1e-6, "cks")[0],
            "pure ε with the same ρ (ε = √(2ρ))": math.sqrt(2 * r),
        }
    )
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _ledgers(current: Settings, names: tuple[str, ...]) -> pd.DataFrame:
    data = dataset(current)
    pairs = [
        (registry.get(n), registry.get(n).run(data, current.budget, rng=current.seed))
        for n in names
    ]
    return ledger_frame(pairs)


st.subheader("How each estimator splits this budget")
data = dataset(s)
private = [
    spec.name
    for spec in registry.applicable(data.kind, data.d)
    if spec.notion != "none" and spec.meets(s.budget)
]
if s.budget.notion == "pure":
    st.caption("Pure-DP estimators only: zCDP estimators cannot meet a pure ε budget (see above).")
main = [n for n in default_estimators(data.kind, s.unit, data.d) if n in private]
show_all = st.toggle(f"Show all {len(private)} estimators that apply to this data", value=False)
names = tuple(private if show_all or not main else main)
with user_errors(), st.spinner(f"Running {len(names)} estimators once to read their ledgers…"):
    led = _ledgers(s, names)
if led.empty:
    st.info("No private estimator applies to this data.")
else:
    biggest = led.sort_values("share", ascending=False).iloc[0]
    chart(
        ledger_chart(led),
        led,
        "ledger",
        f"Every bar adds up to the whole budget. The largest single share is {biggest.share:.0%} "
        f"({biggest.stage}) in {biggest.estimator}.",
        s.code() + "from dpcore import registry\n"
        f"for name in {list(names)!r}:\n"
        f"    est = registry.run(name, data, budget, rng={s.seed})\n"
        "    print(name, est.ledger.by_stage())",
    )
simulation_notice()
