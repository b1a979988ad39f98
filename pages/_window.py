"""The window probe: how the app learns the size class of the browser's window.

Streamlit cannot read a window's size, so the page says it by a click: the app draws a hidden
button per size class but the session's own (:func:`probe_buttons`), and a script added once to
the page's own window (:func:`probe_script`) clicks, every few tenths of a second, the button of
the class its window is in, if the app drew it (at the start, and after the window changed).
The buttons drawn tell a test which class the session has heard: all but that one.

Two probes use it: presenter mode's screen scale (pages/_present.py: charts drawn with text for
the screen) and the phone's narrow window (pages/_phone.py: charts and tables laid out for 375 px).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import streamlit as st

#: run in the page's window: every ``%EVERY%`` ms, the class ``%CHOOSE%`` gives this window
#: (a JS function of its width and height), clicked on the button that names it in the hidden
#: container ``%BOX%``; again after ``%RETRY%`` ms while the app has not taken it (a click during
#: a run can be lost)
_PROBE = """
setInterval(function () {
  const want = String((%CHOOSE%)(window.innerWidth, window.innerHeight));
  const b = Array.from(document.querySelectorAll('.st-key-%BOX% button'))
    .find(x => x.textContent.trim() === %LABEL%.replace('{}', want));
  if (b && !b.disabled && Date.now() - (window[%STAMP%] || 0) > %RETRY%) {
    window[%STAMP%] = Date.now();
    b.click();
  }
}, %EVERY%);
"""

#: a frame's script that adds a handler to the page's own window once (a listener made in the
#: frame dies with it, and Streamlit drops the frame at every page switch); ``%FLAG%`` on the
#: page's window says it is there
_ADD_ONCE = """
<script>
(function () {
  const w = window.parent;
  if (w[%FLAG%]) { return; }
  w[%FLAG%] = true;
  const s = w.document.createElement('script');
  s.textContent = %HANDLER%;
  w.document.head.appendChild(s);
})();
</script>
"""


def probe_script(box: str, label: str, choose: str, every_ms: int, retry_ms: int) -> str:
    """The page-window JavaScript of a probe: clicks the button labelled ``label`` (a ``{}``
    for the class) in the container keyed ``box`` for the class ``choose`` (a JS function of
    the window's width and height) gives, every ``every_ms`` ms, at most once per
    ``retry_ms`` ms."""
    return (
        _PROBE.replace("%CHOOSE%", choose)
        .replace("%BOX%", box)
        .replace("%LABEL%", json.dumps(label))
        .replace("%STAMP%", json.dumps(f"__dpProbeAt_{box}"))
        .replace("%RETRY%", str(retry_ms))
        .replace("%EVERY%", str(every_ms))
    )


def add_once(handler: str, flag: str) -> str:
    """The HTML of a frame that adds JavaScript ``handler`` to the page's own window once (the
    window's property ``flag`` says it is there)."""
    return _ADD_ONCE.replace("%FLAG%", json.dumps(flag)).replace("%HANDLER%", json.dumps(handler))


def probe_buttons(
    where: Any,
    box: str,
    label: str,
    classes: Sequence[tuple[str, Any]],
    state: str,
    now: Any,
    frame: str = "",
) -> None:
    """In ``where`` (``st`` or ``st.sidebar``), a container keyed ``box`` (hidden by the app's
    CSS) with a button per class ``(name, value)`` of ``classes`` whose value is not ``now``,
    labelled ``label`` with the name; its click sets ``st.session_state[state]`` to the value.
    ``frame``: the HTML of a frame to add there too (e.g. :func:`add_once` of the probe's
    script; a hidden frame's script still runs)."""
    with where.container(key=box):
        if frame:
            st.iframe(frame, height=1)
        for name, value in classes:
            if value != now:
                st.button(
                    label.format(name),
                    key=f"{box}-{name}",
                    on_click=st.session_state.__setitem__,
                    args=(state, value),
                )
