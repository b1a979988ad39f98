"""Follow latency of a class room: how long after the lecturer's step the phones show the slide.

The app is started as ``make run`` starts it (``benchmarks/load_server.py``'s ``start_server``, loopback, its
own data folder). A lecturer in Chromium (1280x720) opens a room on *PLAN step by step* in
presenter mode, ``--followers`` non-rendering phones join it (Streamlit's websocket protocol, as
``benchmarks/load.py`` speaks it: the server does all a phone's work but the drawing) and one
real phone browser (375x812) does too. The lecturer then steps ``--steps`` times with →, each
``--gap`` seconds after the last. Every client notes the wall-clock moment its page first shows
the new slide's bar ("k / n ·"); the table gives, per step and over all steps, the seconds from
the lecturer's key press to each phone's new slide (p50, p95, max).

Usage::

    make classroom                     # 30 followers, 7 steps; writes benchmarks/results/classroom.md
    python benchmarks/classroom.py --followers 5 --steps 3 --out -

The browsers run in a child process (Playwright's sync API and the followers' gevent do not mix),
by default at idle CPU priority (``chrt --idle 0``, ``--browsers idle``): in a class room the
lecturer's laptop and the phone draw on processors of their own, so here they take only the CPU
the server leaves, as the phones of ``make classroom-browsers`` do. ``--browsers normal`` lets
them compete with the server for its two cores.
Times are wall-clock on this machine; note its load (``uptime``) beside them.
"""

# ruff: noqa: I001 - locust (gevent) must be imported before the standard library modules it patches
from __future__ import annotations

import load  # noqa: F401 - patches the standard library for gevent first (see benchmarks/load.py)

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import contextlib

import gevent
import numpy as np
import psutil
import websocket
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from classroom_browsers import lecturer_table
from load_client import FINISHED, StreamlitClient
from load_server import ROOT, free_port, start_server, stop_server

#: where the record of the real-browser room (make classroom-browsers) starts in the results
OLDER = "# A class room in real browsers"
BAR = re.compile(r"(\d+) / (\d+) ·")
PAGE = "plan_step_by_step"  # as in classroom_browsers.py
TITLE = "PLAN step by step"
ROOM = re.compile(r"Room \*\*([A-Z0-9]{4}-[A-Z0-9]{4})\*\*")
START, NEXT = "Start ▶", "Next ▶"  # pages/_present.py's buttons


class Follower:
    """One phone without a browser: joins the room by its link and keeps the page's poll going
    (the fragment's auto-rerun, as the browser's timer sends it); notes when each slide shows."""

    def __init__(self, address: str, code: str) -> None:
        self.client = StreamlitClient(address, timeout=300.0)
        self.code = code
        self.shown: dict[int, float] = {}  # slide number -> wall-clock time it first arrived
        self.trace: list[tuple[float, str]] = []  # (wall clock, what was sent or received)

    def _read(self, until: float) -> None:
        c = self.client
        c.ws.settimeout(0.1)
        next_poll = time.time() + 2.0
        while time.time() < until:
            if c.auto and time.time() >= next_poll:
                c._send(c.query, c.auto[1])  # noqa: SLF001 - the browser's auto-rerun request
                self.trace.append((time.time(), "sent poll"))
                next_poll = time.time() + c.auto[0]
            try:
                raw = c.ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            if not isinstance(raw, bytes):  # closed at the end of the run
                return
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            kind = fwd.WhichOneof("type")
            if kind in ("new_session", "script_finished", "auto_rerun", "page_info_changed"):
                self.trace.append((time.time(), f"{kind} {str(getattr(fwd, kind)).strip()[:80]!r}"))
            if kind == "auto_rerun":
                c.auto = (fwd.auto_rerun.interval, fwd.auto_rerun.fragment_id)
                next_poll = time.time() + c.auto[0]
            elif kind == "page_info_changed":
                c.query = fwd.page_info_changed.query_string
            elif kind == "new_session":  # the page the room switched it to, as a browser keeps it
                c.page_hash = fwd.new_session.page_script_hash or c.page_hash
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                c._remember(el, set())  # noqa: SLF001 - send the widgets back as a browser does
                if el.WhichOneof("type") == "markdown" and (m := BAR.search(el.markdown.body)):
                    self.shown.setdefault(int(m.group(1)), time.time())
                    self.trace.append((time.time(), f"bar {m.group(0)}"))

    def run(self, until: float) -> None:
        self.client._send(f"room={self.code}")  # noqa: SLF001 - the join link's first run
        self._read(until)
        self.client.close()


