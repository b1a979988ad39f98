"""Your data: bring a CSV (or pick a bundled real data set), choose columns and bounds, and compare
every applicable estimator on it. Parsing, bounds and estimation live in dpcore.data and
dpcore.figures.your_data; the app keeps uploaded bytes in memory (see the page's notice for the web
server's temporary file)."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import limits, registry
from dpcore._validation import PrivacyLeakWarning
from dpcore.data import (
    BUNDLED,
    bundled_frame,
    describe_columns,
    from_dataframe,
    load_bundled,
    parse_csv,
    spread_columns,
)
from dpcore.experiments.studies import repeated_frame, run_estimator
from dpcore.figures.your_data import (
    NONPRIVATE_COLUMN,
    accuracy_sentence,
    data_scale,
    error_bar_chart,
    estimates_frame,
    one_release_sentence,
    release_table,
    repeated_chart,
    spread_sentence,
)
from dpcore.pool import TimeBudgetExceeded, call_each
from dpcore.privacy import Budget
from dpcore.release import Odometer, refusal, release
from pages._pool import PEER_SECONDS, run_bounded
from pages._ui import (
    CACHE_TTL,
    URL_ERRORS,
    chart,
    include_peers,
    settings,
    simulation_notice,
    url_json,
    url_number,
    url_sync,
    url_value,
    url_widget,
    user_errors,
    words_on_this_page,
)

s = settings()
st.title("Your data")
st.markdown(
    "Bring a CSV file, or pick one of the bundled real data sets, choose the columns and say what you "
    "know about their range. **Exploration** runs every estimator that applies with the sidebar's budget "
    "and shows how far each lands from the non-private mean, the answer an analyst would not see. "
    "**Release** runs one estimator once and gives you means you can publish, with their accuracy and "
    "a certificate."
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
    "one estimator once, unseeded, with floating-point-safe samplers, and spends your session budget.",
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
        "of this session's total budget; the page shows the released means and their accuracy, never "
        "the true means. Your file stays in memory for this session only.",
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
#: Controls of this page that only make sense with the data they were chosen for.
_DATA_KEYS = ("yd_cols", "yd_bounds", "yd_rep_names", "yd_ledger")


def _keep_upload() -> None:
    """Keep the uploaded file's name and bytes for this session, so it survives a page change (the
    uploader's own state does not); removing the file in the uploader drops it."""
    f = st.session_state.get("yd_file")
    st.session_state["_yd_upload"] = (f.name, f.getvalue()) if f is not None else None


