"""Release mode of the Your data page: one estimator, unseeded releases charged to this data's
odometer (kept across sessions and restarts in SQLite, keyed by a secret-keyed fingerprint of the
file: :mod:`dpcore.odometer`), and measure, observe, re-measure (releases of the same columns
combined by inverse variance in :mod:`dpcore.remeasure`). Two downloads: the certificate to
publish, and the curator's record, not for publication. No non-private number appears here."""

from __future__ import annotations

import json

import streamlit as st

from dpcore.curator import fingerprint
from dpcore.figures.your_data import release_table, remeasure_chart
from dpcore.guarantee import Guarantee
from dpcore.odometer import OdometerStore, predicted_guarantee
from dpcore.privacy import Budget
from dpcore.release import Odometer, Release, release
from dpcore.remeasure import Combined, combine
from dpcore.views.settings import DataSettings
from dpcore.views.your_data_release import (
    DROPPED,
    Combination,
    Inputs,
    accuracy_lines,
    certificate_json,
    combination,
    failed,
    n_public_help,
    panel,
    release_code,
    release_kwargs,
    series_key,
    series_paragraph,
)
from pages._plain import release_box
from pages._tables import data_table, show_table
from pages._ui import chart, url_widget

__all__ = ["ODOMETER_WORDS", "Inputs", "data_odometer", "release_mode"]

#: What the odometer protects, and what it does not (said on the page, and in docs/release.md).
ODOMETER_WORDS = (
    "**What this odometer protects**: your own limit, as the curator, on what this server "
    "releases about this file. It is kept per file (a secret-keyed fingerprint of it, never the "
    "file) across reloads, tabs, sessions and restarts, and a release beyond the total is refused "
    "with nothing charged. Once anything is spent the total can be lowered, not raised, except by "
    "starting a new budget for this data, which is logged. **What it does not protect**: releases "
    "made elsewhere (another server, another copy of the data, a changed file, which counts as a "
    "new file here), or by anyone who starts a new budget; and it does not make any release more "
    "private than the guarantee its certificate states."
)


def _data_key(inp: Inputs) -> str:
    """The file's HMAC fingerprint under this installation's key (the odometer's key)."""
    raw = inp.raw if isinstance(inp.raw, bytes) else f"bundled:{inp.raw}".encode()
    return fingerprint(source=raw)


def data_odometer(inp: Inputs, notion: str) -> Odometer:
    """This file's odometer (its notion and total fixed when the file was first released from
    here; default ε = 1 or ρ = 0.5), with the total the user may lower and the logged action that
    starts a new budget."""
    ss = st.session_state
    store = OdometerStore()
    default = Budget.pure(1.0) if notion == "pure" else Budget.zcdp(0.5)
    odo = store.odometer(_data_key(inp), default)
    ss["_yd_odometer"] = odo
    ss["yd_odo_total"] = float(
        odo.amount
    )  # what the store holds (another session may have moved it)
    st.number_input(
        f"Total for all releases of this file ({odo.unit})",
        min_value=0.01,
        max_value=100.0,
        step=0.1,
        key="yd_odo_total",
        on_change=_set_total,
        args=(odo,),
        help="Releases are refused once they would spend more than this in total. Once anything "
        "is spent the total can be lowered, not raised.",
    )
    if msg := ss.pop("_yd_total_refused", None):
        st.error(msg)
    st.progress(
        min(1.0, odo.spent / odo.amount),
        text=f"Spent {odo.unit} = {odo.spent:.4g} of {odo.amount:g} on this file; "
        f"{odo.remaining:.4g} left.",
    )
    st.caption(ODOMETER_WORDS)
    _new_budget(odo, store)
    return odo


def _set_total(odo: Odometer) -> None:
    """The total widget's callback: lower (or set, before any spend) the stored total."""
    try:
        odo.set_total(float(st.session_state["yd_odo_total"]))
    except ValueError as err:
        st.session_state["_yd_total_refused"] = f"The total was not changed: {err}"


