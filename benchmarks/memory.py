"""Server memory under one visitor clicking "New seed" on a large page (the reliability goal).

Runs the app in this process under ``streamlit.testing`` (the page caches are process-wide, as in
the served app), opens ``/plan_step_by_step?n=488&d=4096`` and clicks "New seed" ``--clicks``
times, printing the process's resident memory after each view and the bytes held by the byte-sized
page caches. ``--root`` runs another checkout (for a before/after comparison).

With ``--served`` it starts the app (``streamlit run app.py`` on a free loopback port), speaks
Streamlit's websocket protocol as a browser tab does, presses "New seed" as fast as the page
answers for ``--seconds`` and prints the server process's resident memory (sampled every 0.2 s).

Run: ``.venv/bin/python benchmarks/memory.py [--served] [--clicks 30] [--seconds 70] [--root DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any


def rss_mb() -> float:
    """Resident set size of this process in MB (Linux ``/proc``)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main(argv: list[str] | None = None) -> int:
    """Click "New seed" and print one line per view: click, seconds, RSS MB, cache MB."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clicks", type=int, default=30)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--page", default="plan_step_by_step")
    ap.add_argument("--n", default="488")
    ap.add_argument("--d", default="4096")
    ap.add_argument(
        "--served", action="store_true", help="measure the served app (a server process)"
    )
    ap.add_argument("--seconds", type=float, default=70.0, help="how long to click (--served)")
    args = ap.parse_args(argv)
    if args.served:
        return served(args)
    root = Path(args.root).resolve()
    os.chdir(root)
    sys.path.insert(0, str(root))
    os.environ.setdefault("DPMEAN_WORKERS", "0")
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(root / "app.py"), default_timeout=600)
    at.query_params["n"], at.query_params["d"], at.query_params["seed"] = args.n, args.d, "1"
    at.run()
    at.switch_page(f"pages/{args.page}.py")
    at.run()
    peak = rss_mb()
    print(f"start: {peak:.0f} MB, exception: {bool(at.exception)}")
    for click in range(1, args.clicks + 1):
        t0 = time.perf_counter()
        button = next(b for b in at.button if b.label == "New seed")
        button.click().run()
        gc.collect()
        now = rss_mb()
        peak = max(peak, now)
        held = _cache_mb()
        print(
            f"click {click:3d}: {time.perf_counter() - t0:5.2f} s, RSS {now:6.0f} MB, "
            f"byte caches {held}, exception: {bool(at.exception)}"
        )
    print(f"peak RSS {peak:.0f} MB after {args.clicks} clicks")
    return 0


def _cache_mb() -> str:
    try:
        from pages._bytecache import ByteCache
    except ImportError:
        return "-"
    return f"{ByteCache.total_bytes() / 2**20:.0f} MB"


# ---------------------------------------------------------------------------------------------
# the served app


class Tab:
    """One browser tab without the browser: Streamlit's websocket protocol, widgets sent back."""

    KINDS = ("selectbox", "radio", "multiselect", "slider", "number_input", "checkbox")

    def __init__(self, address: str, timeout: float = 300.0) -> None:
        import websocket

        self.ws = websocket.create_connection(
            f"ws://{address}/_stcore/stream",
            subprotocols=["streamlit"],
            timeout=timeout,
            origin=f"http://{address}",
        )
        self.address, self.timeout = address, timeout
        self.pages: dict[str, str] = {}
        self.page_hash, self.query = "", ""
        self.widgets: dict[str, Any] = {}
        self.buttons: dict[str, str] = {}

    def run(self, query: str | None = None, click: str | None = None) -> list[str]:
        """One script run (``click``: the label of a button to press); returns the errors shown."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query if query is None else query
        state.page_script_hash = self.page_hash
        state.context_info.url = f"http://{self.address}/?{state.query_string}"
        state.widget_states.widgets.extend(self.widgets.values())
        if click is not None:
            state.widget_states.widgets.append(
                WidgetState(id=self.buttons[click], trigger_value=True)
            )
        self.ws.send_binary(msg.SerializeToString())
        return self._finish()

    def _finish(self) -> list[str]:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        errors: list[str] = []
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < self.timeout:
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv())
            kind = fwd.WhichOneof("type")
            if kind == "navigation":
                self.pages = {p.page_name: p.page_script_hash for p in fwd.navigation.app_pages}
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                what = el.WhichOneof("type")
                if what == "button":
                    self.buttons[el.button.label] = el.button.id
                elif what in self.KINDS:
                    self._remember(what, getattr(el, what))
                elif what == "exception":
                    errors.append(f"exception: {el.exception.type}: {el.exception.message[:200]}")
            elif kind == "script_finished" and fwd.script_finished in (0, 1):
                return errors
        raise TimeoutError(f"no script_finished within {self.timeout:.0f} s")

    def _remember(self, kind: str, w: Any) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        if not w.id or (not getattr(w, "set_value", False) and w.id in self.widgets):
            return
        st = WidgetState(id=w.id)
        if kind in ("selectbox", "radio") and w.set_value:
            st.string_value = w.raw_value
        elif kind == "checkbox":
            st.bool_value = w.value if w.set_value else w.default
        elif kind == "slider" and w.set_value and w.type != 2:
            st.double_array_value.data[:] = list(w.value)
        else:
            return
        self.widgets[w.id] = st


def served(args: argparse.Namespace) -> int:
    """Start the app of ``--root`` on a free loopback port and click "New seed" on the page."""
    import socket
    import subprocess
    import threading
    import urllib.request

    import psutil

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true"]
    cmd += ["--server.address", "127.0.0.1", "--server.port", str(port)]
    proc = subprocess.Popen(
        cmd,
        cwd=args.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    peak = [0.0]
    stop = threading.Event()
    try:
        for _ in range(240):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        server = psutil.Process(proc.pid)

        def sample() -> None:
            while not stop.is_set():
                with contextlib.suppress(psutil.Error):
                    peak[0] = max(peak[0], server.memory_info().rss / 2**20)
                time.sleep(0.2)

        threading.Thread(target=sample, daemon=True).start()
        tab = Tab(f"127.0.0.1:{port}")
        tab.run(f"n={args.n}&d={args.d}&seed=1")
        title = next(t for t in tab.pages if t.lower().startswith(args.page.replace("_", " ")[:4]))
        tab.page_hash = tab.pages[title]
        errors = tab.run()
        print(f"{title}: idle {server.memory_info().rss / 2**20:.0f} MB, errors {errors}")
        t_end = time.monotonic() + args.seconds
        clicks = 0
        while time.monotonic() < t_end:
            errors = tab.run(click="New seed")
            clicks += 1
            if clicks % 10 == 0:
                rss = server.memory_info().rss / 2**20
                print(f"click {clicks:4d}: server RSS {rss:6.0f} MB (peak {peak[0]:.0f}) {errors}")
        time.sleep(2)
        print(
            f"after {clicks} clicks in {args.seconds:.0f} s: server RSS "
            f"{server.memory_info().rss / 2**20:.0f} MB, peak {peak[0]:.0f} MB"
        )
    finally:
        stop.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
