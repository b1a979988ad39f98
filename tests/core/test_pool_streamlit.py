"""pages._pool on Streamlit's public API: a session keeps one lane key (kept in
``st.session_state``), and a bounded job in a process of its own ends when its visitor leaves or
the run is replaced (``stop_point``: a session-state read, where Streamlit stops a run that was
asked to stop).

The served tests start a one-line app with the README's ``streamlit run`` on a free loopback port
and speak Streamlit's websocket protocol with tornado (which Streamlit itself depends on), so no
browser is needed. They fail if the job outlives its visitor: the job sleeps 60 s under a 120 s
budget, and the test allows 15 s.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.testing.v1 import AppTest
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

ROOT = Path(__file__).resolve().parents[2]

KEY_APP = """
import streamlit as st
from pages._pool import session_key, stop_point
st.button("again")
st.write(f"key {session_key()} {session_key()} go on {not stop_point()}")
"""

JOB_APP = """
import time
import streamlit as st
from pages._pool import run_bounded
st.write("started")
run_bounded(time.sleep, 60, seconds=120, what="A long job")
st.write("finished")
"""


def _key_of(at: AppTest) -> str:
    words = at.markdown[0].value.split()
    assert words[1] == words[2], "the key changed within one run"
    assert words[-1] == "True", "stop_point stopped a run nobody asked to stop"
    return words[1]


def test_a_session_keeps_one_lane_key_and_two_sessions_have_two(tmp_path: Path) -> None:
    (tmp_path / "key_app.py").write_text(KEY_APP)
    sys.path.insert(0, str(ROOT))
    try:
        one = AppTest.from_file(str(tmp_path / "key_app.py"), default_timeout=60).run()
        first = _key_of(one)
        one.button[0].click().run()
        assert _key_of(one) == first, "a rerun of the same session got another lane"
        other = AppTest.from_file(str(tmp_path / "key_app.py"), default_timeout=60).run()
        assert _key_of(other) != first, "two sessions share a lane: no fairness between them"
    finally:
        sys.path.remove(str(ROOT))


# ---------------------------------------------------------------------------------------------
# served: the job ends with its visitor


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """The job app served on a free port: (port, server pid)."""
    (tmp_path / "job_app.py").write_text(JOB_APP)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DPMEAN_WORKERS": "2"}
    cmd = [sys.executable, "-m", "streamlit", "run", str(tmp_path / "job_app.py")]
    cmd += ["--server.headless", "true", "--server.address", "127.0.0.1"]
    cmd += ["--server.port", str(port)]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("the test app did not start")
                time.sleep(0.3)
        yield port, proc.pid
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=20)


def _jobs(server: int) -> set[int]:
    """Pids of the stoppable jobs: the children of the server's fork server."""
    jobs: set[int] = set()
    for p in psutil.Process(server).children(recursive=True):
        try:
            if any("forkserver" in part for part in p.cmdline()):
                jobs |= {c.pid for c in p.children()}
        except psutil.Error:
            continue
    return jobs


async def _until(test, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if test():
            return True
        await asyncio.sleep(0.2)
    return False


def _rerun() -> bytes:
    msg = BackMsg()
    msg.rerun_script.query_string = ""
    msg.rerun_script.page_script_hash = ""
    return msg.SerializeToString()


async def _start_job(port: int, server: int):
    """A visitor opens the app (its run starts the job): the connection and the job's pid."""
    request = HTTPRequest(
        f"ws://127.0.0.1:{port}/_stcore/stream", headers={"Origin": f"http://127.0.0.1:{port}"}
    )
    conn = await websocket_connect(request, subprotocols=["streamlit"])
    await conn.write_message(_rerun(), binary=True)
    assert await _until(lambda: len(_jobs(server)) == 1), "the job never started"
    return conn, next(iter(_jobs(server)))


async def _leave(conn) -> None:
    """The visitor closes the tab; returns once the connection is closed (its socket released)."""
    conn.close()
    while await conn.read_message() is not None:
        pass


def test_the_job_ends_when_its_visitor_leaves(served: tuple[int, int]) -> None:
    port, server = served

    async def visit() -> None:
        conn, job = await _start_job(port, server)
        await _leave(conn)
        assert await _until(lambda: job not in _jobs(server)), "the job outlived its visitor"

    asyncio.run(visit())


def test_a_rerun_ends_the_old_runs_job_and_starts_its_own(served: tuple[int, int]) -> None:
    port, server = served

    async def visit() -> None:
        conn, old = await _start_job(port, server)
        await conn.write_message(_rerun(), binary=True)  # a widget changed: a new run
        assert await _until(lambda: old not in _jobs(server)), "the replaced run's job goes on"
        assert await _until(lambda: len(_jobs(server)) == 1), "the new run has no job"
        await _leave(conn)

    asyncio.run(visit())
