"""A slide pack: one self-contained HTML deck of Plotly charts, one chart and its sentence per slide.

``plotly.io.to_html`` renders each chart; plotly.js is inlined once (first slide), so the file opens
offline. In the deck, ← / → (or PageUp / PageDown, Space) step through the slides.

References
----------
Plotly, ``plotly.io.to_html`` (full_html=False, include_plotlyjs).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body {{ margin: 0; font-family: Inter, Helvetica, Arial, sans-serif; color: #1d2733; background: #fff; }}
 section {{ display: none; height: 100vh; box-sizing: border-box; padding: 3vh 4vw 2vh; }}
 section.on {{ display: flex; flex-direction: column; }}
 h1 {{ font-size: 2.4rem; margin: 0 0 1rem; }}
 h2 {{ font-size: 1.9rem; margin: 0 0 1vh; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }}
 .chart {{ flex: 1 1 0; min-height: 0; }} .chart > div {{ height: 100%; }}
 p {{ font-size: 1.35rem; line-height: 1.45; max-width: 70rem; margin: 1vh 0 0; }}
 p.text {{ display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; overflow: hidden; }}
 details {{ color: #6b7785; font-size: 1rem; }} details p {{ font-size: 1rem; }}
 .settings {{ font-size: 1.6rem; color: #3b4754; }}
 .n {{ position: fixed; right: 2vw; bottom: 2vh; color: #6b7785; }}
</style></head><body>
<section class="on"><h1>{title}</h1><p class="settings">{subtitle}</p>
<p>Use ← → to step through {count} slides.</p></section>
{slides}
<div class="n" id="n"></div>
<script>
 const s = Array.from(document.querySelectorAll('section')); let i = 0;
 function show(k) {{ i = Math.max(0, Math.min(s.length - 1, k)); s.forEach((e, j) => e.classList.toggle('on', j === i));
   document.getElementById('n').textContent = (i + 1) + ' / ' + s.length; window.dispatchEvent(new Event('resize')); }}
 document.addEventListener('keydown', e => {{
   if (['ArrowRight', 'PageDown', ' '].includes(e.key)) {{ show(i + 1); e.preventDefault(); }}
   if (['ArrowLeft', 'PageUp'].includes(e.key)) {{ show(i - 1); e.preventDefault(); }} }});
 show(0);
</script></body></html>
"""


def _plain(markdown: str) -> str:
    """Markdown bold/italics to HTML, everything else escaped."""
    text = html.escape(markdown)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", text)


def _first_sentence(text: str) -> str:
    """The first sentence of ``text`` (up to a full stop, colon or semicolon followed by a space)."""
    match = re.search(r"[.:;](\s|$)", text)
    return text[: match.end()].strip() if match else text


def slide_figure(fig: go.Figure) -> go.Figure:
    """``fig`` as a slide shows it: no title (the slide's heading says it), as high as the slide
    leaves (no fixed height), and the legend at the right, clear of the axes and their titles."""
    out = go.Figure(fig)
    out.update_layout(
        title_text=None,
        height=None,
        autosize=True,
        legend=dict(orientation="v", x=1.02, xanchor="left", y=1.0, yanchor="top"),
        margin=dict(t=30, b=60),
    )
    return out


def deck_html(title: str, slides: Sequence[tuple[str, str, go.Figure]], subtitle: str = "") -> str:
    """One self-contained HTML deck: a title slide, then one ``(heading, sentence, figure)`` per slide.

    Each slide is one screen: its heading (the takeaway, one line), the chart in the height left
    (:func:`slide_figure`), the sentence's first sentence (at most two lines) and the whole
    sentence folded under "Speaker notes".

    Parameters
    ----------
    title, subtitle : str
        The title slide: the deck's title and the settings the charts were drawn at.
    slides : sequence of (heading, sentence, figure)
        ``sentence`` may use Markdown ``**bold**``; it is escaped otherwise.
    """
    parts = []
    for k, (heading, sentence, fig) in enumerate(slides):
        body = pio.to_html(
            slide_figure(fig),
            full_html=False,
            include_plotlyjs=k == 0,
            default_width="100%",
            default_height="100%",
            config={"displaylogo": False, "responsive": True},
        )
        parts.append(
            f"<section><h2>{html.escape(heading)}</h2><div class='chart'>{body}</div>"
            f"<p class='text'>{_plain(_first_sentence(sentence))}</p>"
            f"<details><summary>Speaker notes</summary><p>{_plain(sentence)}</p></details>"
            "</section>"
        )
    return _PAGE.format(
        title=html.escape(title),
        subtitle=_plain(subtitle),
        count=len(slides) + 1,
        slides="\n".join(parts),
    )


