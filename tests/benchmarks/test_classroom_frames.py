"""benchmarks/classroom_browsers.py: the lecturer's step read from its page's websocket frames
(when the run was asked for, when the server sent the new bar, when the run ended) and the
table benchmarks/classroom.py writes from them."""

from __future__ import annotations

import base64
import importlib
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[2]


def _module(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # as the benchmark runs it
    return importlib.import_module("classroom_browsers")


def _b64(msg) -> str:
    return base64.b64encode(msg.SerializeToString()).decode()


def _run(fragment: str = "") -> str:
    msg = BackMsg()
    msg.rerun_script.query_string = "present=1"
    msg.rerun_script.fragment_id = fragment
    return _b64(msg)


def _bar(k: int) -> str:
    msg = ForwardMsg()
    msg.delta.new_element.markdown.body = f"<span>{k} / 8 · </span><b>Step</b>"
    return _b64(msg)


def _finished(status: str = "FINISHED_SUCCESSFULLY") -> str:
    msg = ForwardMsg()
    msg.script_finished = ForwardMsg.ScriptFinishedStatus.Value(status)
    return _b64(msg)


def test_a_step_is_read_from_the_frames_after_its_press(monkeypatch):
    cb = _module(monkeypatch)
    log = [
        [99.0, "sent", _run()],  # before the press: not this step's
        [100.2, "sent", _run("poll")],  # the room's poll (a fragment), not the step's run
        [100.3, "received", _finished("FINISHED_FRAGMENT_RUN_SUCCESSFULLY")],
        [100.5, "sent", _run()],
        [100.9, "received", _bar(2)],  # an old bar would not count: slide 3 is asked for
        [101.1, "received", _bar(3)],
        [101.6, "received", _finished()],
    ]
    frames = cb.Frames(log)
    step = frames.step(3, pressed=100.0)
    assert step == {"sent": 100.5, "served": 101.1, "ended": 101.6}
    assert cb.Frames(log[:4]).step(3, pressed=100.0) == {"sent": 100.5}  # no bar yet
    times = {"pressed": {"3": 100.0}, "server": {"3": step}, "lecturer": {"3": 102.0}}
    row = cb.lecturer_table(times).splitlines()[-1]
    assert row == "| 2 → 3 | 0.50 s | 1.10 s | 1.60 s | 2.00 s |"
    times["server"] = {}  # e.g. a page that logged nothing
    assert cb.lecturer_table(times).splitlines()[-1] == "| 2 → 3 | - | - | - | 2.00 s |"