class Lecturer(StreamlitClient):
    """The lecturer without a browser (``--lecturer socket``): opens a room on the page in
    presenter mode and clicks "Next ▶" as a browser would (a button's trigger sent with the
    widgets' values). No Chromium, so the server's CPU per step is measured on its own."""

    def __init__(self, address: str) -> None:
        super().__init__(address, timeout=300.0)
        self.buttons: dict[str, str] = {}  # label -> widget id, from the last full run
        self.code = ""

    def _remember(self, el: Element, seen: set[str]) -> None:
        super()._remember(el, seen)
        kind = el.WhichOneof("type")
        if kind == "button":
            self.buttons[el.button.label] = el.button.id
        elif kind == "markdown" and (m := ROOM.search(el.markdown.body)):
            self.code = m.group(1).replace("-", "")

    def click(self, label: str) -> float:
        """Click the button ``label``; seconds until the run it starts has finished."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string, state.page_script_hash = self.query, self.page_hash
        state.context_info.url = f"http://{self.address}/?{self.query}"
        state.widget_states.widgets.extend(self.widgets.values())
        state.widget_states.widgets.add(id=self.buttons[label], trigger_value=True)
        t0 = time.perf_counter()
        self.ws.send_binary(msg.SerializeToString())
        result = self._finish(t0, label, (FINISHED,))
        if result.errors:
            raise RuntimeError(f"{label}: {'; '.join(result.errors)}")
        return result.seconds

    def open_room(self) -> str:
        """Presenter mode on the page, a room opened and its join slide taken down; the code."""
        self.run_page(None, query="present=1")
        self.run_page(TITLE)
        self.click("Open a room for the class")
        self.click(START)
        if not self.code:
            raise RuntimeError("the lecturer's sidebar named no room")
        return self.code


def _socket_lecture(lecturer: Lecturer, steps: int, gap: float) -> dict:
    """``steps`` clicks on "Next ▶", ``gap`` seconds apart (the times as the browsers' child
    writes them; "lecturer" is when the lecturer's run ended, the server's side of the slide)."""
    times: dict[str, dict[str, float]] = {"pressed": {}, "lecturer": {}, "phone": {}}
    for k in range(2, 2 + steps):
        t0 = time.time()
        times["pressed"][str(k)] = t0
        times["lecturer"][str(k)] = t0 + lecturer.click(NEXT)
        gevent.sleep(max(0.0, t0 + gap - time.time()))
    return times


def _cpu_sampler(pid: int, samples: list[tuple[float, float]]) -> None:
    """Append (wall clock, CPU seconds of the server and its children) every 0.1 s."""
    server = psutil.Process(pid)
    while True:
        with contextlib.suppress(psutil.Error):
            used = sum(server.cpu_times()[:2])
            for child in server.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    used += sum(child.cpu_times()[:2])
            samples.append((time.time(), used))
        gevent.sleep(0.1)


def _cpu_at(samples: list[tuple[float, float]], t: float) -> float:
    """The server's CPU seconds at wall-clock ``t`` (the last sample before it)."""
    return max((c for s, c in samples if s <= t), default=samples[0][1])


def step_cpu(times: dict, samples: list[tuple[float, float]], gap: float, idle: float) -> str:
    """Per step: the server's CPU seconds from the key press to the next (``gap``), minus the
    idle polling (``idle`` CPU seconds per second, measured before the first step)."""
    rows = []
    for k_str, t0 in times["pressed"].items():
        used = _cpu_at(samples, t0 + gap) - _cpu_at(samples, t0)
        rows.append(
            f"{int(k_str) - 1} → {k_str}: {used:.2f} s ({used - idle * gap:.2f} s over idle)"
        )
    return "; ".join(rows)


def _browsers(url: str, workdir: Path, steps: int, gap: float, idle: bool) -> subprocess.Popen:
    """The lecturer and the real phone, in a child process (``benchmarks/classroom_browsers.py``),
    at idle CPU priority when ``idle`` and the machine has ``chrt``."""
    script = Path(__file__).with_name("classroom_browsers.py")
    cmd = [sys.executable, str(script), url, str(workdir), str(steps), str(gap)]
    if idle and (chrt := shutil.which("chrt")):
        cmd = [chrt, "--idle", "0", *cmd]
    return subprocess.Popen(cmd, cwd=ROOT)


def _stats(xs: list[float]) -> str:
    if not xs:
        return "-"
    a = np.asarray(xs)
    return f"{np.median(a):.2f} / {np.percentile(a, 95):.2f} / {a.max():.2f}"


