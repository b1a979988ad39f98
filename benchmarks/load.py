"""Classroom load test: N students open the app's link at once.

Starts the app with the README command on a free loopback port (127.0.0.1 only), then lets Locust
drive N concurrent sessions. Each session speaks Streamlit's own websocket protocol (protobuf
``BackMsg``/``ForwardMsg`` over ``/_stcore/stream``, as the browser does, so the browser's own
cost is left out) and, on its own seed, opens Home, then PLAN step by step, then Compare
estimators, then Side by side at the default settings, as a student in a lecture would: the
students arrive spread over ``--arrivals`` seconds (default 30: a class opening the link from the
slide) and read each page ``--think`` seconds (default 10 to 20, drawn per page) before opening
the next; while a student reads Compare, the page polls for its refined result as the browser
does (the next page comes when both the reading and the refinement are done). ``--arrivals 0
--think 0 0`` is the old stress test: every session at once, no reading. A page counts as
rendered when the server reports the script run finished (``script_finished``: every element of
the page has been sent); its time is the first view's, from the request. Prints one row per
level::

    sessions | Home | PLAN | Compare | Compare refined | Side by side (p50 / p95 each)
    | journeys done | distinct seeds on Compare | errors | peak server memory

Errors are exceptions shown on a page, ``st.error`` messages, timeouts and broken connections; a
failed view counts in its page's percentiles with the time it took to fail (a lower bound: a view
that timed out took at least ``--timeout``). "distinct seeds on Compare" counts the seeds read back
from the URLs of the Compare views that rendered (one per student when every seed reached it).
Peak memory is the proportional set size (PSS) of the server process plus its children (the worker
pool), sampled every 0.2 s. Every
level starts a fresh server (cold caches), warms it with one session on a seed of its own, and
runs its sessions on seeds no other level uses. Bounded: at most ``--timeout`` seconds per page and
``--level-timeout`` per level, and ``--total-timeout`` for the whole table (a level the budget
cannot fit prints a "not run" row, so the table always has every level); the server is stopped at
the end.

Usage::

    make load                                   # installs the [load] extra, levels 1, 5, 10, 20, 30
    python benchmarks/load.py --sessions 5 10 --workers 0   # the in-process engine (no pool)
    python benchmarks/load.py --sessions 30 --arrivals 0 --think 0 0   # all at once, no reading

The numbers are wall-clock times on the machine it runs on: note its load (``uptime``) beside them.

The websocket client is ``benchmarks/load_client.py``, the server's start, stop and memory
``benchmarks/load_server.py`` (``benchmarks/classroom.py`` and ``replicas.py`` use them too).
"""

# ruff: noqa: I001 - locust (gevent) must be imported before the standard library modules it patches
from __future__ import annotations

# Locust patches the standard library for gevent on import: it must come first.
import locust
import locust.exception
from locust import User, events
from locust.env import Environment

import argparse
import contextlib
import itertools
import random
from typing import ClassVar
import os
import sys
import time
from pathlib import Path

import gevent
import numpy as np
import psutil

from load_client import PageError, StreamlitClient, url_seed
from load_server import ROOT, free_port, memory_sampler, start_server, stop_server

JOURNEY = ("Home", "PLAN step by step", "Compare estimators", "Side by side")
#: a student's pace (docs: benchmarks/results/load.md): arrivals spread over this many seconds,
#: and this many seconds (lowest, highest) reading each page before the next
ARRIVALS = 30.0
THINK = (10.0, 20.0)


# ---------------------------------------------------------------------------------------------
# Locust: one user = one student's journey, then it stops


class Classroom:
    """Shared state of one level: the server's host:port, the seeds handed out, the raw timings."""

    address = ""
    timeout = 120.0
    seeds: itertools.count = itertools.count()
    done = 0
    times: ClassVar[dict[str, list[float]]] = {}
    errors: ClassVar[list[str]] = []
    #: page title -> the seeds its views were drawn at (read back from each view's URL)
    seeds_seen: ClassVar[dict[str, list[int]]] = {}
    #: the students' pace: arrivals spread over ``arrivals`` s, ``think`` s (low, high) per page
    arrivals = ARRIVALS
    think: tuple[float, float] = THINK


