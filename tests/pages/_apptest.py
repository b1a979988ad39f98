"""One way to open the app or a page under Streamlit's AppTest, shared by the page tests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_app(query: Mapping[str, str] | None = None, *, timeout: float = 120) -> AppTest:
    """The app with ``query`` in its URL, not yet run."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at


def open_page(
    page: str, query: Mapping[str, str] | None = None, *, timeout: float = 120, check: bool = False
) -> AppTest:
    """Run the app with ``query``, switch to ``page`` (``"pages/x.py"``) and run it; with ``check``,
    fail on an uncaught exception."""
    at = open_app(query, timeout=timeout)
    at.run()
    at.switch_page(page)
    at.run()
    if check:
        assert not at.exception, at.exception
    return at
