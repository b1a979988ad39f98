"""PLAN step by step: the paper's Figure 1, live, from one run of PLAN on the current data, with
the clip ellipse, the noise ellipse, IOME's ball, the scaling exponent, the noise shapes and the
error split. Spec: docs/estimators/plan.md §2, §6, §8 (developer reference; the page names the
paper)."""

from dataclasses import asdict
from fractions import Fraction

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.data import DISTRIBUTIONS
from dpcore.estimators.iome import IomeDiagnostics
from dpcore.estimators.plan import PlanDiagnostics, thin_budget_risk
from dpcore.experiments.cost import seconds_plan_page
from dpcore.experiments.plain import split_words
from dpcore.experiments.studies import baseline_runs, display_sample, plan_entry, plan_run
from dpcore.figures.plan import (
    error_split_frame,
    exponent_curve,
    noise_figure,
    noise_shapes_figure,
    plan_steps_figure,
    step_summary,
)
from dpcore.figures.style import error_split_chart, keep, plain
from dpcore.glossary import define
from dpcore.privacy import Budget
from dpcore.registry import get
from pages._bytecache import byte_cached
from pages._plain import plain_box
from pages._present import Deck, drawn_points, paragraph, slides_button
from pages._spec import PLAN_STEPS, page
from pages._ui import (
    CACHE_TTL,
    chart,
    confirm_long_run,
    dataset,
    native_budget,
    report_button,
    settings,
    simulation_notice,
    smaller_data_choices,
    url_widget,
    user_errors,
    words_on_this_page,
)

MAX_POINTS = 2000
#: Bytes each of the page's run caches may hold (its view caches twice this), for all sessions.
PAGE_CACHE_BYTES = 64 * 2**20
JITTER = 0.1  # display-only spread for 0/1 data, whose rows sit on the four corners of a square
EXPONENTS = sorted({round(k * 0.05, 2) for k in range(11)} | {1 / 3})

#: presenter mode: PLAN's steps (a)-(d), then one idea per screen (pages/_spec.py)
STEPS = list(PLAN_STEPS)
MORE = list(page("pages/plan_step_by_step.py").steps[len(STEPS) :])

s = settings()
st.title("PLAN step by step")
deck = Deck(STEPS + MORE, key="plan_slide")  # presenter mode: one step, then one idea, per screen
st.markdown(
    "PLAN (Aumüller, Lebeda, Nelson and Pagh, PETS 2024) adds less noise where the data vary less. It "
    "**(a)** starts from the raw rows, **(b)** moves them to a private centre μ̃ (coordinate-wise median) and "
    "multiplies coordinate *i* by sᵢ = σ̂ᵢ^(−2/(p+2)), **(c)** pulls every row whose scaled length exceeds a "
    "private radius C back onto the ball of radius C, adds Gaussian noise to the sum, and **(d)** undoes the "
    "scaling and the centring. Everything below comes from **one run of PLAN on all the data** (all *d* "
    "coordinates); the pictures show two of the coordinates of that run. Beside it run **IOME** "
    "(instance-optimal mean estimation, Huang, Liang and Yi 2021: rotate the data at random, find a private "
    "centre from private coordinate medians, release a shifted, clipped mean with Gaussian noise) and the plain "
    "Gaussian mechanism, at the same budget."
)
words_on_this_page("PLAN", "IOME", "zCDP", "ρ", "oracle", "clipping bias", "sampling floor")

with user_errors():
    conv = native_budget(s.budget, "zcdp")
    rho = conv.value
    data = dataset(s)
binary = data.kind == "binary"
n, d = data.n, data.d

# ---------------------------------------------------------------------------------------------
# local controls


def _reset_exponent() -> None:
    st.session_state["plan_e"] = 1 / (st.session_state["plan_p"] + 2)


def _exp_label(e: float) -> str:
    names = {
        0.0: "0 · no scaling",
        0.25: "1/4 · PLAN for p = 2",
        1 / 3: "1/3 · PLAN for p = 1",
        0.5: "1/2 · equal split",
    }
    return names.get(e, str(Fraction(e).limit_denominator(100)) if e else "0")


