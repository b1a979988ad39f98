"""Issue 15 item 5 in a real browser: a page-local control survives navigation and a copied link."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
WAIT = 90_000


def test_page_control_survives_navigation_and_a_copied_link(
    app_url, browser, page, wait_for_app, screenshot
):
    page.goto(f"{app_url}/plan_step_by_step?n=500&d=8")
    wait_for_app(page)
    box = page.get_by_label("Horizontal axis: coordinate")
    expect(box).to_have_value("1", timeout=WAIT)
    box.fill("3")
    box.press("Enter")
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"plan_i=3"), timeout=WAIT)

    page.get_by_role("link", name="Home").first.click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="dpmean lab")).to_be_visible(timeout=WAIT)
    page.get_by_role("link", name="PLAN step by step").first.click()
    wait_for_app(page)
    expect(page.get_by_label("Horizontal axis: coordinate")).to_have_value("3", timeout=WAIT)
    expect(page).to_have_url(re.compile(r"plan_i=3"), timeout=WAIT)
    copied = page.url
    screenshot(page, "state_plan_after_navigation")

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        fresh = ctx.new_page()
        fresh.goto(copied)
        wait_for_app(fresh)
        expect(fresh.get_by_label("Horizontal axis: coordinate")).to_have_value("3", timeout=WAIT)
        expect(fresh.get_by_label("n (rows)")).to_have_value("500", timeout=WAIT)
    finally:
        ctx.close()


def test_preset_sets_the_sidebar_in_the_browser(app_url, page, wait_for_app, screenshot):
    page.goto(f"{app_url}/compare?n=500&d=8")
    wait_for_app(page)
    page.get_by_role("combobox", name="Story (preset)").click()
    page.get_by_role("option", name="Heavy tails and contamination").click()
    wait_for_app(page)
    expect(page.get_by_label("n (rows)")).to_have_value("2000", timeout=WAIT)
    expect(page).to_have_url(re.compile(r"preset=heavy_tails"), timeout=WAIT)
    expect(page).to_have_url(re.compile(r"distribution=contaminated"), timeout=WAIT)
    screenshot(page, "state_compare_preset")
