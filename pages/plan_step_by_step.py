"""PLAN step by step: the paper's Figure 1, live, from one run of PLAN on the current data, with
the clip ellipse, the noise ellipse, IOME's ball, the scaling exponent, the noise shapes and the
error split. Numbers, sentences and code: dpcore.views.plan. Spec: docs/estimators/plan.md §2, §6,
§8 (developer reference; the page names the paper)."""

import streamlit as st

from dpcore.figures.plan import exponent_curve, noise_figure, noise_shapes_figure, plan_steps_figure
from dpcore.figures.style import error_split_chart
from dpcore.views.plan import (
    CHARTS,
    MAX_POINTS,
    PlanSettings,
    before_run,
    exp_label,
    is_exponent,
    nearest_exponent,
    options,
    plan_exponent,
    seconds,
    view,
)
from pages._plain import plain_box
from pages._present import Deck, drawn_points, off_screen, paragraph, slides_button
from pages._spec import PLAN_STEPS, page
from pages._ui import (
    chart,
    confirm_long_run,
    native_budget,
    report_button,
    settings,
    simulation_notice,
    smaller_data_choices,
    url_widget,
    user_errors,
    words_on_this_page,
)
from pages._views import cached, drawn

#: presenter mode: PLAN's steps (a)-(d), then one idea per screen (pages/_spec.py)
STEPS = list(PLAN_STEPS)
MORE = list(page("pages/plan_step_by_step.py").steps[len(STEPS) :])

s = settings()
st.title("PLAN step by step")
deck = Deck(STEPS + MORE, key="plan_slide")  # presenter mode: one step, then one idea, per screen
# what presenter mode hides (the intro, the numbers, the sections of other slides) is not sent:
# every following phone reruns this page at each step (docs/classroom.md); widgets still are
shown = not off_screen()
if shown:
    st.markdown(
        "PLAN (Aumüller, Lebeda, Nelson and Pagh, PETS 2024) adds less noise where the data vary less. It "
        "**(a)** starts from the raw rows, **(b)** moves them to a private centre μ̃ (coordinate-wise median) and "
        "multiplies coordinate *i* by $s_i = \\hat\\sigma_i^{-2/(p+2)}$, **(c)** pulls every row whose scaled "
        "length exceeds a "
        "private radius C back onto the ball of radius C, adds Gaussian noise to the sum, and **(d)** undoes the "
        "scaling and the centring. Everything below comes from **one run of PLAN on all the data** (all *d* "
        "coordinates); the pictures show two of the coordinates of that run. Beside it run **IOME** "
        "(instance-optimal mean estimation, Huang, Liang and Yi 2021: rotate the data at random, find a private "
        "centre from private coordinate medians, release a shifted, clipped mean with Gaussian noise) and the plain "
        "Gaussian mechanism, at the same budget."
    )
    words_on_this_page("PLAN", "IOME", "zCDP", "ρ", "oracle", "clipping bias", "sampling floor")

with user_errors():
    native_budget(s.checked(), "zcdp")  # the warning when a pure ε budget cannot be met
opts = options(s)
d = s.d

# ---------------------------------------------------------------------------------------------
# local controls


def _reset_exponent() -> None:
    st.session_state["plan_e"] = plan_exponent(st.session_state["plan_p"])


c1, c2, c3, c4 = st.columns([1, 2, 1, 1])
p = url_widget(
    c1.radio,
    "Target error ℓp",
    list(opts.p),
    key="plan_p",
    default=opts.default_p,
    horizontal=True,
    on_change=_reset_exponent,
    format_func=lambda v: f"p = {v}",
    help="PLAN's scaling exponent is 1/(p+2): 1/4 for ℓ2, 1/3 for ℓ1.",
)
source = url_widget(
    c2.radio,
    "Variances σ̂",
    list(opts.source),
    key="plan_var",
    default="private",
    horizontal=True,
    format_func=opts.source.get,
    help=opts.source_help,
)
ci = cj = 1
if d >= 2:
    ci = url_widget(
        c3.number_input,
        "Horizontal axis: coordinate",
        1,
        d,
        key="plan_i",
        default=1,
        valid=lambda v: isinstance(v, int) and 1 <= v <= d,
    )
    cj = url_widget(
        c4.number_input,
        "Vertical axis: coordinate",
        1,
        d,
        key="plan_j",
        default=min(4, d),
        valid=lambda v: isinstance(v, int) and 1 <= v <= d,
    )