class Student(User):
    """Arrives, then opens Home, PLAN step by step, Compare estimators and Side by side on a seed
    of its own, reading each page a while (:class:`Classroom`'s ``arrivals`` and ``think``)."""

    wait_time = locust.constant(0)

    def _page(
        self, client: StreamlitClient, title: str, first: bool, seed: int, think: float
    ) -> None:
        """Open ``title`` (the first page with ``?seed=``), then read it ``think`` seconds (and
        until its refinement, if it polls for one, has come)."""
        exc: Exception | None = None
        refined = None
        t0 = time.perf_counter()
        try:
            result = client.run_page(
                None if first else title, query=f"seed={seed}" if first else None
            )
            seconds = result.seconds
            if result.errors:
                exc = PageError("; ".join(result.errors))
            refined = client.wait_refined(t0)
            gevent.sleep(max(0.0, t0 + seconds + think - time.perf_counter()))
        except Exception as err:  # noqa: BLE001 - every failure is counted, none stops the test
            seconds, exc = time.perf_counter() - t0, err  # (Locust's statistics refuse a NaN)
        events.request.fire(
            request_type="WS",
            name=title,
            response_time=seconds * 1e3,
            response_length=0,
            exception=exc,
            context={},
        )
        Classroom.times.setdefault(title, []).append(seconds)  # a failed view: at least this long
        if exc is not None:
            Classroom.errors.append(f"{title} (seed {seed}): {exc}")
            raise locust.exception.StopUser
        Classroom.seeds_seen.setdefault(title, []).append(url_seed(client.query))
        if refined is not None:
            Classroom.times.setdefault(f"{title} refined", []).append(refined)

    @locust.task
    def journey(self) -> None:
        seed = next(Classroom.seeds)
        pace = random.Random(seed)  # the student's own arrival and reading times
        client = None
        try:
            gevent.sleep(pace.uniform(0.0, Classroom.arrivals))
            client = StreamlitClient(Classroom.address, Classroom.timeout)
            for i, title in enumerate(JOURNEY):
                last = i == len(JOURNEY) - 1
                think = 0.0 if last else pace.uniform(*Classroom.think)
                self._page(client, title, i == 0, seed, think)
        except locust.exception.StopUser:
            pass
        except Exception as err:  # noqa: BLE001 - a refused connection is an error, not a crash
            Classroom.errors.append(f"connect (seed {seed}): {err}")
        finally:
            if client is not None:
                client.close()
            Classroom.done += 1
        raise locust.exception.StopUser


# ---------------------------------------------------------------------------------------------
# the server


# ---------------------------------------------------------------------------------------------
# one level


def run_level(sessions: int, seed0: int, args: argparse.Namespace, limit: float) -> dict:
    """One level on a fresh server (or on ``--target``), its warm-up and its sessions within
    ``limit`` seconds each."""
    proc = None
    if args.target:
        Classroom.address = args.target
    else:
        port = free_port()
        proc = start_server(port, args.workers, args.app_dir)
        Classroom.address = f"127.0.0.1:{port}"
    peak = [0.0 if proc is not None else float("nan")]
    sampler = None if proc is None else gevent.spawn(memory_sampler, proc.pid, peak)
    try:
        Classroom.timeout = args.timeout
        if not args.no_warmup:  # one session first: imports and the shared, seed-free caches
            Classroom.seeds, Classroom.done, Classroom.times, Classroom.errors = (
                itertools.count(10**6 + seed0),
                0,
                {},
                [],
            )
            Classroom.seeds_seen = {}
            Classroom.arrivals, Classroom.think = 0.0, (0.0, 0.0)  # the warm-up does not read
            _drive(1, args, limit)
        Classroom.seeds, Classroom.done, Classroom.times, Classroom.errors = (
            itertools.repeat(seed0) if args.same_seed else itertools.count(seed0),
            0,
            {},
            [],
        )
        Classroom.seeds_seen = {}
        Classroom.arrivals, Classroom.think = args.arrivals, (args.think[0], args.think[1])
        t0 = time.perf_counter()
        _drive(sessions, args, limit)
        wall = time.perf_counter() - t0
        return {
            "sessions": sessions,
            "times": dict(Classroom.times),
            "seeds": {
                **{k: len(set(v)) for k, v in Classroom.seeds_seen.items()},
                **{f"{k} done": len(v) for k, v in Classroom.seeds_seen.items()},
            },
            "errors": list(Classroom.errors),
            "done": Classroom.done,
            "peak_mb": peak[0],
            "wall": wall,
        }
    finally:
        if sampler is not None and proc is not None:
            sampler.kill()
            stop_server(proc)


def _drive(sessions: int, args: argparse.Namespace, limit: float) -> None:
    env = Environment(user_classes=[Student], events=events)
    runner = env.create_local_runner()
    runner.start(sessions, spawn_rate=args.spawn_rate or sessions)
    deadline = time.monotonic() + limit
    while Classroom.done < sessions and time.monotonic() < deadline:
        gevent.sleep(0.1)
    if Classroom.done < sessions:
        Classroom.errors.append(
            f"{sessions - Classroom.done} sessions unfinished after {limit:.0f} s"
        )
    runner.quit()


