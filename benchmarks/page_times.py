"""One session alone: the time of each page's first view at the default settings, under
``streamlit.testing`` (the script run only: no browser, no websocket).

Every view uses a seed no earlier view used (nothing of it is cached yet, as for a student who
opens the page); the app's process-wide caches (the worker pool, the seed-free parts) are warmed
by one untimed run first. Prints the median and the slowest of ``--seeds`` views per page.

Usage: ``python benchmarks/page_times.py [--seeds 3] [--pages compare plan_step_by_step]``
(``DPMEAN_PROGRESSIVE=0`` to time Compare's full sweep instead of its first result).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    "home",
    "privacy_budget",
    "plan_step_by_step",
    "compare",
    "winsorized",
    "simplex",
    "binary_product",
    "your_data",
]


def first_view(page: str, seed: int) -> float:
    """Seconds of the script run that opens ``page`` in a session on ``seed``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["seed"] = str(seed)
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py")
    t0 = time.perf_counter()
    at.run()
    seconds = time.perf_counter() - t0
    if at.exception:
        raise RuntimeError(f"{page}: {at.exception[0].message}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3, help="views per page (default 3)")
    parser.add_argument("--pages", nargs="+", default=PAGES, choices=PAGES)
    args = parser.parse_args()
    print(
        f"# load {os.getloadavg()[0]:.2f} (1 min); DPMEAN_WORKERS={os.environ.get('DPMEAN_WORKERS', 'default')}, "
        f"DPMEAN_PROGRESSIVE={os.environ.get('DPMEAN_PROGRESSIVE', '1')}"
    )
    print("| page | median | slowest |\n|---|---|---|")
    seeds = iter(range(500_000, 600_000))
    for page in args.pages:
        first_view(page, next(seeds))  # warm: imports, the pool, seed-free caches
        times = [first_view(page, next(seeds)) for _ in range(args.seeds)]
        print(f"| {page} | {statistics.median(times):.2f} s | {max(times):.2f} s |", flush=True)


if __name__ == "__main__":
    main()
