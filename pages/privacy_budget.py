"""Privacy budget: why noise at all (the differencing attack on a mean, exact and against a
private release), the conversions between ε, (ε, δ) and ρ, what a budget risks (an attacker's
belief, the best attacker's errors, budgets real deployments published), and how each registered
estimator would split the chosen budget. Logic in dpcore.experiments.attack and
dpcore.theory.risk; figures in dpcore.figures.risk."""

import math

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import registry
from dpcore.experiments import default_estimators
from dpcore.experiments.attack import (
    AttackRun,
    attack,
    attack_curve,
    differencing,
    exact_sentence,
    success_sentence,
    tradeoff_points,
)
from dpcore.figures.risk import (
    attack_figure,
    deployments_figure,
    guesses_figure,
    posterior_figure,
    tradeoff_figure,
)
from dpcore.figures.style import epsilon_delta_curve, ledger_chart, ledger_frame
from dpcore.theory.risk import deployments_on_scale, gdp_mu, odds_epsilon
from pages._plain import plain_box
from pages._tables import (
    DEPLOYMENT_HEADERS,
    conversion_headers,
    conversion_table,
    deployments_table,
    show_table,
)
from pages._ui import (
    BUDGET_PRESETS,
    CACHE_TTL,
    Settings,
    chart,
    dataset,
    settings,
    simulation_notice,
    user_errors,
    words_on_this_page,
)

#: Releases per data set in the attack lesson.
ATTACK_DRAWS = 2000


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _attack(current: Settings) -> tuple[AttackRun, pd.DataFrame]:
    data = dataset(current)
    run = attack(data, current.budget, draws=ATTACK_DRAWS, delta=current.delta, rng=current.seed)
    values = tuple(sorted({*BUDGET_PRESETS, float(current.budget_value)}))
    curve = attack_curve(
        data, current.unit, values, delta=current.delta, draws=ATTACK_DRAWS, rng=current.seed
    )
    return run, curve


s = settings()
st.title("Privacy budget")
st.markdown(
    "A DP guarantee bounds how much **one person** can change what anyone sees. Three units are in use; "
    "smaller numbers are always more private. This page converts between them and shows how each "
    "estimator spends the budget you chose in the sidebar."
)
words_on_this_page("ε (pure DP)", "(ε, δ)-DP", "zCDP", "ρ", "CKS", "add-remove", "replace-one")

with user_errors():
    run, curve = _attack(s)
exact = differencing(dataset(s))
plain_box(
    s.budget,
    np.abs(run.releases - run.truth),
    delta=s.delta,
    what=f"the average of the first column ({run.n:,} people)",
)

st.header("Why noise at all: the differencing attack")
st.markdown(
    "Publish the average of a column, then the same average without one person: the two "
    "averages give that person's value **exactly**. On the data in the sidebar (first column, "
    "the target is row 1):"
)
st.markdown(exact_sentence(exact))
st.markdown(
    f"Now publish the average privately, through the registry entry **{registry.get(run.estimator).label}** "
    f"at your budget ({s.budget}). The attacker is as strong as DP assumes: she knows every "
    f"other row, n and the public range [{run.lo:.4g}, {run.hi:.4g}], and that the target's "
    f"value is either her real one ({run.value:.4g}) or {run.alternative:.4g}. From each release "
    "she reconstructs the value, n × release − (the others' sum), and picks the nearer candidate."
)
attack_code = s.code() + (
    "from dpcore.experiments.attack import attack, attack_curve, differencing\n"
    "from dpcore.figures.risk import attack_figure, guesses_figure\n"
    "print(differencing(data))\n"
    f"run = attack(data, budget, draws={ATTACK_DRAWS}, delta={s.delta!r}, rng={s.seed})\n"
    "print(run.success, run.bound)\n"
)
fig, df = guesses_figure(run)
chart(
    fig,
    df,
    "attack_guesses",
    success_sentence(run),
    attack_code + "fig, frame = guesses_figure(run)\n",
)
unit_label = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}[s.unit]
fig, df = attack_figure(curve, s.budget_value, unit_label)
lowest = curve.iloc[0]
chart(
    fig,
    df,
    "attack_curve",
    f"Without noise the attacker is always right. With noise her success falls as the budget "
    f"shrinks: **{lowest.success:.0%}** at {unit_label} = {lowest.budget:g} (a coin flip is 50%), "
    f"never above what the budget allows (dashed).",
    attack_code
    + f"curve = attack_curve(data, {s.unit!r}, {tuple(curve.budget)!r}, delta={s.delta!r}, "
    f"draws={ATTACK_DRAWS}, rng={s.seed})\n"
    f"fig, frame = attack_figure(curve, {s.budget_value!r}, {unit_label!r})\n",
)
st.page_link(
    "pages/privacy_audit.py",
    label="Attack any estimator on worst-case neighbours: the Privacy audit",
    icon=":material/verified_user:",
)

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
    "from dpcore.figures.style import epsilon_delta_curve\n"
    f"from dpcore.privacy import zcdp_to_approx\nprint(zcdp_to_approx({rho!r}, 1e-6, method='cks'))\n"
    f"fig, frame = epsilon_delta_curve({rho!r})\n",
)