# ---------------------------------------------------------------------------------------------
# CPU per view: one student at a time


def _cpu(server: psutil.Process) -> tuple[float, float, float]:
    """CPU seconds so far of the server process, of its live children at normal priority (the
    shared worker pool) and of those at a lower one (the background refinements' pool)."""
    own = server.cpu_times()
    pool = [0.0, 0.0]
    for child in server.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            t = child.cpu_times()
            pool[child.nice() > 0] += t.user + t.system
    return own.user + own.system, pool[0], pool[1]


def cpu_per_view(args: argparse.Namespace) -> int:
    """One student at a time on a fresh server (after one warm-up journey): the CPU seconds each
    view costs the server process (where every session's script runs, under one GIL), the shared
    worker pool and the background pool (psutil, 10 ms ticks), and its wall time; Compare's
    background refinement is waited for and counted on a row of its own (the part of it that ran
    while the view was still drawing counts in the view's row).

    With ``N`` students at once on ``C`` cores, the last one waits at least about ``N`` times the
    total CPU of a journey divided by ``C``, and at least ``N`` times the server's share of it
    where that share holds the GIL: the floor this table puts under the load table's p95.
    """
    port = free_port()
    proc = start_server(port, args.workers, args.app_dir)
    server = psutil.Process(proc.pid)
    pages = [*JOURNEY, f"{JOURNEY[2]} refined"]
    rows: dict[str, list[tuple[float, ...]]] = {p: [] for p in pages}
    seeds_seen: dict[str, set[int]] = {p: set() for p in JOURNEY}
    try:
        for i in range(args.cpu + 1):  # the first journey warms the server up (not counted)
            seed = 5000 + i
            client = StreamlitClient(f"127.0.0.1:{port}", args.timeout)
            try:
                for j, title in enumerate(JOURNEY):
                    before, t0 = _cpu(server), time.perf_counter()
                    result = client.run_page(
                        None if j == 0 else title, query=f"seed={seed}" if j == 0 else None
                    )
                    after, mid = _cpu(server), time.perf_counter()
                    if result.errors:
                        raise PageError(f"{title} (seed {seed}): {'; '.join(result.errors)}")
                    if i:
                        used = [b - a for a, b in zip(before, after, strict=True)]
                        rows[title].append((*used, mid - t0))
                        seeds_seen[title].add(url_seed(client.query))
                    if client.wait_refined(mid) is not None and i:
                        used = [b - a for a, b in zip(after, _cpu(server), strict=True)]
                        rows[pages[-1]].append((*used, time.perf_counter() - mid))
            finally:
                client.close()
    finally:
        stop_server(proc)
    print(
        "| view | server CPU | pool CPU | background pool CPU | total CPU | wall | seeds |\n"
        "|---|---|---|---|---|---|---|"
    )
    for page in pages:
        if not rows[page]:
            continue
        own, pool, low, wall = (float(np.median(c)) for c in zip(*rows[page], strict=True))
        seeds = len(seeds_seen.get(page, set())) or "—"
        print(
            f"| {page} | {own:.3f} s | {pool:.3f} s | {low:.3f} s | {own + pool + low:.3f} s "
            f"| {wall:.2f} s | {seeds} |"
        )
    print(f"# medians of {args.cpu} journeys, one at a time; load after: {os.getloadavg()[0]:.2f}")
    return 0


