"""Side by side: every applicable estimator's clipping region and noise shape on the sidebar's data,
in two chosen coordinates and at one shared scale, each from one real run through the registry.
Geometry: dpcore.theory.gallery (one function per family); runs: dpcore.experiments.studies; drawing:
dpcore.figures.gallery and dpcore.figures.motion."""

import numpy as np
import streamlit as st

from dpcore.data import DISTRIBUTIONS
from dpcore.estimators.plan import PlanDiagnostics
from dpcore.experiments import default_estimators, studies
from dpcore.experiments.plain import release_words
from dpcore.experiments.studies import subsample
from dpcore.figures.gallery import ZOOMS, gallery_figure, releases_figure, shapes_headline
from dpcore.figures.motion import exponent_sweep_animation, plan_steps_animation
from dpcore.figures.slides import deck_html
from dpcore.figures.style import plain
from dpcore.registry import applicable, get
from pages._goto import SEEN
from pages._plain import plain_box
from pages._present import Deck, drawn_points, paragraph, presenting
from pages._spec import page
from pages._ui import CACHE_TTL, chart, dataset, settings, simulation_notice, user_errors

MAX_POINTS = 1500
PROBS = [0.5, 0.9, 0.95, 0.99]
REPS = 100
#: the gallery's height: two rows (regions above noise), on a presenter slide (what 1280x720 leaves
#: a chart), or one row; each estimator's column is a figure of its own, about 275 px wide on a
#: laptop and a phone's width on a phone
GALLERY_HEIGHTS = {"both": 520, "slide": 450, "one row": 320}

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

with user_errors():
    data = dataset(s)
n, d = data.n, data.d
if d < 2:
    st.info("This page needs **two coordinates**: set d ≥ 2 in the sidebar.")
    st.stop()

ss = st.session_state
options = [spec.name for spec in applicable(data.kind, d) if spec.name != "empirical"]
defaults = [nm for nm in default_estimators(data.kind, s.unit, d) if nm in options]
query_est = st.query_params.get("estimator")  # from Compare: a click on its chart or a ranking link
fresh = query_est is not None and ss.get(SEEN) != query_est
if fresh or "sbs_names" not in ss or ss.get("_sbs_kind") != (data.kind, s.unit):
    ss["sbs_names"] = defaults + (
        [query_est] if query_est in options and query_est not in defaults else []
    )
    ss["_sbs_kind"] = (data.kind, s.unit)
    ss[SEEN] = query_est
    ss.pop("sbs_focus", None)  # "Draw 100 releases" starts on the estimator asked for
if query_est in options:
    st.caption(
        f"Opened at **{get(query_est).label}** (from Compare), at that point's data and budget: "
        f"n = {n:,}, d = {d}, {s.budget}."
    )
ss["sbs_names"] = [nm for nm in ss["sbs_names"] if nm in options]
for key, default in (("sbs_i", 1), ("sbs_j", 2)):  # adjacent: every region shows its shape
    ss[key] = min(max(int(ss.get(key, default)), 1), d)

if presenting():  # the chart's settings join the sidebar's, so each screen is the slide
    c1 = c2 = c3 = c4 = c5 = c6 = st.sidebar.expander("Chart settings", icon=":material/tune:")
else:
    c1, c2, c3 = st.columns([4, 1, 1])
    c4, c5, c6 = st.columns(3)
names = c1.multiselect("Estimators", options, key="sbs_names", format_func=lambda nm: get(nm).label)
ci = c2.number_input(
    "Horizontal: coordinate",
    1,
    d,
    key="sbs_i",
    help="Coordinate 1 has the largest spread under variance skew, coordinate d the smallest.",
)
cj = c3.number_input("Vertical: coordinate", 1, d, key="sbs_j")
view = c4.radio(
    "View",
    ["small", "overlay"],
    horizontal=True,
    key="sbs_view",
    format_func={"small": "small multiples", "overlay": "overlay"}.get,
)
zoom = c5.radio(
    "Frame",
    list(ZOOMS),
    horizontal=True,
    key="sbs_zoom",
    format_func={
        "both": "regions and noise",
        "data": "the data",
        "clip": "every whole region",
        "noise": "zoom on the noise",
    }.get,
    help="'Regions and noise': every whole clipping region above every noise shape, zoomed in "
    "(the noise is about a hundred times smaller); 'the data' frames the rows (larger regions "
    "run off the edges); 'every whole region' zooms out until every clipping region fits; "
    "'zoom on the noise' frames the noise shapes.",
)
prob = c6.select_slider(
    "Noise shape holds the release with probability",
    PROBS,
    value=0.95,
    key="sbs_prob",
    format_func=lambda p: f"{p:.0%}",
)
if ci == cj:
    st.warning("Pick two **different** coordinates.")
    st.stop()
coords = (int(ci) - 1, int(cj) - 1)
if not names:
    st.info("Pick at least one estimator.")
    st.stop()


