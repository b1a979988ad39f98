"""The non-rendering client of the load benchmarks (``benchmarks/load.py``,
``benchmarks/classroom.py``): one browser tab, minus the browser, speaking Streamlit's own
websocket protocol (protobuf ``BackMsg``/``ForwardMsg`` over ``/_stcore/stream``).

Import it after ``load`` (which imports Locust first, so gevent patches the standard library
before the websocket is made).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import websocket
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider as SliderProto
from streamlit.proto.WidgetStates_pb2 import WidgetState

FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
COMPILE_ERROR = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_WITH_COMPILE_ERROR")
FRAGMENT_DONE = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_FRAGMENT_RUN_SUCCESSFULLY")
ERROR_ALERT = 1  # Alert.Format.ERROR
WIDGETS = ("selectbox", "radio", "multiselect", "slider", "number_input")


class PageError(Exception):
    """A page run that did not render cleanly (exception or st.error on the page, or a timeout)."""


@dataclass
class PageResult:
    seconds: float
    errors: list[str] = field(default_factory=list)


class StreamlitClient:
    """One browser tab, minus the browser: a websocket speaking Streamlit's protobuf protocol."""

    def __init__(self, address: str, timeout: float) -> None:
        self.address, self.timeout = address, timeout  # host:port
        self.ws = websocket.create_connection(
            f"ws://{address}/_stcore/stream",
            subprotocols=["streamlit"],
            timeout=timeout,
            origin=f"http://{address}",
        )
        self.pages: dict[str, str] = {}  # page title -> page_script_hash
        self.query = ""
        self.page_hash = ""
        self.auto: tuple[float, str] | None = (
            None  # (interval, fragment id) of an auto-rerunning fragment
        )
        self.widgets: dict[str, WidgetState] = {}  # what the browser would send back: id -> value

    def _remember(self, el: Element, seen: set[str]) -> None:
        """Record a widget's value as the browser's widget manager does (the value the server set,
        else the value it already holds, else the widget's default), to send back on the next run."""
        kind = el.WhichOneof("type")
        w = getattr(el, kind, None) if kind in WIDGETS else None
        if w is None or not w.id:
            return
        seen.add(w.id)
        if not w.set_value and w.id in self.widgets:
            return  # the browser keeps the value it has; the default is for a widget it has not seen
        st = WidgetState(id=w.id)
        if kind in ("selectbox", "radio"):
            if w.set_value:
                st.string_value = w.raw_value
            elif 0 <= w.default < len(w.options):
                st.string_value = w.options[w.default]
            else:
                return
        elif kind == "multiselect":
            st.string_array_value.data[:] = (
                list(w.raw_values) if w.set_value else [w.options[i] for i in w.default]
            )
        elif kind == "slider" and w.type == SliderProto.Type.SELECT_SLIDER:
            st.string_array_value.data[:] = (
                list(w.raw_value) if w.set_value else [w.options[int(i)] for i in w.default]
            )
        elif kind == "slider":
            st.double_array_value.data[:] = list(w.value) if w.set_value else list(w.default)
        elif kind == "number_input":
            if not (w.set_value or w.HasField("default")):
                return
            st.double_value = w.value if w.set_value else w.default
        self.widgets[w.id] = st

    def run_page(self, title: str | None, query: str | None = None) -> PageResult:
        """Ask for a script run of page ``title`` (None: the default page); wait until it finishes."""
        if title:
            self.page_hash = self.pages.get(title, "")
        self.auto = None  # a full run drops the page's auto-reruns (it registers its own again)
        t0 = time.perf_counter()
        self._send(self.query if query is None else query)
        return self._finish(t0, title or "default page", (FINISHED, COMPILE_ERROR))

    def wait_refined(self, t0: float) -> float | None:
        """If the page polls for a refined result (an auto-rerunning fragment), poll as the browser
        does until a full run drops the poll; seconds since ``t0``, or None if there was no poll."""
        if self.auto is None:
            return None
        while self.auto is not None:
            interval, fragment = self.auto
            time.sleep(interval)
            self._send(self.query, fragment)
            self._finish(t0, "refinement", (FINISHED, COMPILE_ERROR, FRAGMENT_DONE))
        return time.perf_counter() - t0

    def _send(self, query: str, fragment_id: str = "") -> None:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = query
        state.page_script_hash = self.page_hash
        state.context_info.url = f"http://{self.address}/?{query}"
        state.widget_states.widgets.extend(self.widgets.values())
        if fragment_id:
            state.fragment_id, state.is_auto_rerun = fragment_id, True
        self.ws.send_binary(msg.SerializeToString())

    def _finish(self, t0: float, what: str, statuses: tuple[int, ...]) -> PageResult:
        errors: list[str] = []
        seen: set[str] = set()
        while True:
            if time.perf_counter() - t0 > self.timeout:
                raise PageError(f"{what}: no script_finished within {self.timeout:.0f} s")
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv())
            kind = fwd.WhichOneof("type")
            if kind == "navigation":
                self.pages = {p.page_name: p.page_script_hash for p in fwd.navigation.app_pages}
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "new_session":
                self.auto = None
                # the page this run shows (another after st.switch_page): the browser sends it back
                # with its next rerun, or the server would run the default page first
                self.page_hash = fwd.new_session.page_script_hash or self.page_hash
            elif kind == "auto_rerun":
                self.auto = (fwd.auto_rerun.interval, fwd.auto_rerun.fragment_id)
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                self._remember(el, seen)
                if el.WhichOneof("type") == "exception":
                    errors.append(f"exception: {el.exception.type}: {el.exception.message[:200]}")
                elif el.WhichOneof("type") == "alert" and el.alert.format == ERROR_ALERT:
                    errors.append(f"st.error: {el.alert.body[:200]}")
            elif kind == "script_finished" and fwd.script_finished in statuses:
                if fwd.script_finished == COMPILE_ERROR:
                    errors.append("compile error")
                if (
                    fwd.script_finished != FRAGMENT_DONE
                ):  # a full run: drop the widgets it no longer shows
                    self.widgets = {k: v for k, v in self.widgets.items() if k in seen}
                return PageResult(time.perf_counter() - t0, errors)

    def close(self) -> None:
        self.ws.close()


def url_seed(query: str) -> int:
    """The seed in a page's URL query string (the app keeps its settings there); -1 if absent."""
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key == "seed" and value.lstrip("-").isdigit():
            return int(value)
    return -1
