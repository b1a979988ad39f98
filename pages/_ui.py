"""Shared pieces of every page: the global settings and the conventions every chart follows (a
sentence with the number, a CSV download, a "show the code" expander).

The global settings live in ``st.session_state`` (written by the sidebar in ``app.py``) and in the
URL query string, so a link reproduces the view. This module holds no DP logic. The pieces it
builds on have their own modules and are importable from here too: the sidebar's values, units and
presets (:mod:`pages._sidebar`), page-local controls bound to the URL (:mod:`pages._url`), the
shell's page list (:mod:`pages._shell`) and the choice before a long run (:mod:`pages._feedback`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from html import escape
from typing import TYPE_CHECKING, Any, Literal

import plotly.graph_objects as go
import streamlit as st

from dpcore import export
from dpcore.export import ImageFormat, to_csv
from dpcore.figures.phone import for_phone
from dpcore.figures.slides import split_columns, split_subplots
from dpcore.figures.style import (
    PreparedFigure,
    for_projector,
    prepared,
    remembered,
    tidy_log_axes,
)
from dpcore.figures.theme import on_dark
from dpcore.privacy import Budget, Conversion
from dpcore.views.settings import PEERS_ENABLE_HINT, peer_libraries
from pages._feedback import (
    AUTO_REFINE_SECONDS,
    LONG_RUN_SECONDS,
    confirm_long_run,
    duration_text,
    smaller_data_choices,
)
from pages._notebook import record
from pages._phone import figure_title, plain_title, title_line
from pages._phone import narrow as narrow_window
from pages._present import chart_scale, off_screen
from pages._shell import _leave_legacy_pages_mode, navigation_pages, shell_runs
from pages._sidebar import (
    BUDGET_PRESETS,
    D_CHOICES,
    DEFAULTS,
    GLOBAL_KEYS,
    MAX_SEED,
    N_CHOICES,
    QUERY_RANGES,
    UNITS,
    Settings,
    apply_sidebar,
    convert_unit,
    nearest_preset,
    parse_query,
    set_sidebar,
    sidebar_values,
    size_error,
)
from pages._url import (
    MAX_URL_DEPTH,
    MAX_URL_VALUE,
    URL_ERRORS,
    _decode,
    _fits_widget,
    forget,
    send_values,
    url_json,
    url_number,
    url_state,
    url_sync,
    url_value,
    url_widget,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [  # this module's names and those it re-exports from the modules above
    "AUTO_REFINE_SECONDS",
    "BUDGET_PRESETS",
    "CACHE_TTL",
    "DEFAULTS",
    "D_CHOICES",
    "GLOBAL_KEYS",
    "LONG_RUN_SECONDS",
    "MAX_SEED",
    "MAX_URL_DEPTH",
    "MAX_URL_VALUE",
    "N_CHOICES",
    "PEERS_LABEL",
    "QUERY_RANGES",
    "UNITS",
    "URL_ERRORS",
    "Settings",
    "_decode",
    "_fits_widget",
    "apply_sidebar",
    "chart",
    "confirm_long_run",
    "convert_unit",
    "download_csv",
    "download_image",
    "duration_text",
    "forget",
    "include_peers",
    "native_budget",
    "navigation_pages",
    "nearest_preset",
    "parse_query",
    "report_button",
    "send_values",
    "set_sidebar",
    "settings",
    "shell_runs",
    "show_code",
    "sidebar_values",
    "simulation_notice",
    "size_error",
    "smaller_data_choices",
    "term",
    "themed",
    "url_json",
    "url_number",
    "url_state",
    "url_sync",
    "url_value",
    "url_widget",
    "user_errors",
    "words_on_this_page",
]

#: Every page cache keeps at most this many results per function and drops them after CACHE_TTL
#: seconds, so memory is bounded by entries × (MAX_APP_CELLS floats) and by time.
CACHE_TTL = 900


def settings() -> Settings:
    """The current global settings (as set in the sidebar)."""
    _leave_legacy_pages_mode()
    ss = st.session_state
    return Settings(**{k: ss.get(k, getattr(DEFAULTS, k)) for k in asdict(DEFAULTS)})


@contextmanager
def user_errors() -> Iterator[None]:
    """Show a ``ValueError`` from dpcore as an ``st.error`` (with its fix) and stop the page."""
    try:
        yield
    except ValueError as err:
        st.error(f"{err}")
        st.stop()


def native_budget(budget: Budget, notion: str) -> Conversion:
    """The budget for a one-estimator teaching page in ``notion``. A zCDP estimator under a pure ε
    budget runs at the zCDP level ε-DP implies (:meth:`Budget.implied_zcdp`), with a warning that
    it does **not** give ε-DP (it is never ranked with ε-DP estimators)."""
    if notion == "zcdp":
        conv = budget.implied_zcdp()
        if not conv.meets_budget:
            st.warning(
                f"**Not ε-DP.** A zCDP estimator cannot meet a pure ε budget. {conv.rule} Switch the "
                "sidebar budget to ρ or (ε, δ) for a guarantee it does meet.",
                icon=":material/warning:",
            )
        return conv
    return budget.to_native(notion)  # type: ignore[arg-type]


def show_code(code: str, label: str = "Show the code") -> None:
    """An expander with the exact dpcore calls behind the view."""
    with st.expander(label):
        st.code(code, language="python")


def download_csv(df: pd.DataFrame, name: str, label: str = "Download the data (CSV)") -> None:
    """A CSV download of the data behind a chart (written only when clicked, so a rerun stays fast)."""
    st.download_button(
        label,
        lambda: to_csv(df) or b"",
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"download-{name}",
        on_click="ignore",
    )


def download_image(fig: Any, name: str, fmt: ImageFormat) -> None:
    """A slide-sized PNG or SVG download, rendered only when clicked (kaleido + Chromium); a
    disabled button that says why when this machine cannot render one."""
    problem = export.static_export_problem()
    mime = {"png": "image/png", "svg": "image/svg+xml"}[fmt]
    st.download_button(
        fmt.upper(),
        (lambda: export.to_image(fig, fmt)) if problem is None else b"",
        file_name=f"{name}.{fmt}",
        mime=mime,
        key=f"download-{name}-{fmt}",
        on_click="ignore",
        disabled=problem is not None,
        help=problem or f"The chart as {fmt.upper()}, 1280×720 (a 16:9 slide).",
    )


def themed(fig: Any) -> Any:
    """``fig`` as drawn for the visitor's theme: in a dark theme its near-black ink turns light."""
    return on_dark(fig) if st.context.theme.type == "dark" else fig