@st.cache_data(show_spinner="Running each estimator once…", max_entries=8, ttl=CACHE_TTL)
def _gallery(
    distribution: str,
    n: int,
    d: int,
    skew: float,
    seed: int,
    unit: str,
    budget_value: float,
    delta: float,
    names: tuple[str, ...],
    coords: tuple[int, int],
    prob: float,
):
    return studies.run_gallery(dataset(s), s.budget, names, coords, seed=seed, prob=prob)


key = (s.distribution, n, d, s.skew, s.seed, s.unit, s.budget_value, s.delta)
with user_errors():
    entries, skipped = _gallery(*key, tuple(names), coords, float(prob))
for reason in skipped.values():
    st.caption(f"Not drawn: {reason}")
if not entries:
    st.stop()

max_points = drawn_points(MAX_POINTS)
rows = subsample(n, max_points, rng=s.seed)
points = data.x[np.ix_(rows, coords)]
truth = data.true_mean[list(coords)]
# one column per estimator (each drawn as a figure of its own: side by side, stacked on a phone)
tall = GALLERY_HEIGHTS["one row" if zoom != "both" else "slide" if presenting() else "both"]
fig, frame = gallery_figure(
    entries, points, truth, coords, view=view, zoom=zoom, columns=len(entries), height=tall
)
i, j = coords


sentence = shapes_headline(entries, coords)
code = (
    s.code()
    + "from dpcore.experiments import studies\nfrom dpcore.figures.gallery import gallery_figure\n"
    f"entries, skipped = studies.run_gallery(data, budget, {list(names)!r}, {coords!r}, seed={s.seed}, "
    f"prob={prob!r})\n"
    f"rows = studies.subsample(data.n, {max_points}, rng={s.seed})  # the rows drawn\n"
    f"fig, frame = gallery_figure(entries, data.x[rows][:, {list(coords)!r}], "
    f"data.true_mean[{list(coords)!r}], {coords!r}, view={view!r}, zoom={zoom!r}, "
    f"columns={len(entries)}, height={tall!r})\n"
)
#: the run of PLAN behind the two motion charts, as notebook code
plan_code = (
    s.code() + "from dpcore import registry\nfrom dpcore.experiments import studies\n"
    f"est = registry.get({'plan_l1' if data.kind == 'binary' else 'plan'!r}).run(\n"
    f"    data, budget, rng={s.seed}, at_implied_level=True\n)\n"
)


@st.cache_data(show_spinner="Drawing 100 releases…", max_entries=8, ttl=CACHE_TTL)
def _draws(
    distribution: str,
    n: int,
    d: int,
    skew: float,
    seed: int,
    unit: str,
    budget_value: float,
    delta: float,
    name: str,
) -> np.ndarray:
    return studies.release_draws(name, dataset(s), s.budget, reps=REPS, rng=seed)


def _drawn(value: tuple) -> None:
    ss["sbs_drawn"] = value


