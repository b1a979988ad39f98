"""Free lunch (simplex): send x to (x, R − x), release both sums with one mechanism, get a count (or a
better sum) for free — and where that lunch is, honestly, not free. Spec: docs/estimators/simplex.md
(developer reference; the page names the paper)."""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.experiments.plain import release_words
from dpcore.experiments.studies import (
    count_draws,
    sample_at,
    simplex_releases,
    simulated_points,
    variance_curves,
)
from dpcore.experiments.studies.simplex import triangle_sample
from dpcore.figures.simplex import (
    count_figure,
    geometry_d1,
    release_picture,
    triangle_d2,
    variance_figure,
)
from dpcore.glossary import define
from dpcore.registry import get
from dpcore.theory.simplex import extra_count_weight, free_count_variance, mse
from pages._plain import plain_box
from pages._tables import LEDGER_HEADERS, show_table
from pages._ui import (
    CACHE_TTL,
    chart,
    native_budget,
    settings,
    simulation_notice,
    url_widget,
    user_errors,
    words_on_this_page,
)

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
    help="add/remove: " + define("add-remove") + " replace-one: " + define("replace-one"),
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
n = int(s.n)
R = 1.0

with user_errors():
    conv = native_budget(s.budget, "pure" if mech == "laplace" else "zcdp")
    budget = conv.value
    bkw = conv.kwargs  # {"epsilon": ε} or {"rho": ρ}, for the studies
    if relation == "replace-one":
        count_fraction = 0.0
c6.metric("Budget used here", f"{'ε' if mech == 'laplace' else 'ρ'} = {budget:.4g}", help=conv.rule)
st.caption(
    f"Budget from the sidebar: {conv.rule}. n = {n:,} rows on [0, R] with R = {R:g}; every MSE below "
    "scales with R². Laplace and Gaussian are different guarantees: compare estimators within one "
    "noise type, never across."
)
code_budget = f"{'epsilon' if mech == 'laplace' else 'rho'}={budget!r}"

# ---------------------------------------------------------------------------------------------
# geometry

st.header("The geometry")
g1, g2 = st.columns([3, 2])
with g1, user_errors():
    x_geo = sample_at(p_now, 40, R, rng=s.seed)
    fig, df = geometry_d1(x_geo, R)
    chart(
        fig,
        df,
        "simplex_geometry",
        f"All {len(df)} records sit on the segment y₁ + y₂ = R: each uses the **whole ℓ1 budget** (ℓ1 norm "
        f"exactly {R:g}), so Laplace noise is spent with no slack. Their ℓ2 norms run from "
        f"{df.l2_norm_over_R.min():.2f}·R to {df.l2_norm_over_R.max():.2f}·R (never below 0.71·R, at x = R/2): "
        "the segment is only a chord of the ℓ2 ball, which is why Gaussian noise gains less.",
        f"from dpcore.figures.simplex import geometry_d1\nfrom dpcore.experiments.studies import sample_at\n"
        f"fig, df = geometry_d1(sample_at({p_now!r}, 40, {R!r}, rng={s.seed}), {R!r})",
        narrow=True,
    )
with g2, user_errors():
    z2 = triangle_sample(p_now, 150, R, rng=s.seed)
    fig, df = triangle_d2(z2, R)
    k = int(df.rescaled.sum())
    chart(
        fig,
        df,
        "simplex_triangle",
        f"Two columns: each row (z₁, z₂) with z ≥ 0, z₁ + z₂ ≤ R gets a third, padding coordinate "
        f"R − z₁ − z₂ and lands on the triangle. {k} of {len(df)} rows had z₁ + z₂ > R and were rescaled onto "
        "it first (orange crosses): clamping must come before augmenting, or the padding goes negative.",
        "from dpcore.experiments.studies.simplex import triangle_sample\n"
        "from dpcore.figures.simplex import triangle_d2\n"
        f"fig, df = triangle_d2(triangle_sample({p_now!r}, 150, {R!r}, rng={s.seed}), {R!r})",
        narrow=True,
    )

