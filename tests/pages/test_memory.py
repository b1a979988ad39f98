"""The server's long-lived objects leave the cycle collector's full passes (pages/_memory.py)."""

from __future__ import annotations

import gc
import uuid

from streamlit.testing.v1 import AppTest

from pages._memory import freeze_after_first_run
from tests.pages._apptest import APP


def test_a_pages_first_complete_run_freezes_what_exists_once() -> None:
    page = f"test-{uuid.uuid4()}"
    gc.unfreeze()
    try:
        kept = [[] for _ in range(1000)]  # tracked containers alive now
        assert freeze_after_first_run(page)
        assert gc.get_freeze_count() >= len(kept)
        assert not freeze_after_first_run(page)  # once per page and process
    finally:
        gc.unfreeze()


def test_the_app_freezes_after_a_pages_first_run(monkeypatch) -> None:
    import pages._memory as memory

    monkeypatch.setattr(memory, "_FROZEN", set())  # as in a fresh process
    gc.unfreeze()
    try:
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
        assert not at.exception
        assert len(memory._FROZEN) == 1
        assert gc.get_freeze_count() > 10_000  # the modules and objects of a running app
    finally:
        gc.unfreeze()
