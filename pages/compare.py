"""Compare estimators: every registered estimator that applies to the data, at the same budget, over a
sweep of the budget, n, d or the skew; the sampling floor and the theory beside them."""

from __future__ import annotations

import time
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from dpcore import limits, registry
from dpcore.data import DISTRIBUTIONS
from dpcore.experiments import FAILURE_MULTIPLE, ExperimentConfig, plan_tasks
from dpcore.experiments.cost import check_app_limits
from dpcore.experiments.plain import sweep_words
from dpcore.experiments.presets import (
    PRESETS,
    check_claim,
    estimator_choices,
    sidebar_config,
    with_choices,
)
from dpcore.experiments.progressive import before_run_warning
from dpcore.experiments.questions import lowest_error_question
from dpcore.figures.compare import (
    BLOWUP_MULTIPLE,
    METRIC_LABEL,
    far_off_view,
    outliers_note,
    round_target,
)
from dpcore.glossary import define
from pages import _compare_run as runs
from pages._follow import predict
from pages._goto import follow, on_compare_click
from pages._plain import plain_box
from pages._present import Deck, slides_button
from pages._spec import page
from pages._tables import REGRET_FORMATS, highlight_row
from pages._ui import (
    chart,
    download_csv,
    duration_text,
    forget,
    include_peers,
    send_values,
    set_sidebar,
    settings,
    show_code,
    simulation_notice,
    url_sync,
    url_value,
    url_widget,
    user_errors,
    words_on_this_page,
)

follow()  # a click on the chart asked for Side by side at that point
s = settings()
st.title("Compare estimators")
#: presenter mode: one idea per screen (pages/_present.py)
deck = Deck(page("pages/compare.py").steps, key="cmp_slide")
st.markdown(
    "Every estimator gets **the same privacy budget** and the same data; each point is the "
    "**median** error over repeated runs."
)
with st.expander("How to read the chart"):
    st.markdown(
        "Budgets are converted to each estimator's own unit by the rule stated under the chart. The "
        "light band around a line spans the 10–90% of its runs. The grey dash-dot line is the "
        "sampling floor: the median error of the non-private mean, the same statistic as the lines. "
        "The thin dark lines are the idealised theory (σ known), also as medians. Stars mark the best "
        "private estimator of each guarantee at each point (oracle and non-private references, "
        "dotted, are never starred). Red triangles mark points where an estimator warned or a run "
        f"blew up (worst run above {BLOWUP_MULTIPLE:g}× the median); a **far-off run** is one more "
        f"than {FAILURE_MULTIPLE:g}× the median of the same estimator at the same point, and the "
        "hover gives their share there. **IOME** is instance-optimal mean estimation (Huang, Liang "
        "and Yi 2021), run as the PLAN paper ran it."
    )
words_on_this_page(
    "IOME",
    "PLAN",
    "PMWM",
    "zCDP",
    "CKS",
    "TV",
    "oracle",
    "regret",
    "far-off run",
    "sampling floor",
    "add-remove",
    "replace-one",
)

# ---------------------------------------------------------------------------------------------
# presets: one story each, restorable from the URL (?preset=...)

PRESET_LABEL = {"custom": "Your sidebar settings", **{k: p.label for k, p in PRESETS.items()}}


#: Compare's own controls; a new preset drops them back to the preset's defaults.
_OWN = ("cmp_x", "cmp_metric", "cmp_reps", "cmp_est", "cmp_est_peers", "cmp_target")


def _on_preset() -> None:
    """Choosing a preset writes its settings into the sidebar, so the sidebar and the URL carry one state."""
    name = st.session_state["cmp_preset"]
    forget(*_OWN)
    if name in PRESETS:
        set_sidebar(PRESETS[name].sidebar())


if "cmp_preset" not in st.session_state:
    first = st.session_state.get("_keep_cmp_preset") or url_value("preset")
    st.session_state["cmp_preset"] = first if first in PRESET_LABEL else "custom"
    if (
        first in PRESETS
        and not st.session_state.get("_url_had_settings")
        and "_keep_cmp_preset" not in st.session_state
    ):
        st.session_state["_keep_cmp_preset"] = first
        set_sidebar(PRESETS[first].sidebar(), rerun=True)  # a bare ?preset= link sets the sidebar
else:  # never drawn as the first option, "Your sidebar settings", instead (see send_values)
    send_values("cmp_preset")

