"""Presenter mode's chart text, titles and headings on a projector, on every page with slides or
charts (docs/classroom.md, "Text for a room"), at 1280×720 and 1920×1080:

1. every text of every chart on the slide (ticks, legend, annotations, titles, the slider and play
   buttons of an animation) is drawn at least 16 px high at 1280×720 and 20 px at 1920×1080 (the
   rendered font size of each SVG ``text`` node in each ``.js-plotly-plot``);
2. no title box (plotly's ``.gtitle``, a panel title, the title line the app writes above a
   chart) and no axis title box (``.xtitle``, ``.y2title``, ...) meets a legend box
   (``getBoundingClientRect``), also after an animation has moved to its last frame (its frames
   retitle it);
3. every table on the slide (``td``, ``th``: pages/_tables.data_table draws them in presenter
   mode) is drawn at the same size as the smallest chart text, and no ``st.dataframe`` grid (its
   canvas keeps Streamlit's small type) is shown;
4. the slide states its question first: a deck's bar ("k / n · takeaway") is above every widget
   and chart on the slide; on a page without steps the page's title and the heading of the chart
   moved under it are above that chart and every widget.

The page is opened with ``?present=1`` in a fresh browser; the test waits until the session has
heard the window's size (the hidden screen buttons, pages/_present.py) before it measures, so a
size that arrives after the first draw is waited for, not raced. A slow browser test (about 20
minutes on two cores): ``make walk`` runs it. Screenshots of every slide go to
``$PRESENTER_SHOTS`` (default tests/e2e/screenshots/presenter-text).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from pages._spec import PAGES
from tests.e2e.conftest import SCREENSHOTS, screen_heard

pytestmark = [pytest.mark.browser, pytest.mark.walk]

SHOTS = Path(os.environ.get("PRESENTER_SHOTS", SCREENSHOTS / "presenter-text"))
WAIT = 240_000
#: (width, height, smallest chart text in px, the session's chart scale there)
PROJECTORS = {"1280x720": (1280, 720, 16.0, 1.0), "1920x1080": (1920, 1080, 20.0, 1.25)}
#: every page that has slides or charts (all of pages/_spec.py)
CASES = [(p, size) for p in PAGES for size in PROJECTORS]

#: Idle, nothing stale or loading, every chart on the slide drawn, fonts in.
SETTLED = """() => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"], .stSpinner')) return false;
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
    .filter(c => c.getClientRects().length > 0);
  if (!charts.every(c => c.querySelector('.main-svg'))) return false;
  return document.fonts.status === 'loaded';
}"""

#: Every visible chart's texts (rendered size, text, class) and every title that meets a legend.
CHART_TEXT = """() => {
  const out = {sizes: [], overlaps: [], axis: [], charts: 0};
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const shown = e => e.getClientRects().length > 0 && e.getBoundingClientRect().width > 0;
  const main = document.querySelector('[data-testid="stMain"]');
  for (const plot of [...main.querySelectorAll('.js-plotly-plot')].filter(shown)) {
    out.charts += 1;
    for (const t of plot.querySelectorAll('text')) {
      const style = getComputedStyle(t);
      if (!t.textContent.trim() || !t.getBoundingClientRect().width) continue;
      if (style.visibility === 'hidden' || style.opacity === '0') continue;
      out.sizes.push([parseFloat(style.fontSize) * (t.currentCSSZoom || 1), t.textContent.slice(0, 30),
                      t.getAttribute('class') || t.parentNode.getAttribute('class') || '']);
    }
    // its titles: plotly's own and its panels', the line the app writes above it (in the block
    // before the chart, in its column, or over a row of columns)
    const titles = [...plot.querySelectorAll('.gtitle, .annotation-text')];
    const block = plot.closest('[data-testid="stElementContainer"]');
    if (block && block.previousElementSibling) {
      titles.push(...block.previousElementSibling.querySelectorAll('.dp-phone-title, .dp-grid-title'));
    }
    const column = plot.closest('[data-testid="stColumn"]');
    if (column) titles.push(...column.querySelectorAll('.dp-phone-title'));
    const row = plot.closest('[data-testid="stLayoutWrapper"]');
    if (row && row.previousElementSibling) {
      titles.push(...row.previousElementSibling.querySelectorAll('.dp-grid-title'));
    }
    // its axis titles (plotly's text.xtitle, .x2title, .ytitle, ...)
    const axes = [...plot.querySelectorAll('text')]
      .filter(t => /^[xy]\\d*title$/.test(t.getAttribute('class') || ''));
    for (const legend of plot.querySelectorAll('.legend')) {
      const lb = legend.getBoundingClientRect();
      if (!lb.width) continue;
      for (const t of titles) {
        const tb = t.getBoundingClientRect();
        if (tb.width && t.textContent.trim() && meet(tb, lb)) out.overlaps.push(t.textContent.slice(0, 60));
      }
      for (const t of axes) {
        const tb = t.getBoundingClientRect();
        if (tb.width && t.textContent.trim() && meet(tb, lb)) out.axis.push(t.textContent.slice(0, 60));
      }
    }
  }
  return out;
}"""

#: Every visible table's cells on the slide (rendered font size, text) and the grids (``st.dataframe``,
#: drawn on a canvas in Streamlit's small type) still shown.
TABLE_TEXT = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const shown = e => e.getClientRects().length > 0 && e.getBoundingClientRect().width > 0;
  const cells = [...main.querySelectorAll('table th, table td')]
    .filter(c => shown(c) && c.textContent.trim())
    .map(c => [parseFloat(getComputedStyle(c).fontSize), c.textContent.trim().slice(0, 30)]);
  const grids = [...main.querySelectorAll('[data-testid="stDataFrame"]')].filter(shown).length;
  return {cells, grids};
}"""


