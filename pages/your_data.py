"""Your data: bring a CSV (or pick a bundled real data set), choose columns and bounds, then either
explore (every applicable estimator, repeated, in each column's units; a seeded simulation) or
release (pages/_your_data_release.py). Every number comes from dpcore.views.your_data (parsing in
dpcore.data, the runs in dpcore.experiments.studies.your_data), the pictures from
dpcore.figures.your_data; the app keeps uploaded bytes in memory (see the page's notice for the
web server's temporary file)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from dpcore.figures.dict_figure import chart_dict
from dpcore.figures.your_data import dots_chart
from dpcore.views.your_data import (
    BOUNDS,
    MAX_UPLOAD_MB,
    QUANTILE_OPTIONS,
    RUN_MODES,
    SOURCES,
    ExploreSettings,
    FormSettings,
    TimeBudgetExceeded,
    YourDataSettings,
    form,
    ledger,
    merged,
    overview,
    overview_settings,
    parse_bounds,
    runs,
    show,
    your_dataset,
)
from pages._plain import plain_box
from pages._pool import PEER_SECONDS
from pages._present import heading
from pages._tables import LEDGER_HEADERS, data_table, show_table
from pages._ui import (
    chart,
    include_peers,
    settings,
    simulation_notice,
    url_widget,
    user_errors,
    words_on_this_page,
)
from pages._views import cached, cached_bounded
from pages._your_data_form import bounds_inputs, keep_typed_bounds, load_source
from pages._your_data_refine import first_view, refining_notice
from pages._your_data_release import Inputs, release_mode

s = settings()
st.title("Your data")
st.markdown(
    "Bring a CSV file, or pick one of the bundled real data sets, choose the columns and say what you "
    "know about their range. **Exploration** runs every estimator that applies with the sidebar's budget "
    "many times and shows, column by column and in each column's units, how far each lands from "
    "the non-private mean (raw and clipped to your bounds), the answer an analyst would not see. "
    "**Release** runs one estimator once and gives you means you can publish, with their accuracy and "
    "a certificate; if the accuracy is not enough, spend more, re-measure and combine the releases."
)
run_mode = url_widget(
    st.radio,
    "Mode",
    list(RUN_MODES),
    key="yd_run_mode",
    default="explore",
    valid=RUN_MODES.__contains__,
    format_func=RUN_MODES.get,
    horizontal=True,
    help="Exploration compares every estimator on seeded NumPy noise (a simulation). Release runs "
    "one estimator once, unseeded, with floating-point-safe samplers, and spends this file's budget.",
)
if run_mode == "explore":
    st.warning(
        "Exploration only: the noise here comes from a seeded NumPy generator, which is right for simulation but "
        "**not a secure differentially private release** of real data. This app keeps your file in memory "
        "for this session and never writes it to disk; while a file over 1 MB is being received, the web server "
        f"(Starlette, under Streamlit) buffers it in a temporary file, deleted once read. At most "
        f"{MAX_UPLOAD_MB} MB.",
        icon=":material/science:",
    )
else:
    st.info(
        "**Release mode**: one estimator runs once on your data with no seed, its noise drawn by "
        "OpenDP's exact samplers from the operating system's random source. Each release spends part "
        "of this file's total budget; the page shows the released means and their accuracy, never "
        "the true means. Your file stays in memory for this session only; the server keeps a "
        "fingerprint of it under its own secret key and what was spent on it (the odometer).",
        icon=":material/verified_user:",
    )

words_on_this_page(
    "IOME", "PLAN", "PMWM", "zCDP", "ε (pure DP)", "add-remove", "replace-one", "oracle"
)

source = url_widget(
    st.radio,
    "Data",
    list(SOURCES),
    key="yd_source",
    default="bundled",
    valid=SOURCES.__contains__,
    format_func=SOURCES.get,
    horizontal=True,
)
if source == "bundled":
    st.caption(
        "Copy the address bar to share this view: the link carries the data set, columns, bounds, "
        "budget and the repeated-runs choice."
    )
else:
    st.caption(
        "Copy the address bar to share this view: **the link carries the settings but not the "
        + ("file" if source == "upload" else "pasted text")
        + "**; whoever opens it supplies the same data."
    )
with user_errors():
    source_rec = load_source(source)
    f = cached(form)(FormSettings(source_rec))
name = source_rec.name

st.subheader("Columns")
st.caption(
    f"{f.rows:,} rows × {f.width} columns. Only numeric columns can be used; the ranges below are "
    "read off the data and are for you, not for the release."
)
data_table(f.info, hide_index=True, width="stretch", height=f.table_height)
if f.non_numeric:
    st.warning(
        "Not numeric, so not offered below:\n\n" + "\n".join(f"- {line}" for line in f.non_numeric),
        icon=":material/pin:",
    )

# A file or data set whose columns do not include the kept choice starts a fresh one.
columns = url_widget(
    st.multiselect,
    "Columns to average",
    list(f.all_columns),
    key="yd_cols",
    default=list(f.default_columns),
    valid=lambda v: isinstance(v, list) and set(v) <= set(f.all_columns),
)
missing_in_chosen = cached(form)(FormSettings(source_rec, tuple(map(str, columns)))).missing
drop_nan = False
if missing_in_chosen:
    drop_nan = url_widget(
        st.checkbox,
        f"Drop the {missing_in_chosen:,} rows with missing values in these columns",
        key="yd_dropna",
        default=True,
        help="The number of dropped rows depends on the data and is not private.",
    )


st.subheader("Bounds")
mode = url_widget(
    st.radio,
    "Where does each column's range come from?",
    list(BOUNDS),
    # own file: no default choice (a bundled set's documented ranges are public)
    key="yd_bounds_mode" if source == "bundled" else "yd_bounds_mode_own",
    default="public" if source == "bundled" else None,
    valid=lambda v: v in BOUNDS or (v is None and source != "bundled"),
    format_func=BOUNDS.get,
    help="No default for your own file: a range is a choice you make, not something the app guesses.",
)
if mode is None:
    st.info(
        "Choose where the bounds come from: type the range you know, estimate it privately, or read it off "
        "the data (flagged as a privacy leak). Nothing is estimated until you choose."
    )
    st.stop()
typed = (
    source != "bundled"
)  # an upload's ranges are the user's; a bundled set's come from its documentation
typed_boxes: tuple[list[str], list[str]] | None = None  # (lowers, uppers) as typed
if mode != "data":
    st.caption(
        "Type the range you know **before** looking at the data (a pixel is 0–16, a wage is ≥ 0, ...). "
        + (
            "In private mode this is the coarse range the private quantiles search in; it can be wide."
            if mode == "private"
            else "Values outside it are clipped."
        )
        + ("" if typed else " Prefilled with the data set's documented (public) ranges.")
    )
    typed_boxes = bounds_inputs(list(map(str, columns)), f.documented)
    keep_typed_bounds(list(map(str, columns)), *typed_boxes, f.documented)
share = None
quantiles = (0.01, 0.99)
if mode == "private":
    c1, c2 = st.columns(2)
    share = url_widget(
        c1.slider,
        "Share of the budget spent on the bounds",
        0.05,
        0.5,
        step=0.05,
        key="yd_share",
        default=0.2,
        valid=lambda v: isinstance(v, float) and 0.05 <= v <= 0.5,
        help="Each estimator gets the rest; the ledger below shows the split.",
    )
    q = url_widget(
        c2.select_slider,
        "Private quantiles used as bounds",
        QUANTILE_OPTIONS,
        key="yd_q",
        default=0.01,
        valid=QUANTILE_OPTIONS.__contains__,
        format_func=lambda v: f"{v:g} and {1 - v:g}",
    )
    quantiles = (float(q), 1.0 - float(q))
if mode == "data":
    st.warning(
        "Bounds read off the data leak private information: the minimum and maximum are some "
        "person's exact values. Established libraries (diffprivlib's PrivacyLeakWarning) flag this; "
        "the results below are **not** differentially private.",
        icon=":material/warning:",
    )

with user_errors():
    if not columns:
        raise ValueError("choose at least one numeric column to average.")
    bounds = None
    if typed_boxes is not None:
        bounds = parse_bounds(*typed_boxes, len(columns))
        if bounds is None:
            st.info(
                "Type a lower and an upper value (a number) for every chosen column in the boxes "
                "above and press **Use these bounds** (no range is assumed for you)."
            )
            st.stop()
    explore = ExploreSettings(
        s,
        source_rec,
        tuple(str(c) for c in columns),
        bool(drop_nan),
        str(mode),
        None if bounds is None else bounds[0],
        None if bounds is None else bounds[1],
        share,
        quantiles,
    )
    # an impossible budget is a ValueError naming the fix (assigned: Streamlit's magic drew a
    # bare `s.budget` expression on the page as a help box)
    _ = s.budget


if run_mode == "release":
    with user_errors():
        data = cached(your_dataset)(explore)
    release_mode(
        Inputs(
            data,
            list(explore.columns),
            mode,
            share,
            quantiles,
            source_rec.raw,
            missing_in_chosen,
            bool(drop_nan),
        ),
        s,
    )
    st.stop()

# ---------------------------------------------------------------------------------------------
# exploration: what clipping alone does, then every estimator repeated (teaching only)

with user_errors():  # one overview for every seed (it reads no random stream)
    o = cached(overview)(overview_settings(explore))
st.subheader("What clipping does, before any noise")
st.caption(
    "Teaching only: read off the data, **not private** and never part of a release. An estimator "
    "that clips to these bounds lands near the mean of the clipped data; the gap to the raw mean is "
    "its clipping bias, which no amount of budget removes."
)
st.markdown(o.clip_sentence)
# the closed expanders' tables are drawn when opened (opening one reruns the page on the cached
# view): a first view does not pay for tables nobody has opened (docs/speed.md, Your data, round 4)
with st.expander(
    "Table: raw and clipped mean of every column", key="yd_clip_table", on_change="rerun"
) as clip_box:
    if clip_box.open:
        data_table(o.clip_table, hide_index=True, width="stretch")

peers_on = include_peers("yd_peers")
if peers_on != explore.peers:
    explore = replace(explore, peers=peers_on)
    o = cached(overview)(overview_settings(explore))
st.caption(o.intro)
if o.zcdp_note:
    st.info(o.zcdp_note)
if o.over_note:
    st.caption(o.over_note)

VIEWS = ["range", *explore.columns]
c1, c2 = st.columns([2, 1])
view_choice = url_widget(
    c1.selectbox,
    "Show the error",
    VIEWS,
    key="yd_view",
    default="range",
    valid=VIEWS.__contains__,
    format_func=lambda v: (
        "as a share of each column's range (all columns)" if v == "range" else f"in {v}'s own units"
    ),
)
reps = url_widget(
    c2.slider,
    "Runs per estimator",
    5,
    100,
    step=5,
    key="yd_reps",
    default=10,
    valid=lambda v: isinstance(v, int) and 5 <= v <= 100,
)
explore = replace(explore, reps=int(reps))
shown = first_view(explore)  # fewer runs on the first view, the slider's count refined after


def _all_runs(record: ExploreSettings) -> list:
    """Every family's runs of ``record`` (the peers' under a time budget; left out past it)."""
    parts = [cached(runs)(record)]
    if peers_on:
        try:
            parts.append(
                cached_bounded(runs, seconds=PEER_SECONDS, what="The peer libraries' means")(
                    replace(record, family="peers")
                )
            )
        except TimeBudgetExceeded as err:  # the others are shown; the peers are left out
            st.warning(f"{err}", icon=":material/timer_off:")
    return parts


with user_errors():
    if o.error:
        raise ValueError(o.error)
    with st.spinner("Running every estimator…"):
        parts = _all_runs(shown)
    show_all = bool(st.session_state.get("yd_show_all", False))
    record = YourDataSettings(shown, None if view_choice == "range" else str(view_choice), show_all)
    v = show(record, o, merged(parts))
if shown != explore:
    refining_notice(explore, lambda: _all_runs(explore))

st.checkbox(v.show_all_label, key="yd_show_all")
heading(v.title, "errors")
chart(
    chart_dict(dots_chart, v.shown, column=v.column, shift=v.shift),  # plotly's dict: no validation
    v.shown.drop(columns=["color"]),
    "your_data_errors",
    v.sentence,
    v.code,
)
st.caption(v.caption)
if v.units_note:
    st.info(v.units_note, icon=":material/straighten:")
plain_box(s.budget, words=v.words)
with st.expander(
    "Table: every estimator's median error and spread", key="yd_error_table", on_change="rerun"
) as error_box:
    if error_box.open:
        show_table(  # the estimator the box above names: closest on the column it speaks of
            v.error_table,
            v.error_mask,
            f"◀ closest on {v.explored}",
            headers=v.error_headers,
            mark_in="estimator",
        )
with st.expander(
    "Non-private diagnostics (teaching only)", key="yd_diagnostics", on_change="rerun"
) as diagnostics_box:
    if diagnostics_box.open:
        st.caption(
            "These numbers are read off the data (rows clamped, the true n, failed groups). They "
            "are **not** private and are not part of any release; they are shown only to explain "
            "the estimators."
        )
        data_table(v.nonprivate, hide_index=True, width="stretch")
if v.refused:
    st.markdown(v.refused)

st.subheader("Where the budget went")
pick = url_widget(
    st.selectbox,
    "Ledger of",
    list(v.ledger_options),
    key="yd_ledger",
    default=v.ledger_default,
    valid=v.ledger_options.__contains__,
)
led, spent = ledger(v.runs, pick, str(mode))
show_table(led, headers=LEDGER_HEADERS)
st.markdown(spent)
simulation_notice()
