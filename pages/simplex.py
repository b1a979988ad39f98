"""Free lunch (simplex): send x to (x, R − x), release both sums with one mechanism, get a count (or a
better sum) for free — and where that lunch is, honestly, not free. Spec: docs/estimators/simplex.md
(developer reference; the page names the paper). The numbers come from dpcore.views.simplex."""

import streamlit as st

from dpcore.figures.dict_figure import chart_dict
from dpcore.figures.simplex import (
    count_figure,
    geometry_d1,
    release_picture,
    triangle_d2,
    variance_figure,
)
from dpcore.views.simplex import RADIUS, RELATION_HELP, SimplexSettings, view
from pages._plain import plain_box
from pages._present import heading
from pages._tables import LEDGER_HEADERS, show_table
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
st.title("Free lunch (simplex)")
st.markdown(
    "Each record **x** in **[0, R]** becomes the pair **(x, R − x)**. Every pair has ℓ1 norm exactly R, so "
    "releasing *both* column sums with one mechanism costs the same budget as the plain sum. The two sums "
    "add up to **n·R**: with n unknown that is a **count for free**; with n known it is a second estimate of "
    "the sum. (Fitzsimons, Honaker, Shoemate and Singhal, *Private Means and the Curious Incident of the Free "
    "Lunch*, 2024.)\n\n"
    "**The point:** against the noisy-sum / noisy-count plug-in that most libraries ship, the pair "
    "gives a **count for free** and 2–5× (Gaussian) to 4–10× (Laplace) lower variance. Against an "
    "estimator that first centres the data the gain is smaller or none: the box after the variance "
    "charts says where."
)
words_on_this_page("add-remove", "replace-one", "ε (pure DP)", "zCDP", "sensitivity")

# ---------------------------------------------------------------------------------------------
# local controls

c1, c2, c3 = st.columns(3)
mech = url_widget(
    c1.radio,
    "Noise",
    ["laplace", "gaussian"],
    key="simplex_mech",
    default="laplace" if s.unit == "eps" else "gaussian",
    horizontal=True,
    format_func={"laplace": "Laplace (pure ε)", "gaussian": "Gaussian (ρ-zCDP)"}.get,
)
relation = url_widget(
    c2.radio,
    "Neighbouring datasets",
    ["add-remove", "replace-one"],
    key="simplex_rel",
    default="add-remove",
    horizontal=True,
    format_func={
        "add-remove": "add/remove (n private)",
        "replace-one": "replace-one (n public)",
    }.get,
    help=RELATION_HELP,
)
p_now = url_widget(
    c3.slider,
    "Where the data's mean sits in [0, R]: p = μ/R",
    0.0,
    1.0,
    step=0.05,
    key="simplex_p",
    default=0.65,
)
c4, c5, c6 = st.columns(3)
split = url_widget(
    c4.slider,
    "Baselines: share f of the budget for the sum",
    0.05,
    0.95,
    step=0.05,
    key="simplex_split",
    default=0.5,
    help="The paper's experiments and the common libraries split equally (f = 0.5).",
)
count_fraction = url_widget(
    c5.slider,
    "Simplex: share of the budget for an extra paid count",
    0.0,
    0.5,
    step=0.05,
    key="simplex_extra",
    default=0.0,
    disabled=relation == "replace-one",
    help="0 spends everything on the one release; the free count is then all you have. "
    "Off under replace-one: n is public there, so no count is needed.",
)
record = SimplexSettings(s, mech, relation, p_now, split, count_fraction)
with user_errors(), st.spinner("Simulating 2,000 releases per estimator and position…"):
    v = cached(view)(record)
c6.metric("Budget used here", f"{v.symbol} = {v.value:.4g}", help=v.rule)
st.caption(
    f"Budget from the sidebar: {v.rule}. n = {s.n:,} rows on [0, R] with R = {RADIUS:g}; every MSE "
    "below scales with R². Laplace and Gaussian are different guarantees: compare estimators within "
    "one noise type, never across."
)
code = record.code()

# ---------------------------------------------------------------------------------------------
# geometry

heading("The geometry", "geometry", "header")
g1, g2 = st.columns([3, 2])
with g1:
    fig, df = chart_dict(geometry_d1, v.geometry_x, RADIUS)
    chart(
        fig,
        df,
        "simplex_geometry",
        v.geometry_sentence,
        code + "from dpcore.figures.simplex import geometry_d1\n"
        f"fig, df = geometry_d1(v.geometry_x, {RADIUS!r})",
        narrow=True,
    )
with g2:
    fig, df = chart_dict(triangle_d2, v.triangle_z, RADIUS)
    chart(
        fig,
        df,
        "simplex_triangle",
        v.triangle_sentence,
        code + "from dpcore.figures.simplex import triangle_d2\n"
        f"fig, df = triangle_d2(v.triangle_z, {RADIUS!r})",
        narrow=True,
    )

fig, df = chart_dict(release_picture, v.releases)
chart(
    fig,
    df,
    "simplex_release",
    v.release_sentence,
    code + "from dpcore.figures.simplex import release_picture\n"
    "fig, df = release_picture(v.releases)",
)

# ---------------------------------------------------------------------------------------------
# variance against position

st.header("Variance against where the data sit")
if v.unknown_n_sentence is not None:
    chart(
        chart_dict(variance_figure, v.theory, v.sim, known_n=False),
        v.part(known_n=False),
        "simplex_variance_unknown_n",
        v.unknown_n_sentence,
        code + "from dpcore.figures.simplex import variance_figure\n"
        "fig = variance_figure(v.theory, v.sim, known_n=False)\n",
    )
chart(
    chart_dict(variance_figure, v.theory, v.sim, known_n=True),
    v.part(known_n=True),
    "simplex_variance_known_n",
    v.known_n_sentence,
    code + "from dpcore.figures.simplex import variance_figure\n"
    "fig = variance_figure(v.theory, v.sim, known_n=True)\n",
)

# ---------------------------------------------------------------------------------------------
# the caveats, after the charts they refer to

st.warning(v.caveats)

# ---------------------------------------------------------------------------------------------
# the free count

if v.counts is not None and v.count_sentence is not None:
    st.header("The count that comes free")
    chart(
        chart_dict(count_figure, v.counts, s.n),
        v.counts,
        "simplex_free_count",
        v.count_sentence,
        code + "from dpcore.figures.simplex import count_figure\n"
        f"fig = count_figure(v.counts, {s.n})",
    )
    if v.weight is not None:
        st.info(
            f"With {v.count_fraction:.0%} of the budget on an extra noisy count, the two counts are "
            f"combined by inverse-variance weighting with weight **w = {v.weight:.3f}** on the free "
            "count. The sums are then re-projected onto R·n̂, with n̂ the combined count (the BLUE, "
            "never worse than the paper's m₁/n̂)."
        )

# ---------------------------------------------------------------------------------------------
# ledgers

st.header("What each one spends")
show_table(v.ledger, headers=LEDGER_HEADERS)
st.markdown(v.ledger_sentence)
plain_box(v.budget, words=v.words)  # one run each: the errors' range, no ranking
with st.expander("Show the code"):
    st.code(code + "print(v.ledger)", language="python")
simulation_notice()