c1, c2, c3, c4 = st.columns([1, 2, 1, 1])
p = url_widget(
    c1.radio,
    "Target error ℓp",
    [1, 2],
    key="plan_p",
    default=1 if binary else 2,
    horizontal=True,
    on_change=_reset_exponent,
    format_func=lambda v: f"p = {v}",
    help="PLAN's scaling exponent is 1/(p+2): 1/4 for ℓ2, 1/3 for ℓ1.",
)
source = url_widget(
    c2.radio,
    "Variances σ̂",
    ["private", "oracle"],
    key="plan_var",
    default="private",
    horizontal=True,
    format_func={
        "private": "private (Algorithm 2)" if not binary else "private (noisy frequencies)",
        "oracle": "known σ (oracle, teaching)",
    }.get,
    help="Private: PLAN spends part of its budget estimating σ̂ and regularises it (σ̂ + ‖σ̂‖₁/d). "
    "Known: the true σ is used as it is and nothing is spent on it. " + define("oracle"),
)
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
else:
    ci = cj = 1
exponent = url_widget(
    st.select_slider,
    "Scaling exponent e in sᵢ = σ̂ᵢ^(−2e) (0 = no scaling, 1/(p+2) = PLAN, 1/2 = equal split)",
    EXPONENTS,
    key="plan_e",
    default=1 / (p + 2),
    valid=lambda v: any(abs(v - e) < 1e-9 for e in EXPONENTS),
    parse=lambda raw: min(EXPONENTS, key=lambda e: abs(e - float(raw))),
    format_func=_exp_label,
)
plan_e = 1 / (p + 2)
variances = "oracle" if source == "oracle" else ("binary" if binary else "private")


@byte_cached(16, PAGE_CACHE_BYTES, ttl=CACHE_TTL)
def _plan_run(
    distribution: str,
    n: int,
    d: int,
    skew: float,
    seed: int,
    rho: float,
    p: int,
    variances: str,
    exponent: float,
):
    ds = dataset(s)  # the cache key is the plain values above
    return plan_run(
        ds, Budget.zcdp(rho), variances=variances, p=float(p), exponent=exponent, rng=seed
    )


@byte_cached(16, PAGE_CACHE_BYTES, ttl=CACHE_TTL)
def _baselines(distribution: str, n: int, d: int, skew: float, seed: int, rho: float):
    return baseline_runs(dataset(s), Budget.zcdp(rho), rng=seed)  # keyed by the values above


def _runs(key: tuple):
    return (_plan_run(*key), *_baselines(*key[:6]))


def _entries(key: tuple) -> list:
    est, iome_est, gauss_est = _runs(key)
    spec_plan = plan_entry(key[7], key[6])
    return [
        (_plan_label(key[6], key[8]), spec_plan.color, est),
        (get("iome_paper").label, get("iome_paper").color, iome_est),
        (get("gaussian_private").label, get("gaussian_private").color, gauss_est),
    ]


def _plan_label(p: int, exponent: float) -> str:
    return (
        "PLAN"
        if abs(exponent - 1 / (p + 2)) < 1e-12
        else f"PLAN scaled with e = {_exp_label(exponent).split(' ')[0]}"
    )


# Figures are cached as objects (st.cache_resource: no copy, no re-validation on a rerun); the page
# never mutates them, so each is marked kept (the JSON sent for it is made once). Keys are
# plain values only.
@byte_cached(32, 2 * PAGE_CACHE_BYTES, ttl=CACHE_TTL)
def _step_views(key: tuple, coords: tuple[int, ...], max_points: int) -> tuple:
    est, iome_est, _ = _runs(key)
    ds = dataset(s)
    steps = plan_steps_figure(
        ds.x,
        est,
        coords,
        true_mean=ds.true_mean,
        iome=iome_est,
        sample=display_sample(
            ds.n,
            max_points=max_points,
            one_d=len(coords) == 1,
            jitter=JITTER if ds.kind == "binary" else 0.0,
            rng=key[4],
        ),
    )
    noise = noise_figure(
        _entries(key), coords, true_mean=ds.true_mean, empirical_mean=ds.x.mean(axis=0)
    )
    return (keep(steps[0]), steps[1]), (keep(noise[0]), noise[1]), step_summary(est, coords, ds.x)


