"""The browsers of ``benchmarks/classroom.py``: a lecturer (Chromium, 1280x720) who opens a room on
PLAN step by step in presenter mode, and one real phone (375x812) that joins it by its link.

Run by ``benchmarks/classroom.py`` in a child process (Playwright's sync API and the followers'
gevent do not mix): ``classroom_browsers.py URL WORKDIR STEPS GAP``. Writes the room's code to
``WORKDIR/code``, waits for ``WORKDIR/ready`` (every follower joined), presses → ``STEPS`` times
``GAP`` seconds apart and writes the key presses' and the two pages' slide times (wall clock) to
``WORKDIR/times.json``, with the lecturer's websocket side of each step (:class:`Frames`): when
its page sent the run's request, got the server's new bar and the run's end.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

PAGE = "plan_step_by_step"
FIRST = "() => /1 \\/ \\d+ ·/.test(document.body.innerText)"
BAR = re.compile(r"(\d+) / (\d+) ·")
FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")

_NOTE_BARS = """() => {
  window.__dpShown = window.__dpShown || {};
  setInterval(() => {
    const m = /(\\d+) \\/ (\\d+) ·/.exec(document.querySelector('[data-testid="stMain"]').innerText);
    if (m && !(m[1] in window.__dpShown)) { window.__dpShown[m[1]] = Date.now() / 1000; }
  }, 25);
}"""


#: in the lecturer's page, before the app's script: every websocket frame it sends, and every
#: small one it receives, with the page's clock when its handler ran (a script finished, a bar)
_FRAMES = """(() => {
  const log = (window.__dpFrames = []);
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)));
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
      const buf = ArrayBuffer.isView(data) ? data.buffer.slice(data.byteOffset,
        data.byteOffset + data.byteLength) : data;
      log.push([Date.now() / 1000, "sent", b64(buf)]);
    }
    if (!this.__dpWatched) {
      this.__dpWatched = true;
      this.addEventListener("message", (ev) => {
        if (ev.data instanceof ArrayBuffer && ev.data.byteLength < 4000) {
          log.push([Date.now() / 1000, "received", b64(ev.data)]);
        }
      });
    }
    return send.call(this, data);
  };
})();"""


class Frames:
    """The lecturer's websocket frames as its page logged them (:data:`_FRAMES`, the page's own
    clock): ``sent`` full runs asked for (not a fragment's poll), ``bars`` the slide number of
    each bar the server sent, ``ended`` full runs finished."""

    def __init__(self, log: list[list]) -> None:
        self.sent: list[float] = []
        self.bars: list[tuple[float, int]] = []
        self.ended: list[float] = []
        for t, kind, data in log:
            raw = base64.b64decode(data)
            if kind == "sent":
                back = BackMsg()
                back.ParseFromString(raw)
                if back.WhichOneof("type") == "rerun_script" and not back.rerun_script.fragment_id:
                    self.sent.append(t)
                continue
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            what = fwd.WhichOneof("type")
            if what == "script_finished" and fwd.script_finished == FINISHED:
                self.ended.append(t)
            elif what == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                if el.WhichOneof("type") == "markdown" and (m := BAR.search(el.markdown.body)):
                    self.bars.append((t, int(m.group(1))))

    def step(self, k: int, pressed: float) -> dict[str, float]:
        """The first request after the press, the first bar of slide ``k`` after it and the end
        of that run (missing ones left out)."""
        out: dict[str, float] = {}
        if sent := [t for t in self.sent if t >= pressed]:
            out["sent"] = sent[0]
        if bar := [t for t, n in self.bars if n == k and t >= pressed]:
            out["served"] = bar[0]
            if ended := [t for t in self.ended if t >= bar[0]]:
                out["ended"] = ended[0]
        return out


def lecturer_table(times: dict) -> str:
    """Where the lecturer's step went (the browser lecturer only): seconds from the key press until
    its browser sent the run's request, the server's run sent the new bar and ended (its
    websocket frames: :class:`Frames`), and the bar showed on its screen."""
    rows = [
        "| step | request sent | bar sent by the server | run ended | bar on the screen |",
        "|---|---|---|---|---|",
    ]
    for k_str, t0 in times["pressed"].items():
        side = times.get("server", {}).get(k_str, {})
        cells = [side.get(what) for what in ("sent", "served", "ended")]
        cells.append(times["lecturer"].get(k_str))
        shown = " | ".join(f"{c - t0:.2f} s" if c else "-" for c in cells)
        rows.append(f"| {int(k_str) - 1} → {k_str} | {shown} |")
    return "\n".join(rows)


def main(url: str, workdir: Path, steps: int, gap: float) -> None:
    """The child process: open the room, write its code, wait for ``ready``, step, write times."""
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        lecturer = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        lecturer.add_init_script(_FRAMES)
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
        lecturer.evaluate("() => { (window.__dpFrames || []).length = 0; }")  # the steps' only
        pressed = {}
        for k in range(2, 2 + steps):
            lecturer.evaluate("() => document.activeElement && document.activeElement.blur()")
            pressed[k] = time.time()
            lecturer.keyboard.press("ArrowRight")
            time.sleep(gap)
        frames = Frames(lecturer.evaluate("() => window.__dpFrames || []"))
        times = {
            "pressed": pressed,
            "server": {str(k): frames.step(k, t) for k, t in pressed.items()},
            "lecturer": lecturer.evaluate("() => window.__dpShown"),
            "phone": phone.evaluate("() => window.__dpShown"),
        }
        (workdir / "times.json").write_text(json.dumps(times))
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
