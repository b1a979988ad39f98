"""Your data: bring a CSV (or pick a bundled real data set), choose columns and bounds, then either
explore (every applicable estimator, repeated, in each column's units; a seeded simulation) or
release (pages/_your_data_release.py). Parsing lives in dpcore.data, the runs in
dpcore.experiments.studies.your_data, the pictures in dpcore.figures.your_data; the app keeps uploaded
bytes in memory (see the page's notice for the web server's temporary file)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import limits, registry
from dpcore._validation import PrivacyLeakWarning
from dpcore.data import (
    describe_columns,
    from_dataframe,
    load_bundled,
    spread_columns,
)
from dpcore.experiments.plain import your_data_words
from dpcore.experiments.studies.your_data import (
    Runs,
    best_few,
    clipping_frame,
    data_spread,
    repeated_runs,
    summary,
)
from dpcore.figures.your_data import (
    FEW,
    clipping_summary,
    dots_chart,
    dots_sentence,
    is_money,
)
from dpcore.pool import TimeBudgetExceeded
from dpcore.privacy import Budget
from dpcore.views.your_data import error_headers
from pages._plain import plain_box
from pages._pool import PEER_SECONDS, run_bounded
from pages._tables import LEDGER_HEADERS, show_table
from pages._ui import (
    CACHE_TTL,
    chart,
    include_peers,
    settings,
    simulation_notice,
    url_widget,
    user_errors,
    words_on_this_page,
)
from pages._your_data_form import keep_typed_bounds, load_frame, typed_bounds
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
RUN_MODES = {
    "explore": "Exploration (a seeded simulation)",
    "release": "Release (a real private release)",
}
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
        f"{limits.MAX_UPLOAD_MB} MB.",
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

SOURCES = {
    "bundled": "A bundled data set",
    "upload": "Upload a CSV file",
    "paste": "Paste CSV text",
}
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
    df, raw_key, name = load_frame(source)

st.subheader("Columns")
info_df = describe_columns(df)
st.caption(
    f"{len(df):,} rows × {df.shape[1]} columns. Only numeric columns can be used; the ranges below are "
    "read off the data and are for you, not for the release."
)
st.dataframe(info_df, hide_index=True, width="stretch", height=min(320, 36 * (len(info_df) + 1)))

numeric = info_df.loc[info_df["numeric"], "column"].tolist()
if source == "bundled":
    default_cols = [df.columns[i] for i in spread_columns(load_bundled(name).true_std, 8)]
else:
    # an identifier is not a quantity to average: not chosen for you
    default_cols = [c for c in numeric if not str(c).lower().endswith("id")][:8]
# A file or data set whose columns do not include the kept choice starts a fresh one.
columns = url_widget(
    st.multiselect,
    "Columns to average",
    list(df.columns),
    key="yd_cols",
    default=default_cols,
    valid=lambda v: isinstance(v, list) and set(v) <= set(map(str, df.columns)),
)
missing_in_chosen = int(df[columns].isna().any(axis=1).sum()) if columns else 0
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
BOUNDS = {
    "public": "I know them (public knowledge)",
    "private": "Estimate them privately with part of the budget",
    "data": "Read them off the data (privacy leak)",
}
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
if source == "bundled":
    lo0, hi0 = load_bundled(name).bounds
    pub = {
        c: (float(lo0[list(df.columns).index(c)]), float(hi0[list(df.columns).index(c)]))
        for c in df.columns
    }
else:
    pub = {}
typed = (
    source != "bundled"
)  # an upload's ranges are the user's; a bundled set's come from its documentation
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
    typed_now = typed_bounds()
    start = {c: typed_now.get(c, pub.get(c, (np.nan, np.nan))) for c in columns}
    table = pd.DataFrame(
        {
            "column": columns,
            "lower": [start[c][0] for c in columns],
            "upper": [start[c][1] for c in columns],
        }
    )
    edited = st.data_editor(
        table,
        hide_index=True,
        disabled=["column"],
        key=f"yd_bounds_editor_{abs(hash(tuple(columns)))}",
        width="stretch",
    )
    keep_typed_bounds(typed_now, edited, pub)
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
    q_options = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1]
    q = url_widget(
        c2.select_slider,
        "Private quantiles used as bounds",
        q_options,
        key="yd_q",
        default=0.01,
        valid=q_options.__contains__,
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
    if mode == "data":
        with warnings.catch_warnings(record=True):  # the warning box above says it once
            warnings.simplefilter("always", PrivacyLeakWarning)
            data = from_dataframe(df, columns, None, nan_policy="drop" if drop_nan else "error")
    else:
        lower = pd.to_numeric(edited["lower"], errors="coerce").to_numpy(dtype=float)
        upper = pd.to_numeric(edited["upper"], errors="coerce").to_numpy(dtype=float)
        if len(lower) != len(columns) or not (
            np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
        ):
            st.info(
                "Type a lower and an upper value for every chosen column in the table above "
                "(no range is assumed for you)."
            )
            st.stop()
        data = from_dataframe(
            df, columns, (lower, upper), nan_policy="drop" if drop_nan else "error"
        )
    budget = s.budget


if run_mode == "release":
    release_mode(
        Inputs(
            data,
            [str(c) for c in columns],
            mode,
            share,
            quantiles,
            raw_key,
            missing_in_chosen,
        ),
        s,
    )
    st.stop()

# ---------------------------------------------------------------------------------------------
# exploration: what clipping alone does, then every estimator repeated (teaching only)

col_names = [str(c) for c in columns]
clip = clipping_frame(data, col_names)
st.subheader("What clipping does, before any noise")
st.caption(
    "Teaching only: read off the data, **not private** and never part of a release. An estimator "
    "that clips to these bounds lands near the mean of the clipped data; the gap to the raw mean is "
    "its clipping bias, which no amount of budget removes."
)
st.markdown(clipping_summary(clip))
with st.expander("Table: raw and clipped mean of every column"):
    st.dataframe(
        clip.rename(
            columns={
                "clipped_share": "share clipped",
                "raw_mean": "raw mean",
                "clipped_mean": "mean of the clipped data",
                "shift": "moved by clipping",
            }
        ),
        hide_index=True,
        width="stretch",
    )

peers_on = include_peers("yd_peers")
applicable = [
    sp
    for sp in registry.applicable(data.kind, data.d, peers=peers_on)
    if sp.notion != "none" and "oracle" not in sp.name
]
specs = [sp for sp in applicable if sp.meets(budget)]
st.caption(
    f"{data.n:,} rows × {data.d} columns treated as **{data.kind}** data; {len(specs)} estimators "
    "apply. Oracle variants would need public variances (this data's own are a privacy leak) and "
    "are left out."
)
left_out = [sp for sp in applicable if not sp.meets(budget)]
zcdp_out = [sp for sp in left_out if s.unit == "eps" and sp.notion == "zcdp"]
if zcdp_out:
    st.info(
        f"{len(zcdp_out)} zCDP estimator{'s are' if len(zcdp_out) > 1 else ' is'} left out: a pure ε "
        "budget cannot be met by a zCDP estimator (ε-DP implies ε²/2-zCDP, not the reverse). Give the "
        "budget as (ε, δ) or ρ to include them."
    )
if over := [sp.label for sp in left_out if sp not in zcdp_out]:
    st.caption(
        "Left out: " + ", ".join(over) + " — each spends more than the budget it is given (as "
        "its authors' code does), so it does not meet this budget."
    )

bounds_key = (tuple(np.round(data.bounds[0], 12)), tuple(np.round(data.bounds[1], 12)))


def _run_kw(mode: str, share: float | None, quantiles: tuple[float, float]) -> dict[str, Any]:
    """The keywords of :func:`repeated_runs` for the chosen bounds mode."""
    return dict(
        columns=col_names,
        private_share=share if mode == "private" else None,
        coarse_bounds=data.bounds,
        quantiles=quantiles,
    )


@st.cache_data(show_spinner="Running every estimator…", max_entries=16, ttl=CACHE_TTL)
def _runs(
    raw_key: object,
    columns: tuple[str, ...],
    drop_nan: bool,
    bounds_key: tuple,
    mode: str,
    share: float | None,
    quantiles: tuple[float, float],
    budget_key: tuple[str, float, float],
    seed: int,
    names: tuple[str, ...],
    reps: int,
) -> Runs:
    """``reps`` runs of the estimators ``names`` (the arguments before them key the cache). The
    peer libraries run in a process of their own, ended at their time budget (which raises and is
    not cached)."""
    b = Budget.from_unit(*budget_key)
    chosen = [registry.get(n) for n in names]
    kw = _run_kw(mode, share, quantiles)
    if any(sp.family == registry.PEERS for sp in chosen):
        return run_bounded(
            repeated_runs,
            chosen,
            data,
            b,
            reps,
            seed,
            seconds=PEER_SECONDS,
            what="The peer libraries' means",
            **kw,
        )
    return repeated_runs(chosen, data, b, reps, seed, **kw)


VIEWS = ["range", *col_names]
c1, c2 = st.columns([2, 1])
view = url_widget(
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
args = (
    raw_key,
    tuple(col_names),
    drop_nan,
    bounds_key,
    mode,
    share,
    quantiles,
    (s.unit, s.budget_value, s.delta),
    s.seed,
)
with user_errors():
    if not specs:
        raise ValueError("no private estimator applies to these columns; choose other columns.")
    runs = _runs(*args, tuple(sp.name for sp in specs if sp.family != registry.PEERS), int(reps))
    if peers_on:
        theirs = tuple(sp.name for sp in specs if sp.family == registry.PEERS)
        try:
            more = _runs(*args, theirs, int(reps))
        except TimeBudgetExceeded as err:  # the others are shown; the peers are left out
            st.warning(f"{err}", icon=":material/timer_off:")
        else:
            runs = Runs(
                pd.concat([runs.frame, more.frame], ignore_index=True),
                {**runs.ledgers, **more.ledgers},
                {**runs.nonprivate, **more.nonprivate},
                {**runs.refused, **more.refused},
            )
    if runs.frame.empty:
        raise ValueError(
            "no estimator could run on this data: "
            + "; ".join(f"{k}: {v}" for k, v in runs.refused.items())
        )

column = None if view == "range" else str(view)
table = summary(runs.frame, column)
show_all = st.checkbox(
    f"Show all {len(table)} estimators (not only the best {FEW} of each guarantee"
    + (" and the libraries)" if peers_on else ")"),
    key="yd_show_all",
)
shown = table if show_all else best_few(table, FEW)
j = None if column is None else col_names.index(column)
shift = 0.0 if j is None else float(clip["shift"].iloc[j])
st.subheader(
    f"Every estimator, {int(reps)} runs each, budget {budget}"
    + (" (not private: bounds read off the data)" if mode == "data" else "")
)
run_code = (
    "import pandas as pd\nfrom dpcore import registry\nfrom dpcore.data import from_dataframe\n"
    "from dpcore.experiments.studies.your_data import (\n"
    "    best_few, clipping_frame, repeated_runs, summary,\n)\n"
    "from dpcore.figures.your_data import dots_chart\nfrom dpcore.privacy import Budget\n"
    + (
        f"from dpcore.data import bundled_frame\ndf = bundled_frame({name!r})\n"
        if source == "bundled"
        else "df = pd.read_csv('your.csv')\n"
    )
    + f"data = from_dataframe(df, {col_names!r}, "
    + ("None" if mode == "data" else f"({data.bounds[0].tolist()!r}, {data.bounds[1].tolist()!r})")
    + f", nan_policy={'drop' if drop_nan else 'error'!r})\n"
    + f"budget = Budget.from_unit({s.unit!r}, {s.budget_value!r}, {s.delta!r})\n"
    + f"specs = [spec for spec in registry.applicable(data.kind, data.d, peers={peers_on})\n"
    + "         if spec.notion != 'none' and 'oracle' not in spec.name and spec.meets(budget)]\n"
    + f"runs = repeated_runs(specs, data, budget, {int(reps)}, {s.seed}, columns={col_names!r}"
    + (
        f", private_share={share!r}, coarse_bounds=data.bounds, quantiles={quantiles!r}"
        if mode == "private"
        else ""
    )
    + ")\n"
    + f"clip = clipping_frame(data, {col_names!r})\nprint(clip)\n"
    + f"table = summary(runs.frame, {column!r})\n"
    + ("shown = table\n" if show_all else f"shown = best_few(table, {FEW})\n")
    + f"fig = dots_chart(shown, column={column!r}, shift="
    + ("0.0" if j is None else f"float(clip['shift'].iloc[{j}])")
    + ")\n"
)
chart(
    dots_chart(shown, column=column, shift=shift),
    shown.drop(columns=["color"]),
    "your_data_errors",
    dots_sentence(
        table,
        column=column,
        shift=shift,
        spread=data_spread(data, j),
    )
    + ("" if show_all else f" Showing {len(shown)} of {len(table)}."),
    run_code,
)
if column is None:
    st.caption(
        "Each dot is an estimator's median error over the runs, its bar the middle 80% of runs; "
        "the error of a run is each column's distance to the mean of the clipped data as a share "
        "of that column's range (root mean square over columns), so dollars, years and hours are "
        "never added. Choose a column above to see the error in its own units, with the clipping "
        "bias drawn apart from the noise."
    )
else:
    money = is_money(column)
    st.caption(
        f"Each dot is an estimator's median of (estimate − raw mean of {column}) over the runs, its "
        "bar the middle 80% of runs. The dotted line is the raw mean, the dashed one the mean of the "
        "clipped data: the distance between them is the clipping bias, the spread around the dashed "
        f"line is the noise." + ("" if not money else " In dollars.")
    )
explored = column or col_names[0]  # the column on the chart, or the first one, in its own units
plain_box(budget, words=your_data_words(runs.frame, explored, budget, delta=s.delta))
with st.expander("Table: every estimator's median error and spread"):
    show_table(  # the estimator the box above names: closest on the column it speaks of
        table.drop(columns=["color", "name"]).rename(
            columns={"low": "10% of runs", "high": "90% of runs", "rank": "ranked by"}
        ),
        table["estimator"] == your_data_words(runs.frame, explored, budget, delta=s.delta).method,
        f"◀ closest on {explored}",
        headers=error_headers(column),
        mark_in="estimator",
    )
with st.expander("Non-private diagnostics (teaching only)"):
    st.caption(
        "These numbers are read off the data (rows clamped, the true n, failed groups). They are "
        "**not** private and are not part of any release; they are shown only to explain the "
        "estimators."
    )
    st.dataframe(
        pd.DataFrame(
            {"estimator": list(runs.nonprivate), "diagnostics": list(runs.nonprivate.values())}
        ),
        hide_index=True,
        width="stretch",
    )
if runs.refused:
    st.markdown(
        "**Not applicable here** (left out of the chart):\n"
        + "\n".join(f"- {label}: not applicable: {why}" for label, why in runs.refused.items())
    )

st.subheader("Where the budget went")
ledger_options = list(runs.ledgers)
pick = url_widget(
    st.selectbox,
    "Ledger of",
    ledger_options,
    key="yd_ledger",
    default=shown["estimator"].iloc[0] if len(shown) else ledger_options[0],
    valid=ledger_options.__contains__,
)
led = pd.DataFrame(runs.ledgers[pick])
show_table(led, headers=LEDGER_HEADERS)
total = float(led["spent"].sum())
if mode == "private":
    spent_bounds = float(led.loc[led["stage"].str.startswith("bounds:"), "spent"].sum())
    st.markdown(
        f"{pick} spent {spent_bounds:.4g} {led['unit'].iloc[0]} ({spent_bounds / total:.0%}) on "
        f"the private bounds and the rest on its own steps; {total:.4g} in all."
    )
else:
    st.markdown(f"{pick} spent {total:.4g} {led['unit'].iloc[0]} in all.")
simulation_notice()
