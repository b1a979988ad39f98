"""Side by side: every applicable estimator's clipping region and noise shape on the sidebar's data,
in two chosen coordinates and at one shared scale, each from one real run through the registry.
Runs, readouts and code: dpcore.views.side_by_side; drawing: dpcore.figures.gallery and
dpcore.figures.motion."""

from typing import Any

import streamlit as st

from dpcore.figures.gallery import gallery_figure, releases_figure
from dpcore.figures.motion import exponent_sweep_animation, plan_steps_animation
from dpcore.figures.slides import deck_html
from dpcore.views.side_by_side import (
    MAX_POINTS,
    REPS,
    SideBySideSettings,
    opened_from,
    options,
    releases,
    view,
)
from pages._goto import SEEN
from pages._plain import plain_box
from pages._present import Deck, drawn_points, paragraph, presenting
from pages._spec import page
from pages._ui import chart, settings, simulation_notice, user_errors
from pages._views import cached, drawn

s = settings()
st.title("Side by side")
INTRO = (
    "Every estimator on **the same data**, in **two coordinates you choose**. Top row, at one scale: the "
    "outlined region is where it **clips** (rows outside are pulled in before averaging). Bottom row, zoomed "
    "in: the filled shape is where its **noise** puts the release with the stated probability (an ellipse for "
    "Gaussian noise, a diamond for Laplace noise) around the run's noiseless (clipped) mean, so the gap "
    "from a shape to the star, the true mean, is sampling error and clipping bias, not noise. The marker "
    "is the release of one real run."
)
if not presenting():  # in presenter mode the paragraph is the first slide's speaker notes
    st.markdown(INTRO)

d = s.d
if d < 2:
    st.info("This page needs **two coordinates**: set d ≥ 2 in the sidebar.")
    st.stop()

ss = st.session_state
with user_errors():
    opts = options(s)
query_est = st.query_params.get("estimator")  # from Compare: a click on its chart or a ranking link
fresh = query_est is not None and ss.get(SEEN) != query_est
if fresh or "sbs_names" not in ss or ss.get("_sbs_kind") != (s.kind, s.unit):
    ss["sbs_names"] = list(opts.defaults) + (
        [query_est] if query_est in opts.estimators and query_est not in opts.defaults else []
    )
    ss["_sbs_kind"] = (s.kind, s.unit)
    ss[SEEN] = query_est
    ss.pop("sbs_focus", None)  # "Draw 100 releases" starts on the estimator asked for
if query_est in opts.estimators:
    st.caption(opened_from(s, query_est))
ss["sbs_names"] = [nm for nm in ss["sbs_names"] if nm in opts.estimators]
for key, default in (("sbs_i", 1), ("sbs_j", 2)):  # adjacent: every region shows its shape
    ss[key] = min(max(int(ss.get(key, default)), 1), d)

cells: list[
    Any
] = (  # presenter mode: the chart's settings join the sidebar's (each screen a slide)
    [st.sidebar.expander("Chart settings", icon=":material/tune:")] * 6
    if presenting()
    else [*st.columns([4, 1, 1]), *st.columns(3)]
)
c1, c2, c3, c4, c5, c6 = cells
names = c1.multiselect(
    "Estimators", list(opts.estimators), key="sbs_names", format_func=lambda nm: opts.labels[nm]
)
ci = c2.number_input(
    "Horizontal: coordinate",
    1,
    d,
    key="sbs_i",
    help="Coordinate 1 has the largest spread under variance skew, coordinate d the smallest.",
)
cj = c3.number_input("Vertical: coordinate", 1, d, key="sbs_j")
layout = c4.radio(
    "View", list(opts.views), horizontal=True, key="sbs_view", format_func=opts.views.get
)
zoom = c5.radio(
    "Frame",
    list(opts.zooms),
    horizontal=True,
    key="sbs_zoom",
    format_func=opts.zooms.get,
    help="'Regions and noise': every whole clipping region above every noise shape, zoomed in "
    "(the noise is about a hundred times smaller); 'the data' frames the rows (larger regions "
    "run off the edges); 'every whole region' zooms out until every clipping region fits; "
    "'zoom on the noise' frames the noise shapes.",
)
prob = c6.select_slider(
    "Noise shape holds the release with probability",
    list(opts.probs),
    value=0.95,
    key="sbs_prob",
    format_func=lambda p: f"{p:.0%}",
)
if ci == cj:
    st.warning("Pick two **different** coordinates.")
    st.stop()
if not names:
    st.info("Pick at least one estimator.")
    st.stop()

record = SideBySideSettings(
    s,
    tuple(names),
    int(ci),
    int(cj),
    layout,
    zoom,
    float(prob),
    drawn_points(MAX_POINTS),
    presenting(),
)
with user_errors(), st.spinner("Running each estimator once…"):
    v = cached(view)(record)
for reason in v.skipped:
    st.caption(f"Not drawn: {reason}")
if not v.entries:
    st.stop()
# one column per estimator (each drawn as a figure of its own: side by side, stacked on a phone)
fig, frame = gallery_figure(**v.gallery, drawn=True)  # plotly's dict, layout kept per process


def _drawn(value: tuple) -> None:
    ss["sbs_drawn"] = value


