"""The app's shell: the page list ``st.navigation`` gets, and the guard that makes ``app.py`` run
whatever page a fresh server is first asked for."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st


def navigation_pages() -> list[Any]:
    """The app's pages for ``st.navigation``: one ``st.Page`` per entry of
    :data:`pages._spec.PAGES` whose script exists, in that order (paths relative to ``app.py``)."""
    from pathlib import Path

    from pages._spec import PAGES

    root = Path(__file__).resolve().parent.parent
    return [
        st.Page(p.path, title=p.title, icon=p.icon, default=p.default)
        for p in PAGES
        if (root / p.path).exists()
    ]


#: Whether ``app.py`` is running a page in this thread (set by :func:`shell_runs`).
_SHELL = threading.local()


@contextmanager
def shell_runs() -> Iterator[None]:
    """The context ``app.py`` runs the chosen page in (``with shell_runs(): nav.run()``): inside
    it, :func:`settings` knows the page was reached through the shell."""
    _SHELL.running = True
    try:
        yield
    finally:
        _SHELL.running = False


def _leave_legacy_pages_mode() -> None:
    """Make sure ``app.py`` (the shell) runs, whatever page a fresh server is first asked for.

    Streamlit treats a folder called ``pages/`` next to the entry point as a legacy (v1) multipage
    app until some session calls ``st.navigation`` ("as soon as any session of your app executes
    the st.navigation command, your app will ignore the pages/ directory (across all sessions)",
    Streamlit's ``st.navigation`` reference). If the first request to a fresh server is a page URL
    (a shared link), Streamlit runs that page alone, without the sidebar and URL binding of
    ``app.py``. Pages call :func:`settings` first, so a page run outside :func:`shell_runs` calls
    ``st.navigation`` itself (with the app's own pages) and reruns: the rerun executes ``app.py``,
    which routes to the same page. ``AppTest`` starts every run in the legacy mode, hence the
    check on every call. Outside a script run (no server and no session the shell initialised,
    e.g. a unit test calling :func:`settings`) nothing is done.
    """
    if getattr(_SHELL, "running", False):
        return
    if not (st.runtime.exists() or st.session_state.get("_initialised")):
        return
    st.navigation(navigation_pages(), position="hidden")
    st.rerun()
