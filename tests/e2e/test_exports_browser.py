"""Exports in Debian's Chromium: the one-file HTML report opens offline and draws its charts, and
the Compare page's PNG/SVG/report buttons download real files."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from dpcore.experiments import ExperimentConfig, regret_table, run
from dpcore.figures.compare import error_figure
from dpcore.report import build_report, ledger_table

pytestmark = pytest.mark.browser


def test_report_opens_from_a_file_and_draws_its_charts(page, screenshot, tmp_path: Path):
    cfg = ExperimentConfig(
        name="report",
        n=500,
        d=8,
        estimators=["empirical", "gaussian_private", "plan"],
        sweep={"budget": [0.25, 0.5, 1.0]},
        repetitions=3,
    )
    frame = run(cfg)
    fig, _ = error_figure(frame, x="budget", metric="l2", config=cfg)
    html = build_report(
        title="Compare estimators: report",
        settings=cfg.to_dict(),
        figures=[(fig, "At ρ = 0.5, PLAN ..."), (fig.to_dict(), "the same chart as a dict")],
        tables=[("Ranking by regret", regret_table(frame, "l2"))],
        ledger=ledger_table(frame),
        code=cfg.code(),
    )
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    assert "<script src=" not in html and "<link " not in html  # self-contained: nothing fetched
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route(
        "**/*",
        lambda route: (
            route.abort() if not route.request.url.startswith("file:") else route.continue_()
        ),
    )
    page.goto(path.as_uri())
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2", timeout=30_000
    )
    assert page.locator(".js-plotly-plot").count() == 2
    body = page.locator("body")
    expect(body).to_contain_text("Budget ledger")
    expect(body).to_contain_text("ExperimentConfig.from_json")
    expect(body).to_contain_text("Ranking by regret")
    assert page.locator("table").count() == 2
    assert not errors, errors
    assert screenshot(page, "report").stat().st_size > 30_000


@pytest.mark.walk  # the heaviest browser checks (15-25 s each) run with `make walk`
def test_compare_page_downloads_png_svg_and_the_report(app_url, page, wait_for_app, screenshot):
    page.set_viewport_size({"width": 1400, "height": 4200})
    page.goto(f"{app_url}/compare?n=500&d=8")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=120_000
    )
    main = page.locator("[data-testid='stMain']")
    got = {}
    for label, key in (
        ("PNG", "png"),
        ("SVG", "svg"),
        ("Download a report of this view (HTML)", "html"),
    ):
        with page.expect_download(timeout=120_000) as dl:
            main.get_by_role("button", name=label, exact=True).first.click()
        got[key] = Path(dl.value.path()).read_bytes()
    assert got["png"][:8] == b"\x89PNG\r\n\x1a\n" and len(got["png"]) > 20_000
    assert b"<svg" in got["svg"][:500]
    assert b"Budget ledger" in got["html"] and b"js-plotly-plot" not in got["html"][:100]
    screenshot(page, "compare_exports")


@pytest.mark.walk  # the heaviest browser checks (15-25 s each) run with `make walk`
def test_plan_page_report_opens_with_its_five_charts(
    app_url, page, browser, wait_for_app, screenshot, tmp_path
):
    page.set_viewport_size({"width": 1400, "height": 3000})
    page.goto(f"{app_url}/plan_step_by_step?n=1000&d=16")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 5", timeout=120_000
    )
    main = page.locator("[data-testid='stMain']")
    with page.expect_download(timeout=120_000) as dl:
        main.get_by_role("button", name="Download a report of this view (HTML)", exact=True).click()
    path = tmp_path / "plan_report.html"
    dl.value.save_as(path)
    ctx = browser.new_context(viewport={"width": 1200, "height": 1000}, offline=True)
    view = ctx.new_page()
    errors: list[str] = []
    view.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    view.on("pageerror", lambda e: errors.append(str(e)))
    view.goto(path.as_uri())
    view.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 5", timeout=30_000
    )
    expect(view.locator("body")).to_contain_text("Budget ledger")
    expect(view.locator("body")).to_contain_text("from dpcore.views.plan import PlanSettings, view")
    assert not errors, errors
    screenshot(view, "plan_report")
    ctx.close()