def _start_new_budget(odo: Odometer) -> None:
    """The new-budget button's callback: the logged reset, and a new series of releases."""
    ss = st.session_state
    odo.new_budget(float(ss["yd_new_total"]), str(ss.get("yd_new_reason", "")).strip())
    ss["_yd_series_key"] = None  # a new series of releases


def _new_budget(odo: Odometer, store: OdometerStore) -> None:
    """The explicit, logged action that starts a new budget for this file, and the log."""
    with st.expander("Start a new budget for this data, or read this file's odometer log"):
        st.markdown(
            "Starting a new budget sets what was spent on this file back to 0. The releases made "
            "so far still count against the people in it: do this only when your organisation "
            "decides to allow more (for example a new reporting period). It is logged."
        )
        st.number_input(
            f"New total ({odo.unit})", 0.01, 100.0, float(odo.amount), 0.1, key="yd_new_total"
        )
        st.text_input("Reason (kept in the log)", key="yd_new_reason")
        st.button(
            "Start a new budget for this data",
            key="yd_new_budget",
            on_click=_start_new_budget,  # a callback runs once, whatever reruns follow
            args=(odo,),
        )
        assert odo.key is not None
        data_table(store.log(odo.key), hide_index=True)


def _series(key: str) -> list[Release]:
    """This session's releases with the same settings (a change of settings starts a new series)."""
    ss = st.session_state
    if ss.get("_yd_series_key") != key:
        if ss.get("_yd_series"):
            st.caption(
                "The earlier releases of this session used other settings (estimator, columns or "
                "bounds); they stay charged but are not combined with these."
            )
        ss["_yd_series_key"], ss["_yd_series"] = key, []
    return ss["_yd_series"]


def release_mode(inp: Inputs, s: DataSettings) -> None:
    """Release mode: pick an estimator, release, then spend more and re-measure if needed."""
    st.subheader("Release")
    p = panel(inp, s)
    if p.refused is not None or p.budget is None:
        st.error(p.refused)
        return
    b = p.budget
    odo = data_odometer(inp, b.notion)
    chosen = url_widget(
        st.selectbox,
        "Estimator",
        list(p.names),
        key="yd_rel_est",
        default=p.default,
        valid=p.names.__contains__,
        format_func=p.labels.get,
    )
    if inp.dropping:
        st.info(DROPPED, icon=":material/filter_alt:")
    n_public = not inp.dropping and bool(
        st.checkbox(
            "The number of rows in this file is public",
            key="yd_n_public",
            disabled=inp.dropping,
            help=n_public_help(p.relations[chosen], inp.dropping),
        )
    )
    series = _series(series_key(chosen, inp, n_public))
    verb = "Spend more and re-measure" if series else "Release the means"
    st.button(
        f"{verb} at {b}",
        key="yd_release_go",
        type="primary",
        on_click=st.session_state.__setitem__,
        args=("_yd_release_asked", True),
    )
    if st.session_state.pop("_yd_release_asked", False):  # kept through any rerun before here
        _release_once(inp, chosen, b, odo, series, n_public)
    try:
        nxt = predicted_guarantee(chosen, b)
    except ValueError:
        nxt = None
    _show_series(series, inp, odo, b, s.delta, nxt)


def _release_once(
    inp: Inputs, name: str, b: Budget, odo: Odometer, series: list[Release], n_public: bool
) -> None:
    """One release charged to ``odo`` (only if it succeeds), added to ``series``."""
    frame = inp.frame()
    try:
        out = odo.run(
            release,
            name,
            frame,
            budget=b,
            source=inp.raw if isinstance(inp.raw, bytes) else None,
            n_public=n_public,
            **release_kwargs(inp),
        )
    except (ValueError, RuntimeError) as err:
        st.error(failed(err))
        return
    series.append(out)
    st.rerun()  # the odometer above shows the new total