@st.cache_resource(show_spinner=False, max_entries=64)
def _exponent_curve(true_std: bytes, n: int, rho_noise: float, p: float, exponent: float) -> tuple:
    """The idealised noise curve: it does not depend on the seed (true σ, n and the budget only), so
    every session with the same data shape shares it."""
    fig, frame = exponent_curve(np.frombuffer(true_std), n, rho_noise, p, current=exponent)
    return keep(fig), frame


@byte_cached(32, 2 * PAGE_CACHE_BYTES, ttl=CACHE_TTL)
def _global_views(key: tuple) -> tuple:
    est = _runs(key)[0]
    ds = dataset(s)
    p, exponent = key[6], key[8]
    curve = _exponent_curve(
        np.asarray(ds.true_std, float).tobytes(),
        ds.n,
        float(est.diagnostics_as(PlanDiagnostics).budgets["noise"]),
        float(p),
        float(exponent),
    )
    entries = _entries(key)
    shapes_fig, shapes_frame = noise_shapes_figure(entries, ds.true_std, ds.n)
    split = error_split_frame([(lab, e) for lab, _, e in entries], ds.x, ds.true_mean, p=float(p))
    return curve, (keep(shapes_fig), shapes_frame), (keep(error_split_chart(split)), split)


if not binary:  # before the run, from public values only (n, d, rho, the range)
    risk = thin_budget_risk(
        n, d, rho, float(np.max(np.asarray(data.bounds[1]) - np.asarray(data.bounds[0])))
    )
    if risk is not None:
        st.warning("**Before the run:** " + risk)

key = (s.distribution, n, d, s.skew, s.seed, rho, p, variances, float(exponent))
confirm_long_run(
    f"plan:{key}",
    seconds_plan_page(n, d),
    f"PLAN, IOME and the Gaussian mechanism on {n:,} × {d} values, and the pictures",
    smaller_data_choices(n, d, seconds_plan_page),
)
with (
    user_errors(),
    st.spinner(f"Running PLAN, IOME and the Gaussian mechanism on {n:,} rows × {d} columns…"),
):
    est, iome_est, gauss_est = _runs(key)
    entries = _entries(key)

dg = est.diagnostics_as(PlanDiagnostics)
spec_plan, spec_iome, spec_gauss = (
    plan_entry(variances, p),
    get("iome_paper"),
    get("gaussian_private"),
)
plan_label = entries[0][0]
sh = dg.sigma_hat
budgets = dg.budgets
for w in dg.warnings:
    st.warning(w)

code_run = (
    s.code()
    + "from dpcore.estimators.plan import plan\n"
    + f"est = plan(data.x, rho={rho!r}, bounds=data.bounds, sigma=data.true_std, variances={variances!r}, "
    f"p={float(p)!r}, scale_exponent={float(exponent)!r}, rng={s.seed})\n"
)
code_base = (
    "from dpcore.estimators.iome import iome_paper\n"
    "from dpcore.estimators.gaussian import gaussian_private_radius\n"
    f"iome_est = iome_paper(data.x, rho={rho!r}, bounds=data.bounds, rng={s.seed})\n"
    f"gauss_est = gaussian_private_radius(data.x, rho={rho!r}, bounds=data.bounds, rng={s.seed})\n"
)
m1, m2, m3, m4 = st.columns(4)
m1.metric(
    "Clip radius C (scaled space)",
    f"{dg.clip_radius:.4g}",
    help=f"Private {dg.clip_quantile:.3f}-quantile of the n scaled norms (rank slack k = "
    f"{dg.rank_slack:.1f}).",
)
m2.metric(f"Rows clipped (of {n:,})", f"{int(dg.clipped.sum()):,} ({dg.fraction_clipped:.1%})")
err = float(np.sum(np.abs(est.mean - data.true_mean) ** p) ** (1 / p))
m3.metric(f"ℓ{p} error of the private mean", f"{err:.3g}")
m4.metric("Budget", f"ρ = {rho:.4g}", conv.rule if s.unit != "rho" else None, delta_color="off")

# ---------------------------------------------------------------------------------------------
deck.mark(*STEPS)
st.subheader("The four steps")
if d == 1:
    st.info(
        "The picture needs **two coordinates** and this data has one (set d ≥ 2 in the sidebar). In one "
        "dimension scaling does nothing: any sᵢ only changes the units, the clip 'ball' is the interval "
        "[−C, C]. Below is the one-dimensional version; points are spread up and down at random so they "
        "do not overlap (the vertical axis means nothing)."
    )
    coords: tuple[int, ...] = (0,)
