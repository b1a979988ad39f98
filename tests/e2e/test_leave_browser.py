"""A visitor starts a long comparison and closes the page mid-run: the server's pool stops working
for them within 5 s (docs/classroom.md, "Room lifetime, codes and limits" and pages/_pool.py).

Two ways the work runs: in the page's own run ("Run all 30 repetitions" without background
refinement: the script waits for the pool) and as a background refinement (the app's default:
the page polls while it waits). The server writes its pools' state to a file
(``DPMEAN_POOL_STATUS``: monotonic time, pool, jobs in the workers, jobs waiting); the moment the
pool is idle is read from there, on the pool's own clock, and compared with the moment the test
closed the page (``time.monotonic`` is one clock for every process of the machine). The workers'
CPU is then read with psutil: it must not grow by more than a small amount over 2 s.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import _serve

pytestmark = [pytest.mark.browser, pytest.mark.walk]

#: Compare's default estimators at n = 1,900, d = 1,024 (under the page's 2,000,000 values) and 12
#: budgets: one task (a dataset and its 12 x 5 releases) takes about 10 s of a core on an idle
#: machine, several times that under load, so letting the running tasks finish is not enough
CONFIG = {
    "name": "leave",
    "distribution": "gaussian",
    "n": 1900,
    "d": 1024,
    "budget": 0.5,
    "unit": "rho",
    "estimators": ["empirical", "plan", "iome_paper", "gaussian_private", "pmwm_zcdp"],
    "sweep": {"budget": [round(0.1 * k, 1) for k in range(1, 13)]},
    "repetitions": 4,
    "seed": 9191,
}
WITHIN = 5.0


def _states(status: Path, pool: str) -> list[tuple[float, int, int]]:
    """The pool's state lines: (time, jobs in the workers, jobs waiting)."""
    if not status.exists():
        return []
    out = []
    for line in status.read_text().splitlines():
        t, name, running, waiting = line.split()
        if name == pool:
            out.append((float(t), int(running), int(waiting)))
    return out


def _until(test, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := test():
            return found
        time.sleep(0.1)
    return None


def _server_tree(port: str) -> list[psutil.Process]:
    """The app server serving ``port`` and every process under it (forkserver, workers)."""
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if "streamlit" in " ".join(cmd) and port in cmd and "run" in cmd:
            return [proc, *proc.children(recursive=True)]
    raise AssertionError(f"no app server on port {port}")


def _cpu(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        try:
            times = p.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue
    return total


@pytest.fixture(params=["0", "1"], ids=["page-run", "background-refinement"])
def leave_server(request, tmp_path):
    status = tmp_path / "pool-status.txt"
    env = {
        "DPMEAN_PROGRESSIVE": request.param,
        "DPMEAN_WORKERS": "2",
        "DPMEAN_POOL_STATUS": str(status),
    }
    served = _serve(env)
    url = next(served)
    try:
        yield url, status, "background" if request.param == "1" else "shared"
    finally:
        next(served, None)


def test_closing_the_page_mid_run_frees_the_pool_within_5_s(leave_server, browser):
    url, status, pool = leave_server
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    page.goto(f"{url}/compare?cmp_reps=4&seed=9191")
    main = page.locator("[data-testid='stMain']")
    expect(main).to_contain_text("Ranking by regret", timeout=240_000)
    page.locator("[data-testid='stSidebar'] input[type='file']").first.set_input_files(
        {
            "name": "leave.json",
            "mimeType": "application/json",
            "buffer": json.dumps(CONFIG).encode(),
        }
    )
    run_all = page.get_by_role("button", name=re.compile(r"^Run all 4 repetitions \(≈"))
    expect(run_all).to_be_visible(timeout=240_000)  # the page asks before a long sweep
    run_all.click()
    said = "refining in the background" if pool == "background" else "Running the sweep"
    expect(main).to_contain_text(said, timeout=300_000)  # first the first result, when refining
    busy = _until(lambda: (s := _states(status, pool)) and s[-1][1] >= 1, 120)
    assert busy, f"the {pool} pool never started the run"
    time.sleep(2.0)  # computing for the visitor
    procs = _server_tree(url.rsplit(":", 1)[1])
    closed = time.monotonic()
    ctx.close()

    before = [s for s in _states(status, pool) if s[0] <= closed]
    assert before and before[-1][1] >= 1, "the run ended before the page closed: nothing to stop"
    idle = _until(
        lambda: next((s for s in _states(status, pool) if s[0] > closed and s[1:] == (0, 0)), None),
        120,
    )
    assert idle is not None, f"the {pool} pool still works for a visitor who left"
    print(f"{pool} pool idle {idle[0] - closed:.2f} s after the page closed")
    assert idle[0] - closed < WITHIN, (
        f"the {pool} pool stopped {idle[0] - closed:.1f} s after the visitor left"
    )
    cpu = _cpu(procs)
    time.sleep(2.0)
    assert _cpu(procs) - cpu < 0.5, "the server's processes still compute after the stop"
    assert _states(status, pool)[-1][1:] == (0, 0)