deck.mark("The story")
c1, c2, c3, c4 = st.columns([2.2, 1.2, 1.2, 1.2])
preset = c1.selectbox(
    "Story (preset)",
    list(PRESET_LABEL),
    format_func=PRESET_LABEL.get,
    key="cmp_preset",
    on_change=_on_preset,
    help="Each preset tells one story and sets the sidebar to its data and budget; change the "
    "sidebar afterwards to test the story elsewhere. The address bar restores the view.",
)
st.session_state["_keep_cmp_preset"] = preset
if preset == "custom":
    st.query_params.pop("preset", None)
else:
    url_sync("preset", preset)
    differ = {k: v for k, v in PRESETS[preset].sidebar().items() if getattr(s, k) != v}
    if differ:
        c1.caption(
            "Changed from the preset: "
            + ", ".join(
                f"{k.replace('_value', '')} {getattr(s, k)!r} (preset {v!r})"
                for k, v in differ.items()
            )
            + ". The story was told at the preset's values."
        )
        c1.button("Back to the preset's settings", on_click=_on_preset, key="cmp_reset_preset")


def _on_upload() -> None:
    f = st.session_state.get("cmp_upload")
    st.session_state["cmp_uploaded_json"] = (
        f.getvalue().decode("utf-8", "replace") if f is not None else None
    )


def _uploaded_names(cfg: ExperimentConfig) -> list[str]:
    return [e["name"] for e in cfg.estimator_entries()]


def _entry_text(entry: dict) -> str:
    """An uploaded config's estimator entry as text: its name and public parameters."""
    params = ", ".join(f"{k}={v!r}" for k, v in entry["params"].items())
    return f"{entry['name']} ({params})" if params else entry["name"]


st.sidebar.file_uploader(
    "Restore a comparison config (JSON)", type=["json"], key="cmp_upload", on_change=_on_upload
)
upload = st.session_state.get("cmp_uploaded_json")

if st.session_state.get("_cmp_choice_upload") != upload:  # a new (or no more) upload: its own
    forget("cmp_est", "cmp_est_peers")  # estimators replace the earlier picks (and come back)
    st.session_state["_cmp_choice_upload"] = upload

with user_errors():
    if upload is not None:
        base = check_app_limits(ExperimentConfig.from_json(upload))
        st.info(
            f"Using the uploaded config **{base.name}**: its estimators "
            f"({', '.join(_entry_text(e) for e in base.estimator_entries())}) replace the "
            "estimator choice below (remove the file in the sidebar to go back)."
        )
    else:  # a preset's estimators and sweep (or the defaults) at the sidebar's data, budget, seed
        base = sidebar_config(
            None if preset == "custom" else preset,
            distribution=s.distribution,
            n=int(s.n),
            d=int(s.d),
            skew=float(s.skew),
            budget=s.budget,
            delta=float(s.delta),
            seed=int(s.seed),
        )

AXES = {"budget": "budget", "n": "n", "d": "d", "skew": "skew"}
x_default = base.x_axis()
x = url_widget(
    c2.selectbox,
    "Error against",
    list(AXES),
    key="cmp_x",
    default=x_default,
    valid=AXES.__contains__,
    format_func={
        "budget": "the budget",
        "n": "n (rows)",
        "d": "d (dimension)",
        "skew": "skew α",
    }.get,
)
metric_options = ["l2", "l1", "linf"] + (["tv"] if base.kind == "binary" else [])
metric = url_widget(
    c3.selectbox,
    "Error norm",
    metric_options,
    key="cmp_metric",
    default=base.headline_metric,
    valid=metric_options.__contains__,
    format_func=METRIC_LABEL.get,
    help="TV: " + define("TV") if "tv" in metric_options else None,
)
reps = url_widget(
    c4.slider,
    "Repetitions",
    *limits.APP_REPETITIONS,
    key="cmp_reps",
    default=int(limits.clamp(base.repetitions, *limits.APP_REPETITIONS)),
    help="Runs per point; every run draws fresh data and fresh noise.",
)


peers_on = include_peers("cmp_peers")
options, chosen_default = estimator_choices(base, peers_on)
labels = {e.name: e.label for e in registry.all_estimators()}
chosen = url_widget(
    st.multiselect,
    f"Estimators ({len(options)} apply to {base.kind.replace('real', 'real-valued')} data)",
    options,
    key="cmp_est_peers" if peers_on else "cmp_est",
    default=chosen_default,
    valid=lambda v: set(v) <= set(options),
    format_func=lambda k: labels.get(k, k),
    help="Defaults to the main estimators for this kind of data; every applicable one is listed.",
)
if upload is not None and (left := sorted(set(_uploaded_names(base)) - set(options))):
    st.warning(
        f"The uploaded config's {', '.join(left)} cannot run here "
        f"({'turn on the peer libraries' if not peers_on else 'not applicable to this data'})."
    )