def _projected(part: Any, title: str | None, scale: float) -> tuple[PreparedFigure, str | None]:
    """A chart's part for presenter mode (:func:`for_projector` at ``scale``) and the title line
    to write above it: its title, or none when the chart keeps its own (an animation's frames
    retitle it)."""
    big = PreparedFigure(for_projector(part.to_dict(), scale))
    return big, "" if figure_title(big) else title or figure_title(part)


def _title(spec: dict) -> str | None:
    """The title text of a figure's dict (a split part), as ``fig.layout.title.text`` reads it."""
    return (spec.get("layout", {}).get("title") or {}).get("text")


def chart(
    fig: Any,
    data: pd.DataFrame,
    name: str,
    sentence: str,
    code: str,
    on_click: Callable[[], None] | None = None,
    columns: int = 1,
    panel: int | None = None,
    *,
    narrow: bool = False,
    by_column: bool = False,
) -> None:
    """A Plotly chart with its sentence, CSV/PNG/SVG downloads and code expander (the house pattern).

    ``on_click``: called when the user clicks a point (the selection is in
    ``st.session_state[f"chart-{name}"]``). ``columns`` > 1: a figure of several panels is drawn as
    one figure per panel, ``columns`` to a row (``st.columns``: one per row on a phone); the
    downloads keep the whole figure. ``panel``: draw only that panel (a slide in presenter mode).
    ``narrow``: the chart sits in a narrow column; the buttons then get short labels in one row and
    the code expander goes below them (their full labels would be cut off). ``by_column``: a grid
    drawn as one figure per column of panels (:func:`dpcore.figures.slides.split_columns`), side by
    side under the grid's title (one under the other on a phone).
    """
    # as exported and in the reports and slides (a white page); a kept figure once, not on every
    # rerun (it looks up every subplot axis: a few ms per chart in each rerun of a phone)
    if isinstance(fig, go.Figure):
        fig = remembered(fig, "tidy_log_axes", lambda: tidy_log_axes(fig))
    st.session_state.setdefault("_ui_charts", {})[name] = (fig, sentence, data)
    record(name, sentence, code)  # for the notebook of this view (pages/_notebook.py)
    if off_screen():  # on another presenter slide: kept for the slide pack, not sent
        return
    shown = themed(fig)
    alt = sentence.replace("**", "")  # the sentence is the alt text
    parts = _chart_parts(shown, columns > 1 or panel is not None or by_column, by_column)
    parts = _for_screen(parts if panel is None else [parts[panel]])
    if by_column and len(parts) > 1:
        columns = len(parts)
        if heading := plain_title(figure_title(prepared(shown))):
            st.html(f'<p class="dp-grid-title">{escape(heading)}</p>')
    present = st.session_state.get("present", False)
    _draw_parts(parts, name, alt, columns, on_click, present=present)
    if present:  # the paragraph in a fold: the chart keeps the screen
        st.expander("Speaker notes", key=f"dp-notes-{name}").markdown(sentence)
    else:
        st.markdown(sentence)
    if present:  # presenter mode (pages/_present.py): no downloads, no code
        return
    _chart_downloads(fig, data, name, code, narrow=narrow)