def fmt(xs: list[float]) -> str:
    if not xs:
        return "—"
    p50, p95 = np.percentile(xs, [50, 95])
    return f"{p50:.2f} / {p95:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.first_reps:
        os.environ["DPMEAN_FIRST_REPS"] = str(args.first_reps)
    if args.cpu:
        return cpu_per_view(args)
    if any(s < 1 or s > 100 for s in args.sessions):
        parser.error("--sessions: each level must be between 1 and 100")
    _print_header(args)
    failed = False
    end = time.monotonic() + args.total_timeout
    for level, sessions in enumerate(args.sessions):
        limit = min(args.level_timeout, end - time.monotonic())
        if limit < 60:  # not enough of the budget left for a server start, a warm-up and a level
            print(
                f"| {sessions} | not run: --total-timeout spent | — | — | — | — | 0/{sessions} "
                "| — | — | — |"
            )
            failed = True
            continue
        r = run_level(sessions, seed0=1000 * (level + 1), args=args, limit=limit)
        print(_level_row(sessions, r), flush=True)
        for e in r["errors"][:5]:
            print(f"#   error: {e}", flush=True)
        failed |= bool(r["errors"])
    print(f"# load after: {os.getloadavg()[0]:.2f} (1 min)", flush=True)
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    """The command line's options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sessions",
        type=int,
        nargs="+",
        default=[1, 5, 10, 20, 30],
        help="concurrent sessions per level (default: 1 5 10 20 30)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="DPMEAN_WORKERS for the server (0: no pool; default: the app's own default)",
    )
    parser.add_argument(
        "--spawn-rate",
        type=float,
        default=0,
        help="sessions started per second (default: all at once)",
    )
    parser.add_argument(
        "--timeout", type=float, default=120, help="seconds allowed per page (default 120)"
    )
    parser.add_argument(
        "--level-timeout", type=float, default=600, help="seconds allowed per level (default 600)"
    )
    parser.add_argument(
        "--total-timeout",
        type=float,
        default=2700,
        help="seconds allowed for the whole table (default 2700); levels it cannot fit are not run",
    )
    _journey_options(parser)
    return parser


def _journey_options(parser: argparse.ArgumentParser) -> None:
    """The options of the students' journey and of the server it runs against."""
    parser.add_argument(
        "--arrivals",
        type=float,
        default=ARRIVALS,
        metavar="S",
        help=f"the students arrive at random over S seconds (default {ARRIVALS:g}; 0: all at once)",
    )
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=list(THINK),
        metavar=("LOW", "HIGH"),
        help="seconds a student reads each page before the next, drawn between LOW and HIGH "
        f"(default {THINK[0]:g} {THINK[1]:g}; 0 0: no reading)",
    )
    parser.add_argument("--no-warmup", action="store_true", help="measure the cold server too")
    parser.add_argument(
        "--same-seed",
        action="store_true",
        help="every session of a level on one seed (a class opening the same link) instead of a "
        "seed each (the default: no session can reuse another's results)",
    )
    parser.add_argument(
        "--target",
        metavar="HOST:PORT",
        help="load an app already running there (e.g. replicas behind deploy/nginx.conf) instead of "
        "starting one per level: caches stay warm between levels and memory is not measured",
    )
    parser.add_argument(
        "--app-dir",
        type=Path,
        default=ROOT,
        help="checkout whose app.py to serve (e.g. an export of another branch, for a before/after)",
    )
    parser.add_argument(
        "--cpu",
        type=int,
        default=0,
        metavar="N",
        help="instead of the load table: N journeys one at a time, the CPU seconds each view costs "
        "the server process and the worker pools (medians)",
    )
    parser.add_argument(
        "--first-reps",
        type=int,
        default=0,
        metavar="R",
        help="DPMEAN_FIRST_REPS for the server: repetitions per point of Compare's first result "
        "(default: the app's own, 3)",
    )


def _print_header(args: argparse.Namespace) -> None:
    """The machine's load and the run's settings as a comment, then the table's header."""
    print(
        f"# load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min), "
        f"{os.cpu_count()} CPUs, workers={args.workers if args.workers is not None else 'default'}, "
        f"first result {os.environ.get('DPMEAN_FIRST_REPS', 'default')} reps, "
        + ("all sessions of a level on one seed" if args.same_seed else "a seed per session")
        + f", arrivals over {args.arrivals:g} s, {args.think[0]:g}-{args.think[1]:g} s per page",
        flush=True,
    )
    header = (
        "| sessions | Home p50 / p95 | PLAN p50 / p95 | Compare p50 / p95 | Compare refined p50 / p95 "
        "| Side by side p50 / p95 | journeys done | distinct seeds on Compare | errors "
        "| peak server memory |"
    )
    print(header + "\n|---|---|---|---|---|---|---|---|---|---|", flush=True)


def _level_row(sessions: int, r: dict) -> str:
    """One level's row of the table: each page's p50 / p95, journeys done, seeds, errors, memory."""
    t = r["times"]
    memory = "—" if np.isnan(r["peak_mb"]) else f"{r['peak_mb']:.0f} MB"
    return (
        f"| {sessions} | {fmt(t.get(JOURNEY[0], []))} | {fmt(t.get(JOURNEY[1], []))} | "
        f"{fmt(t.get(JOURNEY[2], []))} | {fmt(t.get(JOURNEY[2] + ' refined', []))} | "
        f"{fmt(t.get(JOURNEY[3], []))} | "
        f"{r['seeds'].get(JOURNEY[-1] + ' done', 0)}/{sessions} | {r['seeds'].get(JOURNEY[2], 0)} | "
        f"{len(r['errors'])} | {memory} |"
    )


if __name__ == "__main__":
    sys.exit(main())
