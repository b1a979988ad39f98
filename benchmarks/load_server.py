"""The app's server for the benchmarks (``benchmarks/load.py``, ``classroom.py``,
``replicas.py``): a free loopback port, the README command (``make run``) started and stopped,
and its memory sampled. Standard library and psutil only; under gevent (``load`` imports Locust,
which patches ``time.sleep``) the waits here let the other greenlets run.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, workers: int | None, app_dir: Path = ROOT) -> subprocess.Popen:
    """The README command (``make run``), on ``port``, loopback only, in ``app_dir``."""
    env = dict(os.environ)
    if workers is not None:
        env["DPMEAN_WORKERS"] = str(workers)
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
    proc = subprocess.Popen(
        cmd,
        cwd=app_dir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with code {proc.returncode} before it served")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    stop_server(proc)
    raise RuntimeError("the app did not answer /_stcore/health within 120 s")


def stop_server(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)


def _pss(proc: psutil.Process) -> int:
    """Proportional set size (shared pages split between the processes sharing them), else RSS."""
    try:
        return int(proc.memory_full_info().pss)
    except (psutil.AccessDenied, AttributeError):
        return int(proc.memory_info().rss)


def memory_sampler(pid: int, peak: list[float]) -> None:
    """Keep ``peak[0]`` at the largest memory (MB, PSS) of the server and its children (the worker
    pool) seen so far. PSS, not RSS: the workers share the pages of the fork server they come from,
    and a sum of RSS would count those pages once per process."""
    root = psutil.Process(pid)
    while True:
        try:
            total = _pss(root) + sum(_pss(c) for c in root.children(recursive=True))
            peak[0] = max(peak[0], total / 2**20)
        except psutil.Error:
            pass
        time.sleep(0.2)
