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

import html
import re
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
    styled = data if isinstance(data, Styler) else pd.DataFrame(data).style.format(_plain_cell)
    columns = [str(c) for c in styled.data.columns]
    order = [str(c) for c in kwargs.get("column_order") or columns]
    config = kwargs.get("column_config") or {}

    def header(c: str) -> str:
        got = config.get(c, c)
        label = got if isinstance(got, str) else (got or {}).get("label")
        return str(label) if label is not None else c

    for c in columns:  # a link column shows its words, as the grid does
        if (text := _link_text(config.get(c))) is not None:
            styled = styled.format(lambda v, t=text: _link(v, t), subset=[c])
    shown = styled.hide([c for c in columns if c not in order], axis=1)
    shown = shown.relabel_index([header(c) for c in columns if c in order], axis=1)
    size = None if phone else round(PROJECTOR_TEXT * chart_scale())
    phone_table(shown.hide(axis="index") if kwargs.get("hide_index") else shown, size)


def _plain_cell(v: Any) -> Any:
    """A cell of a table drawn without formats: a float to six significant figures (16.0 as 16,
    as the grid shows it; Styler's default is six decimals), anything else as it is."""
    return f"{v:.6g}" if isinstance(v, float) else v


def _link_text(config: Any) -> str | None:
    """The words a ``st.column_config.LinkColumn`` shows instead of its URLs (``None``: not a
    link column, or one that shows the URLs)."""
    if not isinstance(config, Mapping):
        return None
    kind = config.get("type_config") or {}
    return kind.get("display_text") if kind.get("type") == "link" else None


def _link(url: Any, text: str) -> str:
    """``url`` as an HTML link that reads ``text`` (an empty cell stays empty)."""
    if not isinstance(url, str) or not url:
        return ""
    return f'<a href="{html.escape(url)}" target="_blank">{html.escape(text)}</a>'


def phone_table(styled: Styler, size: int | None = None) -> None:
    """``styled`` as an HTML table as wide as the screen, its cells wrapping between words
    (pages/_phone.py's ``dp-phone-table`` rules): its formats, highlight, headers and hidden
    columns kept; its text ``size`` px high if given (a projector). On a phone (no ``size``), a
    table whose longest words cannot sit side by side in :data:`PHONE_TABLE_PX` is drawn as cards
    (:func:`phone_markup`)."""
    st.html(phone_markup(styled, size))


#: A phone's table is drawn as cards when its columns' longest words need more px than this (a
#: 375-px phone's page is 343 px wide; the estimate is a few % off either way).
PHONE_TABLE_PX = 330
#: px per character of a phone table's text (0.8rem) and the padding of one cell: measured in
#: Chromium at 375 px, the tables of every page need 2-10% less than :func:`needed_px` says
CHAR_PX, CELL_PX = 6.2, 9.0
#: a header or data cell of a pandas Styler table: its classes and its content
_CELL = re.compile(r'<t[hd] id="[^"]*" class="([^"]*)" ?>(.*?)</t[hd]>', re.S)
#: where a line may break in a cell: spaces, and after a hyphen, a dash or a slash
_BREAK = re.compile(r"\s+|(?<=[-\u2013\u2014/])")


def _text(cell: str) -> str:
    """The text of a cell's markup."""
    return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()


def _column(classes: str) -> str | None:
    """The column of a Styler cell by its classes (``col3``; ``index`` for a row heading), or
    ``None`` for the corner cells."""
    col = re.search(r"\bcol(\d+)\b", classes)
    return f"col{col.group(1)}" if col else ("index" if "row_heading" in classes else None)


def needed_px(markup: str) -> float:
    """The px a Styler table's columns need side by side when no word breaks: per column, its
    longest unbreakable run of text (header or cell: words, split after hyphens and dashes too)
    at :data:`CHAR_PX` a character, plus :data:`CELL_PX`.

    Examples
    --------
    >>> t = pd.DataFrame({"estimator": ["Gaussian mechanism"], "error": [0.5]})
    >>> needed_px(t.style.hide(axis="index").to_html())
    123.4
    """
    longest: dict[str, int] = {}
    for classes, cell in _CELL.findall(markup):
        col = _column(classes)
        if col is not None:
            runs = [len(w) for w in _BREAK.split(_text(cell))]
            longest[col] = max(longest.get(col, 0), *runs)
    return round(sum(n * CHAR_PX + CELL_PX for n in longest.values()), 6)


def _css_text(text: str) -> str:
    """``text`` as a CSS string's content."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def phone_markup(styled: Styler, size: int | None = None) -> str:
    """The HTML :func:`phone_table` draws: the ``dp-phone-table`` table (text ``size`` px high if
    given), or, with no ``size`` and columns wider than :data:`PHONE_TABLE_PX`
    (:func:`needed_px`), the same table as cards (``dp-cards``): one block per row, each
    non-empty cell on its own line after its header, so no word and no number breaks."""
    font = "" if size is None else f' style="font-size: {size}px"'
    plain = styled.to_html(table_attributes=f'class="dp-phone-table"{font}')
    if size is not None or needed_px(plain) <= PHONE_TABLE_PX:
        return plain
    table = f"#T_{styled.uuid}"  # the id Styler gives the table
    labels = {_column(k): _text(t) for k, t in _CELL.findall(plain) if "col_heading" in k}
    rules = "".join(
        f'{table} td.{c}::before {{ content: "{_css_text(t)}: "; }}\n'
        for c, t in labels.items()
        if t
    )
    cards = plain.replace('class="dp-phone-table"', 'class="dp-phone-table dp-cards"', 1)
    return f"<style>\n{rules}</style>\n{cards}"


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
