"""Home: one plain sentence and one picture first, the plain box, then what dpmean lab is, who it is
for, the example in detail, a tour of every page and the glossary (the words: dpcore/views/home.py)."""

from pathlib import Path

import streamlit as st

from dpcore.views.home import TOUR_HEADING, HomeSettings, view
from pages._plain import plain_box
from pages._showcase import record_for_notebook
from pages._spec import tour
from pages._ui import picture, settings

ROOT = Path(__file__).resolve().parent.parent
s = settings()
st.title("dpmean lab")
with st.spinner("Running PLAN, IOME and the Gaussian mechanism on 20 datasets (once per server)…"):
    v = view(HomeSettings(data=s, dark=st.context.theme.type == "dark"))


def _first_screen() -> None:
    """One sentence, one picture, the plain box: what a stakeholder sees without scrolling."""
    st.markdown(v.lead)
    picture(v.error_figure, "chart-home-why-error", v.lead)
    plain_box(s.budget, words=v.words)  # the example's budget and runs


def _example() -> None:
    """The example in the specialists' words: its setting, the noise picture, the sentence."""
    st.subheader("The example in detail")
    st.markdown(v.example)
    picture(v.noise_figure, "chart-home-why-noise", v.sentence)
    st.markdown(v.sentence)
    record_for_notebook(v, f"{v.example}\n\n{v.sentence}")  # the notebook rebuilds both figures
    st.page_link(
        "pages/compare.py",
        label="**The story behind it: “Variance skew favours PLAN”**",
        icon=":material/play_circle:",
        query_params={"preset": "skew_favours_plan"},
    )


_first_screen()
st.markdown(v.intro)
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
_example()

st.subheader(TOUR_HEADING)
for spec, label in tour():  # the title as the link, the blurb as text that wraps on a phone
    if (ROOT / spec.path).exists():
        with st.container(key=f"tour-{spec.url_path}"):
            st.page_link(spec.path, label=f"**{label}**", icon=spec.icon)
            st.caption(spec.blurb)

st.info(v.sidebar)
st.subheader("Glossary")
st.markdown("The words the pages use, in one place (each page also defines them on hover).")
st.markdown(v.glossary)
st.caption(
    "Noise in this app comes from a seeded NumPy generator: right for teaching and simulation, "
    "not a secure DP release of real data."
)
