"""Browser-test fixtures: the app started the way the README starts it, and Debian's Chromium
driven by Playwright (never ``playwright install``).

Set ``REQUIRE_BROWSER=1`` (``.ci/run`` does) to make a missing Chromium fail instead of skip.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
#: ``make fit`` (DPMEAN_WALK=1) runs the page-by-page browser checks on every page; ``make test``
#: on the few pages where each check first failed (:func:`walk_or`)
WALK = os.environ.get("DPMEAN_WALK") == "1"


def walk_or(every: list, quick: list) -> list:
    """``every`` under ``make fit``, else ``quick`` (a subset for ``make test`` and ``make walk``)."""
    return every if WALK else quick


SCREENSHOTS = Path(__file__).parent / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _own_data() -> dict[str, str]:
    """A fresh data folder for a served app (its curator key and odometer): a server starts before
    any test's own folder is set, and must not spend from, or be refused by, the user's odometer."""
    return {
        "DPMEAN_DATA_DIR": tempfile.mkdtemp(prefix="dpmean-e2e-data-"),
        "DPMEAN_ODOMETER_DB": "",
    }


def _log_path(port: int) -> Path:
    """Where the server on ``port`` writes its output (one file per server: two test workers
    serve at once)."""
    return SCREENSHOTS / f"app-{port}.log"


def server_log(url: str, tail: int = 4000) -> str:
    """The last ``tail`` characters of the output of the server at ``url`` (for a failure
    message: the traceback of a background job is there, not on the page)."""
    path = _log_path(int(url.rsplit(":", 1)[1]))
    text = path.read_text(errors="replace") if path.exists() else ""
    return f"the server's output ({path}):\n{text[-tail:]}"


def _serve(env: dict[str, str] | None = None) -> Iterator[str]:
    """Start the app with the README's command, ``make run``, on a free port (``env`` added to the
    environment); yields its URL and stops it afterwards.

    Falls back to the same ``streamlit run`` line under this interpreter when ``make`` or the
    project's ``.venv`` is missing (e.g. tests run from another environment).
    """
    port = _free_port()
    if shutil.which("make") and (ROOT / ".venv" / "bin" / "streamlit").exists():
        cmd = ["make", "--no-print-directory", "run", f"PORT={port}"]
    else:
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
        ]
    # own process group, so that stopping it also stops the server make started
    # the server's output goes to a file: a pipe nobody reads fills up (64 KB of warnings) and then
    # blocks the server mid-run; the file is kept next to the screenshots for a failed test
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log = open(_log_path(port), "wb")  # noqa: SIM115 - closed after the server stops
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, **_own_data(), **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        log.close()
        pytest.fail("the app did not start within 120 s")
    if proc.poll() is not None:
        log.close()
        pytest.fail("the app exited: " + _log_path(port).read_text(errors="replace"))
    yield url
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()  # else a ResourceWarning, an error under filterwarnings = error


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """The app as ``make run`` starts it, under the test-wide environment (complete results at once:
    no progressive refinement, see tests/conftest.py)."""
    yield from _serve()


@pytest.fixture(scope="session")
def served_app_url() -> Iterator[str]:
    """The app as a user gets it from ``make run``: the shared worker pool and the first result
    refined in the background (``DPMEAN_PROGRESSIVE=1``, the app's default)."""
    yield from _serve({"DPMEAN_PROGRESSIVE": "1"})


@pytest.fixture(scope="session")
def _playwright() -> Iterator[object]:
    if not CHROMIUM.exists():
        msg = "Chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)"
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(msg)
        pytest.skip(msg)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(_playwright: object) -> Iterator[object]:
    """Debian's Chromium under Playwright."""
    b = _playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)  # type: ignore[attr-defined]
    yield b
    b.close()


@pytest.fixture(scope="session")
def phone_browser(
    _playwright: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[object]:
    """A second Chromium for a class's phones, at idle CPU priority (``chrt --idle``) where the
    machine has ``chrt``: a student's phone renders on its own processor, so here the phones take
    only the CPU that the server and the lecturer's browser leave (they still connect, poll and
    rerun on the server like any phone). Without ``chrt``, a plain Chromium."""
    exe = CHROMIUM
    if chrt := shutil.which("chrt"):
        exe = tmp_path_factory.mktemp("phones") / "chromium-idle"
        exe.write_text(f'#!/bin/sh\nexec {chrt} --idle 0 {CHROMIUM} "$@"\n')
        exe.chmod(0o755)
    b = _playwright.chromium.launch(executable_path=str(exe), args=CHROMIUM_ARGS)  # type: ignore[attr-defined]
    yield b
    b.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    pg = ctx.new_page()
    yield pg
    ctx.close()


#: a phone's screen (the page tests' 375 × 812, touch)
PHONE = {"width": 375, "height": 812}


@pytest.fixture
def phone(browser: object) -> Iterator[object]:
    """A page in a 375 × 812 touch window (a phone)."""
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)  # type: ignore[attr-defined]
    pg = ctx.new_page()
    yield pg
    ctx.close()


#: true in the page once its script run has ended (Streamlit's "Running…" widget is gone)
RUN_ENDED = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"


#: true once the session has heard this window's size: the hidden screen buttons are all the
#: sizes but that one (pages/_present.screen_buttons; a run drawn halfway shows fewer)
SCREEN_HEARD = """([want, all]) => {
  const got = [...document.querySelectorAll('.st-key-dp-screen button')].map(b => b.textContent.trim());
  const others = all.filter(x => x !== want);
  return got.length === others.length && others.every(x => got.includes(x));
}"""


def screen_heard(page: object, scale: float, timeout: float = 120_000) -> None:
    """Wait until the presenter-mode session of ``page`` has heard that its window draws charts
    at ``scale`` (pages/_present.py SCREENS)."""
    from pages._present import _SCREEN_LABEL, SCREENS

    labels = [_SCREEN_LABEL.format(f"{z:g}") for *_, z in SCREENS]
    page.wait_for_function(  # type: ignore[attr-defined]
        SCREEN_HEARD, arg=[_SCREEN_LABEL.format(f"{scale:g}"), labels], timeout=timeout
    )


def _wait_for_app(page: object, timeout: float = 60_000) -> None:
    """Wait until Streamlit has finished running the script (no 'Running...' status)."""
    page.wait_for_selector("[data-testid='stSidebar']", timeout=timeout)  # type: ignore[attr-defined]
    page.wait_for_function(RUN_ENDED, timeout=timeout)  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]  # no element left from the previous run
        "() => !document.querySelector('[data-stale=\"true\"]')", timeout=timeout
    )


def _charts_drawn(page: object, count: int, timeout: float = 120_000) -> None:
    """Wait until ``count`` Plotly charts have drawn their SVG and the web fonts have loaded (the
    condition a screenshot needs, instead of a fixed sleep)."""
    page.wait_for_function(  # type: ignore[attr-defined]
        "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n"
        " && document.fonts.status === 'loaded'",
        arg=count,
        timeout=timeout,
    )


def _screenshot(page: object, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    return path


@pytest.fixture
def wait_for_app() -> object:
    """``wait_for_app(page)``: block until the script run has finished."""
    return _wait_for_app


@pytest.fixture
def screenshot() -> object:
    """``screenshot(page, name)``: save a full-page PNG under tests/e2e/screenshots/."""
    return _screenshot


@pytest.fixture
def charts_drawn() -> object:
    """``charts_drawn(page, count)``: block until ``count`` Plotly charts have drawn."""
    return _charts_drawn
