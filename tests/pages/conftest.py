"""Fixtures for the page tests (helpers in tests/pages/_apptest.py)."""

from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page as _open_page


@pytest.fixture
def open_page() -> Callable[..., AppTest]:
    """``open_page("pages/x.py", query, timeout=..., check=...)``: a page after its first run."""
    return _open_page
