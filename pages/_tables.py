"""Tables as the pages show them: readable headers with units, numbers to three significant
figures, and the row of the visitor's current setting highlighted.

The highlight is a background that reads in the light and the dark theme, a bold font, and a
marker column that says it in words ("▶ yours"), so it is never colour only. The data keeps its
own column names (a download or a test reads them); only the headers drawn change
(``column_config`` labels)::

    table, mask = conversion_table(s.budget, s.delta)
    show_table(table, mask, headers=CONVERSION_HEADERS)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from dpcore.figures.style import PROJECTOR_TEXT
from dpcore.views.budget_tables import (  # noqa: F401 - moved to dpcore; importable here too
    CONVERSION_RHOS,
    DEPLOYMENT_HEADERS,
    conversion_headers,
    conversion_table,
    current_rho,
    deployments_table,
)
from dpcore.views.tables import sig3
from pages._phone import narrow
from pages._present import chart_scale, presenting

#: The current row's style: an amber wash (transparent, so light and dark text both read on it).
HIGHLIGHT = "background-color: rgba(255, 164, 28, 0.32); font-weight: bold"
#: The marker column (first, so it stays on screen on a phone), empty but on the current row.
MARK = "current"
#: The marker's default words.
YOURS = "▶ yours"


def readable(name: str) -> str:
    """A column name as a header: words, not snake_case.

    Examples
    --------
    >>> readable("mean_regret"), readable("ρ")
    ('mean regret', 'ρ')
    """
    return str(name).replace("_", " ").strip()


def highlight_row(
    df: pd.DataFrame,
    mask: Sequence[bool] | np.ndarray | pd.Series,
    label: str = YOURS,
    *,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    mark_in: str | None = None,
) -> Styler:
    """``df`` with a first column :data:`MARK` holding ``label`` on the rows of ``mask`` (empty
    elsewhere) and those rows styled :data:`HIGHLIGHT`; numbers formatted by ``formats`` (per
    column), else :func:`sig3`. With ``mark_in``, no column is added: ``label`` follows the
    value of that column on the chosen rows (for a table that must not get wider).

    Parameters
    ----------
    df : DataFrame
        The table, one row per setting.
    mask : sequence of bool
        One per row of ``df``: the current setting's row(s).
    label : str
        The marker's words.
    formats : mapping of str to callable, optional
        Per column, how to print a cell (default :func:`sig3` for every column).
    mark_in : str, optional
        The column whose cells on the chosen rows carry ``label`` (their data unchanged).

    Returns
    -------
    Styler
        For ``st.dataframe`` (Streamlit reads the background colour and the font weight).
    """
    chosen = np.asarray(mask, dtype=bool)
    if chosen.shape != (len(df),):
        raise ValueError(f"mask must hold one bool per row ({len(df)}); got shape {chosen.shape}.")
    out = df.reset_index(drop=True)
    if mark_in is None:
        out.insert(0, MARK, np.where(chosen, label, ""))
    css = np.where(chosen[:, None], HIGHLIGHT, "").repeat(out.shape[1], axis=1)
    style = pd.DataFrame(css, index=out.index, columns=out.columns)
    fmt = {c: (formats or {}).get(str(c), sig3) for c in out.columns if c != MARK}
    styled = out.style.apply(lambda _: style, axis=None).format(fmt)
    if mark_in is not None and chosen.any():
        cell = fmt[mark_in]
        styled = styled.format(
            lambda v: f"{cell(v)}  {label}", subset=(out.index[chosen], [mark_in])
        )
    return styled


def column_labels(
    columns: Sequence[Any], headers: Mapping[str, str] | None = None, wide: str | None = None
) -> dict[str, Any]:
    """``column_config`` for ``st.dataframe``: each column's header (``headers``, else
    :func:`readable`), a narrow, unnamed marker column, and column ``wide`` drawn wide (it
    carries the marker after its value, which the automatic width does not count)."""
    out: dict[str, Any] = {
        str(c): (headers or {}).get(str(c), readable(str(c))) for c in columns if c != MARK
    }
    if MARK in columns:
        out[MARK] = st.column_config.TextColumn(" ", width="small")
    if wide is not None:
        out[wide] = st.column_config.TextColumn(out[wide], width="large")
    return out


def show_table(
    df: pd.DataFrame,
    mask: Sequence[bool] | np.ndarray | pd.Series | None = None,
    label: str = YOURS,
    *,
    headers: Mapping[str, str] | None = None,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    mark_in: str | None = None,
    **kwargs: Any,
) -> None:
    """Draw ``df`` with readable ``headers``, numbers to three significant figures and, when
    ``mask`` is given, its rows highlighted (:func:`highlight_row`, ``label`` in a marker column
    or after the value of column ``mark_in``); ``kwargs`` go to ``st.dataframe``
    (``hide_index`` and ``width="stretch"`` unless said otherwise)."""
    if mask is None:  # no current row: no empty marker column either
        styled = df.reset_index(drop=True).style.format(
            {c: (formats or {}).get(str(c), sig3) for c in df.columns}
        )
    else:
        styled = highlight_row(df, mask, label, formats=formats, mark_in=mark_in)
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    labels = column_labels(styled.data.columns, headers, None if mask is None else mark_in)
    data_table(styled, column_config=labels, **kwargs)


def data_table(data: pd.DataFrame | Styler | Sequence[Mapping[str, Any]], **kwargs: Any) -> None:
    """``st.dataframe(data, **kwargs)``, or, where a grid does not serve, a table whose cells wrap
    (:func:`phone_table`) with the same columns (``column_order``), headers (the labels of
    ``column_config``) and index choice: on a phone (:func:`pages._phone.narrow`) a grid wider
    than the screen scrolls sideways, and in presenter mode its small text does not reach the
    back of the room (there the table's text is the charts' smallest,
    :data:`dpcore.figures.style.PROJECTOR_TEXT` px times the screen's scale)."""
    phone, room = narrow(), presenting()
    if not phone and not room:
        st.dataframe(data, **kwargs)
        return
    # rows as records (the odometer's log) are a frame too: ``.style`` of a list was an
    # AttributeError that took down Your data's release panel on a phone and a projector
    styled = data if isinstance(data, Styler) else pd.DataFrame(data).style
    columns = [str(c) for c in styled.data.columns]
    order = [str(c) for c in kwargs.get("column_order") or columns]
    config = kwargs.get("column_config") or {}

    def header(c: str) -> str:
        got = config.get(c, c)
        label = got if isinstance(got, str) else (got or {}).get("label")
        return str(label) if label is not None else c

    shown = styled.hide([c for c in columns if c not in order], axis=1)
    shown = shown.relabel_index([header(c) for c in columns if c in order], axis=1)
    size = None if phone else round(PROJECTOR_TEXT * chart_scale())
    phone_table(shown.hide(axis="index") if kwargs.get("hide_index") else shown, size)


def phone_table(styled: Styler, size: int | None = None) -> None:
    """``styled`` as an HTML table as wide as the screen, its cells wrapping (pages/_phone.py's
    ``dp-phone-table`` rules): its formats, highlight, headers and hidden columns kept; its text
    ``size`` px high if given."""
    font = "" if size is None else f' style="font-size: {size}px"'
    st.html(styled.to_html(table_attributes=f'class="dp-phone-table"{font}'))


#: Headers of a privacy ledger (:meth:`dpcore.privacy.Ledger.to_records`, with its estimator).
LEDGER_HEADERS = {
    "estimator": "Estimator",
    "stage": "Stage",
    "spent": "Spent",
    "unit": "Unit",
    "note": "What the stage does",
}

#: Headers of the Binary product page's round and stage tables (the estimator's diagnostics).
BINARY_HEADERS = {
    "round": "Round r",
    "u": "Cap uᵣ",
    "tau": "Threshold τᵣ",
    "size": "|Sᵣ| still in play",
    "radius": "Clip radius B",
    "sensitivity": "Sensitivity",
    "scale": "Noise scale b",
    "promoted": "Coordinates promoted",
    "rows": "Rows m",
    "truncated": "Rows truncated",
    "separation": "Separation τᵣ/b",
    "traffic light": "Separation",
    "stage": "Stage",
    "coords": "Coordinates",
    "norm": "Norm",
    "budget": "Budget (ε)",
}
