"""Compare estimators: every registered estimator that applies to the data, at the same budget, over a
sweep of the budget, n, d or the skew; the sampling floor and the theory beside them."""

from __future__ import annotations

import time
from dataclasses import replace

import streamlit as st

from dpcore.figures.compare import BLOWUP_MULTIPLE, METRIC_LABEL
from dpcore.views import compare as cmp
from dpcore.views.tables import RANKING_COLUMNS, REGRET_FORMATS
from pages import _compare_run as runs
from pages._follow import predict
from pages._goto import follow, on_compare_click
from pages._plain import plain_box
from pages._present import Deck, slides_button
from pages._spec import page
from pages._tables import data_table, highlight_row
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
        f"than {cmp.FAILURE_MULTIPLE:g}× the median of the same estimator at the same point, and the "
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

#: Compare's own controls; a new preset drops them back to the preset's defaults.
_OWN = ("cmp_x", "cmp_metric", "cmp_reps", "cmp_est", "cmp_est_peers", "cmp_target")


def _on_preset() -> None:
    """Choosing a preset writes its settings into the sidebar, so the sidebar and the URL carry one state."""
    name = st.session_state["cmp_preset"]
    forget(*_OWN)
    if name in cmp.PRESETS:
        set_sidebar(cmp.PRESETS[name].sidebar())


if "cmp_preset" not in st.session_state:
    first = st.session_state.get("_keep_cmp_preset") or url_value("preset")
    st.session_state["cmp_preset"] = first if first in cmp.PRESET_LABEL else "custom"
    if (
        first in cmp.PRESETS
        and not st.session_state.get("_url_had_settings")
        and "_keep_cmp_preset" not in st.session_state
    ):
        st.session_state["_keep_cmp_preset"] = first
        # a bare ?preset= link sets the sidebar
        set_sidebar(cmp.PRESETS[first].sidebar(), rerun=True)
else:  # never drawn as the first option, "Your sidebar settings", instead (see send_values)
    send_values("cmp_preset")

deck.mark("The story")
st.markdown(cmp.question(st.session_state.get("cmp_preset", "custom")))  # before its widgets
c1, c2, c3, c4 = st.columns([2.2, 1.2, 1.2, 1.2])
preset: str = (
    c1.selectbox(
        "Story (preset)",
        list(cmp.PRESET_LABEL),
        format_func=lambda k: cmp.PRESET_LABEL[k],
        key="cmp_preset",
        on_change=_on_preset,
        help="Each preset tells one story and sets the sidebar to its data and budget; change the "
        "sidebar afterwards to test the story elsewhere. The address bar restores the view.",
    )
    or "custom"
)
st.session_state["_keep_cmp_preset"] = preset
if preset == "custom":
    st.query_params.pop("preset", None)
else:
    url_sync("preset", preset)


def _on_upload() -> None:
    f = st.session_state.get("cmp_upload")
    st.session_state["cmp_uploaded_json"] = (
        f.getvalue().decode("utf-8", "replace") if f is not None else None
    )


st.sidebar.file_uploader(
    "Restore a comparison config (JSON)", type=["json"], key="cmp_upload", on_change=_on_upload
)
upload = st.session_state.get("cmp_uploaded_json")

if st.session_state.get("_cmp_choice_upload") != upload:  # a new (or no more) upload: its own
    forget("cmp_est", "cmp_est_peers")  # estimators replace the earlier picks (and come back)
    st.session_state["_cmp_choice_upload"] = upload

peers_on = include_peers("cmp_peers")
with user_errors():  # a preset's estimators and sweep (or the defaults, or the upload's)
    opts = cmp.options(s, preset, upload, peers_on)
if opts.preset_changed is not None:
    c1.caption(opts.preset_changed)
    c1.button("Back to the preset's settings", on_click=_on_preset, key="cmp_reset_preset")
if opts.upload_info is not None:
    st.info(opts.upload_info)

x = url_widget(
    c2.selectbox,
    "Error against",
    list(cmp.AXES),
    key="cmp_x",
    default=opts.x_default,
    valid=cmp.AXES.__contains__,
    format_func=cmp.AXES.get,
)
metric = url_widget(
    c3.selectbox,
    "Error norm",
    list(opts.metrics),
    key="cmp_metric",
    default=opts.metric_default,
    valid=opts.metrics.__contains__,
    format_func=METRIC_LABEL.get,
    help=opts.metric_help,
)
reps = url_widget(
    c4.slider,
    "Repetitions",
    *opts.repetitions_range,
    key="cmp_reps",
    default=opts.repetitions_default,
    help="Runs per point; every run draws fresh data and fresh noise.",
)
chosen = url_widget(
    st.multiselect,
    opts.estimators_label,
    list(opts.estimators),
    key="cmp_est_peers" if peers_on else "cmp_est",
    default=list(opts.estimators_default),
    valid=lambda v: set(v) <= set(opts.estimators),
    format_func=lambda k: opts.labels.get(k, k),
    help="Defaults to the main estimators for this kind of data; every applicable one is listed.",
)
if opts.upload_left is not None:
    st.warning(opts.upload_left)