elif ci == cj:
    st.warning(
        "Pick two **different** coordinates for the two axes; meanwhile this is coordinate "
        f"{ci} on its own (the vertical axis is a random spread with no meaning)."
    )
    coords = (ci - 1,)
else:
    coords = (ci - 1, cj - 1)
max_points = drawn_points(MAX_POINTS)
sub = n > max_points
paragraph(
    f"The clip ball lives in **{d} dimensions**: a row is clipped when its *whole* scaled vector is longer "
    "than C, so in this two-coordinate slice a point **inside the drawn circle may still be clipped** (the rest "
    "of its length is in the other coordinates), while no point outside it escapes clipping. Points are "
    "coloured by what the estimator actually did."
    + (
        f" To keep the page fast, {max_points:,} of the {n:,} rows are drawn (a seeded random subsample); the "
        "numbers count all rows."
        if sub
        else ""
    )
    if d > 2
    else "Here the data has two coordinates, so the drawn circle is the whole clip ball: "
    "clipped rows land exactly on it."
    if d == 2
    else "",
    "plan_steps_intro",
    "How to read the panels",
)
if binary:
    st.caption(
        f"0/1 data: every row sits on one of four corners, so each drawn point is moved by a small random "
        f"offset (up to {JITTER:.0%} of the panel's width) to show how many there are. The downloaded "
        "data hold the exact positions."
    )

with user_errors(), st.spinner("Drawing the steps and the noise shapes…"):
    (fig, df), noise_view, sm = _step_views(key, coords, max_points)
    curve_view, shapes_view, split_view = _global_views(key)
sc = dg.scale[list(coords)]
if len(coords) < 2:
    shape = ""
elif abs(np.log(sc[0] / sc[1])) < 0.01:
    shape = "Both coordinates got the same factor, so their shape does not change. "
elif abs(exponent - 0.5) < 1e-12:
    shape = (
        f"The two coordinates' spread ratio goes from {plain(sm['ratio_before'], 2)} in (a) to "
        f"{plain(sm['ratio_after'], 2)} in (b): whitened (sᵢ = 1/σ̂ᵢ). "
    )
elif exponent == 0:
    shape = "No scaling: the cloud keeps its shape. "
else:
    shape = (
        f"The two coordinates' spread ratio goes from {plain(sm['ratio_before'], 2)} in (a) to "
        f"{plain(sm['ratio_after'], 2)} in (b): rounder, but not round (whitening would need sᵢ = 1/σ̂ᵢ). "
    )