@st.cache_data(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _plan_run(
    distribution: str,
    n: int,
    d: int,
    skew: float,
    seed: int,
    unit: str,
    budget_value: float,
    delta: float,
):
    ds = dataset(s)
    name = "plan_l1" if ds.kind == "binary" else "plan"
    return get(name).run(ds, s.budget, rng=seed, at_implied_level=True)


def _gallery_section() -> None:
    chart(fig, frame, "side-by-side", sentence, code, by_column=view == "small")
    if presenting():
        paragraph(INTRO, "sbs-intro", "How to read these pictures")
    releases = {e.label: e.release for e in entries}
    what = f"the means of coordinates {i + 1} and {j + 1}"
    words = release_words(s.budget, releases, truth, delta=s.delta, what=what, rank=False)
    plain_box(s.budget, words=words)  # one run each: the errors' range, no ranking

    with st.expander("What each region is (from the run's diagnostics)", expanded=False):
        for e in entries:
            noise = (
                "no noise"
                if e.noise.kind == "none"
                else f"{'Gaussian' if e.noise.kind == 'gaussian' else 'Laplace'} noise, per-coordinate "
                f"{'std' if e.noise.kind == 'gaussian' else 'scale b'} "
                f"{plain(e.noise.scale[0])}, {plain(e.noise.scale[1])}"
            )
            st.markdown(f"- **{e.label}**: clips to the {e.region.note}; {noise}.")
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
    focus_default = query_est if query_est in [e.name for e in entries] else entries[0].name
    by_name = {e.name: e for e in entries}
    focus = st.selectbox(
        "Estimator",
        list(by_name),
        index=list(by_name).index(focus_default),
        format_func=lambda nm: by_name[nm].label,
        key="sbs_focus",
    )
    st.button(
        f"Draw {REPS} releases",
        key="sbs_draw",
        type="primary",
        on_click=_drawn,
        args=((key, focus),),
    )
    if ss.get("sbs_drawn") == (key, focus):
        with user_errors():
            draws = _draws(*key, focus)[:, list(coords)]
        e = by_name[focus]
        rfig, rframe = releases_figure(draws, e, truth, coords)
        frac = float(np.mean(rframe["inside_shape"]))
        dist = np.linalg.norm(draws - truth, axis=1)
        chart(
            rfig,
            rframe,
            "releases",
            f"Of {REPS} releases of **{e.label}**, {frac:.0%} land inside the {e.noise.prob:.0%} noise shape of the "
            f"first run (centre, scale and radius are redrawn every time, so more can fall outside); in these two "
            f"coordinates the median release is {plain(np.median(dist))} from the true mean and the farthest "
            f"{plain(dist.max())}.",
            code
            + f"draws = studies.release_draws({focus!r}, data, budget, reps={REPS}, rng={s.seed})\n"
            "from dpcore.figures.gallery import releases_figure\n"
            f"entry = next(e for e in entries if e.name == {focus!r})\n"
            f"fig, frame = releases_figure(draws[:, {list(coords)!r}], entry, "
            f"data.true_mean[{list(coords)!r}], {coords!r})\n",
        )


def _steps_view() -> tuple:
    with user_errors():
        plan_est = _plan_run(*key)
    mfig, mframe = plan_steps_animation(
        data.x, plan_est, coords, true_mean=data.true_mean, rows=rows
    )
    text = (
        f"PLAN clipped {plan_est.diagnostics.fraction_clipped:.1%} of the {n:,} rows at scaled radius "
        f"C = {plain(plan_est.diagnostics.clip_radius)}; step (d) shows the release."
    )
    mcode = (
        plan_code + "from dpcore.figures.motion import plan_steps_animation\n"
        f"rows = studies.subsample(data.n, {max_points}, rng={s.seed})  # the rows drawn\n"
        f"fig, frame = plan_steps_animation(\n    data.x, est, {coords!r}, true_mean=data.true_mean, "
        "rows=rows\n)\n"
    )
    return mfig, mframe, text, mcode, plan_est


def _sweep_view() -> tuple:
    with user_errors():
        plan_est = _plan_run(*key)
    rho_noise = float(plan_est.diagnostics_as(PlanDiagnostics).budgets["noise"])
    efig, eframe = exponent_sweep_animation(data.true_std, n, rho_noise)
    best = eframe.assign(sq=eframe.noise_std**2).groupby("exponent")["sq"].sum().idxmin()
    text = (
        f"As the exponent e grows from 0, noise moves from the low-spread coordinates to the high-spread ones; "
        f"the total noise (ℓ2) is smallest near e = {best:g} on this data (PLAN uses 1/4 for ℓ2 error)."
    )
    ecode = (
        plan_code + "from dpcore.figures.motion import exponent_sweep_animation\n"
        "rho_noise = float(est.diagnostics.budgets['noise'])  # PLAN's noise stage\n"
        "fig, frame = exponent_sweep_animation(data.true_std, data.n, rho_noise)\n"
    )
    return efig, eframe, text, ecode


def _steps_section() -> None:
    st.subheader("Motion: PLAN's four steps")
    how = (
        "Press **▶ play** (or drag the slider) to watch one run of PLAN on this data move the rows: "
        "**(a)** raw, **(b)** centred and scaled, **(c)** clipped (orange rows are clipped, judged by their "
        "whole d-dimensional length), **(d)** back in original space with the private mean."
    )
    if not presenting():  # in presenter mode: the slide's speaker notes
        st.markdown(how)
    mfig, mframe, text, mcode, plan_est = _steps_view()
    if plan_est.conversion is not None and not plan_est.conversion.meets_budget:
        st.caption(
            f"PLAN is ρ-zCDP: under a pure ε budget it runs here at the implied level and does **not** give "
            f"ε-DP. {plan_est.conversion.rule}"
        )
    chart(mfig, mframe, "plan-steps-animation", text, mcode)
    if presenting():
        paragraph(how, "sbs-steps", "What each step shows")


def _sweep_section() -> None:
    st.subheader("Motion: the scaling exponent")
    efig, eframe, text, ecode = _sweep_view()
    chart(efig, eframe, "exponent-sweep", text, ecode)


def _deck() -> str:
    slides = [
        ("Clipping and noise, side by side", sentence, fig),
        ("PLAN's four steps", *_steps_view()[2::-2]),  # (sentence, figure)
        ("The scaling exponent", *_sweep_view()[2::-2]),
    ]
    if ss.get("sbs_drawn") == (key, ss.get("sbs_focus")):
        e = next((en for en in entries if en.name == ss["sbs_focus"]), None)
        if e is not None:
            rfig, _ = releases_figure(_draws(*key, e.name)[:, list(coords)], e, truth, coords)
            slides.append(
                (f"{REPS} releases of {e.label}", "Where the releases land on the same data.", rfig)
            )
    return deck_html(
        "dpmean lab: side by side",
        slides,
        subtitle=f"{DISTRIBUTIONS[s.distribution].label}, n = {n:,}, d = {d}, {s.budget}, seed {s.seed}; "
        f"coordinates {i + 1} and {j + 1}.",
    )


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