def _axis_number(name: str) -> str:
    """``"xaxis3"`` -> ``"3"``, ``"xaxis"`` -> ``""``."""
    return name[5:]


def _shared(d: dict, drop: str) -> tuple[dict, set]:
    """What every part of a figure's JSON ``d`` keeps: its layout less the axes, annotations,
    shapes and ``drop``; and the names its legend lists."""
    common = {
        k: v
        for k, v in d.get("layout", {}).items()
        if not k.startswith(("xaxis", "yaxis")) and k not in ("annotations", "shapes", drop)
    }
    return common, {t.get("name") for t in d.get("data", []) if t.get("showlegend") is not False}


def split_subplots(
    fig: go.Figure | dict, *, height: int | None = None, drawn: bool = False
) -> list[Any]:
    """One figure per panel of a ``make_subplots`` figure, in the panels' order.

    Each keeps its panel's traces, axes (titles, ranges, log type, equal-aspect anchors), shapes and
    annotations, with the panel's title as its title; the legend lists only its own traces. For
    screens with room for one panel (a phone: the app lays the parts out in ``st.columns``, which
    Streamlit stacks on a narrow screen) and for one panel per slide.

    Parameters
    ----------
    fig : Figure or dict
        A figure with one or more x/y axis pairs. A figure with one panel comes back as one figure.
    height : int, optional
        Height of each part; by default the figure's height over its number of rows of panels.
    drawn : bool
        Give each part as the dict plotly writes for it (its ``to_dict()``, made without plotly's
        validation pass: the JSON of ``fig`` rearranged), to draw with
        :func:`~dpcore.figures.style.prepared`; by default a validated ``go.Figure``.

    Returns
    -------
    list of Figure, or of dict if ``drawn``

    Notes
    -----
    The parts are plotly's JSON of ``fig`` rearranged (each part validated by plotly as it is made).
    """
    d = fig.to_dict() if isinstance(fig, go.Figure) else dict(fig)
    layout = dict(d.get("layout", {}))
    xaxes = sorted(
        (k for k in layout if k.startswith("xaxis")), key=lambda k: int(_axis_number(k) or 1)
    )
    if len(xaxes) <= 1:
        return [_part(d, drawn)]
    rows = len({tuple(layout[k].get("domain", (0, 1))) for k in (f"y{k[1:]}" for k in xaxes)})
    each = height or int(layout.get("height", 450 * rows) / max(rows, 1)) + 60
    common, in_legend = _shared(d, "height")
    out = []
    for xname in xaxes:
        num = _axis_number(xname)
        xref, yref = f"x{num}", f"y{num}"
        xa, ya = dict(layout[xname]), dict(layout.get(f"yaxis{num}", {}))
        xdom, ydom = xa.pop("domain", [0, 1]), ya.pop("domain", [0, 1])
        for a in (xa, ya):
            a.pop("anchor", None)
            for key in ("scaleanchor", "matches"):
                if key in a:
                    a[key] = a[key][0]  # "x3" -> "x": the part has one pair of axes
        title, notes = _panel_annotations(layout, xref, yref, xdom, ydom)
        shapes = [
            {**s, "xref": "x", "yref": "y"}
            for s in layout.get("shapes", [])
            if s.get("xref") == xref or s.get("yref") == yref
        ]
        traces = _panel_traces(d, xref, in_legend)
        part = {
            **common,
            "xaxis": xa,
            "yaxis": ya,
            "height": each,
            # an empty list as plotly's validation leaves it: not there
            **({"annotations": notes} if notes else {}),
            **({"shapes": shapes} if shapes else {}),
        }
        legend = dict(layout.get("legend", {}))
        if float(legend.get("y", 1)) < 0:  # a legend under the panels: under this one's axis title,
            # at the figure's foot (a legend placed below the plot area at a fraction of its
            # height moves as the margin it pushes moves: Plotly redrew it up to twelve times)
            part["legend"] = {**legend, "yref": "container", "y": 0.0, "yanchor": "bottom"}
            part["margin"] = {**dict(layout.get("margin", {})), "t": 50, "b": 120}
        if title:
            part["title"] = {"text": title.replace("<br>", " "), "x": 0.0, "xanchor": "left"}
        out.append(_part({"data": traces, "layout": part}, drawn))
    return out