#: What is drawn above the slide's question: a deck's bar, or (a page without steps) the page's
#: title and the heading of the chart presenter mode moves under it (the last heading before that
#: chart in the page).
ABOVE_QUESTION = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const shown = e => e.getClientRects().length > 0 && e.getBoundingClientRect().width > 0;
  const box = e => e.getBoundingClientRect();
  const plots = [...main.querySelectorAll('.js-plotly-plot')].filter(shown);
  const bar = [...main.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .find(e => shown(e) && /^\\d+ \\/ \\d+ ·/.test(e.innerText.trim()));
  let heads = [];
  if (bar) heads = [bar];
  else {
    heads = [...main.querySelectorAll('h1')].filter(shown).slice(0, 1);
    const top = plots.slice().sort((a, b) => box(a).top - box(b).top)[0];
    if (top) {  // the top chart's own heading: the last heading before it in the page
      let own = null;
      for (const e of main.querySelectorAll('[data-testid="stHeading"], .js-plotly-plot')) {
        if (e === top) break;
        if (e.matches('[data-testid="stHeading"]') && shown(e) && !e.querySelector('h1')) own = e;
      }
      if (own) heads.push(own);
    }
  }
  const out = {question: heads.map(h => h.innerText.trim().slice(0, 60)), above: []};
  if (!heads.length) return out;
  const bottom = Math.max(...heads.map(h => box(h).bottom));
  const widgets = ['stSelectbox', 'stMultiSelect', 'stSlider', 'stNumberInput', 'stRadio',
    'stButton', 'stTextInput', 'stCheckbox', 'stFileUploader', 'stDataFrame', 'stDataEditor']
    .map(w => `[data-testid="${w}"]`).join(', ');
  for (const w of main.querySelectorAll(widgets)) {
    if (!shown(w) || w.closest('.st-key-dp-screen')) continue;
    const text = w.innerText.trim();
    if (bar && /^(◀ Previous|Next ▶)$/.test(text)) continue;  // the bar's own buttons
    if (box(w).top < bottom - 1) out.above.push(['widget', text.slice(0, 40)]);
  }
  for (const p of plots) if (box(p).top < bottom - 1) out.above.push(['chart', Math.round(box(p).top)]);
  return out;
}"""


#: a chart on the slide, or the button that reveals it (predict, then reveal)
CHART_OR_REVEAL = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot, button')]
  .some(e => e.getClientRects().length > 0
    && (e.matches('.js-plotly-plot') || e.textContent.trim() === 'Reveal the answer'))"""


def _settle(pg) -> None:
    for _ in range(3):  # a chart sized to the slide lays itself out once more after it is drawn
        pg.wait_for_function(SETTLED, timeout=WAIT)
        pg.wait_for_timeout(400)
    pg.wait_for_function(SETTLED, timeout=WAIT)