if not chosen:
    st.warning("Pick at least one estimator.")
    st.stop()

with user_errors():
    config = check_app_limits(with_choices(base, chosen, repetitions=reps, metric=metric, x=x))


what = (
    f"{len(plan_tasks(config)[0])} datasets, {len(chosen)} estimators, {config.repetitions} "
    f"repetitions per point at n = {config.n:,}, d = {config.d}"
)
with user_errors():  # before the run: public values only (n, d, rho and the public range)
    if (risk := before_run_warning(config)) is not None:
        st.warning("**Before the run:** " + risk)
# a first result at once; the full sweep by itself when short, else offered (dpcore decides)
plan = runs.decision(config)
config_json = config.to_json(indent=None)
if plan.state == "ask":  # even the first result is long: the time first, and a choice
    box = st.container(border=True)
    box.markdown(
        f"**This comparison takes about {duration_text(plan.predicted)}** ({what}); a first result "
        f"with {plan.first.repetitions} repetitions per point takes about "
        f"{duration_text(plan.first_seconds)}."
    )
    runs.offer_buttons(box, plan)
    st.stop()
assert plan.shown is not None
shown_json = plan.shown.to_json(indent=None)
t0 = time.perf_counter()
with user_errors():
    n_tasks = len(plan_tasks(plan.shown)[0])
    frame = runs.sweep(shown_json)
elapsed = time.perf_counter() - t0
status = f"{plan.first.repetitions} of {config.repetitions} repetitions per point"
#: the target this run shows (set further down): the refiner draws that view too
shown_target: dict[str, float] = {}
if plan.refine:  # refine in the background; the fragment redraws when done
    runs.refine(config_json, x, metric, shown_target)
    runs.refining_notice(
        config_json,
        f"**Showing {status}, refining in the background** (all {config.repetitions} take about "
        f"{duration_text(plan.predicted)}); the chart updates by itself.",
        plan.predicted,
    )
elif plan.state == "offered":  # a long full run: offered, not started
    box = st.container(border=True)
    box.markdown(
        f"**Showing {status}: a quick first result.** All {config.repetitions} take about "
        f"{duration_text(plan.predicted)} ({what}); run them for numbers to rely on, or pick a "
        "smaller setting."
    )
    runs.offer_buttons(box, plan)
else:
    st.caption(f"Showing all {config.repetitions} repetitions per point.")

for reason in frame.attrs.get("skipped", {}).values():
    st.caption(reason)
failed = frame[frame["failed"] != ""]
if not failed.empty:
    first = failed.iloc[0]
    st.warning(
        f"{len(failed)} of {len(frame)} runs failed and are left out, e.g. {first['label']}: "
        f"{first['failed']}"
    )

fig_dict, data, sentence, table, summ, tails = runs.views(shown_json, x, metric)
if preset != "custom" and upload is None:
    claim = PRESETS[preset].claim
    if x == "budget" and set(claim.contenders) <= set(chosen):
        result = check_claim(frame, claim, x=x, metric=metric, unit=config.unit)
        narrow = result.close and claim.kind == "wins"  # a win inside the run-to-run spread
        (st.success if result.holds else st.warning)(
            (
                "The story holds"
                + (" only narrowly" if narrow else "")
                + f" in this run (seed {config.seed}). "
                if result.holds
                else f"Seed {config.seed}: "
            )
            + result.sentence,
            icon=":material/check_circle:" if result.holds else ":material/warning:",
        )
    else:
        st.caption(
            "The preset's story is checked on its own budget sweep with "
            + ", ".join(registry.get(c).label for c in claim.contenders)
            + " selected."
        )
deck.mark("The chart")
note = outliers_note(config, data)  # on a projector: with the sentence, in the speaker notes
question = None if table.empty else lowest_error_question(frame, x, metric, unit=config.unit)
if question is None or predict(question.key, question.text, question.options, question.answer):
    chart(
        fig_dict,
        data,
        "compare_error",
        sentence + (f" {note}" if note and deck.on else ""),
        plan.shown.code() + "from dpcore.figures.compare import error_figure\n"
        f"fig, data = error_figure(frame, x={x!r}, metric={metric!r}, config=config)\n",
        on_click=on_compare_click("chart-compare_error", frame, x=x, metric=metric, config=config),
    )
if note is not None and not deck.on:
    st.info(note, icon=":material/info:")
