"""Release mode of the Your data page: one estimator, unseeded releases charged to this data's
odometer (kept across sessions and restarts in SQLite, keyed by a secret-keyed fingerprint of the
file: :mod:`dpcore.odometer`), and measure, observe, re-measure (releases of the same columns
combined by inverse variance in :mod:`dpcore.remeasure`). Two downloads: the certificate to
publish, and the curator's record, not for publication. No non-private number appears here."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import registry
from dpcore.curator import fingerprint
from dpcore.data.dataset import Dataset
from dpcore.figures.your_data import (
    accuracy_sentence,
    release_table,
    remeasure_chart,
    remeasure_table,
)
from dpcore.guarantee import Guarantee
from dpcore.odometer import OdometerStore, predicted_guarantee
from dpcore.privacy import Budget
from dpcore.release import Odometer, Release, refusal, release
from dpcore.remeasure import Combined, combine, composition
from pages._plain import release_box
from pages._tables import show_table
from pages._ui import Settings, chart, url_widget

#: The estimator a release starts from, by preference (one clipping stage per column).
RELEASE_DEFAULTS = ("clipped_laplace", "clipped_box_zcdp", "plan", "pmwm")


@dataclass(frozen=True)
class Inputs:
    """What the page's form decided: the data, its columns, how the bounds were chosen."""

    data: Dataset
    columns: list[str]
    mode: str
    share: float | None
    quantiles: tuple[float, float]
    raw: object
    missing: int


def release_budget(s: Settings) -> Budget | None:
    """The sidebar budget as a release counts it (ε or ρ), or None for an (ε, δ) budget."""
    if s.unit == "eps":
        return Budget.pure(s.budget_value)
    if s.unit == "rho":
        return Budget.zcdp(s.budget_value)
    return None


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
        st.dataframe(pd.DataFrame(store.log(odo.key)), hide_index=True)


def _refused(inp: Inputs, b: Budget | None) -> str | None:
    """Why nothing can be released with these inputs, or None."""
    if inp.mode == "data":
        return (
            "Bounds read off the data are not private: choose typed or privately estimated bounds "
            "for a release. Nothing was released."
        )
    if inp.missing:
        return (
            f"{inp.missing:,} rows have missing values (NaN) in these columns. A release does not "
            "drop rows (how many are dropped is not private): clean the file first. Nothing was "
            "released and nothing was charged."
        )
    if b is None:
        return "A release counts ε or ρ: give the sidebar budget as ε or ρ. Nothing was released."
    return None


def _series_key(name: str, inp: Inputs) -> str:
    """Releases are combined only when they measure the same thing: estimator, columns, bounds."""
    h = hashlib.sha256()
    for part in (name, inp.columns, inp.mode, inp.share, inp.quantiles):
        h.update(repr(part).encode())
    for b in inp.data.bounds:
        h.update(np.asarray(b, dtype=float).tobytes())
    h.update(inp.raw if isinstance(inp.raw, bytes) else repr(inp.raw).encode())
    return h.hexdigest()


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