#: a chart's parts: each panel's prepared figure and its title (None: the figure's own)
_Parts = list[tuple[PreparedFigure, str | None]]


def _chart_parts(shown: Any, split: bool, by_column: bool) -> _Parts:
    """The figure as one part, or split into one part per panel (``by_column``: per column)."""
    splitter = split_columns if by_column else split_subplots
    if isinstance(shown, go.Figure):  # a kept figure's JSON is made once (style.keep)
        return remembered(
            shown,
            (split, by_column),
            lambda: (
                [(PreparedFigure(p), _title(p)) for p in splitter(shown, drawn=True)]
                if split
                else [(PreparedFigure(shown.to_dict()), shown.layout.title.text)]
            ),
        )
    # a kept drawn_dict is sent as it is; its parts as dicts (not validated again)
    return (
        [(PreparedFigure(p), _title(p)) for p in splitter(shown, drawn=True)]
        if split
        else [(prepared(shown), None)]
    )


def _for_screen(parts: _Parts) -> _Parts:
    """The parts as the screen shows them: projected in presenter mode, phone-laid-out on a phone."""
    if st.session_state.get("present", False):  # text for the back of the room, the title above
        big = chart_scale()  # larger on a larger screen
        return [_projected(p, t, big) for p, t in parts]
    if narrow_window():  # a phone: legends over the plot, play/pause above the slider
        return [(PreparedFigure(for_phone(p.to_dict())), t) for p, t in parts]
    return parts


def _draw_parts(
    parts: _Parts,
    name: str,
    alt: str,
    columns: int,
    on_click: Callable[[], None] | None,
    *,
    present: bool,
) -> None:
    """One chart with its title line, or the parts ``columns`` to a row, each with its title."""
    if len(parts) == 1:
        title_line(st, parts[0][1] if present else parts[0][1] or figure_title(parts[0][0]))
        # presenter mode: as high as the slide leaves (pages/_present.py sizes the block)
        height: Literal["stretch", "content"] = "stretch" if present else "content"
        if on_click:
            st.plotly_chart(
                parts[0][0],
                key=f"chart-{name}",
                alt=alt,
                height=height,
                on_select=on_click,
                selection_mode="points",
            )
        else:
            st.plotly_chart(parts[0][0], key=f"chart-{name}", alt=alt, height=height)
        return
    for start in range(0, len(parts), columns):
        row = zip(st.columns(columns), parts[start : start + columns], strict=False)
        for k, (col, (part, title)) in enumerate(row):
            title_line(col, title)
            col.plotly_chart(part, key=f"chart-{name}-{start + k}", alt=f"{title}. {alt}")


