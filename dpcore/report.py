"""A one-file HTML report of a view: its charts, numbers, settings, budget ledger and the code.

The file is self-contained: plotly.js is inlined once (no network needed to open it), every chart
is an interactive Plotly div, tables are plain HTML. Built by the Compare page's "report" button;
:func:`ledger_table` turns an experiment frame into the budget ledger shown in it.

References
----------
docs/architecture.md ("Presenters ... figures and tables to download"; "The UI shows the implication it
applied"); a one-click report of the current view.
"""

from __future__ import annotations

import datetime as _dt
import html
import importlib.metadata
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from dpcore.figures.style import plain, tidy_log_axes

_CSS = """
body{font-family:Inter,Helvetica,Arial,sans-serif;color:#1d2733;max-width:1100px;margin:2em auto;padding:0 1em}
h1{font-size:1.6em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #dde3ea}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0} td,th{border:1px solid #dde3ea;padding:3px 7px}
th{background:#f3f6f9} pre{background:#f6f8fa;padding:1em;overflow-x:auto;font-size:.85em}
.meta{color:#5b6b7b;font-size:.85em} dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}
dt{font-weight:600}
"""


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def ledger_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (estimator, budget): the notion, the conversion applied and what the ledger spent.

    Parameters
    ----------
    frame : DataFrame
        A frame from :func:`dpcore.experiments.engine.run`.
    """
    cols = [
        "label",
        "notion",
        "neighbouring",
        "budget",
        "unit",
        "conversion",
        "native_budget",
        "native_unit",
        "ledger_total",
    ]
    have = [c for c in cols if c in frame.columns]
    out = frame[frame["notion"] != "none"][have].drop_duplicates(["label", "budget"])
    return out.reset_index(drop=True)


def build_report(
    *,
    title: str,
    settings: Mapping[str, Any],
    figures: Sequence[tuple[Any, str]],
    tables: Sequence[tuple[str, pd.DataFrame]] = (),
    ledger: pd.DataFrame | None = None,
    code: str = "",
    notes: Sequence[str] = (),
) -> str:
    """The report as one HTML string.

    Parameters
    ----------
    title : str
        Heading.
    settings : mapping
        The settings of the view (shown as a list).
    figures : sequence of (figure, sentence)
        Plotly figures (``go.Figure`` or dict) and the sentence that states each one's number.
    tables : sequence of (caption, DataFrame)
        The numbers.
    ledger : DataFrame, optional
        The budget ledger (see :func:`ledger_table`).
    code : str
        Python that reproduces the view.
    notes : sequence of str
        Extra lines (caveats) shown under the heading.
    """
    import plotly.graph_objects as go
    import plotly.io as pio
    from plotly.offline import get_plotlyjs

    esc = html.escape
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>",
        f"<style>{_CSS}</style><script type='text/javascript'>{get_plotlyjs()}</script></head><body>",
        f"<h1>{esc(title)}</h1>",
        f"<p class='meta'>Generated {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC by dpmean lab "
        f"(dpmean-lab {_version('dpmean-lab')}, numpy {_version('numpy')}, plotly {_version('plotly')}).</p>",
    ]
    parts += [f"<p>{esc(n)}</p>" for n in notes]
    parts.append("<h2>Settings</h2><dl>")
    parts += [f"<dt>{esc(str(k))}</dt><dd>{esc(str(v))}</dd>" for k, v in settings.items()]
    parts.append("</dl>")
    for i, (fig, sentence) in enumerate(figures):
        parts.append(f"<h2>Chart {i + 1}</h2>")
        fig = tidy_log_axes(go.Figure(fig))  # the app's log ticks, for a dict as for a Figure
        parts.append(
            pio.to_html(
                fig,
                include_plotlyjs=False,
                full_html=False,
                div_id=f"chart-{i + 1}",
                config={"displaylogo": False},
            )
        )
        parts.append(f"<p>{esc(sentence).replace('**', '')}</p>")
    for caption, table in tables:
        parts.append(f"<h2>{esc(caption)}</h2>")
        parts.append(table.to_html(index=False, float_format=lambda v: plain(v, 4), border=0))
    if ledger is not None:
        parts.append(
            "<h2>Budget ledger</h2><p>What each estimator was given in its own notion, by which "
            "conversion, and what its ledger spent.</p>"
        )
        parts.append(ledger.to_html(index=False, float_format=lambda v: plain(v, 6), border=0))
    if code:
        parts.append(f"<h2>Reproduce it</h2><pre><code>{esc(code)}</code></pre>")
    parts.append("</body></html>")
    return "\n".join(parts)