st.caption(
    "Click a point on an estimator's line to open **Side by side** at that point: its clipping "
    "region and noise shape next to the others', at that point's settings."
)
st.caption(
    f"{len(frame):,} runs ({n_tasks} datasets × estimators × points) "
    + ("served from the cache." if elapsed < 0.05 else f"computed in {elapsed:.1f} s.")
)

# ---------------------------------------------------------------------------------------------
deck.mark("The ranking")
if not table.empty:  # which estimator to choose, at the sidebar's point of the sweep
    plain_box(s.budget, words=sweep_words(frame, table, config, x, metric, delta=s.delta))
st.subheader("Ranking by regret")
if table.empty:
    st.info("No private estimator produced an estimate.")
else:
    # the table's "estimator" is the config's id (an uploaded config may rename); the registry knows names
    names = dict(zip(frame["estimator"], frame["name"], strict=False))
    point = {
        **s.to_query(),
        "distribution": config.distribution,
        "n": str(config.n),
        "d": str(config.d),
        "skew": repr(float(config.base_skew())),
        "budget_value": repr(float(config.budget)),
        "unit": config.unit,
        "delta": repr(float(config.delta)),
    }
    st.markdown(
        f"Regret is an estimator's **median** error divided by the smallest median error of a private "
        f"estimator **with the same guarantee** at the same point (1 = best). Estimators are ranked only "
        f"within one guarantee (privacy notion and neighbouring relation); oracle and non-private references "
        "are not ranked. Far-off runs: the share of an estimator's runs, over the whole sweep, more "
        f"than {FAILURE_MULTIPLE:g}× its median at their point."
    )
    for g, part in table.groupby("guarantee", sort=False):
        top = part.iloc[0]
        st.markdown(
            f"**{g}** — **{top['label']}** ranks first: typically {top['mean_regret']:.2f}× the best median "
            f"(at worst {top['worst_regret']:.2f}×), winning {int(top['wins'])} of {int(top['settings'])} "
            f"points."
        )
        # one link per row: the Side by side page at this comparison's base point
        part = part.assign(
            **{
                "side by side": [
                    "side_by_side?" + urlencode({**point, "estimator": names.get(e, e)})
                    for e in part["estimator"]
                ]
            }
        )
        # fits the page without a horizontal scroll: the guarantee heads this table (kept in the
        # data, not drawn), "points won" reads "4 of 5", and the long names live in each column's help
        part = part.assign(
            won=[
                f"{int(w)} of {int(n)}" for w, n in zip(part["wins"], part["settings"], strict=True)
            ],
            failure_rate=[f"{v:.0%}" for v in part["failure_rate"]],
        )
        drawn = [
            "won" if c == "wins" else c
            for c in part.columns
            if c not in ("estimator", "guarantee", "settings", "won")
        ]
        st.dataframe(  # the estimator the box above names: closest at the sidebar's point
            highlight_row(
                part,
                part["label"] == sweep_words(frame, table, config, x, metric).method,
                "◀ closest at your setting",
                formats=REGRET_FORMATS,
                mark_in="label",
            ),
            column_order=drawn,
            hide_index=True,
            width="stretch",
            column_config={
                "rank": st.column_config.NumberColumn(
                    "#", help=f"Rank within {g} (1 = best).", width="small"
                ),
                "label": st.column_config.TextColumn("estimator", width="large"),
                "mean_regret": st.column_config.NumberColumn(
                    "typical regret",
                    format="%.3g×",
                    help="Typical regret (× best): the geometric mean over the sweep's points of this "
                    "estimator's median error divided by the smallest median error of a private estimator "
                    "with the same guarantee at the same point (1 = best).",
                ),
                "worst_regret": st.column_config.NumberColumn(
                    "worst",
                    format="%.3g×",
                    help="Worst regret: the largest of those ratios over the points.",
                ),
                "won": st.column_config.TextColumn(
                    "points won",
                    help="Points of the sweep at which this estimator had the smallest median error of "
                    "its guarantee, of all the points.",
                ),
                "failure_rate": st.column_config.TextColumn(
                    "far-off runs",
                    help=f"The share of this estimator's runs, over the whole sweep, more than "
                    f"{FAILURE_MULTIPLE:g}× its median at their point.",
                ),
                "side by side": st.column_config.LinkColumn(
                    "side by side",
                    display_text="open",
                    help="Open the Side by side page at this point, with this estimator's clipping region and noise "
                    "shape next to the others'.",
                ),
            },
        )
    if table["guarantee"].nunique() > 1:
        st.caption(
            "Side by side, not ranked together: every estimator got the same budget by the conversion "
            "stated under the chart. An add/remove guarantee implies only 2ε under replace-one (pure DP) or "
            "4ρ (zCDP): one replacement is a removal plus an addition."
        )
    cols = st.columns([1, 2])
    with cols[0]:
        download_csv(table, "compare_regret", "Download the ranking (CSV)")
    with cols[1]:
        show_code(
            config.code()
            + f"from dpcore.experiments import regret_table\nregret_table(frame, {metric!r})"
        )

