"""Compare and Your data: the switch that adds the peer libraries, the PNG/SVG buttons next to every
CSV, the report button, and what the page says when the peers or a browser are missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore import export
from dpcore.estimators import peers
from dpcore.pool import STOPPABLE_NAME

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SMALL = {"n": "500", "d": "4"}


def _page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in SMALL.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def _labels(at: AppTest) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


def _toggle(at: AppTest):  # noqa: ANN202
    return next(t for t in at.toggle if t.label.startswith("Include the libraries"))


@pytest.mark.skipif(None in peers.available().values(), reason="needs pip install -e '.[peers]'")
def test_compare_switch_adds_the_peers_to_the_same_sweep() -> None:
    at = _page("pages/compare.py")
    assert not _toggle(at).value
    _toggle(at).set_value(True).run()
    assert not at.exception, at.exception
    names = {t.get("name") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]}
    assert {
        "OpenDP mean (Laplace)",
        "diffprivlib mean",
    } <= names
    assert "PLAN" in names
    labels = _labels(at)
    assert (
        labels.count("PNG") == labels.count("SVG") == labels.count("Download the data (CSV)") >= 1
    )
    assert "Download a report of this view (HTML)" in labels


@pytest.mark.skipif(None in peers.available().values(), reason="needs pip install -e '.[peers]'")
def test_your_data_switch_runs_the_peers_on_the_users_columns() -> None:
    at = _page("pages/your_data.py")
    _toggle(at).set_value(True).run()
    assert not at.exception and not at.error
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    diamonds = [
        str(y)
        for tr in spec["data"]
        if tr.get("marker", {}).get("symbol") == "diamond" and tr.get("x")
        for y in tr["y"]
    ]  # the libraries are marked, and shown among the repeated runs' medians
    assert any(label.startswith("OpenDP") for label in diamonds)
    assert any(label.startswith("diffprivlib") for label in diamonds)


def test_without_the_libraries_or_a_browser_the_page_explains(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(peers, "available", lambda: dict.fromkeys(peers.LIBRARIES))
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    at = _page("pages/compare.py")
    assert _toggle(at).proto.disabled
    assert any(peers.ENABLE_HINT in c.value for c in at.caption)
    png = next(b for b in at.get("download_button") if b.proto.label == "PNG")
    assert png.proto.disabled and "BROWSER_PATH" in png.proto.help
    assert any("PNG/SVG:" in c.value for c in at.caption)


def test_static_export_problem_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    problem = export.static_export_problem()
    assert problem is not None and "BROWSER_PATH" in problem and "apt install chromium" in problem
    with pytest.raises(RuntimeError, match="Chromium"):
        export.to_image({"data": []}, "png")
    with pytest.raises(ValueError, match="fmt"):
        export.to_image({"data": []}, "pdf")  # type: ignore[arg-type]


@pytest.mark.skipif(None in peers.available().values(), reason="needs pip install -e '.[peers]'")
def test_your_data_peers_past_their_time_budget_are_stopped_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A peer run longer than the view's budget (here the budget is cut to 50 ms) ends at the
    budget: the page names it in a warning and shows the other estimators; no worker process or
    thread is left running."""
    import multiprocessing
    import threading
    import time

    import streamlit as st

    import pages._pool

    st.cache_data.clear()  # an earlier test's peer results would be read from the cache
    monkeypatch.setenv("DPMEAN_WORKERS", "1")
    monkeypatch.setattr(pages._pool, "PEER_SECONDS", 0.05)
    at = _page("pages/your_data.py")
    threads = threading.active_count()
    _toggle(at).set_value(True).run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert any("time budget of 0.05 s" in w.value for w in at.warning), [
        w.value for w in at.warning
    ]
    labels = [
        str(y)
        for tr in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
        if tr.get("x") and any(v is not None for v in tr["x"])
        for y in tr["y"]
    ]
    assert not any(label.startswith(("OpenDP", "diffprivlib")) for label in labels)
    assert len(labels) >= 3
    time.sleep(0.5)
    assert not [p for p in multiprocessing.active_children() if p.name == STOPPABLE_NAME]
    assert threading.active_count() <= threads


@pytest.mark.skipif(None in peers.available().values(), reason="needs pip install -e '.[peers]'")
def test_compare_sweep_with_peers_past_its_budget_shows_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Compare sweep with a peer library runs in a process ended at its budget (cut here to
    50 ms, the predicted time to 0): an st.error names the budget, no traceback, nothing left."""
    import multiprocessing
    import time

    import dpcore.experiments.cost
    import pages._pool

    monkeypatch.setenv("DPMEAN_WORKERS", "1")
    monkeypatch.setattr(pages._pool, "PEER_SECONDS", 0.05)
    monkeypatch.setattr(dpcore.experiments.cost, "estimate_seconds", lambda config: 0.0)
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in {"n": "432", "d": "3", "cmp_reps": "2"}.items():  # a sweep no test has cached
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/compare.py").run()
    _toggle(at).set_value(True).run()
    assert not at.exception, at.exception
    assert any("time budget of 0.05 s" in e.value for e in at.error), [e.value for e in at.error]
    time.sleep(0.5)
    assert not [p for p in multiprocessing.active_children() if p.name == STOPPABLE_NAME]
