"""Charts on a phone (or any narrow or touch screen): a chart's words must not sit on each other.

Plotly's toolbar (shown on a tap) would cover the chart title, and a legend of several rows grows
up into the title. On such screens the toolbar is hidden, and where a title line precedes a chart
(:func:`title_line`, which wider screens do not show) the title plotly draws gives way to it.
``app.py`` adds the rules (:func:`phone_style`) to every run; ``pages._ui.chart`` writes the
title lines. tests/e2e/test_phone_browser.py measures every page at 375 px.

What CSS cannot change is laid out for a narrow window on the server: the browser says when its
window is at most :data:`NARROW_PX` wide (:func:`window_probe`, the way presenter mode learns its
screen, pages/_present.py), and :func:`narrow` is then true: charts get
:func:`dpcore.figures.phone.for_phone` (legends over the plot, play/pause above the slider) and
tables are drawn as wrapping tables (pages/_tables.py), not as grids that scroll sideways.
tests/e2e/test_phone_fit_browser.py measures them.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from dpcore.figures.style import PreparedFigure
from pages._window import add_once, probe_buttons, probe_script

#: The narrow-screen rules (640 px: Streamlit's own breakpoint for stacking columns).
PHONE_CSS = """<style>
.dp-grid-title { font-weight: 600; margin: 0; }
@media (max-width: 640px), (hover: none) and (pointer: coarse) {
  .js-plotly-plot .modebar-container { display: none !important; }
}
@media (max-width: 640px) {
  [data-testid="stElementContainer"]:has(.dp-phone-title) + [data-testid="stElementContainer"]
    .js-plotly-plot .g-gtitle { display: none; }
  .dp-phone-title { font-weight: 600; margin: 0 0 -0.5rem 0; }
}
.dp-phone-table { width: 100%; border-collapse: collapse; font-size: 0.8rem; line-height: 1.3; }
.dp-phone-table th, .dp-phone-table td {
  padding: 0.2rem 0.25rem; border-bottom: 1px solid rgba(128, 128, 128, 0.25);
  overflow-wrap: break-word; hyphens: auto; vertical-align: top; text-align: left; }
.dp-cards thead { display: none; }
.dp-cards, .dp-cards tbody, .dp-cards tr, .dp-cards td, .dp-cards tbody th { display: block; }
.dp-cards tr { padding: 0.3rem 0; border-bottom: 1px solid rgba(128, 128, 128, 0.25); }
.dp-cards td, .dp-cards tbody th { border: none; padding: 0.05rem 0.25rem; }
.dp-cards td:empty { display: none; }
.dp-cards td::before { font-weight: 600; }
.st-key-dp-window { display: none; }
@media (min-width: 641px) {
  [data-testid="stElementContainer"]:has(.dp-phone-title) { display: none; }
}
</style>"""


def phone_style() -> None:
    """Add :data:`PHONE_CSS` and :func:`window_probe` to this run (``app.py`` calls it once per
    run)."""
    st.html(PHONE_CSS)
    window_probe()


#: a window at most this wide is a phone's (Streamlit's own breakpoint for stacking columns)
NARROW_PX = 640
#: session key: True once the browser said its window is at most :data:`NARROW_PX` wide
NARROW = "_narrow_window"
_NARROW_LABEL = "dp-narrow-{}"

#: the window's class in the page (pages/_window.py): 1 when it is at most :data:`NARROW_PX` wide
_NARROW_CLASS = f"function (w) {{ return w <= {NARROW_PX} ? 1 : 0; }}"


def narrow() -> bool:
    """Whether this session's window is a phone's (at most :data:`NARROW_PX` wide; False until
    the browser has said)."""
    return bool(st.session_state.get(NARROW, False))


def window_probe() -> None:
    """A hidden button for the other window class than this session's, and a frame that adds
    the probe's script (pages/_window.py) to the page once: it clicks the button when the window
    is of that class (at the start, and when the window is resized across :data:`NARROW_PX`)."""
    script = probe_script("dp-window", _NARROW_LABEL, _NARROW_CLASS, every_ms=700, retry_ms=3000)
    # at the sidebar's end, not drawn (PHONE_CSS; its frame's script still runs): the main
    # column's elements stay what each page draws
    classes = [("0", False), ("1", True)]
    frame = add_once(script, "__dpNarrowProbe")
    probe_buttons(st.sidebar, "dp-window", _NARROW_LABEL, classes, NARROW, narrow(), frame)


def plain_title(title: str | None) -> str:
    """``title`` without plotly's markup (``<br>``, ``<b>``), on one line; a subtitle (a line in
    ``<sup>``) follows its title after a middle dot.

    Examples
    --------
    >>> plain_title("How far off each method was<br><sup>20 trials; lower is better</sup>")
    'How far off each method was · 20 trials; lower is better'
    >>> plain_title("A long title<br>wrapped for a phone")
    'A long title wrapped for a phone'
    """
    text = re.sub(r"<br\s*/?>\s*(?=<sup>)", " · ", title or "", flags=re.IGNORECASE)
    return " ".join(re.sub(r"<[^>]*>", " ", text).split())


def title_line(where: Any, title: str | None) -> None:
    """``title`` (plotly's markup: ``<br>``, ``<b>``) as plain text above a chart, in ``where``
    (``st`` or a column), shown on narrow screens only (:data:`PHONE_CSS`)."""
    text = plain_title(title)
    if text:
        where.html(f'<p class="dp-phone-title">{escape(text)}</p>')


def figure_title(fig: Any) -> str | None:
    """The title text of a figure or of a :class:`PreparedFigure` (``None`` when it has none)."""
    if isinstance(fig, PreparedFigure):
        title = fig.to_dict().get("layout", {}).get("title") or {}
        return title.get("text") if isinstance(title, dict) else None
    return fig.layout.title.text if isinstance(fig, go.Figure) else None
