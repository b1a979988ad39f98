"""The classroom load test against replicas behind nginx, on this machine.

Compiles numba's kernels once (``python -m dpcore._kernels``, as deploy/Dockerfile does before
serving), then starts ``--replicas`` copies of the app with the README command (each on its own
loopback port, ``DPMEAN_WORKERS=--workers`` each, one shared cookie secret), Debian's nginx with
``deploy/nginx.conf`` (its upstreams pointed at those ports, sticky by the ``dpmean_route``
cookie, websockets passed through; deploy/README.md), and then runs ``benchmarks/load.py
--target`` against nginx with the remaining arguments, after one quick journey on each replica
directly (a warm-up through nginx would reach only one of them). Everything it started is
stopped at the end.

A non-rendering client's session is one websocket, so it stays on the replica nginx picked for
that connection; ``X-Dpmean-Replica`` shows the spread (printed before the load test: 20 fresh
clients' replicas).

Usage::

    make load-replicas                                  # 2 replicas, 30 students
    python benchmarks/replicas.py --replicas 2 -- --sessions 30

Needs nginx (``apt-get install -y nginx``). The numbers are wall-clock times of the machine it
runs on: on one 2-core machine, two replicas share the same two cores; what they add is a second
Python process (a second GIL) for the script runs.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from load_server import ROOT, free_port


def render(tmp: Path, replicas: list[int], listen: int) -> Path:
    """deploy/nginx.conf with its upstreams on loopback ``replicas`` and its files under ``tmp``."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    servers = "".join(f"        server 127.0.0.1:{p};\n" for p in replicas)
    text, count = re.subn(r"(?m)^\s*server app\d+:8501;\n", "", text)
    if count < 2:
        raise ValueError("deploy/nginx.conf should list its replicas as `server appN:8501;`")
    text = text.replace(
        "hash $dpmean_route consistent;\n", "hash $dpmean_route consistent;\n" + servers
    )
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{listen};").replace(
        "/tmp/dpmean-nginx", str(tmp / "ng")
    )
    conf = tmp / "nginx.conf"
    conf.write_text(text)
    return conf


def wait_healthy(port: int, proc: subprocess.Popen, limit: float = 120) -> None:
    """Wait until ``/_stcore/health`` answers on ``port``; raise if ``proc`` exits first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"a process exited with code {proc.returncode} before serving")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"nothing answered on port {port} within {limit:.0f} s")


def warm_kernels() -> None:
    """Compile every numba kernel once before the replicas start (``python -m dpcore.warm``;
    deploy/README.md): they share this checkout's cache, so no replica compiles on a first run."""
    subprocess.run([sys.executable, "-m", "dpcore.warm"], cwd=ROOT, check=False)


def start_replica(port: int, workers: int, secret: str) -> subprocess.Popen:
    """The README command on ``port`` (loopback) with ``workers`` pool processes."""
    env = {
        **os.environ,
        "DPMEAN_WORKERS": str(workers),
        "STREAMLIT_SERVER_COOKIE_SECRET": secret,
        "DPMEAN_DATA_DIR": tempfile.mkdtemp(prefix="dpmean-replica-"),
    }
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true"]
    cmd += ["--server.address", "127.0.0.1", "--server.port", str(port)]
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def spread(listen: int, clients: int = 20) -> dict[str, int]:
    """Which replica answered each of ``clients`` fresh (cookie-less) requests."""
    seen: collections.Counter[str] = collections.Counter()
    for _ in range(clients):
        with urllib.request.urlopen(f"http://127.0.0.1:{listen}/_stcore/health", timeout=30) as r:
            seen[r.headers["X-Dpmean-Replica"]] += 1
    return dict(seen)


def stop(procs: list[subprocess.Popen]) -> None:
    """Stop every process group started here."""
    for proc in procs:
        try:
            os.killpg(proc.pid, 15)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, 9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2, help="app replicas (default 2)")
    parser.add_argument("--workers", type=int, default=1, help="pool workers per replica")
    parser.add_argument("load_args", nargs="*", help="arguments for benchmarks/load.py")
    args = parser.parse_args(argv)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        print("nginx is not installed: apt-get install -y nginx", file=sys.stderr)
        return 2
    ports = [free_port() for _ in range(args.replicas)]
    listen = free_port()
    secret = os.urandom(32).hex()
    warm_kernels()
    procs = [start_replica(p, args.workers, secret) for p in ports]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            conf = render(Path(tmp), ports, listen)
            cmd = [nginx, "-c", str(conf), "-g", "daemon off;"]
            procs.append(subprocess.Popen(cmd, start_new_session=True))
            for port, proc in zip(ports, procs, strict=False):
                wait_healthy(port, proc)
            wait_healthy(listen, procs[-1], 30)
            print(f"{args.replicas} replicas behind nginx on 127.0.0.1:{listen}; ", end="")
            print(f"20 fresh clients went to {spread(listen)}", flush=True)
            load = [sys.executable, str(ROOT / "benchmarks" / "load.py")]
            for port in ports:  # each replica warmed directly (nginx would warm only one of them)
                quick = ["--sessions", "1", "--arrivals", "0", "--think", "0", "0"]
                subprocess.run(
                    [*load, "--target", f"127.0.0.1:{port}", *quick], cwd=ROOT, check=False
                )
            load += ["--target", f"127.0.0.1:{listen}", *args.load_args]
            return subprocess.call(load, cwd=ROOT)
        finally:
            stop(procs)


if __name__ == "__main__":
    raise SystemExit(main())
