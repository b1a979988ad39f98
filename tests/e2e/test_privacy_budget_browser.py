"""The "Privacy budget" page in Debian's Chromium: the plain-language box, the differencing-attack
lesson and the risk pictures render with no error, the audit is one click away, and on a phone
(375 px) every lesson chart fits the screen with its legend below the plot."""

import pytest

pytestmark = pytest.mark.browser

#: A legend entry of each lesson chart (its title may be drawn outside the plot on a phone).
LESSON_LEGENDS = ("data with her real value", "measured success", "the differencing attack")


def test_lessons_render_and_link_to_the_audit(app_url, page, wait_for_app, charts_drawn):
    page.goto(f"{app_url}/privacy_budget")
    wait_for_app(page, timeout=180_000)
    charts_drawn(page, 6, timeout=180_000)
    body = page.locator("[data-testid='stMain']").inner_text()
    assert "What this means for your organisation" in body
    assert "Why noise at all" in body and "What a budget risks" in body
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator("[data-testid='stError']").count() == 0
    link = page.get_by_role("link", name="the Privacy audit")
    for _ in range(2):  # a click that lands while the page is redrawn is lost: click again
        link.first.click()
        try:
            page.wait_for_url("**/privacy_audit**", timeout=45_000)
            break
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError
            wait_for_app(page, timeout=180_000)
    assert "/privacy_audit" in page.url


def test_lesson_charts_fit_a_phone(app_url, browser, charts_drawn):
    ctx = browser.new_context(viewport={"width": 375, "height": 812})
    page = ctx.new_page()
    try:
        page.goto(f"{app_url}/privacy_budget")
        page.wait_for_selector("[data-testid='stMain'] h1", timeout=180_000)  # sidebar collapsed
        charts_drawn(page, 6, timeout=180_000)
        page.wait_for_function(  # every lesson chart drawn with its legend (a rerun redraws them)
            """names => names.every(n => [...document.querySelectorAll('.js-plotly-plot .legendtext')]
                .some(t => t.textContent === n))""",
            arg=list(LESSON_LEGENDS),
            timeout=180_000,
        )
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('.js-plotly-plot')].map(p => {
                const r = p.getBoundingClientRect();
                const plot = p.querySelector('.bglayer rect, .plot');
                const legend = p.querySelector('.legend');
                return {
                    left: r.left, right: r.right,
                    plotBottom: plot ? plot.getBoundingClientRect().bottom : 0,
                    legendTop: legend ? legend.getBoundingClientRect().top : 1e9,
                    legends: [...p.querySelectorAll('.legendtext')].map(t => t.textContent),
                };
            })"""
        )
        lessons = [b for b in boxes if set(b["legends"]) & set(LESSON_LEGENDS)]
        assert len(lessons) == len(LESSON_LEGENDS), boxes
        for b in boxes:
            assert b["left"] >= -1 and b["right"] <= 376, b
        for b in lessons:
            assert b["legendTop"] >= b["plotBottom"] - 1, b
    finally:
        ctx.close()