with user_errors():
    x_rel = sample_at(p_now, n, R, rng=s.seed)
    fig, df = release_picture(simplex_releases(x_rel, R, reps=300, rng=s.seed, **bkw))
    shape = "square-ish (Laplace)" if mech == "laplace" else "round (Gaussian)"
    chart(
        fig,
        df,
        "simplex_release",
        f"300 noisy releases m = s + Z of the same {len(x_rel):,} records: a {shape} cloud around the true sums. "
        "Knowing n, each release is projected onto the line m₁ + m₂ = nR (grey segments): that removes the noise along "
        f"(1, 1) and halves the variance. Not knowing n, (m₁ + m₂)/R is the count: here its standard deviation "
        f"is {df.free_count.std():.2f}.",
        "from dpcore.experiments.studies import sample_at, simplex_releases\n"
        "from dpcore.figures.simplex import release_picture\n"
        f"x = sample_at({p_now!r}, {n}, {R!r}, rng={s.seed})\n"
        f"fig, df = release_picture(simplex_releases(x, {R!r}, {code_budget}, reps=300, rng={s.seed}))",
    )

# ---------------------------------------------------------------------------------------------
# variance against position


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _curves(
    n: int, mech: str, budget: float, split: float, count_fraction: float, relation: str, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    kw = {"epsilon": budget} if mech == "laplace" else {"rho": budget}
    theory = variance_curves(
        n=n, split=split, count_fraction=count_fraction, neighbouring=relation, **kw
    )
    sim = simulated_points(
        n=n,
        split=split,
        count_fraction=count_fraction,
        neighbouring=relation,
        reps=2000,
        rng=seed,
        **kw,
    )
    return theory, sim


st.header("Variance against where the data sit")
with user_errors(), st.spinner("Simulating 2,000 releases per estimator and position…"):
    theory, sim = _curves(n, mech, budget, split, count_fraction, relation, s.seed)
at_p = theory[np.isclose(theory.p, round(p_now * 100) / 100)].set_index("estimator").mse
code = (
    f"from dpcore.experiments.studies import simulated_points, variance_curves\n"
    f"theory = variance_curves(n={n}, {code_budget}, split={split!r}, count_fraction={count_fraction!r}, "
    f"neighbouring={relation!r})\n"
    f"sim = simulated_points(n={n}, {code_budget}, split={split!r}, count_fraction={count_fraction!r}, "
    f"neighbouring={relation!r}, reps=2000, rng={s.seed})"
)
within = float(
    np.mean(
        np.abs(sim.merge(theory, on=["estimator", "p"]).eval("mse_x - mse_y"))
        <= 3 * sim.merge(theory, on=["estimator", "p"]).se
    )
)
if relation == "add-remove":
    gain = at_p["plugin"] / at_p["simplex"]
    vs_c = at_p["centred"] / at_p["simplex"]
    chart(
        variance_figure(theory, sim, known_n=False),
        pd.concat([theory[~theory.known_n], sim[~sim.known_n]]),
        "simplex_variance_unknown_n",
        f"**n unknown.** At p = {p_now:.2f} the simplex mean's MSE is {at_p['simplex']:.3g}: **{gain:.1f}× lower** "
        f"than the noisy-sum / noisy-count plug-in (split f = {split:.2f}) and "
        + (f"{vs_c:.2f}× lower than" if vs_c > 1.005 else "the same as")
        + " the centred estimator at the same split"
        + (" (identical under Gaussian noise at f = 0.5)" if mech == "gaussian" else "")
        + ". "
        f"Lines are the closed forms, circles 2,000 simulated releases (±2 SE); {within:.0%} of the circles are "
        "within 3 SE of their line.",
        code + "\nfrom dpcore.figures.simplex import variance_figure\n"
        "fig = variance_figure(theory, sim, known_n=False)\n",
    )
known_gain = at_p["sum_known_n"] / at_p["simplex_known_n"]
centre_note = (
    ""
    if relation == "replace-one"
    else f" Centring alone does better still: {at_p['simplex_known_n'] / at_p['centred_sum_known_n']:.1f}× lower "
    "than the simplex."
)
known_title = (
    "**n known (replace-one).**"
    if relation == "replace-one"
    else "**n as public side information: not DP under add-remove.** Under add/remove n is private, "
    "so dividing by the true n is not a private mechanism; these curves are the paper's comparison "
    "with n given from outside (choose replace-one for the DP version)."
)
chart(
    variance_figure(theory, sim, known_n=True),
    pd.concat([theory[theory.known_n], sim[sim.known_n]]),
    "simplex_variance_known_n",
    f"{known_title} The projection estimate's MSE is {at_p['simplex_known_n']:.3g}, "
    + (
        f"{known_gain:.2f}× lower than"
        if known_gain > 1.001
        else ("the same as" if known_gain > 0.999 else f"{1 / known_gain:.1f}× higher than")
    )
    + f" the plain noisy sum / n, whatever p is.{centre_note}",
    code + "\nfrom dpcore.figures.simplex import variance_figure\n"
    "fig = variance_figure(theory, sim, known_n=True)\n",
)

# ---------------------------------------------------------------------------------------------
# the caveats, after the charts they refer to

cg = {
    k: float(mse(k, p_now, n=n, radius=R, rho=1.0))
    for k in ("simplex", "centred", "simplex_known_n", "centred_sum_known_n")
}
cl = {k: float(mse(k, p_now, n=n, radius=R, epsilon=1.0)) for k in ("simplex", "centred")}
st.warning(
    "**Where the lunch is not free** (our derivation from the closed forms above; the paper does not say "
    "this):\n\n"
    f"1. **Gaussian noise:** the simplex mean with a free count is *identical in distribution* to the centred "
    f"estimator (centre the data, noisy sum over noisy count, budget split equally, as PipelineDP does): "
    f"at p = {p_now:.2f} both have MSE coefficient {cg['simplex'] * n**2:.3f} vs {cg['centred'] * n**2:.3f}. "
    f"With **Laplace** noise the simplex *is* {cl['centred'] / cl['simplex']:.0f}× better than that centred "
    "estimator.\n"
    f"2. **Known n, one column:** with n as public side information, simply centring the data (noisy "
    f"centred sum / n) has half the simplex's variance (coefficient "
    f"{cg['centred_sum_known_n'] * n**2:.3f} vs {cg['simplex_known_n'] * n**2:.3f}, Gaussian). That "
    "comparison uses n as public side information under add/remove, so it compares against a mechanism "
    "that is **not DP** (n is private there, and both estimates divide by it). Under **replace-one** "
    "neighbours, where n is public and known n is DP, centring gains nothing and the known-n gain "
    "disappears (Gaussian) or turns into a 2× loss (Laplace), because the pair's sensitivity doubles (l1) "
    "or grows by √2 (l2).\n\n"
    "The big gains are against the *uncentred* noisy-sum / noisy-count plug-in that most libraries ship: "
    "2–5× (Gaussian) and 4–10× (Laplace) lower variance."
)

# ---------------------------------------------------------------------------------------------
# the free count

if relation == "add-remove":
    st.header("The count that comes free")

    @st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
    def _count(n: int, mech: str, budget: float, split: float, seed: int):
        kw = {"epsilon": budget} if mech == "laplace" else {"rho": budget}
        df = count_draws(n=n, split=split, reps=4000, rng=seed, **kw)
        return count_figure(df, n), df

    with user_errors(), st.spinner("Simulating 4,000 counts…"):
        fig, df = _count(n, mech, budget, split, s.seed)
        sd = {src: grp["count"].std() for src, grp in df.groupby("source")}
        v_free = free_count_variance(radius=R, **bkw)
    free_sd, paid_sd = (
        sd["free count from the simplex release"],
        next(v for k, v in sd.items() if "plug-in" in k),
    )
    chart(
        fig,
        df,
        "simplex_free_count",
        f"The free count has standard deviation {free_sd:.2f} (theory {np.sqrt(v_free):.2f}) and cost nothing "
        f"beyond the sum; the plug-in's separately paid count, with {1 - split:.0%} of the budget, has "
        f"{paid_sd:.2f} — and its sum got only {split:.0%} of the budget.",
        f"from dpcore.experiments.studies import count_draws\nfrom dpcore.figures.simplex import count_figure\n"
        f"df = count_draws(n={n}, {code_budget}, split={split!r}, reps=4000, rng={s.seed})\n"
        f"fig = count_figure(df, {n})",
    )
    if count_fraction > 0:
        w = extra_count_weight(count_fraction=count_fraction, **bkw)
        st.info(
            f"With {count_fraction:.0%} of the budget on an extra noisy count, the two counts are combined by "
            f"inverse-variance weighting with weight **w = {w:.3f}** on the free count. The sums are then "
            "re-projected onto R·n̂, with n̂ the combined count (the BLUE, never worse than the paper's "
            "m₁/n̂)."
        )

# ---------------------------------------------------------------------------------------------
# ledgers

st.header("What each one spends")
#: The registry entries of this section, by noise and relation (replace-one: n is public, known n)
SIMPLEX = {
    ("laplace", "add-remove"): "simplex_laplace",
    ("gaussian", "add-remove"): "simplex_gauss",
    ("laplace", "replace-one"): "simplex_known_n_laplace_replace",
    ("gaussian", "replace-one"): "simplex_known_n_gauss_replace",
}[(mech, relation)]
PLUGIN = {"laplace": "plugin_laplace", "gaussian": "plugin_gauss"}[mech]
known = relation == "replace-one"
with user_errors():
    x_led = sample_at(p_now, n, R, rng=s.seed)
    run = dict(rng=s.seed, at_implied_level=True, bounds=(0, R))
    extra = {} if known else {"count_fraction": count_fraction}
    est_s = get(SIMPLEX).run(x_led, s.budget, **run, **extra)
    rows = [
        {"estimator": "Simplex" + (" (known n)" if known else ""), **r}
        for r in est_s.ledger.to_records()
    ]
    if not known:
        est_p = get(PLUGIN).run(x_led, s.budget, **run, split=split)
        rows += [{"estimator": "Noisy sum / noisy count", **r} for r in est_p.ledger.to_records()]
led = pd.DataFrame(rows)
show_table(led, headers=LEDGER_HEADERS)
st.markdown(
    f"The simplex spends {'ε' if mech == 'laplace' else 'ρ'} **once** on one vector release; the plug-in "
    "splits the same total between a sum and a count. Both rows add up to the budget. On this sample "
    f"(true mean {x_led.mean():.4f}) the simplex released {est_s.mean[0]:.4f}"
    + ("" if known else f" and the plug-in {est_p.mean[0]:.4f}")
    + "."
)
releases = {rows[0]["estimator"]: est_s.mean}  # this section's runs, by the ledger's names
if not known:
    releases[rows[-1]["estimator"]] = est_p.mean
what = "the average of the sample"
words = release_words(s.budget, releases, x_led.mean(), delta=s.delta, what=what, rank=False)
plain_box(s.budget, words=words)  # one run each: the errors' range, no ranking
with st.expander("Show the code"):
    st.code(
        s.code() + "from dpcore import registry\nfrom dpcore.experiments.studies import sample_at\n"
        f"x = sample_at({p_now!r}, {n}, {R!r}, rng={s.seed})\n"
        f"est = registry.run({SIMPLEX!r}, x, budget, rng={s.seed}, at_implied_level=True, "
        f"bounds=(0, {R!r}){'' if known else f', count_fraction={count_fraction!r}'})\n"
        f"print(est.mean, est.ledger.by_stage())",
        language="python",
    )
simulation_notice()