over = f" (ℓ{p} over all {d} coordinates)" if d > 1 else ""
mapped = (
    f"an ellipse with semi-axes {', '.join(f'{a:.3g}' for a in sm['semi_axes'])} (C/sᵢ) around μ̃"
    if len(coords) == 2
    else f"the interval μ̃ ± {sm['semi_axes'][0]:.3g} (C/s)"
)
inside = (
    f" {sm['inside_drawn']} of them lie inside the drawn circle: they were clipped because of the other "
    f"{d - len(coords)} coordinates."
    if d > len(coords) and sm["clipped"]
    else ""
)
iome_r = iome_est.diagnostics_as(IomeDiagnostics).ball_radius
chart(
    fig,
    df,
    "plan_steps",
    f"PLAN multiplied coordinate {coords[0] + 1} by s = {sc[0]:.3g}"
    + (f" and coordinate {coords[1] + 1} by s = {sc[1]:.3g}. " if len(coords) == 2 else ". ")
    + shape
    + f"The clip radius is C = {sm['C']:.4g} in scaled space: {sm['clipped']:,} of {n:,} rows "
    f"({sm['clipped'] / n:.1%}) were pulled onto the ball.{inside} Mapped back to original space the ball is "
    f"{mapped}; IOME's ball, after its rotation, has radius {iome_r:.3g}. The private mean lands {err:.3g} from the "
    f"true mean{over}.",
    code_run
    + code_base
    + "from dpcore.experiments.studies import display_sample\n"
    + "from dpcore.figures.plan import plan_steps_figure\n"
    + f"sample = display_sample(data.n, max_points={max_points}, one_d={len(coords) == 1}"
    + (f", jitter={JITTER}" if binary else "")
    + f", rng={s.seed})\n"
    f"fig, df = plan_steps_figure(data.x, est, {coords}, true_mean=data.true_mean, iome=iome_est, "
    "sample=sample)",
    columns=2,  # one panel per row on a phone
    panel=deck.index if deck.on and deck.index < len(STEPS) else None,
)

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[0])
st.subheader("Zoom on the mean: the noise ellipse")
fig, df = noise_view
nsd = dg.noise_std[list(coords)]
chart(
    fig,
    df,
    "plan_noise_ellipse",
    f"PLAN's noise has standard deviation {nsd[0]:.3g} on coordinate {coords[0] + 1}"
    + (f" and {nsd[1]:.3g} on coordinate {coords[1] + 1}" if len(coords) == 2 else "")
    + f": it adds noise of the same std {dg.noise_std_scaled / n:.3g} to every coordinate in scaled "
    "space and divides coordinate i by sᵢ on the way back. IOME's noise has std "
    f"{iome_est.diagnostics.noise_std[0]:.3g} and the Gaussian mechanism's {gauss_est.diagnostics.noise_std[0]:.3g} "
    "on every coordinate. "
    + "Open circles: each estimator without its final noise; crosses: what it released. "
    + (
        "The shaded ellipse holds the released mean with probability 39% (one standard deviation), the dotted "
        "one 86% (two)."
        if len(coords) == 2
        else "The thick bar holds the released mean with probability 68% (±1 sd), the thin one 95% (±2 sd)."
    ),
    code_run + code_base + "from dpcore.figures.plan import noise_figure\n"
    f"fig, df = noise_figure([('PLAN', '{spec_plan.color}', est), ('IOME', '{spec_iome.color}', iome_est), "
    f"('Gaussian mechanism', '{spec_gauss.color}', gauss_est)], {coords}, true_mean=data.true_mean, "
    "empirical_mean=data.x.mean(axis=0))",
)

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[1])
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
rho3 = budgets["noise"]
fig, df = curve_view
pts = df[df.point != ""].set_index("exponent")
v0, vp, vh = (
    (float(pts.loc[e, "noise"]) for e in (0.0, plan_e, 0.5)) if len(pts) == 3 else (np.nan,) * 3
)
cur = float(df.loc[np.isclose(df.exponent, exponent), "noise"].iloc[0])
best = float(df.exponent[df.noise.idxmin()])
flat = np.isclose(v0, vp, rtol=1e-9)
expected_sampling, expected_noise = float(df.sampling.iloc[0]), cur  # for the one-run split below
chart(
    fig,
    df,
    "plan_exponent",
    (
        f"Expected ℓ{p} noise: {vp:.3g} at PLAN's e = {_exp_label(plan_e).split(' ')[0]}, against {v0:.3g} with no "
        f"scaling ({v0 / vp:.2f}×) and {vh:.3g} with the equal split ({vh / vp:.2f}×); the slider's e = "
        f"{_exp_label(exponent).split(' ')[0]} gives {cur:.3g}. The minimum of the curve is at e = {best:.3g}. "
        + (
            "For ℓ2 the curve is symmetric about 1/4: no scaling and the equal split cost exactly the same. "
            if p == 2
            else ""
        )
        + f"The expected sampling error {df.sampling.iloc[0]:.3g} (root-mean-square over data sets) is a floor no "
        "estimator beats; the noise only adds to it. Expected values here: averages over draws of the data and the "
        "noise, with σ known and an idealised radius."
        if not flat
        else f"Every exponent gives the same expected noise ({vp:.3g}): "
        + (
            "in one dimension scaling only changes units."
            if d == 1
            else "all coordinates have the same spread, so scaling changes nothing (try a skewed distribution)."
        )
    ),
    "from dpcore.figures.plan import exponent_curve\n"
    + s.code()
    + f"fig, df = exponent_curve(data.true_std, n={n}, rho_noise={rho3!r}, p={float(p)!r}, "
    f"current={float(exponent)!r})",
)

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[2])
st.subheader("Noise shapes over all coordinates")
fig, df = shapes_view
l2 = {
    lab: float(np.sqrt(np.sum(np.asarray(e.diagnostics.noise_std) ** 2))) for lab, _, e in entries
}
chart(
    fig,
    df,
    "plan_noise_shapes",
    f"{plan_label}'s noise std runs from {dg.noise_std.max():.3g} to {dg.noise_std.min():.3g} across the {d} "
    f"coordinates (following σ̂ᵢ^{2 * exponent:.2g}), while IOME puts {iome_est.diagnostics.noise_std[0]:.3g} "
    f"and the Gaussian mechanism {gauss_est.diagnostics.noise_std[0]:.3g} on every one. Expected ℓ2 size of the "
    f"noise vector: PLAN {l2[plan_label]:.3g}, IOME {l2[spec_iome.label]:.3g}, Gaussian mechanism "
    f"{l2[spec_gauss.label]:.3g} (this run's noise, from its private variances and radius; the idealised "
    "curve above assumes σ known and an idealised radius, so it need not match). The dashed line is "
    "each coordinate's sampling std σᵢ/√n.",
    code_run + code_base + "from dpcore.figures.plan import noise_shapes_figure\n"
    "fig, df = noise_shapes_figure([('PLAN', '#08519c', est), ('IOME', '#cb181d', iome_est), "
    "('Gaussian mechanism', '#a0522d', gauss_est)], data.true_std, n=data.x.shape[0])",
)

