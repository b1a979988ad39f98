"""Privacy budget: the conversions between ε, (ε, δ) and ρ, the odds framing, and how each
registered estimator would split the chosen budget."""

import math

import pandas as pd
import streamlit as st

from dpcore import registry
from dpcore.experiments import default_estimators
from dpcore.figures import epsilon_delta_curve, ledger_chart, ledger_frame
from dpcore.privacy import Budget
from pages._ui import CACHE_TTL, Settings, chart, dataset, settings, simulation_notice, user_errors

s = settings()
st.title("Privacy budget")
st.markdown(
    "A DP guarantee bounds how much **one person** can change what anyone sees. Three units are in use; "
    "smaller numbers are always more private. This page converts between them and shows how each "
    "estimator spends the budget you chose in the sidebar."
)

with user_errors():
    budget = s.budget
    rho = budget.to_native("zcdp").value
    eps_pure = budget.to_native("pure").value
    eps_cks, _ = budget.to_approx(s.delta, "cks")
    eps_std, _ = budget.to_approx(s.delta, "standard")

st.subheader(f"Your budget: {budget}")
c1, c2, c3 = st.columns(3)
c1.metric("as ρ (zCDP)", f"{rho:.4g}", help=budget.to_native("zcdp").rule)
c2.metric(f"as ε at δ = {s.delta:g}", f"{eps_cks:.3g}", help="Canonne–Kamath–Steinke conversion (tighter)")
c3.metric("as pure ε run by pure-DP estimators", f"{eps_pure:.3g}", help=budget.to_native("pure").rule)
st.caption(f"Conversions applied — zCDP estimators: {budget.to_native('zcdp').rule}. "
           f"Pure-DP estimators: {budget.to_native('pure').rule}.")



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
    st.markdown(f"With ε = {odds_eps:g}, any outcome can become at most **e^ε = {_times(odds_eps)}** more (or less) "
                f"likely because one person's data is in the data set{slack}.")

fig, df = epsilon_delta_curve(rho)
chart(fig, df, "epsilon_delta",
      f"At δ = 10⁻⁶, ρ = {rho:.3g} gives ε = {budget.to_approx(1e-6, 'cks')[0]:.3g} by the tighter conversion "
      f"and {budget.to_approx(1e-6, 'standard')[0] if budget.notion == 'zcdp' else eps_std:.3g} by the textbook one; "
      "halving δ costs little ε.",
      f"from dpcore.privacy import zcdp_to_approx\nzcdp_to_approx({rho!r}, 1e-6, method='cks')")

st.subheader("Conversion table")
rows = []
for r in (0.01, 0.0625, 0.125, 0.25, 0.5, 1.0, 2.0):
    rows.append({"ρ": r, "ε (δ=1e-6), standard": Budget.zcdp(r).to_approx(1e-6, "standard")[0],
                 "ε (δ=1e-6), CKS": Budget.zcdp(r).to_approx(1e-6, "cks")[0],
                 "pure ε with the same ρ (ε = √(2ρ))": math.sqrt(2 * r)})
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _ledgers(current: Settings, names: tuple[str, ...]) -> pd.DataFrame:
    data = dataset(current)
    pairs = [(registry.get(n), registry.get(n).run(data, current.budget, rng=current.seed)) for n in names]
    return ledger_frame(pairs)


st.subheader("How each estimator splits this budget")
data = dataset(s)
private = [spec.name for spec in registry.applicable(data.kind, data.d) if spec.notion != "none"]
main = [n for n in default_estimators(data.kind, s.unit, data.d) if n in private]
show_all = st.toggle(f"Show all {len(private)} estimators that apply to this data", value=False)
names = tuple(private if show_all or not main else main)
with user_errors():
    led = _ledgers(s, names)
if led.empty:
    st.info("No private estimator applies to this data.")
else:
    biggest = led.sort_values("share", ascending=False).iloc[0]
    chart(ledger_chart(led), led, "ledger",
          f"Every bar adds up to the whole budget. The largest single share is {biggest.share:.0%} "
          f"({biggest.stage}) in {biggest.estimator}.",
          s.code() + "from dpcore import registry\n"
          f"for name in {list(names)!r}:\n"
          f"    est = registry.run(name, data, budget, rng={s.seed})\n"
          "    print(name, est.ledger.by_stage())")
simulation_notice()
