"""Where a page view's CPU goes: cProfile of one page's first view at the default settings, as
``benchmarks/page_times.py`` runs it (``streamlit.testing``, a seed no earlier view used, the
process-wide caches warmed by one untimed view).

Streamlit runs a page in its script thread, so the profiler is switched on inside that thread (a
wrapper around ``ScriptRunner._run_script_thread``). Use ``DPMEAN_WORKERS=0`` to keep the heavy
numeric work in this process, where the profiler sees it (with the pool it runs in the workers).

Usage: ``DPMEAN_WORKERS=0 python benchmarks/profile_pages.py compare [--sort tottime] [--top 40]
[--out compare.prof] [--refine]`` (``make profile PAGE=compare``). ``--refine`` profiles the
session's second run instead (Compare's refinement without a pool, as ``page_times.py --refine``
times it), with CPU time as the profiler's clock.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from pathlib import Path

from streamlit.runtime.scriptrunner import script_runner
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, app_test, local_script_runner

ROOT = Path(__file__).resolve().parent.parent
PROFILER: list[cProfile.Profile | None] = [None]
#: One compiled-script cache for every session, as a server's ``Runtime`` keeps (see
#: ``benchmarks/page_times.py``): a profile of a view then leaves out compiling the page.
SCRIPTS = ScriptCache()
app_test.ScriptCache = local_script_runner.ScriptCache = lambda: SCRIPTS  # type: ignore[attr-defined,misc]
_run_script_thread = script_runner.ScriptRunner._run_script_thread


def _profiled_thread(self: script_runner.ScriptRunner) -> None:
    prof = PROFILER[0]
    if prof is None:
        return _run_script_thread(self)
    prof.enable()
    try:
        return _run_script_thread(self)
    finally:
        prof.disable()


script_runner.ScriptRunner._run_script_thread = _profiled_thread  # type: ignore[method-assign]


def view(page: str, seed: int, prof: cProfile.Profile | None = None, refine: bool = False) -> float:
    """Seconds of the script run that opens ``page`` in a new session on ``seed`` (``refine``: of
    the session's next run)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.query_params["seed"] = str(seed)
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py")
    if refine:
        at.run()
    PROFILER[0] = prof
    try:
        t0 = time.perf_counter()
        at.run()
        seconds = time.perf_counter() - t0
    finally:
        PROFILER[0] = None
    if at.exception:
        raise RuntimeError(f"{page}: {at.exception[0].message}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("page", help="a file name in pages/ without .py, e.g. compare")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key (default cumulative)")
    parser.add_argument("--top", type=int, default=40, help="rows to print (default 40)")
    parser.add_argument("--out", type=Path, help="also save the raw profile here (pstats)")
    parser.add_argument("--refine", action="store_true", help="profile the session's next run")
    args = parser.parse_args()
    view(args.page, 700_000, refine=args.refine)  # warm: imports, the pool, seed-free caches
    prof = cProfile.Profile(time.process_time) if args.refine else cProfile.Profile()
    seconds = view(args.page, 700_001, prof, args.refine)
    what = " (next run: refinement)" if args.refine else ""
    print(f"# {args.page}{what}: {seconds:.2f} s under the profiler")
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue().replace(str(ROOT) + "/", ""))
    if args.out:
        stats.dump_stats(args.out)


if __name__ == "__main__":
    main()
