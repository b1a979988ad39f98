"""Every page on a phone (375 × 812, touch): no chart's words are drawn over each other.

For each page of :data:`pages._spec.PAGES` at its defaults, every Plotly chart is measured in the
browser (bounding boxes) and these must not overlap one another: the chart title, the Plotly
toolbar (modebar, counted whenever it is displayed: a tap shows it), the legend and the panel
titles (annotations placed on the paper, as ``make_subplots`` writes its subplot titles). Two boxes
overlap when they share more than :data:`TOLERANCE` pixels in both directions.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from pages._spec import PAGES
from tests.e2e.conftest import walk_or

pytestmark = pytest.mark.browser
WAIT = 240_000
#: Boxes may touch: an overlap must be more than this many pixels wide and high to count.
TOLERANCE = 2

#: The boxes of every chart on the page: title, modebar (when displayed), legend and the
#: paper-placed annotations (panel titles), each as [left, top, right, bottom] with a name.
BOXES_JS = r"""
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((gd, k) => {
  const box = (e) => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? [r.left, r.top, r.right, r.bottom] : null;
  };
  const shown = (e) => {
    for (let x = e; x && x !== gd; x = x.parentElement) {
      const s = getComputedStyle(x);
      if (s.display === 'none' || s.visibility === 'hidden') return false;
    }
    return true;
  };
  const out = [];
  const title = gd.querySelector('.g-gtitle');
  if (title && box(title)) out.push(['title', box(title)]);
  const bar = gd.querySelector('.modebar');
  if (bar && shown(bar) && box(bar)) out.push(['modebar', box(bar)]);
  const legend = gd.querySelector('.legend');
  if (legend && box(legend)) out.push(['legend', box(legend)]);
  const specs = (gd.layout && gd.layout.annotations) || [];
  gd.querySelectorAll('.infolayer .annotation').forEach((a) => {
    const spec = specs[Number(a.getAttribute('data-index'))] || {};
    if (spec.xref === 'paper' && spec.yref === 'paper' && box(a)) {
      out.push(['panel title "' + a.textContent.slice(0, 30) + '"', box(a)]);
    }
  });
  return {chart: k, boxes: out};
})
"""


def overlaps(charts: list[dict]) -> list[str]:
    """Every pair of boxes of one chart that overlap by more than :data:`TOLERANCE` pixels."""
    found = []
    for chart in charts:
        for (name_a, a), (name_b, b) in combinations(chart["boxes"], 2):
            wide = min(a[2], b[2]) - max(a[0], b[0])
            high = min(a[3], b[3]) - max(a[1], b[1])
            if wide > TOLERANCE and high > TOLERANCE:
                found.append(
                    f"chart {chart['chart']}: {name_a} over {name_b} ({wide:.0f}×{high:.0f} px)"
                )
    return found


def test_overlaps_finds_a_title_under_a_legend():
    charts = [{"chart": 0, "boxes": [("title", [0, 0, 100, 20]), ("legend", [50, 10, 200, 40])]}]
    assert overlaps(charts) == ["chart 0: title over legend (50×10 px)"]
    apart = [{"chart": 0, "boxes": [("title", [0, 0, 100, 20]), ("legend", [0, 21, 200, 40])]}]
    assert overlaps(apart) == []


#: every page in ``make fit``; in ``make test`` the pages whose titles overlapped first
QUICK = ("pages/home.py", "pages/side_by_side.py", "pages/privacy_budget.py")


@pytest.mark.parametrize(
    "spec",
    walk_or(PAGES, [p for p in PAGES if p.path in QUICK]),
    ids=lambda p: p.url_path or "home",
)
@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_chart_titles_legends_and_toolbar_do_not_overlap_on_a_phone(
    app_url, phone, spec, screenshot
):
    phone.goto(f"{app_url}/{spec.url_path}")
    phone.wait_for_selector("[data-testid='stMain'] h1", timeout=WAIT)
    phone.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " && !document.querySelector('[data-stale=\"true\"]')",
        timeout=WAIT,
    )
    phone.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .main-svg').length > 0"
        " && document.fonts.status === 'loaded'",
        timeout=WAIT,
    )
    phone.wait_for_timeout(500)  # the last chart's relayout after its fonts
    charts = phone.evaluate(BOXES_JS)
    assert charts, f"{spec.title}: no chart drawn"
    problems = overlaps(charts)
    if problems:
        screenshot(phone, f"phone_{spec.url_path or 'home'}")
    assert not problems, f"{spec.title} at 375 px: " + "; ".join(problems)