def _panel_annotations(
    layout: dict, xref: str, yref: str, xdom: Sequence[float], ydom: Sequence[float]
) -> tuple[str, list[dict]]:
    """The title of the panel on axes ``xref``/``yref`` (the subplot title centred above its
    domain) and its own annotations, moved onto the part's one pair of axes."""
    title, notes = "", []
    for ann in layout.get("annotations", []):
        if ann.get("xref") == xref or ann.get("yref") == yref:
            notes.append({**ann, "xref": "x", "yref": "y"})
        elif (
            ann.get("xref") == "paper"
            and abs(float(ann.get("x", -1)) - (xdom[0] + xdom[1]) / 2) < 1e-6
            and abs(float(ann.get("y", -1)) - ydom[1]) < 1e-6
        ):
            title = str(ann.get("text", ""))
    return title, notes


def _panel_traces(d: dict, xref: str, in_legend: set) -> list[dict]:
    """The traces of the panel on x axis ``xref``, moved onto the part's axes; each name the
    figure's legend listed is listed once."""
    traces, named = [], set()
    for t in d.get("data", []):
        if (t.get("xaxis") or "x") != xref:
            continue
        name = t.get("name")
        show = name in in_legend and name not in named  # once per part, if the figure listed it
        named.add(name)
        traces.append({**t, "xaxis": "x", "yaxis": "y", "showlegend": show})
    return traces


def _part(spec: dict, drawn: bool) -> Any:
    """A part of a split figure: its dict as it is (``drawn``) or a validated ``go.Figure``."""
    return spec if drawn else go.Figure(spec)


def _ref_map(members: Sequence[str]) -> dict[str, str]:
    """Axis references of a column's panels (axis suffixes, top first) renumbered from 1: the
    suffixes ``["3", "7"]`` give ``{"x3": "x", "y3": "y", "x7": "x2", "y7": "y2"}``."""
    out: dict[str, str] = {}
    for k, num in enumerate(members):
        new = "" if k == 0 else str(k + 1)
        out |= {f"x{num}": f"x{new}", f"y{num}": f"y{new}"}
    return out


def _column_axis(axis: dict, refs: dict[str, str], row_title: object, domain: object) -> dict:
    """A grid panel's axis as a column figure draws it: references renumbered, its own tick
    labels, its row's title, ``domain`` (``None``: the whole width)."""
    out = {k: v for k, v in axis.items() if k not in ("showticklabels", "domain")}
    for key in ("anchor", "scaleanchor", "matches"):
        if key in out:
            if out[key] in refs:
                out[key] = refs[out[key]]
            else:
                out.pop(key)
    if not (out.get("title") or {}).get("text") and row_title:
        out["title"] = row_title
    return {**out, "domain": domain if domain is not None else [0.0, 1.0]}


