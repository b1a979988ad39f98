"""One session alone: the time of each page's first view at the default settings, under
``streamlit.testing`` (the script run only: no browser, no websocket).

Every view uses a seed no earlier view used (nothing of it is cached yet, as for a student who
opens the page); the app's process-wide caches (the worker pool, the seed-free parts, the compiled
page scripts: :data:`SCRIPTS`) are warmed by one untimed run first. Prints the median and the
slowest of ``--seeds`` views per page.

Usage: ``python benchmarks/page_times.py [--seeds 3] [--pages compare plan_step_by_step]``
(``DPMEAN_PROGRESSIVE=0`` to time Compare's full sweep instead of its first result).

``--cpu`` also prints the CPU seconds of each view (this process's, so run it with
``DPMEAN_WORKERS=0`` to keep the work here): on a machine shared with other jobs, wall times swing
with their load, CPU seconds much less. ``--query cmp_reps=3`` adds URL parameters (this one makes
Compare's whole sweep the work of its first result). ``--app-dir DIR`` times another checkout's
app (run with ``PYTHONPATH=DIR`` so that its ``dpcore`` is the one imported), for a before/after.

``--refine`` also times the session's next run: on Compare without a pool it is the refinement
of the first result into the full sweep, and its redraw.

The table's first and last lines give the machine's speed at that moment (:func:`machine_speed`:
the CPU seconds of a fixed pure-Python workload and of a fixed NumPy sort). The same code's views
measured hours apart on this shared 2-core machine differed by up to 60%, and these two numbers
moved with them; compare tables taken at different times only together with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, app_test, local_script_runner

ROOT = Path(__file__).resolve().parent.parent
APP = [ROOT]  # the checkout whose app.py is timed (--app-dir)
QUERY: dict[str, str] = {}  # extra URL parameters (--query)

#: One bytecode cache for every session, as a server has (Streamlit's Runtime keeps one
#: ``ScriptCache``: each page script is read, rewritten by Streamlit's "magic" pass and compiled
#: once per process). ``AppTest`` makes a new one for every run, which would count that
#: compilation (60-100 ms a page) in every view timed here and in none a student waits for.
SCRIPTS = ScriptCache()
app_test.ScriptCache = local_script_runner.ScriptCache = lambda: SCRIPTS  # type: ignore[attr-defined,misc]
PAGES = [
    "home",
    "privacy_budget",
    "plan_step_by_step",
    "side_by_side",
    "compare",
    "winsorized",
    "simplex",
    "binary_product",
    "your_data",
    "privacy_audit",
]


def machine_speed() -> tuple[float, float]:
    """CPU seconds (best of 3) of a fixed pure-Python workload (a dict and string loop of 200,000
    steps) and of ``np.sort`` of a fixed (2000, 512) array along its columns: how fast this machine
    runs interpreted and vectorised code right now."""
    x = np.random.default_rng(0).standard_normal((2000, 512))
    py, nps = [], []
    for _ in range(3):
        c0 = time.process_time()
        d: dict[str, int] = {}
        for i in range(200_000):
            d[str(i % 997)] = d.get(str(i % 991), 0) + i
        c1 = time.process_time()
        np.sort(x, axis=0)
        c2 = time.process_time()
        py.append(c1 - c0)
        nps.append(c2 - c1)
    return min(py), min(nps)


def speed_line(when: str) -> str:
    """One line for the table: :func:`machine_speed` now."""
    py, nps = machine_speed()
    return f"# machine speed {when}: Python workload {py:.3f} s, NumPy sort {nps:.4f} s (CPU, best of 3)"


def first_view(page: str, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds of the script run that opens ``page`` in a session on ``seed``."""
    return views(page, seed)[0]


def views(page: str, seed: int, refine: bool = False) -> list[tuple[float, float]]:
    """Wall and CPU seconds of the script run that opens ``page`` in a session on ``seed`` and,
    with ``refine``, of the next run of the same session: on Compare without a pool
    (``DPMEAN_WORKERS=0``) that run refines the first result into the full sweep and draws it."""
    at = AppTest.from_file(str(APP[0] / "app.py"), default_timeout=600)
    at.query_params["seed"] = str(seed)
    for k, v in QUERY.items():
        at.query_params[k] = v
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py")
    out = []
    for _ in range(2 if refine else 1):
        t0, c0 = time.perf_counter(), time.process_time()
        at.run()
        out.append((time.perf_counter() - t0, time.process_time() - c0))
        if at.exception:
            raise RuntimeError(f"{page}: {at.exception[0].message}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3, help="views per page (default 3)")
    parser.add_argument("--pages", nargs="+", default=PAGES, choices=PAGES)
    parser.add_argument("--cpu", action="store_true", help="also print CPU seconds per view")
    parser.add_argument("--query", nargs="*", default=[], help="extra URL parameters, k=v")
    parser.add_argument(
        "--refine", action="store_true", help="also time each session's next run (the refinement)"
    )
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="checkout whose app.py to time")
    args = parser.parse_args()
    APP[0] = args.app_dir.resolve()
    QUERY.update(q.split("=", 1) for q in args.query)
    print(
        f"# load {os.getloadavg()[0]:.2f} (1 min); DPMEAN_WORKERS={os.environ.get('DPMEAN_WORKERS', 'default')}, "
        f"DPMEAN_PROGRESSIVE={os.environ.get('DPMEAN_PROGRESSIVE', '1')}; app {APP[0]}; query {QUERY}"
    )
    print(speed_line("before"))
    cpu_cols = " CPU median | CPU slowest |" if args.cpu else ""
    print(f"| page | median | slowest |{cpu_cols}\n|---|---|---|{'---|---|' if args.cpu else ''}")
    seeds = iter(range(500_000, 600_000))
    for page in args.pages:
        first_view(page, next(seeds))  # warm: imports, the pool, seed-free caches
        runs = [views(page, next(seeds), args.refine) for _ in range(args.seeds)]
        for i, what in enumerate(["", " (next run: refinement)"][: len(runs[0])]):
            wall, cpu = [r[i][0] for r in runs], [r[i][1] for r in runs]
            row = f"| {page}{what} | {statistics.median(wall):.2f} s | {max(wall):.2f} s |"
            if args.cpu:
                row += f" {statistics.median(cpu):.3f} s | {max(cpu):.3f} s |"
            print(row, flush=True)
    print(speed_line("after"))


if __name__ == "__main__":
    main()
