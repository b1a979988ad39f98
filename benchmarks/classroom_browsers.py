"""The browsers of ``benchmarks/classroom.py``: a lecturer (Chromium, 1280x720) who opens a room on
PLAN step by step in presenter mode, and one real phone (375x812) that joins it by its link.

Run by ``benchmarks/classroom.py`` in a child process (Playwright's sync API and the followers'
gevent do not mix): ``classroom_browsers.py URL WORKDIR STEPS GAP``. Writes the room's code to
``WORKDIR/code``, waits for ``WORKDIR/ready`` (every follower joined), presses → ``STEPS`` times
``GAP`` seconds apart and writes the key presses' and the two pages' slide times (wall clock) to
``WORKDIR/times.json``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

PAGE = "plan_step_by_step"
FIRST = "() => /1 \\/ \\d+ ·/.test(document.body.innerText)"

_NOTE_BARS = """() => {
  window.__dpShown = window.__dpShown || {};
  setInterval(() => {
    const m = /(\\d+) \\/ (\\d+) ·/.exec(document.querySelector('[data-testid="stMain"]').innerText);
    if (m && !(m[1] in window.__dpShown)) { window.__dpShown[m[1]] = Date.now() / 1000; }
  }, 25);
}"""


def main(url: str, workdir: Path, steps: int, gap: float) -> None:
    """The child process: open the room, write its code, wait for ``ready``, step, write times."""
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        lecturer = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        lecturer.goto(f"{url}/{PAGE}?present=1", timeout=300_000)
        lecturer.wait_for_function(FIRST, timeout=300_000)
        lecturer.locator('[data-testid="stExpandSidebarButton"]').first.click()
        lecturer.get_by_role("button", name="Open a room for the class").click()
        code = lecturer.locator(".dp-join-code").inner_text(timeout=120_000).replace("-", "")
        lecturer.get_by_role("button", name="Start ▶").click()
        phone = browser.new_context(
            viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True
        ).new_page()
        phone.goto(f"{url}/?room={code}", timeout=300_000)
        phone.wait_for_function(FIRST, timeout=0)
        (workdir / "code").write_text(code)
        while not (workdir / "ready").exists():
            time.sleep(0.2)
        for page in (lecturer, phone):
            page.evaluate(_NOTE_BARS)
        pressed = {}
        for k in range(2, 2 + steps):
            lecturer.evaluate("() => document.activeElement && document.activeElement.blur()")
            pressed[k] = time.time()
            lecturer.keyboard.press("ArrowRight")
            time.sleep(gap)
        times = {
            "pressed": pressed,
            "lecturer": lecturer.evaluate("() => window.__dpShown"),
            "phone": phone.evaluate("() => window.__dpShown"),
        }
        (workdir / "times.json").write_text(json.dumps(times))
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
