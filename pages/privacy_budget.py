"""Privacy budget: why noise at all (the differencing attack on a mean, exact and against a
private release), the conversions between ε, (ε, δ) and ρ, what a budget risks (an attacker's
belief, the best attacker's errors, budgets real deployments published), and how each registered
estimator would split the chosen budget. Every number comes from dpcore.views.privacy_budget; the
figures from dpcore.figures.risk and dpcore.figures.style."""

import streamlit as st

from dpcore.figures.dict_figure import chart_dict
from dpcore.figures.risk import (
    attack_figure,
    deployments_figure,
    guesses_figure,
    posterior_figure,
    tradeoff_figure,
)
from dpcore.figures.style import epsilon_delta_curve, ledger_chart
from dpcore.views.privacy_budget import PrivacyBudgetSettings, view
from pages._plain import plain_box
from pages._present import heading
from pages._tables import DEPLOYMENT_HEADERS, show_table
from pages._ui import (
    BUDGET_PRESETS,
    chart,
    settings,
    simulation_notice,
    user_errors,
    words_on_this_page,
)
from pages._views import cached, drawn

s = settings()
#: the ledgers' toggle, drawn further down (its value is part of the view's record)
SHOW_ALL = "pb_show_all"
record = PrivacyBudgetSettings(
    s, tuple(BUDGET_PRESETS), bool(st.session_state.get(SHOW_ALL, False))
)
st.title("Privacy budget")
st.markdown(
    "A DP guarantee bounds how much **one person** can change what anyone sees. Three units are in use; "
    "smaller numbers are always more private. This page converts between them and shows how each "
    "estimator spends the budget you chose in the sidebar."
)
words_on_this_page("ε (pure DP)", "(ε, δ)-DP", "zCDP", "ρ", "CKS", "add-remove", "replace-one")

with user_errors():
    v = cached(view)(record)
run = v.run
plain_box(s.budget, v.errors, delta=s.delta, what=v.what)

heading("Why noise at all: the differencing attack", "attack", "header")
st.markdown(
    "Publish the average of a column, then the same average without one person: the two "
    "averages give that person's value **exactly**. On the data in the sidebar (first column, "
    "the target is row 1):"
)
st.markdown(v.exact_sentence)
st.markdown(
    f"Now publish the average privately, through the registry entry **{v.estimator_label}** "
    f"at your budget ({s.budget}). The attacker is as strong as DP assumes: she knows every "
    f"other row, n and the public range [{run.lo:.4g}, {run.hi:.4g}], and that the target's "
    f"value is either her real one ({run.value:.4g}) or {run.alternative:.4g}. From each release "
    "she reconstructs the value, n × release − (the others' sum), and picks the nearer candidate."
)
code = record.code()
attack_code = code + (
    "from dpcore.experiments.attack import differencing\n"
    "from dpcore.figures.risk import attack_figure, guesses_figure\n"
    "print(differencing(data))\n"
    "run = v.run\n"
    "print(run.success, run.bound)\n"
)
fig, df = chart_dict(guesses_figure, run)  # plotly's dict, not validated per seed
chart(
    fig,
    df,
    "attack_guesses",
    v.success_sentence,
    attack_code + "fig, frame = guesses_figure(run)\n",
)
fig, df = chart_dict(attack_figure, v.curve, s.budget_value, v.unit_label)
chart(
    fig,
    df,
    "attack_curve",
    v.curve_sentence,
    attack_code + f"fig, frame = attack_figure(v.curve, {s.budget_value!r}, {v.unit_label!r})\n",
)
st.page_link(
    "pages/privacy_audit.py",
    label="Attack any estimator on worst-case neighbours: the Privacy audit",
    icon=":material/verified_user:",
)

