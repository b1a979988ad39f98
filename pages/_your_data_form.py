"""The data form of the Your data page: where the rows come from (a bundled set, an upload, pasted
text) and the ranges typed for the columns, kept across pages and carried by the link."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import streamlit as st

from dpcore import limits
from dpcore.data import BUNDLED
from dpcore.views.your_data import Source, typed_ranges
from pages._ui import URL_ERRORS, url_json, url_number, url_sync, url_value, url_widget

#: Controls of this page that only make sense with the data they were chosen for.
DATA_KEYS = ("yd_cols", "yd_bounds", "yd_view", "yd_ledger")


def _keep_upload() -> None:
    """Keep the uploaded file's name and bytes for this session, so it survives a page change (the
    uploader's own state does not); removing the file in the uploader drops it."""
    f = st.session_state.get("yd_file")
    st.session_state["_yd_upload"] = (f.name, f.getvalue()) if f is not None else None


def load_source(source: str) -> Source:
    """Where the chosen rows come from (:class:`dpcore.views.your_data.Source`: a bundled set's
    name or the given bytes); stops the page with a prompt while no file or text is given."""
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
        return Source("bundled", name)
    return Source(source, _uploaded() if source == "upload" else _pasted())


def _uploaded() -> bytes:
    """The uploaded file's bytes (or the one kept from earlier in this session); stops the page
    with a prompt while there is none."""
    up = st.file_uploader(
        "CSV file (first row: column names)",
        type=None,
        key="yd_file",
        on_change=_keep_upload,
        help=f"At most {limits.MAX_UPLOAD_MB} MB, {limits.MAX_UPLOAD_ROWS:,} rows and "
        f"{limits.MAX_COLUMNS} columns.",
    )
    kept_file = st.session_state.get("_yd_upload")
    if up is not None:
        return up.getvalue()
    if kept_file is not None:  # uploaded before this page was left
        st.caption(
            f"Using **{kept_file[0]}**, uploaded earlier in this session (upload another to replace it)."
        )
        return kept_file[1]
    st.info(
        "**Upload the CSV file this link was made with.** The link carries the settings "
        "(columns, bounds, budget) but not the file; they apply once the same file is here."
        if any(url_value(k) for k in DATA_KEYS)
        else "Upload a CSV file to begin, or pick a bundled data set above.",
        icon=":material/upload_file:",
    )
    st.stop()
    raise AssertionError  # st.stop() does not return


def _pasted() -> bytes:
    """The pasted CSV text (kept across pages, never put in the URL); stops the page with a prompt
    while there is none."""
    st.session_state.setdefault("yd_text", st.session_state.get("_keep_yd_text", ""))
    text = st.text_area(
        "CSV text (first row: column names)",
        key="yd_text",
        height=140,
        max_chars=limits.MAX_UPLOAD_BYTES,
        placeholder="age,income\n34,52000\n51,61000\n...",
    )
    st.session_state["_keep_yd_text"] = text
    if not text.strip():
        st.info(
            "**Paste the CSV text this link was made with.** The link carries the settings "
            "(columns, bounds, budget) but not the data."
            if any(url_value(k) for k in DATA_KEYS)
            else "Paste CSV text to begin."
        )
        st.stop()
    return text.encode()


def typed_bounds() -> dict[str, tuple[float, float]]:
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
            pass  # a broken link: no typed ranges, the boxes ask for them
    return dict(ss["_yd_typed"])


def bound_key(side: str, column: str) -> str:
    """The key (and query parameter) of the box for ``column``'s ``side`` ("lo" or "hi")."""
    return f"yd_{side}_{column}"


def _text(value: float) -> str:
    """A range end as the box shows it: ``0``, ``250000``, ``0.5`` (empty for NaN)."""
    if math.isnan(value):
        return ""
    return f"{value:.0f}" if value.is_integer() and abs(value) < 1e15 else repr(value)


def bounds_inputs(
    columns: list[str], documented: Mapping[str, tuple[float, float]]
) -> tuple[list[str], list[str]]:
    """Two text boxes per column (lower, upper) in one form; returns what they held when the form
    was last sent ("Use these bounds", or Enter in a box).

    Every value typed is kept, however fast it comes: each box's key depends on its column alone
    and never changes between runs; the boxes sit in a form, so nothing reruns the app while they
    are filled in (a rerun rewrites the query string, which dropped a value the browser had just
    put there); and each box is bound to the URL (``bind="query-params"``), so the browser writes a
    value to the address bar as it is typed and a reload keeps it, sent or not. A box seen for the
    first time in this session starts from what was sent from it earlier (another page visit), else
    the link's ``yd_bounds``, else the documented range, else empty. Complete ranges are also kept
    as ``yd_bounds`` (:func:`keep_typed_bounds`), the form a shared link carries.
    """
    ss = st.session_state
    texts: dict[str, str] = ss.setdefault("_yd_texts", {})
    kept = typed_bounds()
    lows: list[str] = []
    highs: list[str] = []
    form = st.form("yd_bounds_form", border=False)
    for column in columns:
        start = kept.get(column, documented.get(column, (math.nan, math.nan)))
        boxes = form.columns(2)
        for side, box, end, out in (
            ("lo", boxes[0], start[0], lows),
            ("hi", boxes[1], start[1], highs),
        ):
            key = bound_key(side, column)
            if key not in ss and url_value(key) is None:  # first sight: no value in the URL
                ss[key] = texts.get(key, _text(float(end)))
            value = box.text_input(
                f"{column}: {'lower' if side == 'lo' else 'upper'} bound",
                key=key,
                bind="query-params",
                placeholder="a number",
            )
            texts[key] = value or ""
            out.append(value or "")
    form.form_submit_button("Use these bounds", type="primary")
    return lows, highs


def keep_typed_bounds(
    columns: list[str],
    lows: list[str],
    highs: list[str],
    documented: Mapping[str, tuple[float, float]],
) -> None:
    """Keep the complete ranges typed in the boxes (those that differ from a documented range:
    :func:`dpcore.views.your_data.typed_ranges`) and put them in the URL as ``yd_bounds``."""
    kept = typed_ranges(zip(columns, lows, highs, strict=True), typed_bounds(), documented)
    st.session_state["_yd_typed"] = kept
    url_sync(
        "yd_bounds",
        json.dumps({c: list(v) for c, v in kept.items()}, separators=(",", ":")) if kept else None,
    )