# ---------------------------------------------------------------------------------------------
deck.mark(MORE[3])
st.subheader("Where the error comes from")
fig, df = split_view
row = df.iloc[0]
chart(
    fig,
    df,
    "plan_error_split",
    f"In this run {plan_label} misses the true mean by {row.total:.3g} (ℓ{p}): sampling error {row.sampling:.3g} "
    f"(the empirical mean's own miss), clipping bias {row.clipping:.3g}, DP noise {row.noise:.3g}. IOME misses by "
    f"{df.total.iloc[1]:.3g}, the Gaussian mechanism by {df.total.iloc[2]:.3g}. (The three parts are vectors that "
    "add up to the error, so their lengths need not add up to the total.) These are **one draw** of the data and "
    f"the noise; the exponent chart above shows **expected** values (root-mean-square over draws, σ known, an "
    f"idealised radius): sampling error {expected_sampling:.3g} expected against {row.sampling:.3g} in this run, "
    f"DP noise {expected_noise:.3g} expected against {row.noise:.3g}. One draw can land well above or below "
    "its expectation; the Compare page averages over many.",
    code_run + code_base + "from dpcore.figures.style import error_split_chart\n"
    "from dpcore.figures.plan import error_split_frame\n"
    f"df = error_split_frame([('PLAN', est), ('IOME', iome_est), ('Gaussian mechanism', gauss_est)], data.x, "
    f"data.true_mean, p={float(p)!r})\nfig = error_split_chart(df)",
)
plain_box(s.budget, words=split_words(df, rho, float(p), delta=s.delta))  # the split's three runs

deck.end()
slides_button(
    f"PLAN step by step: {plan_label}",
    [(t, "plan_steps", k) for k, t in enumerate(STEPS)]
    + [
        (t, name, None)
        for t, name in zip(
            MORE,
            ["plan_noise_ellipse", "plan_exponent", "plan_noise_shapes", "plan_error_split"],
            strict=True,
        )
    ],
    subtitle=f"{DISTRIBUTIONS[s.distribution].label}, n = {n:,}, d = {d}, ρ = {rho:.4g}, "
    f"seed {s.seed}; coordinates {coords[0] + 1} and {coords[-1] + 1}.",
    key="plan",
)
report_button(
    f"PLAN step by step: {plan_label}",
    ["plan_steps", "plan_noise_ellipse", "plan_exponent", "plan_noise_shapes", "plan_error_split"],
    settings={
        **asdict(s),
        "variances": variances,
        "p": float(p),
        "scale exponent": float(exponent),
    },
    ledger=pd.DataFrame(est.ledger.to_records()),
    code=code_run + code_base,
    key="plan",
)
st.caption(
    f"{plan_label} spent: "
    + "; ".join(f"{k} ρ = {v:.4g}" for k, v in est.ledger.by_stage().items())
    + f" — total ρ = {est.ledger.total():.4g}."
    + (
        " The true σ was used (oracle): a teaching device, not a private release."
        if source == "oracle"
        else ""
    )
)
simulation_notice()