if not chosen:
    st.warning("Pick at least one estimator.")
    st.stop()

record = cmp.CompareSettings(
    data=s,
    preset=preset,
    upload=upload,
    x=x,
    metric=metric,
    repetitions=int(reps),
    estimators=tuple(chosen),
    peers=peers_on,
)
with user_errors():
    config = cmp.config(record)
    if (risk := cmp.before_run(config)) is not None:  # public values only (n, d, rho, the range)
        st.warning(risk)
# a first result at once; the full sweep by itself when short, else offered (dpcore decides)
plan = runs.decision(config, cmp.first_reps(record))
config_json = config.to_json(indent=None)
if plan.state == "ask":  # even the first result is long: the time first, and a choice
    box = st.container(border=True)
    box.markdown(
        f"**This comparison takes about {duration_text(plan.predicted)}** "
        f"({cmp.run_size(config)}); a first result with {plan.first.repetitions} repetitions per "
        f"point takes about {duration_text(plan.first_seconds)}."
    )
    runs.offer_buttons(box, plan)
    st.stop()
assert plan.shown is not None
record = replace(record, shown_repetitions=plan.shown.repetitions)
shown_json = plan.shown.to_json(indent=None)
t0 = time.perf_counter()
with user_errors():
    runs.sweep(shown_json)  # with a progress bar when it runs here
elapsed = time.perf_counter() - t0
status = f"{plan.first.repetitions} of {config.repetitions} repetitions per point"
#: the target this run shows (set further down): the refiner draws that view too
shown_target: dict[str, float] = {}
if plan.refine:  # refine in the background; the fragment redraws when done
    here = runs.refine(config_json, x, metric, shown_target)
    runs.refining_notice(
        config_json,
        f"**Showing {status}, refining in the background** (all {config.repetitions} take about "
        f"{duration_text(plan.predicted)}); the chart updates by itself.",
        plan.predicted,
        here,
    )
elif plan.state == "offered":  # a long full run: offered, not started
    box = st.container(border=True)
    box.markdown(
        f"**Showing {status}: a quick first result.** All {config.repetitions} take about "
        f"{duration_text(plan.predicted)} ({cmp.run_size(config)}); run them for numbers to rely "
        "on, or pick a smaller setting."
    )
    runs.offer_buttons(box, plan)
else:
    st.caption(f"Showing all {config.repetitions} repetitions per point.")

with user_errors():
    v = runs.view(record)
for reason in v.skipped:
    st.caption(reason)
if v.failed is not None:
    st.warning(v.failed)
if v.claim is not None:
    kind, text = v.claim
    if kind == "caption":
        st.caption(text)
    elif kind == "success":
        st.success(text, icon=":material/check_circle:")
    else:
        st.warning(text, icon=":material/warning:")

deck.mark("The chart")
q = v.question
if q is None or predict(q.key, q.text, q.options, q.answer):
    chart(
        v.figure,
        v.data,
        "compare_error",
        v.sentence + (f" {v.note}" if v.note and deck.on else ""),  # a projector: in the notes
        v.chart_code,
        on_click=on_compare_click(
            "chart-compare_error", v.frame, x=x, metric=metric, config=config
        ),
    )
if v.note is not None and not deck.on:
    st.info(v.note, icon=":material/info:")
st.caption(
    "Click a point on an estimator's line to open **Side by side** at that point: its clipping "
    "region and noise shape next to the others', at that point's settings."
)
st.caption(
    f"{len(v.frame):,} runs ({v.datasets} datasets × estimators × points) "
    + ("served from the cache." if elapsed < 0.05 else f"computed in {elapsed:.1f} s.")
)


def _column_config(guarantee: str) -> dict:
    """How a ranking's drawn columns read: headers and help from ``dpcore.views.tables``."""
    h = {c: (name, text.format(guarantee=guarantee)) for c, (name, text) in RANKING_COLUMNS.items()}
    cc = st.column_config
    return {
        "rank": cc.NumberColumn(h["rank"][0], help=h["rank"][1], width="small"),
        "label": cc.TextColumn(h["label"][0], width="large"),
        "mean_regret": cc.NumberColumn(
            h["mean_regret"][0], help=h["mean_regret"][1], format="%.3g×"
        ),
        "worst_regret": cc.NumberColumn(
            h["worst_regret"][0], help=h["worst_regret"][1], format="%.3g×"
        ),
        "won": cc.TextColumn(h["won"][0], help=h["won"][1]),
        "failure_rate": cc.TextColumn(h["failure_rate"][0], help=h["failure_rate"][1]),
        "side by side": cc.LinkColumn(
            h["side by side"][0], help=h["side by side"][1], display_text="open"
        ),
    }