def release_mode(inp: Inputs, s: Settings) -> None:
    """Release mode: pick an estimator, release, then spend more and re-measure if needed."""
    st.subheader("Release")
    b = release_budget(s)
    why = _refused(inp, b)
    if why is not None or b is None:
        st.error(why)
        return
    odo = data_odometer(inp, b.notion)
    capable = [
        sp
        for sp in registry.applicable(inp.data.kind, inp.data.d, peers=True)
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
    n_public = _n_public(registry.get(chosen).neighbouring)
    series = _series(_series_key(chosen, inp) + str(n_public))
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


def _n_public(relation: str) -> bool:
    """The checkbox that declares the number of rows public (required under replace-one)."""
    if relation == "replace-one":
        help_ = (
            "This estimator protects one person's row being replaced by another, which assumes "
            "the number of rows is public. Tick only if you may publish it; it is then printed in "
            "the certificate. Otherwise choose an add/remove estimator."
        )
    else:
        help_ = (
            "This estimator protects adding or removing a row, so the number of rows is private. "
            "Without this box ticked, 10% of each release's budget buys a noisy count for the "
            "accuracy statement; tick it only if you may publish the number of rows."
        )
    return bool(
        st.checkbox("The number of rows in this file is public", key="yd_n_public", help=help_)
    )


def _release_once(
    inp: Inputs, name: str, b: Budget, odo: Odometer, series: list[Release], n_public: bool
) -> None:
    """One release charged to ``odo`` (only if it succeeds), added to ``series``."""
    kw: dict[str, Any] = (
        {"bounds": inp.data.bounds}
        if inp.mode == "public"
        else {"coarse_bounds": inp.data.bounds, "share": inp.share, "quantiles": inp.quantiles}
    )
    frame = pd.DataFrame(inp.data.x, columns=inp.columns)
    try:
        out = odo.run(
            release,
            name,
            frame,
            budget=b,
            source=inp.raw if isinstance(inp.raw, bytes) else None,
            n_public=n_public,
            **kw,
        )
    except (ValueError, RuntimeError) as err:
        st.error(f"Nothing was released and nothing was charged: {err}")
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
        st.dataframe(release_table(cols, last.mean, last.accuracy), hide_index=True)
    else:
        _show_combination(series, combined, inp, odo)
    st.markdown(
        "\n".join(
            f"- {accuracy_sentence(c, a)}" for c, a in zip(cols, combined.accuracy, strict=True)
        )
    )
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
        series[0].certificate_json() if one else combined.certificate_json(),
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
    if one:
        st.write(series[0].certificate_text())
    else:
        g = combined.certificate["guarantee"]
        st.write(
            f"The published means combine {len(series)} releases of the same columns by inverse "
            f"variance (post-processing). Together they satisfy {g['words']}, composed from "
            f"{g['composition']}. Each release's own certificate follows: "
            + " ".join(r.certificate_text() for r in series)
        )


def _code(series: list[Release], inp: Inputs, notion: str) -> str:
    """The dpcore calls behind the combination (run again, they make new releases: new noise,
    and they spend the budgets again)."""
    name = series[-1].certificate["estimator"]["name"]
    n_kw = ", n_public=True" if "n" in series[-1].certificate["public"] else ""
    lo, hi = (np.asarray(b, dtype=float).tolist() for b in inp.data.bounds)
    kw = (
        f"bounds=({lo!r}, {hi!r})"
        if inp.mode == "public"
        else f"coarse_bounds=({lo!r}, {hi!r}), share={inp.share!r}, quantiles={inp.quantiles!r}"
    )
    budgets = ", ".join(
        f"Budget.pure({r.budget.epsilon_value!r})"
        if r.budget.notion == "pure"
        else f"Budget.zcdp({r.budget.rho_value!r})"
        for r in series
    )
    load = (
        f"from dpcore.data import bundled_frame\ndf = bundled_frame({inp.raw!r})\n"
        if isinstance(inp.raw, str)
        else "df = pd.read_csv('your.csv')  # the same file\n"
    )
    return (
        "import pandas as pd\nfrom dpcore.privacy import Budget\nfrom dpcore.release import release\n"
        "from dpcore.remeasure import combine, composition\n" + load + f"budgets = [{budgets}]\n"
        f"# each call is a new release: fresh noise from the OS, and it spends its budget again\n"
        f"releases = [release({name!r}, df[{inp.columns!r}], b, {kw}{n_kw}) for b in budgets]\n"
        "combined = combine(releases)\nprint(combined.mean, combined.accuracy, combined.method)\n"
        f"print(composition([r.budget for r in releases], {notion!r}).equation())\n"
    )


def _show_combination(series: list[Release], combined: Any, inp: Inputs, odo: Odometer) -> None:
    """Each release and the inverse-variance combination, a chart of one column, the ledger."""
    cols = inp.columns
    comp = composition([r.budget for r in series], odo.total.notion)
    labels = [f"release {i + 1} ({comp.unit} = {c:.3g})" for i, c in enumerate(comp.costs)]
    labels.append("combined (inverse variance)")
    rows = [(lab, r.mean, r.accuracy) for lab, r in zip(labels, series, strict=False)]
    rows.append((labels[-1], combined.mean, combined.accuracy))
    table = remeasure_table(cols, rows)
    published = np.arange(len(table)) == len(table) - 1  # the combination: what the box states
    show_table(
        table,
        published,
        "◀ publish this",
        headers={"release": "Release", **{c: c for c in cols}},
        mark_in="release",
    )
    col = cols[0]
    if len(cols) > 1:
        col = st.selectbox("Column to draw", cols, key="yd_rm_col")
    j = cols.index(col)
    best = min(float(r.accuracy[j]) for r in series)
    # presenter mode draws a chart as high as its block: give it one (this view is no slide deck)
    box = st.container(height=440, border=False) if st.session_state.get("present") else st
    box_chart = box.container()
    with box_chart:
        _combination_chart(series, combined, inp, odo, table, col, j, best, labels)
    st.markdown(
        f"**How the total composes**: {comp.equation()} ({comp.rule}). This file has had "
        f"{odo.unit} = {odo.spent:.4g} of {odo.amount:g} spent on it in all. Combined accuracy: "
        f"{combined.method}."
    )


def _combination_chart(
    series: list[Release],
    combined: Any,
    inp: Inputs,
    odo: Odometer,
    table: pd.DataFrame,
    col: str,
    j: int,
    best: float,
    labels: list[str],
) -> None:
    """The chart of one column: each release and the combination, with the sentence and code."""
    chart(
        remeasure_chart(
            col,
            labels,
            np.array([*(r.mean[j] for r in series), combined.mean[j]]),
            np.array([*(r.accuracy[j] for r in series), combined.accuracy[j]]),
        ),
        table,
        "your_data_remeasure",
        f"Combined by inverse variance, the {len(series)} releases of {col} give "
        f"{table[col].iloc[-1]} (95%), against ± {best:,.4g} for the best single release; "
        "combining is post-processing and costs nothing more.",
        _code(series, inp, odo.total.notion),
    )