def _show_series(
    series: list[Release],
    inp: Inputs,
    odo: Odometer,
    b: Budget,
    delta: float,
    nxt: Guarantee | None = None,
) -> None:
    """The releases of this series, their combination and how their budgets compose, and the
    plain-language box (before a release: what the next one will spend)."""
    cols = inp.columns
    if not series:
        st.caption("No release yet with these settings in this session.")
        release_box(odo, b, cols, delta=delta, guarantee=nxt)
        return
    last = series[-1]
    cert = last.certificate
    st.markdown(
        f"**Released with {cert['estimator']['label']}** at {cert['guarantee']['budget_given']}"
        + (f" (release {len(series)} of this series)." if len(series) > 1 else ".")
    )
    combined = combine(series)
    if len(series) == 1:
        data_table(release_table(cols, last.mean, last.accuracy), hide_index=True)
    else:
        _show_combination(series, combined, inp, odo)
    st.markdown(accuracy_lines(cols, combined))
    release_box(
        odo,
        b,
        cols,
        mean=float(combined.mean[0]),
        accuracy=float(combined.accuracy[0]),
        releases=len(series),
        delta=delta,
    )
    st.caption(f"Accuracy of each release: {cert['accuracy']['method']}.")
    _downloads(series, combined)


def _downloads(series: list[Release], combined: Combined) -> None:
    """The certificate to publish (of the release, or of the combination with the composed
    guarantee of every release it used) and the curator's record, not for publication."""
    one = len(series) == 1
    st.markdown("**To publish** with the means: public parameters and private outputs only.")
    st.download_button(
        "Download the certificate to publish (JSON)"
        if one
        else f"Download the certificate of the combination of {len(series)} releases (JSON)",
        certificate_json(series, combined),
        file_name="release-certificate.json" if one else "combined-certificate.json",
        mime="application/json",
        key="yd_cert_json",
        on_click="ignore",
    )
    st.markdown(
        "**Not for publication**: your record of these releases (the exact number of rows, a "
        "fingerprint of the file under this server's secret key, the numeric noise scales)."
    )
    record = json.dumps([r.record for r in series], indent=2, ensure_ascii=False)
    st.download_button(
        "Download the curator's record, not for publication (JSON)",
        record,
        file_name="curator-record-NOT-FOR-PUBLICATION.json",
        mime="application/json",
        key="yd_record_json",
        on_click="ignore",
    )
    st.markdown("**Certificate, as a paragraph for a report**")
    st.write(series_paragraph(series, combined))


def _show_combination(
    series: list[Release], combined: Combined, inp: Inputs, odo: Odometer
) -> None:
    """Each release and the inverse-variance combination, a chart of one column, the ledger."""
    cols = inp.columns
    c = combination(series, combined, cols, odo.total.notion, odo.spent, odo.amount, odo.unit)
    show_table(c.table, c.published, "◀ publish this", headers=c.headers, mark_in="release")
    col = cols[0]
    if len(cols) > 1:
        col = st.selectbox("Column to draw", cols, key="yd_rm_col")
    # presenter mode draws a chart as high as its block: give it one (this view is no slide deck)
    box = st.container(height=440, border=False) if st.session_state.get("present") else st
    with box.container():
        _combination_chart(series, combined, inp, odo, c, col)
    st.markdown(c.composes)


def _combination_chart(
    series: list[Release],
    combined: Combined,
    inp: Inputs,
    odo: Odometer,
    c: Combination,
    col: str,
) -> None:
    """The chart of one column: each release and the combination, with the sentence and code."""
    means, accuracy, sentence = c.chart_inputs(series, combined, col, inp.columns)
    chart(
        remeasure_chart(col, c.labels, means, accuracy),
        c.table,
        "your_data_remeasure",
        sentence,
        release_code(series, inp, odo.total.notion),
    )
