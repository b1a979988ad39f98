"""Several app replicas behind nginx with sticky sessions (deploy/).

``test_nginx_config_is_valid`` checks deploy/nginx.conf with ``nginx -t`` (upstreams pointed at
loopback). ``test_two_replicas_behind_nginx`` starts two replicas with the README command and
Debian's nginx on loopback, and checks that a browser's cookie pins it to one replica, that fresh
browsers are spread over both, and that a Streamlit websocket session runs through the proxy. It
is run by ``make deploy-test`` (skipped otherwise, and wherever nginx is not installed:
``apt-get install -y nginx``).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
needs_nginx = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (apt-get install -y nginx)"
)


def _replicas_module():
    """benchmarks/replicas.py (not a package): its ``render`` and ``free_port`` are used here. It
    imports ``benchmarks/load_server.py`` as a script in that folder would (its folder on the path
    while it loads)."""
    spec = importlib.util.spec_from_file_location("replicas", ROOT / "benchmarks" / "replicas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


_REPLICAS = _replicas_module()
_free_port = _REPLICAS.free_port
render = _REPLICAS.render
_wait_healthy = _REPLICAS.wait_healthy


@needs_nginx
def test_nginx_config_is_valid(tmp_path: Path) -> None:
    conf = render(tmp_path, [_free_port(), _free_port()], _free_port())
    out = subprocess.run(
        [NGINX, "-t", "-c", str(conf)], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    text = conf.read_text()
    for needed in (
        "proxy_set_header Upgrade $http_upgrade",
        "proxy_set_header Host $host",
        "hash $dpmean_route",
    ):
        assert needed in text


def _get(port: int, cookie: str | None = None) -> tuple[str, str | None]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/_stcore/health")
    if cookie:
        req.add_header("Cookie", cookie)
    with urllib.request.urlopen(req, timeout=30) as r:
        set_cookie = "; ".join(r.headers.get_all("Set-Cookie") or [])
        route = re.search(r"dpmean_route=([^;]+)", set_cookie)
        return r.headers["X-Dpmean-Replica"], route.group(1) if route else None


def _script_run_through(port: int, cookie: str) -> str:
    """One Streamlit script run (the Home page) over the proxied websocket; the final status."""
    websocket = pytest.importorskip("websocket")
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    ws = websocket.create_connection(
        f"ws://127.0.0.1:{port}/_stcore/stream",
        subprotocols=["streamlit"],
        origin=f"http://127.0.0.1:{port}",
        cookie=cookie,
        timeout=120,
    )
    try:
        msg = BackMsg()
        msg.rerun_script.query_string = "seed=3"
        ws.send_binary(msg.SerializeToString())
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(ws.recv())
            if (
                fwd.WhichOneof("type") == "script_finished" and fwd.script_finished != 2
            ):  # 2: early, for a rerun
                return ForwardMsg.ScriptFinishedStatus.Name(fwd.script_finished)
    finally:
        ws.close()


@needs_nginx
@pytest.mark.skipif(os.environ.get("DPMEAN_DEPLOY_TEST") != "1", reason="run by `make deploy-test`")
def test_two_replicas_behind_nginx(tmp_path: Path) -> None:
    ports = [_free_port(), _free_port()]
    listen = _free_port()
    env = {
        **os.environ,
        "DPMEAN_WORKERS": "0",
        "STREAMLIT_SERVER_COOKIE_SECRET": "test-only-shared-secret",
    }
    procs = [
        subprocess.Popen(
            [
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
                str(p),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for p in ports
    ]
    nginx = None
    try:
        conf = render(tmp_path, ports, listen)
        nginx = subprocess.Popen(
            [NGINX, "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for p, proc in zip(ports, procs, strict=True):
            _wait_healthy(p, proc)
        _wait_healthy(listen, nginx, 30)
        # a browser keeps its replica: the cookie of its first answer pins every later request
        replica, route = _get(listen)
        assert route is not None, "nginx set no dpmean_route cookie"
        assert {_get(listen, f"dpmean_route={route}")[0] for _ in range(5)} == {replica}
        # fresh browsers are spread over both replicas (all 20 on one: probability 2 * 2**-20)
        assert {_get(listen)[0] for _ in range(20)} == {f"127.0.0.1:{p}" for p in ports}
        # and a Streamlit session runs through the proxy (websocket upgrade)
        assert _script_run_through(listen, f"dpmean_route={route}") == "FINISHED_SUCCESSFULLY"
    finally:
        for proc in [*procs, *([nginx] if nginx else [])]:
            try:
                os.killpg(proc.pid, 15)
                proc.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(proc.pid, 9)