exponent = url_widget(
    st.select_slider,
    "Scaling exponent e in sᵢ = σ̂ᵢ⁻²ᵉ (0 = no scaling, 1/(p+2) = PLAN, 1/2 = equal split)",
    list(opts.exponents),
    key="plan_e",
    default=plan_exponent(p),
    valid=is_exponent,
    parse=nearest_exponent,
    format_func=exp_label,
)
record = PlanSettings(
    s, int(p), source, float(exponent), int(ci), int(cj), drawn_points(MAX_POINTS)
)

with user_errors():
    risk = cached(before_run)(record)  # from public values only (n, d, rho, the range)
if risk is not None and shown:
    st.warning("**Before the run:** " + risk)
confirm_long_run(
    f"plan:{record}",
    seconds(s.n, d),
    f"PLAN, IOME and the Gaussian mechanism on {s.n:,} × {d} values, and the pictures",
    smaller_data_choices(s.n, d, seconds),
)
with (
    user_errors(),
    st.spinner(f"Running PLAN, IOME and the Gaussian mechanism on {s.n:,} rows × {d} columns…"),
):
    v = cached(view)(record)
if shown:
    for w in v.warnings:
        st.warning(w)
    for col, m in zip(st.columns(4), v.metrics, strict=True):
        col.metric(m.label, m.value, m.delta, help=m.help, delta_color="off")

# ---------------------------------------------------------------------------------------------
deck.mark(*STEPS)
if not off_screen():
    st.subheader("The four steps")
    if v.coords_note is not None:
        kind, note = v.coords_note
        (st.info if kind == "info" else st.warning)(note)
    paragraph(v.intro, "plan_steps_intro", "How to read the panels")
    if v.jitter_note:
        st.caption(v.jitter_note)
with user_errors(), st.spinner("Drawing the steps and the noise shapes…"):
    # plotly's dict (layout kept per process), not a validated figure
    fig, df = drawn(record, "plan_steps", lambda: plan_steps_figure(**v.steps, drawn=True))
chart(
    fig,
    df,
    "plan_steps",
    v.sentences["plan_steps"],
    v.codes["plan_steps"],
    columns=2,  # one panel per row on a phone
    panel=deck.index if deck.on and deck.index < len(STEPS) else None,
)

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[0])
if not off_screen():
    st.subheader("Zoom on the mean: the noise ellipse")
fig, df = drawn(record, "plan_noise_ellipse", lambda: noise_figure(**v.noise, drawn=True))
chart(
    fig, df, "plan_noise_ellipse", v.sentences["plan_noise_ellipse"], v.codes["plan_noise_ellipse"]
)

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[1])
if not off_screen():
    st.subheader("Why the middle ground wins")
    paragraph(
        "Scaling trades the clip radius against the noise per coordinate. With no scaling (e = 0) the ball must "
        "reach the widest coordinate, so the narrow ones get far too much noise. With the equal split (e = 1/2, "
        "whitening) every coordinate gets the same noise in units of its own σ, and the wide coordinates pay. "
        "PLAN's e = 1/(p+2) minimises the expected ℓp noise (the paper's Appendix C): the curve is the idealised "
        "noise with σ known and C equal to the typical scaled length. Move the slider above to run PLAN at "
        "another exponent and watch the ellipses change.",
        "plan_exponent_intro",
    )
# closed form, no seed: drawn once for every seed at the same data settings and budget
fig, df = drawn(v.curve_key, "plan_exponent", lambda: exponent_curve(**v.curve))
chart(fig, df, "plan_exponent", v.sentences["plan_exponent"], v.codes["plan_exponent"])

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[2])
if not off_screen():
    st.subheader("Noise shapes over all coordinates")
fig, df = drawn(record, "plan_noise_shapes", lambda: noise_shapes_figure(**v.shapes, drawn=True))
chart(fig, df, "plan_noise_shapes", v.sentences["plan_noise_shapes"], v.codes["plan_noise_shapes"])

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[3])
if not off_screen():
    st.subheader("Where the error comes from")
chart(
    drawn(record, "plan_error_split", lambda: error_split_chart(v.split)),
    v.split,
    "plan_error_split",
    v.sentences["plan_error_split"],
    v.codes["plan_error_split"],
)
if not off_screen():
    plain_box(s.budget, words=v.split_words)  # the split's three runs

deck.end()
slides_button(
    f"PLAN step by step: {v.plan_label}",
    [(t, "plan_steps", k) for k, t in enumerate(STEPS)]
    + [(t, name, None) for t, name in zip(MORE, CHARTS[1:], strict=True)],
    subtitle=v.subtitle,
    key="plan",
)
if not off_screen():  # below the last slide: never on a presenter's screen
    report_button(
        f"PLAN step by step: {v.plan_label}",
        list(CHARTS),
        settings=v.report_settings,
        ledger=v.ledger,
        code=v.code,
        key="plan",
    )
    st.caption(v.spent)
    simulation_notice()