def _chart_downloads(fig: Any, data: pd.DataFrame, name: str, code: str, *, narrow: bool) -> None:
    """The CSV, PNG and SVG downloads and the code expander under a chart."""
    cols = st.columns(3 if narrow else [3, 1, 1, 5])
    with cols[0]:
        download_csv(data, name, "CSV" if narrow else "Download the data (CSV)")
    formats: tuple[ImageFormat, ImageFormat] = ("png", "svg")
    for col, fmt in zip(cols[1:3], formats, strict=True):
        with col:
            download_image(fig, name, fmt)
    with st.container() if narrow else cols[3]:
        show_code(code)
    if (problem := export.static_export_problem()) is not None:
        st.caption(f"PNG/SVG: {problem}")


def picture(fig: Any, key: str, alt: str) -> None:
    """A chart with no sentence, downloads or code (Home's pictures). In presenter mode it is
    drawn as :func:`chart` draws one: its text for the room, its title a line above it, as high
    as the screen leaves when it is the page's first chart (its key starts with ``chart-``)."""
    if not st.session_state.get("present", False):
        st.plotly_chart(prepared(fig), key=key, alt=alt)
        return
    big, title = _projected(prepared(fig), None, chart_scale())
    title_line(st, title)
    st.plotly_chart(big, key=key, alt=alt, height="stretch")


def report_button(
    title: str,
    names: list[str],
    *,
    settings: dict[str, Any],
    ledger: pd.DataFrame | None,
    code: str,
    key: str,
) -> None:
    """A download of the view as one self-contained HTML file (:mod:`dpcore.report`), built from
    the charts this page drew with :func:`chart` under ``names``; built only when clicked."""
    drawn = st.session_state.get("_ui_charts", {})
    shown = [drawn[n] for n in names if n in drawn]

    def build() -> bytes:
        from dpcore.report import build_report

        return build_report(
            title=title,
            settings=settings,
            figures=[(f, t) for f, t, _ in shown],
            tables=[
                (f"Data behind chart {i + 1}", d)
                for i, (_, _, d) in enumerate(shown)
                if len(d) <= 200
            ],
            ledger=ledger,
            code=code,
            notes=["Noise from a seeded NumPy generator: a simulation, not a secure release."],
        ).encode()

    st.download_button(
        "Download a report of this view (HTML)",
        build,
        file_name=f"{key}_report.html",
        mime="text/html",
        key=f"download-{key}-report",
        on_click="ignore",
        help="One self-contained HTML file: the charts, their numbers, the settings, the budget "
        "ledger and the code that reproduces them.",
    )


PEERS_LABEL = "Include the libraries you would use instead"


def include_peers(key: str) -> bool:
    """A switch adding the peer libraries' means (OpenDP, diffprivlib); disabled, with how to
    install them, when none imports."""
    have = {lib: v for lib, v in peer_libraries().items() if v is not None}
    if not have:
        st.toggle(
            PEERS_LABEL,
            value=False,
            disabled=True,
            key=key,
            help=f"Not installed here. Enable with: {PEERS_ENABLE_HINT}",
        )
        st.caption(
            f"The peer libraries (OpenDP, diffprivlib) are not installed: `{PEERS_ENABLE_HINT}`."
        )
        return False
    versions = ", ".join(f"{lib} {v}" for lib, v in have.items())
    return url_widget(
        st.toggle,
        PEERS_LABEL,
        key=key,
        default=False,
        valid=lambda v: isinstance(v, bool),
        help=f"Adds the means of {versions}, run through the libraries' own APIs on the same data "
        "and budget. OpenDP draws its own unseedable noise: its numbers change on every run.",
    )


def simulation_notice() -> None:
    st.caption(
        "Noise here comes from a seeded NumPy generator: right for teaching and simulation, "
        "not a secure differentially private release of real data."
    )


# ---------------------------------------------------------------------------------------------
# words: hover definitions from the one glossary (dpcore.glossary)


def term(name: str, shown: str | None = None) -> str:
    """HTML for ``name`` with its glossary definition on hover (use with ``unsafe_allow_html=True``)."""
    from dpcore.glossary import define

    return f'<abbr title="{escape(define(name), quote=True)}">{escape(shown or name)}</abbr>'


def words_on_this_page(*names: str) -> None:
    """One line listing the page's technical terms, each defined on hover (full list: Glossary page)."""
    st.markdown(
        "<small>Words on this page (hover for a definition): "
        + " · ".join(term(n) for n in names)
        + "</small>",
        unsafe_allow_html=True,
    )
