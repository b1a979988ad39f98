"""Home: what dpmean lab is, who it is for, a short guided tour."""

from pathlib import Path

import streamlit as st

from dpcore.figures.style import prepared
from dpcore.views.home import HomeSettings, view
from pages._plain import plain_box
from pages._showcase import record_for_notebook
from pages._spec import tour
from pages._ui import settings

ROOT = Path(__file__).resolve().parent.parent
s = settings()
st.title("dpmean lab")
st.markdown(
    "**Explore differentially private (DP) mean estimation, live.** Pick a distribution, its skew, "
    "the number of rows *n*, the dimension *d* and a privacy budget in the sidebar; the pages "
    "show what the estimators do to that data (centring, scaling, clipping, noise) and how accurate "
    "they are. Everything is computed by the Python package `dpcore`, so a notebook reproduces "
    "every number with the same seed."
)
with st.spinner("Running PLAN, IOME and the Gaussian mechanism on 20 datasets (once per server)…"):
    v = view(HomeSettings(data=s, dark=st.context.theme.type == "dark"))


def _why_plan() -> None:
    """One picture and one sentence: why PLAN wins on skewed data (warmed at server start)."""
    st.markdown(v.example)
    c1, c2 = st.columns(2)
    c1.plotly_chart(prepared(v.noise_figure), key="home-why-noise", alt=v.sentence)
    c2.plotly_chart(prepared(v.error_figure), key="home-why-error", alt=v.sentence)
    st.markdown(v.sentence)
    record_for_notebook(v, f"{v.example}\n\n{v.sentence}")  # the notebook rebuilds both figures
    plain_box(s.budget, words=v.words)  # the example's budget and runs
    l1, l2 = st.columns(2)
    l1.page_link(
        "pages/compare.py",
        label="**The story behind it: “Variance skew favours PLAN”**",
        icon=":material/play_circle:",
        query_params={"preset": "skew_favours_plan"},
    )
    l2.page_link(
        "pages/side_by_side.py",
        label="See every estimator's clipping and noise, side by side",
        icon=":material/compare:",
    )


_why_plan()
c1, c2, c3, c4 = st.columns(4)
c1.markdown(
    "**Teachers**  \nstep-by-step pictures of one estimator, with the three error sources "
    "kept apart: sampling, clipping bias, noise."
)
c2.markdown(
    "**Explorers**  \nwhich estimator wins for my *n*, *d*, budget and data shape; how much "
    "budget a target error needs."
)
c3.markdown(
    "**Presenters**  \npresets that tell one story each, a shareable link, figures and "
    "tables to download."
)
c4.markdown(
    "**Notebook users**  \n`import dpcore`: the same calls, identical results for the same seed."
)

st.subheader("A five-minute tour")
for spec, label in tour():
    if (ROOT / spec.path).exists():
        st.page_link(spec.path, label=f"**{label}**: {spec.blurb}")

st.info(v.sidebar)
st.subheader("Glossary")
st.markdown("The words the pages use, in one place (each page also defines them on hover).")
st.markdown(v.glossary)
st.caption(
    "Noise in this app comes from a seeded NumPy generator: right for teaching and simulation, "
    "not a secure DP release of real data."
)
