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

import plotly.graph_objects as go
import plotly.io as pio

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body {{ margin: 0; font-family: Inter, Helvetica, Arial, sans-serif; color: #1d2733; background: #fff; }}
 section {{ display: none; min-height: 100vh; box-sizing: border-box; padding: 3vh 4vw; }}
 section.on {{ display: block; }}
 h1 {{ font-size: 2.4rem; margin: 0 0 1rem; }} h2 {{ font-size: 1.9rem; margin: 0 0 1rem; }}
 p {{ font-size: 1.35rem; line-height: 1.5; max-width: 70rem; }}
 .n {{ position: fixed; right: 2vw; bottom: 2vh; color: #6b7785; }}
</style></head><body>
<section class="on"><h1>{title}</h1><p>{subtitle}</p><p>Use ← → to step through {count} slides.</p></section>
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


def deck_html(title: str, slides: Sequence[tuple[str, str, go.Figure]], subtitle: str = "") -> str:
    """One self-contained HTML deck: a title slide, then one ``(heading, sentence, figure)`` per slide.

    Parameters
    ----------
    title, subtitle : str
        The title slide.
    slides : sequence of (heading, sentence, figure)
        ``sentence`` may use Markdown ``**bold**``; it is escaped otherwise.
    """
    parts = []
    for k, (heading, sentence, fig) in enumerate(slides):
        body = pio.to_html(
            fig,
            full_html=False,
            include_plotlyjs=k == 0,
            default_width="100%",
            default_height="70vh",
            config={"displaylogo": False},
        )
        parts.append(
            f"<section><h2>{html.escape(heading)}</h2>{body}<p>{_plain(sentence)}</p></section>"
        )
    return _PAGE.format(
        title=html.escape(title),
        subtitle=_plain(subtitle),
        count=len(slides) + 1,
        slides="\n".join(parts),
    )