def split_columns(fig: go.Figure | dict, *, drawn: bool = False) -> list[Any]:
    """One figure per column of panels of a ``make_subplots`` grid, left to right.

    Each keeps its panels one above the other at their rows' heights, with their traces, ranges,
    equal-aspect anchors, shapes and annotations. A grid writes tick labels and axis titles once per
    row (in its first column); a column on its own shows its tick labels and its rows' titles. The
    title over the column's top panel becomes the figure's title. For a grid of one column per
    item (the app lays the parts out in ``st.columns``: side by side on a wide screen, one under
    the other on a phone).

    Parameters
    ----------
    fig : Figure or dict
        A figure with one or more x/y axis pairs.
    drawn : bool
        Each part as a dict, as in :func:`split_subplots`.

    Returns
    -------
    list of Figure, or of dict if ``drawn``
        As high as ``fig``; the legend lists each name once.
    """
    d = fig.to_dict() if isinstance(fig, go.Figure) else dict(fig)
    layout = dict(d.get("layout", {}))
    nums = sorted(
        (_axis_number(k) for k in layout if k.startswith("xaxis")), key=lambda n: int(n or 1)
    )
    if len(nums) <= 1:
        return [_part(d, drawn)]
    xdom = {n: tuple(layout[f"xaxis{n}"].get("domain", (0, 1))) for n in nums}
    ydom = {n: tuple(layout.get(f"yaxis{n}", {}).get("domain", (0, 1))) for n in nums}
    row_titles: dict[tuple[str, tuple], object] = {}
    for n in nums:
        for axis in ("x", "y"):
            title = layout.get(f"{axis}axis{n}", {}).get("title") or {}
            if title.get("text"):
                row_titles.setdefault((axis, ydom[n]), title)
    common, in_legend = _shared(d, "title")
    out = []
    for column in sorted(set(xdom.values())):
        members = sorted((n for n in nums if xdom[n] == column), key=lambda n: -ydom[n][1])
        refs = _ref_map(members)
        part = dict(common)
        for n in members:
            new = refs[f"x{n}"][1:]
            part[f"xaxis{new}"] = _column_axis(
                layout[f"xaxis{n}"], refs, row_titles.get(("x", ydom[n])), None
            )
            part[f"yaxis{new}"] = _column_axis(
                layout.get(f"yaxis{n}", {}), refs, row_titles.get(("y", ydom[n])), ydom[n]
            )
        title, notes = _column_notes(layout, refs, column, ydom[members[0]][1])
        shapes = [
            {**s, "xref": refs[s["xref"]], "yref": refs[s["yref"]]}
            for s in layout.get("shapes", [])
            if s.get("xref") in refs and s.get("yref") in refs
        ]
        traces, named = [], set()
        for t in d.get("data", []):
            x, y = t.get("xaxis") or "x", t.get("yaxis") or "y"
            if x in refs and y in refs:
                name = t.get("name")
                show = name in in_legend and name not in named
                named.add(name)
                traces.append({**t, "xaxis": refs[x], "yaxis": refs[y], "showlegend": show})
        part |= {"annotations": notes} if notes else {}
        part |= {"shapes": shapes} if shapes else {}
        if title:  # one line over the column, where the grid kept room for two-line titles
            part["title"] = {"text": title.replace("<br>", " "), "x": 0.0, "xanchor": "left"}
            part["margin"] = {**dict(layout.get("margin", {})), "t": 50}
        out.append(_part({"data": traces, "layout": part}, drawn))
    return out


def _column_notes(
    layout: dict, refs: dict[str, str], column: tuple, top: float
) -> tuple[str, list[dict]]:
    """The title over a column (a paper annotation centred on it at its top panel's top) and the
    annotations placed on its panels' axes, renumbered."""
    title, notes = "", []
    centre = (column[0] + column[1]) / 2
    for ann in layout.get("annotations", []):
        if ann.get("xref") in refs and ann.get("yref") in refs:
            notes.append({**ann, "xref": refs[ann["xref"]], "yref": refs[ann["yref"]]})
        elif (
            ann.get("xref") == "paper"
            and abs(float(ann.get("x", -1)) - centre) < 1e-6
            and abs(float(ann.get("y", -1)) - top) < 1e-6
        ):
            title = str(ann.get("text", ""))
    return title, notes