st.subheader(f"Your budget: {s.budget}")
c1, c2, c3 = st.columns(3)
c1.metric(
    "as ρ (zCDP)" if v.zcdp_meets else "ρ that ε-DP implies (weaker, not ε-DP)",
    f"{v.rho:.4g}",
    help=v.zcdp_rule,
)
c2.metric(
    f"as ε at δ = {s.delta:g}",
    f"{v.eps_cks:.3g}",
    help="Canonne–Kamath–Steinke conversion (tighter)",
)
c3.metric("as pure ε run by pure-DP estimators", f"{v.eps_pure:.3g}", help=v.pure_rule)
if v.zcdp_meets:
    st.caption(
        f"Conversions applied — zCDP estimators: {v.zcdp_rule}. Pure-DP estimators: {v.pure_rule}."
    )
else:
    st.warning(
        f"**zCDP estimators cannot meet a pure ε budget.** {v.zcdp_rule} So they are left out of "
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

st.subheader("The odds framing")
st.markdown(v.odds_sentence)
# seed-free figures (public numbers only): drawn once per process for every seed and visitor
fig, df = drawn((v.rho,), "epsilon_delta", lambda: epsilon_delta_curve(v.rho))
chart(
    fig,
    df,
    "epsilon_delta",
    v.epsilon_delta_sentence,
    "from dpcore.figures.style import epsilon_delta_curve\n"
    f"from dpcore.privacy import zcdp_to_approx\nprint(zcdp_to_approx({v.rho!r}, 1e-6, method='cks'))\n"
    f"fig, frame = epsilon_delta_curve({v.rho!r})\n",
)

st.header("What a budget risks")
fig, df = drawn(
    (v.odds_epsilon, v.odds_delta),
    "risk_posterior",
    lambda: posterior_figure(v.odds_epsilon, v.odds_delta),
)
chart(
    fig,
    df,
    "risk_posterior",
    v.posterior_sentence,
    code + "from dpcore.figures.risk import posterior_figure\n"
    "from dpcore.theory.risk import posterior_bound\n"
    "print(posterior_bound(0.5, v.odds_epsilon))\n"
    "fig, frame = posterior_figure(v.odds_epsilon, v.odds_delta)\n",
)
fig, df = chart_dict(
    tradeoff_figure,
    mu=v.mu,
    epsilon=None if v.mu is not None else v.odds_epsilon,
    points=v.tradeoff_points,
    points_label="the differencing attack",
)
chart(
    fig,
    df,
    "risk_tradeoff",
    v.tradeoff_sentence,
    code + "from dpcore.figures.risk import tradeoff_figure\n"
    "print(v.tradeoff_points)\nfig, frame = tradeoff_figure(\n"
    + ("    mu=v.mu,\n" if v.mu is not None else "    epsilon=v.odds_epsilon,\n")
    + "    points=v.tradeoff_points,\n    points_label='the differencing attack',\n)\n",
)
fig, df = drawn(
    (v.odds_epsilon, s.delta),
    "risk_deployments",
    lambda: deployments_figure(v.deployments_rows, v.odds_epsilon, s.delta),
)
chart(
    fig,
    df,
    "risk_deployments",
    v.deployments_sentence,
    code + "from dpcore.figures.risk import deployments_figure\n"
    f"fig, frame = deployments_figure(v.deployments_rows, v.odds_epsilon, {s.delta!r})\n",
)
show_table(v.deployments, v.deployments_mine, headers=DEPLOYMENT_HEADERS)
st.caption("Sources and what each number protects: docs/reference-budgets.md in the repository.")

st.subheader("Conversion table")
show_table(v.conversions, v.conversions_mine, headers=v.conversion_headers)

st.subheader("How each estimator splits this budget")
if s.budget.notion == "pure":
    st.caption("Pure-DP estimators only: zCDP estimators cannot meet a pure ε budget (see above).")
st.toggle(f"Show all {len(v.private)} estimators that apply to this data", key=SHOW_ALL)
if v.ledgers.empty:
    st.info("No private estimator applies to this data.")
else:
    chart(  # the same ledgers (budget splits, public) give the same chart at every seed
        drawn(v.ledger_key, "ledger", lambda: ledger_chart(v.ledgers)),
        v.ledgers,
        "ledger",
        v.ledger_sentence,
        code + "from dpcore.figures.style import ledger_chart\n"
        "print(v.ledgers)\nfig = ledger_chart(v.ledgers)\n",
    )
simulation_notice()