def table(times: dict, followers: list[dict[int, float]]) -> str:
    """The markdown table: per step and in all, seconds from the key press to each client."""
    rows = [
        "| step | lecturer's slide | real phone | followers p50 / p95 / max | followers on it "
        "| followers after the lecturer's slide p50 / p95 / max |",
        "|---|---|---|---|---|---|",
    ]
    every: list[float] = []
    behind: list[float] = []
    phone_all: list[float] = []
    for k_str, t0 in times["pressed"].items():
        k = int(k_str)
        lect = times["lecturer"].get(str(k))
        ph = times["phone"].get(str(k))
        lags = [f[k] - t0 for f in followers if k in f]
        every += lags
        phone_all += [ph - t0] if ph else []
        rows.append(f"| {k - 1} → {k} | {lect - t0:.2f} s |" if lect else f"| {k - 1} → {k} | - |")
        rows[-1] += f" {ph - t0:.2f} s |" if ph else " - |"
        rows[-1] += f" {_stats(lags)} | {len(lags)} of {len(followers)} |"
        after = [f[k] - lect for f in followers if k in f] if lect else []
        behind += after
        rows[-1] += f" {_stats(after)} |"
    rows.append(
        f"| all | | {_stats(phone_all)} | {_stats(every)} | "
        f"{len(every)} of {len(followers) * len(times['pressed'])} | {_stats(behind)} |"
    )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--followers", type=int, default=30)
    parser.add_argument("--steps", type=int, default=7, help="PLAN step by step has 8 slides")
    parser.add_argument("--gap", type=float, default=6.0, help="seconds between two steps")
    parser.add_argument(
        "--lecturer",
        choices=("browser", "socket"),
        default="browser",
        help="browser: Chromium presses → and a phone browser follows too (the default); socket: "
        "a websocket client clicks Next ▶ (no browser on the machine: the server's CPU alone)",
    )
    parser.add_argument(
        "--browsers",
        choices=("idle", "normal"),
        default="idle",
        help="CPU priority of the lecturer's and the phone's Chromium (default idle: they stand "
        "for devices with processors of their own)",
    )
    parser.add_argument(
        "--trace", default="", help="file for the messages of every follower that missed a slide"
    )
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "classroom.md"))
    args = parser.parse_args(argv)
    port = free_port()
    os.environ.update(DPMEAN_DATA_DIR=tempfile.mkdtemp(prefix="dpmean-classroom-"))
    os.environ["DPMEAN_ODOMETER_DB"] = ""
    server = start_server(port, None)
    samples: list[tuple[float, float]] = []
    sampler = gevent.spawn(_cpu_sampler, server.pid, samples)
    workdir = Path(tempfile.mkdtemp(prefix="dpmean-classroom-run-"))
    try:
        child = lecturer = None
        if args.lecturer == "socket":
            lecturer = Lecturer(f"127.0.0.1:{port}")
            code = lecturer.open_room()
        else:
            child = _browsers(
                f"http://127.0.0.1:{port}", workdir, args.steps, args.gap, args.browsers == "idle"
            )
            while not (workdir / "code").exists():
                if child.poll() is not None:
                    raise RuntimeError("the browsers' process ended before the room opened")
                gevent.sleep(0.5)
            code = (workdir / "code").read_text()
        until = time.time() + 600 + args.steps * args.gap
        flock = [Follower(f"127.0.0.1:{port}", code) for _ in range(args.followers)]
        jobs = [gevent.spawn(f.run, until) for f in flock]
        while sum(1 in f.shown for f in flock) < len(flock) and time.time() < until:
            gevent.sleep(0.5)  # every follower on the lecturer's first slide
        gevent.sleep(5.0)  # and its first page run ended
        quiet = time.time()
        gevent.sleep(args.gap)  # the idle server: the followers' polls (and the lecturer's)
        idle = (_cpu_at(samples, time.time()) - _cpu_at(samples, quiet)) / (time.time() - quiet)
        if lecturer is not None:
            times = _socket_lecture(lecturer, args.steps, args.gap)
        else:
            (workdir / "ready").write_text("")
            while child is not None and child.poll() is None:
                gevent.sleep(0.5)
        gevent.sleep(3.0)
        for f in flock:
            f.client.ws.close()
        gevent.killall(jobs, timeout=10)
        if lecturer is None:
            times = json.loads((workdir / "times.json").read_text())
        else:
            lecturer.close()
    finally:
        sampler.kill()
        stop_server(server)
    who = (
        f"one phone browser (375x812; the browsers at {args.browsers} CPU priority)"
        if lecturer is None
        else "no browser (the lecturer a websocket client clicking Next ▶)"
    )
    report = (
        f"{args.followers} non-rendering followers and {who} on "
        f"{PAGE}, {args.steps} steps every {args.gap:g} s; seconds from the lecturer's "
        f"key press (load average before: {os.getloadavg()[0]:.1f})\n\n"
        + table(times, [f.shown for f in flock])
        + (
            "\n\nThe lecturer's step, from the key press (its browser's websocket frames):\n\n"
            + lecturer_table(times)
            if "server" in times
            else ""
        )
        + f"\n\nServer CPU per step (the app's process and its children, from the press to the "
        f"next; idle with the followers polling: {idle:.2f} s per s): "
        + step_cpu(times, samples, args.gap, idle)
    )
    print(report)
    if args.trace:
        missed = [f for f in flock if any(int(k) not in f.shown for k in times["pressed"])]
        with open(args.trace, "w") as fh:
            fh.write(
                json.dumps({"pressed": times["pressed"], "lecturer": times["lecturer"]}) + "\n"
            )
            for i, f in enumerate(missed):
                fh.write(f"# follower {i}: shown {sorted(f.shown)}\n")
                fh.writelines(f"{t:.3f} {what}\n" for t, what in f.trace)
    if args.out != "-":
        out = Path(args.out)
        kept = out.read_text() if out.exists() else ""  # the older record below, kept as it was
        kept = kept[kept.find(OLDER) :] if OLDER in kept else ""
        out.write_text(f"# Follow latency (make classroom)\n\n{report}\n\n{kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