deck.mark("The failure rate")
if not tails.empty:
    st.markdown(
        f"**Far-off runs.** A run is far off when its error is more than **{FAILURE_MULTIPLE:g}×** "
        "the median of the same estimator at the same point; the table counts them over the sweep."
        + (
            " “As published” PLAN spends 9× its centring budget (1.5 ρ in all), as the authors' "
            "code does; the honest estimators spend ρ."
            if "plan_as_published" in set(frame["estimator"])
            else ""
        )
    )
    st.dataframe(far_off_view(tails), hide_index=True, width="stretch")

# ---------------------------------------------------------------------------------------------
deck.mark("What each estimator needs")
st.subheader("Accuracy first: what does each estimator need?")
if x not in ("budget", "n"):
    st.info(
        "Pick “the budget” or “n (rows)” as the x axis to ask what each estimator needs for a target error."
    )
else:
    finite = summ["median"][np.isfinite(summ["median"]) & summ["private"]]
    default_target = round_target(finite)
    # in the URL like the other controls; a new axis or norm starts from its own default target
    if st.session_state.get("_cmp_target_for", (x, metric)) != (x, metric):
        forget("cmp_target")
    st.session_state["_cmp_target_for"] = (x, metric)
    target = url_widget(
        st.number_input,
        f"Target median {METRIC_LABEL[metric]} error",
        key="cmp_target",
        default=default_target,
        valid=lambda v: isinstance(v, float) and 1e-9 <= v < float("inf"),
        min_value=1e-9,
        format="%g",
    )
    shown_target["target"] = float(target)
    with user_errors():
        tfig, tdata, words = runs.target(shown_json, x, metric, float(target))
    chart(
        tfig,
        tdata,
        "compare_target",
        words,
        plan.shown.code() + "import plotly.graph_objects as go\n"
        "from dpcore.experiments import summarise\nfrom dpcore.figures.compare import target_views\n"
        f"summary = summarise(frame, {metric!r})\ndrawn, data, words = target_views(\n"
        f"    frame, summary, {x!r}, {float(target)!r}, {metric!r}, config.unit\n)\n"
        "print(words)\nfig = go.Figure(drawn)\n",
    )

# ---------------------------------------------------------------------------------------------
deck.end()
slides_button(
    f"Compare estimators: {PRESET_LABEL.get(preset, config.name)}",
    [("The chart", "compare_error", None), ("What each estimator needs", "compare_target", None)],
    subtitle=config.description or DISTRIBUTIONS[config.distribution].label,
    key="compare",
)
st.subheader("This experiment")
c5, c6, c7 = st.columns(3)
with c5:
    st.download_button(
        "Download the config (JSON)",
        config.to_json().encode(),
        file_name=f"{config.name}.json",
        mime="application/json",
        key="download-compare-config",
        on_click="ignore",
    )
with c6:
    download_csv(frame, "compare_runs", "Download every run (CSV)")
with c7:
    st.caption(
        "Restore a config with the uploader in the sidebar; run it from a terminal with "
        "`python -m dpcore.experiments config.json --out results/`."
    )


def _report() -> bytes:
    """The current view as one self-contained HTML file (built only when the button is clicked)."""
    from dpcore.report import build_report, ledger_table

    return build_report(
        title=f"Compare estimators: {config.name}",
        settings={**config.to_dict(), "x axis": x, "metric": metric},
        figures=[(fig_dict, sentence)],
        tables=[("Ranking by regret", table)],
        ledger=ledger_table(frame),
        code=config.code(),
        notes=["Noise from a seeded NumPy generator: a simulation, not a secure release."],
    ).encode()


st.download_button(
    "Download a report of this view (HTML)",
    _report,
    file_name=f"{config.name}_report.html",
    mime="text/html",
    key="download-compare-report",
    on_click="ignore",
    help="One self-contained HTML file: the chart, the ranking, the settings, the budget ledger "
    "and the code that reproduces it.",
)
show_code(config.code(), "Show the code (the whole experiment)")
st.caption(
    f"{config.description or DISTRIBUTIONS[config.distribution].label} · n = {config.n:,}, d = {config.d}, "
    f"seed {config.seed}, {config.repetitions} repetitions per point"
    + (f" · {config.notes}" if config.notes else "")
    + "."
)
simulation_notice()