# ---------------------------------------------------------------------------------------------
deck.mark("The ranking")
if v.words is not None:  # which estimator to choose, at the sidebar's point of the sweep
    plain_box(s.budget, words=v.words)
st.subheader("Ranking by regret")
if v.table.empty:
    st.info("No private estimator produced an estimate.")
else:
    st.markdown(
        "Regret is an estimator's **median** error divided by the smallest median error of a "
        "private estimator **with the same guarantee** at the same point (1 = best). Estimators "
        "are ranked only within one guarantee (privacy notion and neighbouring relation); oracle "
        "and non-private references are not ranked. Far-off runs: the share of an estimator's "
        f"runs, over the whole sweep, more than {cmp.FAILURE_MULTIPLE:g}× its median at their "
        "point."
    )
    for r in v.rankings:
        st.markdown(r.sentence)
        data_table(  # the estimator the box above names: closest at the sidebar's point
            highlight_row(
                r.table,
                r.closest,
                "◀ closest at your setting",
                formats=REGRET_FORMATS,
                mark_in="label",
            ),
            column_order=r.columns,
            hide_index=True,
            width="stretch",
            column_config=_column_config(r.guarantee),
        )
    if v.mixed_guarantees:
        st.caption(
            "Side by side, not ranked together: every estimator got the same budget by the "
            "conversion stated under the chart. An add/remove guarantee implies only 2ε under "
            "replace-one (pure DP) or 4ρ (zCDP): one replacement is a removal plus an addition."
        )
    cols = st.columns([1, 2])
    with cols[0]:
        download_csv(v.table, "compare_regret", "Download the ranking (CSV)")
    with cols[1]:
        show_code(v.regret_code)

deck.mark("The failure rate")
if not v.tails.empty:
    st.markdown(v.far_off_intro)
    data_table(v.far_off, hide_index=True, width="stretch")

# ---------------------------------------------------------------------------------------------
deck.mark("What each estimator needs")
st.subheader("Accuracy first: what does each estimator need?")
if not v.targetable:
    st.info(
        "Pick “the budget” or “n (rows)” as the x axis to ask what each estimator needs for a "
        "target error."
    )
else:
    # in the URL like the other controls; a new axis or norm starts from its own default target
    if st.session_state.get("_cmp_target_for", (x, metric)) != (x, metric):
        forget("cmp_target")
    st.session_state["_cmp_target_for"] = (x, metric)
    goal = url_widget(
        st.number_input,
        f"Target median {METRIC_LABEL[metric]} error",
        key="cmp_target",
        default=v.default_target,
        valid=lambda g: isinstance(g, float) and 1e-9 <= g < float("inf"),
        min_value=1e-9,
        format="%g",
    )
    shown_target["target"] = float(goal)
    if deck.on:  # the target's input sits above the chart: the chart gives up its height
        st.html(
            "<style>.st-key-cmp_target ~ .st-key-chart-compare_target "
            "{ height: calc(100dvh - 21rem) !important; }</style>"
        )
    with user_errors():
        tfig, tdata, words = runs.target(shown_json, x, metric, float(goal))
    chart(
        tfig, tdata, "compare_target", words, cmp.target_code(replace(record, target=float(goal)))
    )

# ---------------------------------------------------------------------------------------------
deck.end()
slides_button(
    v.title,
    [("The chart", "compare_error", None), ("What each estimator needs", "compare_target", None)],
    subtitle=v.subtitle,
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
    download_csv(v.frame, "compare_runs", "Download every run (CSV)")
with c7:
    st.caption(
        "Restore a config with the uploader in the sidebar; run it from a terminal with "
        "`python -m dpcore.experiments config.json --out results/`."
    )
st.download_button(
    "Download a report of this view (HTML)",
    lambda: cmp.report(v),  # built only when the button is clicked
    file_name=f"{config.name}_report.html",
    mime="text/html",
    key="download-compare-report",
    on_click="ignore",
    help="One self-contained HTML file: the chart, the ranking, the settings, the budget ledger "
    "and the code that reproduces it.",
)
show_code(config.code(), "Show the code (the whole experiment)")
st.caption(v.footer)
simulation_notice()
