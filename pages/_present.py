"""Presenter mode: large fonts, no code or download buttons, one idea per screen, arrow keys to step.

The mode is a session flag (``st.session_state["present"]``) bound to the URL as ``?present=1`` by
``app.py``; :func:`pages._ui.chart` reads :func:`presenting` to leave out its downloads and code.
Streamlit has no keyboard API, so :func:`keyboard` adds a tiny same-origin script (in a zero-height
``components.html`` frame) that turns ← / → (and PageUp / PageDown, as sent by presentation
clickers) into clicks on the "◀ Previous" / "Next ▶" buttons of :func:`step`.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
import streamlit.components.v1 as components

PREV, NEXT = "◀ Previous", "Next ▶"

_CSS = """
<style>
  /* presenter mode: large type, no chrome */
  .stApp [data-testid="stMarkdownContainer"] p,
  .stApp [data-testid="stMarkdownContainer"] li { font-size: 1.45rem; line-height: 1.5; }
  .stApp h1 { font-size: 3.2rem; }
  .stApp h2, .stApp h3 { font-size: 2.2rem; }
  .stApp [data-testid="stCaptionContainer"] { font-size: 1.1rem; }
  .stApp [data-testid="stExpander"], .stApp [data-testid="stDownloadButton"] { display: none; }
  header[data-testid="stHeader"] { display: none; }
</style>
"""

_KEYS = """
<script>
(function () {
  const doc = window.parent.document;
  if (doc.__dpmeanKeys) { return; }
  doc.__dpmeanKeys = true;
  function click(label) {
    const buttons = Array.from(doc.querySelectorAll('button'));
    const b = buttons.find(x => x.innerText.trim() === label);
    if (b && !b.disabled) { b.click(); }
  }
  doc.addEventListener('keydown', function (ev) {
    const t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) { return; }
    if (ev.key === 'ArrowRight' || ev.key === 'PageDown') { click('%NEXT%'); ev.preventDefault(); }
    if (ev.key === 'ArrowLeft' || ev.key === 'PageUp') { click('%PREV%'); ev.preventDefault(); }
  });
})();
</script>
"""


def presenting() -> bool:
    """Whether presenter mode is on (sidebar toggle, ``?present=1``)."""
    return bool(st.session_state.get("present", False))


def style() -> None:
    """Large fonts and no code/download chrome (call once per run when :func:`presenting`)."""
    st.markdown(_CSS, unsafe_allow_html=True)


def keyboard() -> None:
    """← / → (PageUp / PageDown) click "◀ Previous" / "Next ▶" (a zero-height same-origin frame)."""
    components.html(_KEYS.replace("%NEXT%", NEXT).replace("%PREV%", PREV), height=0)


def step(titles: Sequence[str], key: str) -> int:
    """One idea per screen: Previous/Next buttons over ``titles``; returns the index to show.

    The index lives in ``st.session_state[key]``; the buttons are disabled at either end.
    """
    n = len(titles)
    i = min(max(int(st.session_state.get(key, 0)), 0), n - 1)

    def move(delta: int) -> None:
        st.session_state[key] = min(max(i + delta, 0), n - 1)

    c1, c2, c3 = st.columns([1, 4, 1])
    c1.button(PREV, key=f"{key}-prev", on_click=move, args=(-1,), disabled=i == 0, width="stretch")
    c2.markdown(
        f"<div style='text-align:center'>{i + 1} / {n} · {titles[i]} · use ← →</div>",
        unsafe_allow_html=True,
    )
    c3.button(
        NEXT, key=f"{key}-next", on_click=move, args=(1,), disabled=i == n - 1, width="stretch"
    )
    keyboard()
    return i