def _last_frame(pg) -> bool:
    """Move a shown animation's slider to its last step (a frame may retitle the chart)."""
    rail = pg.locator('[data-testid="stMain"] .slider-container .slider-rail-touch-rect')
    if not rail.count() or not rail.first.is_visible():
        return False
    b = rail.first.bounding_box()
    pg.mouse.click(b["x"] + b["width"] - 2, b["y"] + b["height"] / 2)
    pg.wait_for_timeout(2500)  # the frame's transition
    return True


def _check(pg, smallest: float, where: str, problems: list[str]) -> None:
    with contextlib.suppress(PlaywrightTimeout):  # drawn at the screen's size; else: said below
        pg.wait_for_function(
            f"""() => ({CHART_TEXT})().sizes.every(s => s[0] >= {smallest} - 0.01)""",
            timeout=60_000,
            polling=500,
        )
    got = pg.evaluate(CHART_TEXT)
    if small := sorted(
        {(round(s[0], 1), s[2].split(" ")[0], s[1]) for s in got["sizes"] if s[0] < smallest - 0.01}
    ):
        problems.append(
            f"{where}: {len(small)} chart texts under {smallest:g} px, e.g. {small[:4]}"
        )
    if got["overlaps"]:
        problems.append(f"{where}: title over legend: {got['overlaps']}")
    if got["axis"]:
        problems.append(f"{where}: axis title over legend: {got['axis']}")
    tables = pg.evaluate(TABLE_TEXT)
    if small := sorted({(s, t) for s, t in tables["cells"] if s < smallest - 0.01}):
        problems.append(
            f"{where}: {len(small)} table cells under {smallest:g} px, e.g. {small[:4]}"
        )
    if tables["grids"]:
        problems.append(f"{where}: {tables['grids']} grids (st.dataframe) in their small type")


@pytest.mark.parametrize(
    ("spec", "size"), CASES, ids=[f"{p.url_path or 'home'}-{s}" for p, s in CASES]
)
def test_presenter_text_titles_and_headings(browser, app_url, spec, size):
    width, height, smallest, scale = PROJECTORS[size]
    name = spec.url_path or "home"
    ctx = browser.new_context(viewport={"width": width, "height": height})
    pg = ctx.new_page()
    problems: list[str] = []
    try:
        pg.goto(f"{app_url}/{spec.url_path}?present=1", timeout=WAIT)
        pg.wait_for_selector('[data-testid="stMain"] h1', timeout=WAIT)
        screen_heard(pg, scale, WAIT)  # the session has heard this window's size
        charts = 0
        for k in range(max(len(spec.steps), 1)):
            title = spec.steps[k] if spec.steps else spec.title
            where = f"{name} {size} slide {k + 1} ({title})"
            if spec.steps:
                pg.get_by_text(f"{k + 1} / {len(spec.steps)} ·").first.wait_for(timeout=WAIT)
            _settle(pg)
            if title == "The chart":  # Compare's chart, or its prediction first, after its run
                pg.wait_for_function(CHART_OR_REVEAL, timeout=WAIT)
                _settle(pg)
            for label in ("Reveal the answer", "Draw 100 releases"):  # what draws the chart
                button = pg.get_by_role("button", name=label)
                if button.count() and button.first.is_visible():
                    button.first.click()
                    pg.locator('[data-testid="stMain"] .js-plotly-plot').first.wait_for(
                        timeout=WAIT
                    )
                    _settle(pg)
            _check(pg, smallest, where, problems)
            order = pg.evaluate(ABOVE_QUESTION)
            if not order["question"] or order["above"]:
                problems.append(f"{where}: above the question {order}")
            charts += pg.evaluate(CHART_TEXT)["charts"]
            SHOTS.mkdir(parents=True, exist_ok=True)
            pg.screenshot(path=str(SHOTS / f"{name}-{size}-{k + 1}.png"))
            if _last_frame(pg):
                _check(pg, smallest, f"{where}, last frame", problems)
                pg.screenshot(path=str(SHOTS / f"{name}-{size}-{k + 1}-last-frame.png"))
            if k + 1 < len(spec.steps):
                pg.get_by_role("button", name="Next ▶").click()
                pg.wait_for_timeout(300)
        assert charts > 0, f"{name} {size}: no chart on any slide"
        assert not problems, "\n".join(problems)
    finally:
        ctx.close()
