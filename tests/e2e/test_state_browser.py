"""In a real browser: a page-local control survives navigation and a copied link."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
WAIT = 90_000


@pytest.mark.walk  # slow: run by `make walk` (CI runs it after make test)
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


def _fresh(browser, url: str):  # noqa: ANN202 - a new browser context: a new session, as a shared link
    ctx = browser.new_context(viewport={"width": 1400, "height": 1400})
    return ctx, ctx.new_page()


@pytest.mark.walk  # slow: run by `make walk` (CI runs it after make test)
def test_compare_target_survives_navigation_and_a_copied_link(
    app_url, browser, page, wait_for_app, screenshot
):
    page.set_viewport_size({"width": 1400, "height": 3000})
    page.goto(f"{app_url}/compare?n=500&d=8")
    wait_for_app(page)
    box = page.get_by_label("Target median ℓ2 error")
    expect(box).to_be_visible(timeout=WAIT)
    box.fill("0.35")
    box.press("Enter")
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"cmp_target=0\.35"), timeout=WAIT)
    page.get_by_role("link", name="Home").first.click()
    wait_for_app(page)
    page.get_by_role("link", name="Compare estimators").first.click()
    wait_for_app(page)
    expect(page.get_by_label("Target median ℓ2 error")).to_have_value("0.35", timeout=WAIT)
    expect(page).to_have_url(re.compile(r"cmp_target=0\.35"), timeout=WAIT)
    copied = page.url
    ctx, fresh = _fresh(browser, copied)
    try:
        fresh.goto(copied)
        wait_for_app(fresh)
        expect(fresh.get_by_label("Target median ℓ2 error")).to_have_value("0.35", timeout=WAIT)
        expect(fresh.locator("[data-testid='stMain']")).to_contain_text(
            "median ℓ2 error of 0.35", timeout=WAIT
        )
    finally:
        ctx.close()


@pytest.mark.walk  # slow: run by `make walk` (CI runs it after make test)
def test_your_data_settings_survive_navigation_and_a_copied_link(
    app_url, browser, page, wait_for_app, screenshot
):
    page.set_viewport_size({"width": 1400, "height": 3000})
    page.goto(f"{app_url}/your_data?yd_bundled=cps1988&yd_cols=wage,education")
    wait_for_app(page)
    page.get_by_text("Estimate them privately with part of the budget").click()
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"yd_bounds_mode=private"), timeout=WAIT)
    page.get_by_role("link", name="Home").first.click()
    wait_for_app(page)
    page.get_by_role("link", name="Your data").first.click()
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"yd_bounds_mode=private"), timeout=WAIT)
    expect(page).to_have_url(re.compile(r"yd_cols=wage%2Ceducation|yd_cols=wage,education"))
    copied = page.url
    screenshot(page, "state_your_data_after_navigation")
    ctx, fresh = _fresh(browser, copied)
    try:
        fresh.goto(copied)
        wait_for_app(fresh)
        main = fresh.locator("[data-testid='stMain']")
        expect(main).to_contain_text("on the private bounds", timeout=WAIT)  # the ledger's split
        assert "yd_bounds_mode=private" in fresh.url
        assert "28,155 rows × 10 columns" in main.inner_text()  # the bundled set the link named
    finally:
        ctx.close()


def test_a_link_to_an_uploaded_file_asks_for_the_file(app_url, browser, wait_for_app, screenshot):
    ctx, fresh = _fresh(browser, "")
    try:
        fresh.goto(f"{app_url}/your_data?yd_source=upload&yd_cols=age,income")
        wait_for_app(fresh)
        main = fresh.locator("[data-testid='stMain']")
        expect(main).to_contain_text("Upload the CSV file this link was made with", timeout=WAIT)
        expect(main).to_contain_text("carries the settings but not the file")
        assert not fresh.locator("[data-testid='stException']").count()
        screenshot(fresh, "state_your_data_link_without_file")
    finally:
        ctx.close()