def _gallery_section() -> None:
    chart(
        fig,
        frame,
        "side-by-side",
        v.sentences["side-by-side"],
        v.codes["side-by-side"],
        by_column=layout == "small",
    )
    if presenting():
        paragraph(INTRO, "sbs-intro", "How to read these pictures")
    plain_box(s.budget, words=v.words)  # one run each: the errors' range, no ranking

    with st.expander("What each region is (from the run's diagnostics)", expanded=False):
        for line in v.regions:
            st.markdown(line)
        st.markdown(
            "These are **projections** of each estimator's d-dimensional clipping set on the two coordinates: a row "
            "is clipped when its whole vector lies outside, so a point inside a drawn region can still be clipped "
            "by its other coordinates. **IOME** clips to a ball in a *randomly rotated* space; a rotation keeps "
            "balls round, so back in the original coordinates it is again a ball, centred at the private median of "
            "the rotated data rotated back (not the coordinate-wise median). When d is not a power of two the data "
            "are padded with zeros before rotating, and the data's own coordinates cut the ball in a smaller one, "
            "which is what is drawn."
        )


def _releases_section() -> None:
    st.subheader("Draw 100 releases")
    st.markdown(
        "One run is one draw. Rerun an estimator **100 times on the same data** (its private centre, "
        "scale and radius are redrawn too) and see where the releases land."
    )
    by_name = {e.name: e.label for e in v.entries}
    focus_default = query_est if query_est in by_name else v.entries[0].name
    focus = st.selectbox(
        "Estimator",
        list(by_name),
        index=list(by_name).index(focus_default),
        format_func=lambda nm: by_name[nm],
        key="sbs_focus",
    )
    st.button(
        f"Draw {REPS} releases",
        key="sbs_draw",
        type="primary",
        on_click=_drawn,
        args=((record, focus),),
    )
    if ss.get("sbs_drawn") == (record, focus):
        with user_errors(), st.spinner(f"Drawing {REPS} releases…"):
            r = cached(releases)(record, focus)
        rfig, rframe = releases_figure(r.draws, r.entry, r.truth, r.coords)
        chart(rfig, rframe, "releases", r.sentence, r.code)


def _steps_view() -> tuple:
    mfig, mframe = plan_steps_animation(**v.steps, drawn=True)  # as a dict: no validation
    return mfig, mframe, v.sentences["plan-steps-animation"], v.codes["plan-steps-animation"]


def _sweep_view() -> tuple:
    # closed form, no seed: drawn once for every seed at the same data settings and budget
    efig, eframe = drawn(v.sweep_key, "exponent-sweep", lambda: exponent_sweep_animation(**v.sweep))
    return efig, eframe, v.sentences["exponent-sweep"], v.codes["exponent-sweep"]


def _steps_section() -> None:
    st.subheader("Motion: PLAN's four steps")
    how = (
        "Press **▶ play** (or drag the slider) to watch one run of PLAN on this data move the rows: "
        "**(a)** raw, **(b)** centred and scaled, **(c)** clipped (orange rows are clipped, judged by their "
        "whole d-dimensional length), **(d)** back in original space with the private mean."
    )
    if not presenting():  # in presenter mode: the slide's speaker notes
        st.markdown(how)
    if v.plan_note:
        st.caption(v.plan_note)
    mfig, mframe, text, mcode = _steps_view()
    chart(mfig, mframe, "plan-steps-animation", text, mcode)
    if presenting():
        paragraph(how, "sbs-steps", "What each step shows")


def _sweep_section() -> None:
    st.subheader("Motion: the scaling exponent")
    efig, eframe, text, ecode = _sweep_view()
    chart(efig, eframe, "exponent-sweep", text, ecode)


def _deck() -> str:
    slides = [
        ("Clipping and noise, side by side", v.sentences["side-by-side"], fig),
        ("PLAN's four steps", *_steps_view()[2::-2]),  # (sentence, figure)
        ("The scaling exponent", *_sweep_view()[2::-2]),
    ]
    focus = ss.get("sbs_focus")
    if ss.get("sbs_drawn") == (record, focus) and focus in {e.name for e in v.entries}:
        r = cached(releases)(record, focus)
        rfig, _ = releases_figure(r.draws, r.entry, r.truth, r.coords)
        slides.append(
            (f"{REPS} releases of {r.label}", "Where the releases land on the same data.", rfig)
        )
    return deck_html("dpmean lab: side by side", slides, subtitle=v.subtitle)


#: The page's sections, titled by its presenter steps (pages/_spec.py)
SECTIONS = dict(
    zip(
        page("pages/side_by_side.py").steps,
        (_gallery_section, _releases_section, _steps_section, _sweep_section),
        strict=True,
    )
)
deck = Deck(list(SECTIONS), key="sbs_slide")  # presenter mode: one section per screen
for title, section in SECTIONS.items():
    if deck.showing(title):
        deck.mark(title)
        section()
deck.end()
st.sidebar.download_button(
    "Slides of this page (HTML)",
    _deck,
    file_name="side-by-side-slides.html",
    mime="text/html",
    key="sbs_deck",
    on_click="ignore",
    help="One self-contained HTML deck of this page's charts (← → to step), for a talk.",
)
simulation_notice()