st.header("What a budget risks")
odds = odds_epsilon(budget, s.delta)
fig, df = posterior_figure(odds.epsilon, odds.delta)
at_half = float(df.loc[df.prior.sub(0.5).abs().idxmin(), "posterior_max"])
chart(
    fig,
    df,
    "risk_posterior",
    f"An attacker who thought something about one person was a coin flip (50%) can believe it "
    f"at most **{at_half:.0%}** after one release at your budget ({odds.rule}"
    + (", except with probability δ" if odds.delta else "")
    + ").",
    s.code() + "from dpcore.figures.risk import posterior_figure\n"
    "from dpcore.theory.risk import odds_epsilon, posterior_bound\n"
    f"odds = odds_epsilon(budget, {s.delta!r})\nprint(posterior_bound(0.5, odds.epsilon))\n"
    "fig, frame = posterior_figure(odds.epsilon, odds.delta)\n",
)
points = tradeoff_points(run)
gaussian = registry.get(run.estimator).notion == "zcdp"
mu = gdp_mu(budget.to_native("zcdp").value) if gaussian else None
fig, df = tradeoff_figure(
    mu=mu,
    epsilon=None if gaussian else odds.epsilon,
    points=points,
    points_label="the differencing attack",
)
chart(
    fig,
    df,
    "risk_tradeoff",
    (
        f"No test can beat the curve: a Gaussian release at ρ = {budget.to_native('zcdp').value:.3g} "
        f"is μ = √(2ρ) = {mu:.3g} Gaussian DP, so at 5% false positives an attacker misses at "
        f"least **{float(df.beta[df.kind == 'bound'].iloc[10]):.0%}** of the time."
        if gaussian
        else f"No test can beat the curve of ε = {odds.epsilon:.3g}: at 5% false positives an "
        f"attacker misses at least **{float(df.beta[df.kind == 'bound'].iloc[10]):.0%}** of the time."
    )
    + " The dots are the differencing attack above at several thresholds; the Privacy audit "
    "page puts its measured points on the same curve.",
    attack_code + "from dpcore.experiments.attack import tradeoff_points\n"
    "from dpcore.figures.risk import tradeoff_figure\n"
    "from dpcore.theory.risk import gdp_mu, odds_epsilon\n"
    "points = tradeoff_points(run)\nprint(points)\nfig, frame = tradeoff_figure(\n"
    + (
        "    mu=gdp_mu(budget.to_native('zcdp').value),\n"
        if gaussian
        else f"    epsilon=odds_epsilon(budget, {s.delta!r}).epsilon,\n"
    )
    + "    points=points,\n    points_label='the differencing attack',\n)\n",
)
rows = deployments_on_scale(s.delta)
fig, df = deployments_figure(rows, odds.epsilon, s.delta)
below = sum(eps < odds.epsilon for _, eps, _ in rows)
chart(
    fig,
    df,
    "risk_deployments",
    f"Your budget reads as ε = {odds.epsilon:.3g}; {below} of the {len(rows)} published "
    "deployments listed chose a smaller ε. Their units differ (a whole census per person, a "
    "day of one user's data, a month of one analyst's queries), so compare with care.",
    s.code() + "from dpcore.figures.risk import deployments_figure\n"
    "from dpcore.theory.risk import deployments_on_scale, odds_epsilon\n"
    f"rows = deployments_on_scale({s.delta!r})\n"
    f"fig, frame = deployments_figure(rows, odds_epsilon(budget, {s.delta!r}).epsilon, {s.delta!r})\n",
)
deployments, yours = deployments_table(rows, s.budget, odds.epsilon)
show_table(deployments, yours, headers=DEPLOYMENT_HEADERS)
st.caption("Sources and what each number protects: docs/reference-budgets.md in the repository.")

st.subheader("Conversion table")
conversions, yours = conversion_table(s.budget, s.delta)
show_table(conversions, yours, headers=conversion_headers(s.delta))


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
        "from dpcore.figures.style import ledger_chart, ledger_frame\npairs = []\n"
        f"for name in {list(names)!r}:\n"
        f"    est = registry.run(name, data, budget, rng={s.seed})\n"
        "    print(name, est.ledger.by_stage())\n"
        "    pairs.append((registry.get(name), est))\n"
        "fig = ledger_chart(ledger_frame(pairs))\n",
    )
simulation_notice()