@st.cache_data(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _parse(raw: bytes) -> pd.DataFrame:
    return parse_csv(raw)


with user_errors():
    if source == "bundled":
        name = url_widget(
            st.selectbox,
            "Bundled data set",
            list(BUNDLED),
            key="yd_bundled",
            default=next(iter(BUNDLED)),
            valid=BUNDLED.__contains__,
            format_func=lambda k: BUNDLED[k].label,
        )
        info = BUNDLED[name]
        st.caption(f"{info.description} Source: {info.source}. Licence: {info.licence}.")
        df = bundled_frame(name)
        raw_key: object = name
    elif source == "upload":
        up = st.file_uploader(
            "CSV file (first row: column names)",
            type=None,
            key="yd_file",
            on_change=_keep_upload,
            help=f"At most {limits.MAX_UPLOAD_MB} MB, {limits.MAX_UPLOAD_ROWS:,} rows and "
            f"{limits.MAX_COLUMNS} columns.",
        )
        kept_file = st.session_state.get("_yd_upload")
        if up is None and kept_file is not None:  # uploaded before this page was left
            st.caption(
                f"Using **{kept_file[0]}**, uploaded earlier in this session (upload another to replace it)."
            )
            raw = kept_file[1]
        elif up is None:
            carried = [k for k in _DATA_KEYS if url_value(k)]
            st.info(
                "**Upload the CSV file this link was made with.** The link carries the settings "
                "(columns, bounds, budget) but not the file; they apply once the same file is here."
                if carried
                else "Upload a CSV file to begin, or pick a bundled data set above.",
                icon=":material/upload_file:",
            )
            st.stop()
        else:
            raw = up.getvalue()
        df = _parse(raw)
        raw_key = raw
    else:
        st.session_state.setdefault("yd_text", st.session_state.get("_keep_yd_text", ""))
        text = st.text_area(
            "CSV text (first row: column names)",
            key="yd_text",
            height=140,
            max_chars=limits.MAX_UPLOAD_BYTES,
            placeholder="age,income\n34,52000\n51,61000\n...",
        )
        st.session_state["_keep_yd_text"] = text  # kept across pages, never put in the URL
        if not text.strip():
            st.info(
                "**Paste the CSV text this link was made with.** The link carries the settings "
                "(columns, bounds, budget) but not the data."
                if any(url_value(k) for k in _DATA_KEYS)
                else "Paste CSV text to begin."
            )
            st.stop()
        raw = text.encode()
        df = _parse(raw)
        raw_key = raw

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
    default_cols = numeric[:8]
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


def _typed_bounds() -> dict[str, tuple[float, float]]:
    """The ranges typed so far, per column (kept across pages; on a session's first visit read
    from the link's ``yd_bounds``, a JSON object ``{column: [lower, upper]}``)."""
    ss = st.session_state
    if "_yd_typed" not in ss:
        ss["_yd_typed"] = {}
        raw = url_value("yd_bounds")
        try:
            got = url_json(raw) if raw else {}
            ss["_yd_typed"] = {
                str(c): (url_number(str(v[0])), url_number(str(v[1])))
                for c, v in got.items()
                if isinstance(v, list) and len(v) == 2
            }
        except URL_ERRORS:
            pass  # a broken link: no typed ranges, the table asks for them
    return dict(ss["_yd_typed"])


def _keep_typed_bounds(
    kept: dict[str, tuple[float, float]], edited: pd.DataFrame, documented: dict
) -> None:
    """Keep the ranges in the table (those that differ from a documented range) and put them in the URL."""
    for row in edited.itertuples():
        lo, hi = pd.to_numeric(pd.Series([row.lower, row.upper]), errors="coerce")
        if math.isfinite(lo) and math.isfinite(hi) and documented.get(row.column) != (lo, hi):
            kept[str(row.column)] = (float(lo), float(hi))
        else:
            kept.pop(str(row.column), None)
    st.session_state["_yd_typed"] = kept
    if kept:
        url_sync(
            "yd_bounds", json.dumps({c: list(v) for c, v in kept.items()}, separators=(",", ":"))
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
    typed_now = _typed_bounds()
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
    _keep_typed_bounds(typed_now, edited, pub)
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
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PrivacyLeakWarning)
            data = from_dataframe(df, columns, None, nan_policy="drop" if drop_nan else "error")
        if any(issubclass(w.category, PrivacyLeakWarning) for w in caught):
            st.caption(f"dpcore warned: {caught[0].message}")
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


#: The estimator a release starts from, by preference (one clipping stage per column).
RELEASE_DEFAULTS = ("clipped_laplace", "clipped_box_zcdp", "plan", "pmwm")


def _release_budget() -> Budget | None:
    """The sidebar budget as a release counts it (ε or ρ), or None for an (ε, δ) budget."""
    if s.unit == "eps":
        return Budget.pure(s.budget_value)
    if s.unit == "rho":
        return Budget.zcdp(s.budget_value)
    return None


def _session_odometer(notion: str) -> Odometer:
    """This session's odometer (its notion fixed by the first release mode visit), with the total
    the user sets (default ε = 1 or ρ = 0.5)."""
    ss = st.session_state
    odo = ss.get("_yd_odometer")
    if odo is None:
        odo = Odometer(Budget.pure(1.0) if notion == "pure" else Budget.zcdp(0.5))
        ss["_yd_odometer"] = odo
    total = st.number_input(
        f"Session total for all releases ({odo.unit})",
        min_value=0.01,
        max_value=100.0,
        value=float(odo.amount),
        step=0.1,
        key="yd_odo_total",
        help="Releases are refused once they would spend more than this in total.",
    )
    odo.total = Budget.pure(total) if odo.total.notion == "pure" else Budget.zcdp(total)
    st.progress(
        min(1.0, odo.spent / odo.amount),
        text=f"Spent {odo.unit} = {odo.spent:.4g} of {odo.amount:g} this session; "
        f"{odo.remaining:.4g} left.",
    )
    return odo


def _release_mode(raw: object) -> None:
    """Release mode: one estimator, one unseeded release, charged to the session odometer."""
    st.subheader("Release")
    if mode == "data":
        st.error(
            "Bounds read off the data are not private: choose typed or privately estimated bounds "
            "for a release. Nothing was released."
        )
        return
    if missing_in_chosen:
        st.error(
            f"{missing_in_chosen:,} rows have missing values (NaN) in these columns. A release does "
            "not drop rows (how many are dropped is not private): clean the file first. Nothing "
            "was released and nothing was charged."
        )
        return
    b = _release_budget()
    if b is None:
        st.error(
            "A release counts ε or ρ: give the sidebar budget as ε or ρ. Nothing was released."
        )
        return
    odo = _session_odometer(b.notion)
    capable = [
        sp
        for sp in registry.applicable(data.kind, data.d, peers=True)
        if refusal(sp) is None and sp.meets(b)
    ]
    if not capable:
        st.error(f"No estimator can release these columns at {b}. Nothing was released.")
        return
    names = [sp.name for sp in capable]
    first = [n for n in RELEASE_DEFAULTS if n in names] or names  # a box clipper, not a simplex
    chosen = url_widget(
        st.selectbox,
        "Estimator",
        names,
        key="yd_rel_est",
        default=first[0],
        valid=names.__contains__,
        format_func=lambda n: registry.get(n).label,
    )
    st.button(
        f"Release the means at {b}",
        key="yd_release_go",
        type="primary",
        on_click=st.session_state.__setitem__,
        args=("_yd_release_asked", True),
    )
    if st.session_state.pop("_yd_release_asked", False):  # kept through any rerun before here
        kw = (
            {"bounds": data.bounds}
            if mode == "public"
            else {"coarse_bounds": data.bounds, "share": share, "quantiles": quantiles}
        )
        frame = pd.DataFrame(data.x, columns=[str(c) for c in columns])
        try:
            out = odo.run(
                release,
                chosen,
                frame,
                budget=b,
                source=raw if isinstance(raw, bytes) else None,
                **kw,
            )
        except (ValueError, RuntimeError) as err:
            st.error(f"Nothing was released and nothing was charged: {err}")
        else:
            st.session_state["_yd_release"] = (out, [str(c) for c in columns])
            st.rerun()  # the odometer above shows the new total
    _show_release()


def _show_release() -> None:
    """The last release of this session: means in the columns' units, accuracy, certificate."""
    kept = st.session_state.get("_yd_release")
    if kept is None:
        st.caption("No release yet in this session.")
        return
    out, cols = kept
    cert = out.certificate
    st.markdown(
        f"**Released with {cert['estimator']['label']}** at {cert['guarantee']['budget_given']}."
    )
    st.dataframe(release_table(cols, out.mean, out.accuracy), hide_index=True, width="stretch")
    st.markdown(
        "\n".join(f"- {accuracy_sentence(c, a)}" for c, a in zip(cols, out.accuracy, strict=True))
    )
    st.caption(f"Accuracy: {cert['accuracy']['method']}.")
    st.download_button(
        "Download the certificate (JSON)",
        out.certificate_json(),
        file_name="release-certificate.json",
        mime="application/json",
        key="yd_cert_json",
    )
    st.markdown("**Certificate, as a paragraph for a report**")
    st.write(out.certificate_text())


if run_mode == "release":
    _release_mode(raw_key)
    st.stop()

outside = float(np.mean((data.x < data.bounds[0]) | (data.x > data.bounds[1])))
if mode == "public" and outside > 0:
    where = "the ranges you typed" if typed else "the data set's documented ranges"
    st.info(f"{outside:.1%} of the values lie outside {where}; estimators clip them.")
peers_on = include_peers("yd_peers")
applicable = [
    sp
    for sp in registry.applicable(data.kind, data.d, peers=peers_on)
    if sp.notion != "none" and "oracle" not in sp.name
]
specs = [sp for sp in applicable if sp.meets(budget)]
st.caption(
    f"{data.n:,} rows × {data.d} columns treated as **{data.kind}** data; {len(specs)} estimators apply. "
    "Oracle variants would need public variances (this data's own are a privacy leak) and are left out."
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


def _run_specs(
    chosen: list, b: Budget, mode: str, share: float | None, quantiles: tuple, seed: int
) -> tuple[list, dict[str, list[dict[str, object]]], dict[str, str]]:
    """Run each of ``chosen`` (here, or in a process of its own for the peer libraries, ended at
    their time budget): ``(results, ledgers, refused)``; one refusal leaves the others."""
    kw: dict[str, Any] = dict(
        private_share=share if mode == "private" else None,
        coarse_bounds=data.bounds,
        quantiles=quantiles,
        rng=seed,
    )
    calls = [(run_estimator, (sp, data, b), kw) for sp in chosen]
    peers = any(sp.family == registry.PEERS for sp in chosen)
    outcomes = (
        run_bounded(call_each, calls, seconds=PEER_SECONDS, what="The peer libraries' means")
        if peers
        else call_each(calls)
    )
    results, ledgers, refused = [], {}, {}
    for sp, (ok, value) in zip(chosen, outcomes, strict=True):
        if not ok and not isinstance(value, ValueError):
            raise value
        if not ok:  # one estimator's refusal (e.g. too few rows) leaves the others
            refused[sp.label] = str(value)
            continue
        results.append((sp, value))
        ledgers[sp.label] = value.ledger.to_records()
    return results, ledgers, refused


@st.cache_data(show_spinner="Running every estimator…", max_entries=16, ttl=CACHE_TTL)
def _run_all(
    raw_key: object,
    columns: tuple[str, ...],
    drop_nan: bool,
    bounds_key: tuple,
    mode: str,
    share: float | None,
    quantiles: tuple[float, float],
    unit: str,
    value: float,
    delta: float,
    seed: int,
    names: tuple[str, ...] = (),
) -> tuple[pd.DataFrame | None, dict[str, list[dict[str, object]]], dict[str, str]]:
    """The estimators ``names`` once each: their error frame (``None`` when none ran), ledgers and
    refusals. A peer-library run past its time budget raises (and is not cached)."""
    b = Budget.from_unit(unit, value, delta)
    chosen = [registry.get(n) for n in names]
    results, ledgers, refused = _run_specs(chosen, b, mode, share, quantiles, seed)
    return (estimates_frame(results, data.true_mean) if results else None), ledgers, refused


@st.cache_data(show_spinner="Repeating runs…", max_entries=16, ttl=CACHE_TTL)
def _repeat(
    raw_key: object,
    columns: tuple[str, ...],
    drop_nan: bool,
    bounds_key: tuple,
    mode: str,
    share: float | None,
    quantiles: tuple[float, float],
    unit: str,
    value: float,
    delta: float,
    seed: int,
    names: tuple[str, ...],
    reps: int,
) -> pd.DataFrame:
    b = Budget.from_unit(unit, value, delta)
    chosen = [registry.get(n) for n in names]
    kw: dict[str, Any] = dict(
        private_share=share if mode == "private" else None,
        coarse_bounds=data.bounds,
        quantiles=quantiles,
    )
    if any(sp.family == registry.PEERS for sp in chosen):  # in a process ended at its budget
        return run_bounded(
            repeated_frame,
            chosen,
            data,
            b,
            reps,
            seed,
            seconds=PEER_SECONDS,
            what="The repeated runs with the peer libraries",
            **kw,
        )
    return repeated_frame(chosen, data, b, reps, seed, **kw)


args = (
    raw_key,
    tuple(columns),
    drop_nan,
    bounds_key,
    mode,
    share,
    quantiles,
    s.unit,
    s.budget_value,
    s.delta,
    s.seed,
)
with user_errors():
    if not specs:
        raise ValueError("no private estimator applies to these columns; choose other columns.")
    own = tuple(sp.name for sp in specs if sp.family != registry.PEERS)
    table, ledgers, refused = _run_all(*args, own)
    if peers_on:
        theirs = tuple(sp.name for sp in specs if sp.family == registry.PEERS)
        try:
            ptable, pledgers, prefused = _run_all(*args, theirs)
        except TimeBudgetExceeded as err:  # the others are shown; the peers are left out
            st.warning(f"{err}", icon=":material/timer_off:")
        else:
            table = pd.concat([t for t in (table, ptable) if t is not None], ignore_index=True)
            table = table.sort_values("l2_error", kind="stable").reset_index(drop=True)
            ledgers, refused = {**ledgers, **pledgers}, {**refused, **prefused}
    if table is None:
        raise ValueError(
            "no estimator could run on this data: "
            + "; ".join(f"{k}: {v}" for k, v in refused.items())
        )

st.subheader(f"One release per estimator, budget {budget}")
run_code = (
    "import pandas as pd\nfrom dpcore import registry\nfrom dpcore.data import from_dataframe\n"
    "from dpcore.privacy import Budget\n"
    + (
        f"from dpcore.data import bundled_frame\ndf = bundled_frame({name!r})\n"
        if source == "bundled"
        else "df = pd.read_csv('your.csv')\n"
    )
    + f"data = from_dataframe(df, {list(columns)!r}, "
    + ("None" if mode == "data" else f"({data.bounds[0].tolist()!r}, {data.bounds[1].tolist()!r})")
    + f", nan_policy={'drop' if drop_nan else 'error'!r})\n"
    + f"budget = Budget.from_unit({s.unit!r}, {s.budget_value!r}, {s.delta!r})\n"
    + "for spec in registry.applicable(data.kind, data.d):\n"
    + "    if spec.notion == 'none' or 'oracle' in spec.name or not spec.meets(budget):\n"
    + "        continue  # oracles need a public sigma; zCDP cannot meet a pure ε budget\n"
    + (
        "    from dpcore.estimators.private_bounds import run_with_private_bounds\n"
        f"    est = run_with_private_bounds(spec, data, budget, share={share!r}, coarse_bounds=data.bounds, "
        f"quantiles={quantiles!r}, rng={s.seed})\n"
        if mode == "private"
        else f"    est = spec.run(data, budget, rng={s.seed})\n"
    )
    + "    print(spec.label, est.mean - data.true_mean)\n"
)
scale = data_scale(data)
chart(
    error_bar_chart(table),
    table.drop(columns=["color"]),
    "your_data_errors",
    one_release_sentence(table, scale, data),
    run_code,
)
with st.expander("Table: every estimator's error and spend"):
    st.dataframe(
        table.drop(columns=["color", "name", NONPRIVATE_COLUMN]), hide_index=True, width="stretch"
    )
with st.expander("Non-private diagnostics (teaching only)"):
    st.caption(
        "These numbers are read off the data (rows clamped, the true n, failed groups). They are **not** "
        "private and are not part of any release; they are shown only to explain the estimators."
    )
    st.dataframe(table[["estimator", NONPRIVATE_COLUMN]], hide_index=True, width="stretch")
if refused:
    st.markdown(
        "**Not applicable here** (left out of the chart):\n"
        + "\n".join(f"- {label}: not applicable: {why}" for label, why in refused.items())
    )

st.subheader("Where the budget went")
ledger_options = table["estimator"].tolist()
pick = url_widget(
    st.selectbox,
    "Ledger of",
    ledger_options,
    key="yd_ledger",
    default=ledger_options[0],
    valid=ledger_options.__contains__,
)
led = pd.DataFrame(ledgers[pick])
st.dataframe(led, hide_index=True, width="stretch")
total = float(led["spent"].sum())
if mode == "private":
    spent_bounds = float(led.loc[led["stage"].str.startswith("bounds:"), "spent"].sum())
    st.markdown(
        f"{pick} spent {spent_bounds:.4g} {led['unit'].iloc[0]} ({spent_bounds / total:.0%}) on the private "
        f"bounds and the rest on its own steps; {total:.4g} in all."
    )
else:
    st.markdown(f"{pick} spent {total:.4g} {led['unit'].iloc[0]} in all.")

st.subheader("Repeated runs: the spread")
fast = [
    n
    for n in (
        "gaussian_private",
        "plan",
        "iome_paper",
        "pmwm_zcdp",
        "binary_klsu_zcdp",
        "plan_l1",
        "centred_sum_known_n_gauss",
        "clipped_laplace",
        "pmwm",
        "simplex_laplace",
        "plugin_laplace",
        "binary_pde",
    )
    if n in set(table["name"])
]
labels = dict(zip(table["name"], table["estimator"], strict=True))
c1, c2 = st.columns([3, 1])
chosen = url_widget(
    c1.multiselect,
    "Estimators",
    table["name"].tolist(),
    key="yd_rep_names",
    default=fast[:5] or table["name"].tolist()[:5],
    valid=lambda v: isinstance(v, list) and set(v) <= set(table["name"]),
    format_func=labels.get,
)
reps = url_widget(
    c2.slider,
    "Runs each",
    5,
    100,
    step=5,
    key="yd_reps",
    default=20,
    valid=lambda v: isinstance(v, int) and 5 <= v <= 100,
)
if chosen:
    with user_errors():
        rep = _repeat(*args, tuple(chosen), int(reps))
    chart(
        repeated_chart(rep),
        rep.drop(columns=["color"]),
        "your_data_repeats",
        spread_sentence(rep, scale),
        run_code.replace(
            "for spec in registry.applicable(data.kind, data.d):",
            f"from dpcore.experiments.studies import repeated_frame\n"
            f"specs = [registry.get(n) for n in {list(chosen)!r}]\n"
            f"runs = repeated_frame(specs, data, budget, {int(reps)}, {s.seed}"
            + (
                f", private_share={share!r}, coarse_bounds=data.bounds, quantiles={quantiles!r}"
                if mode == "private"
                else ""
            )
            + ")\n"
            "for spec in []:",
        ),
    )
else:
    st.info("Choose at least one estimator to repeat.")
simulation_notice()
