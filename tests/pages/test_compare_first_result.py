"""Compare without a worker pool (``DPMEAN_WORKERS=0``) draws a first result, one repetition at
every other budget, and refines it into the full sweep in the session's next run: the first view
costs a fraction of the sweep (docs/speed.md, "Compare's first result")."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.experiments import ExperimentConfig
from pages import _compare_run, _pool
from tests.pages._apptest import open_page


def _caption(at: AppTest, start: str) -> str:
    return next(c.value for c in at.caption if c.value.startswith(start))


def test_a_first_result_then_the_full_sweep_without_a_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "1")
    monkeypatch.setenv("DPMEAN_WORKERS", "0")
    # the pool is kept per process (st.cache_resource): one an earlier test made is not this one
    monkeypatch.setattr(_pool, "shared_pool", lambda: None)
    at = open_page("pages/compare.py", {"n": "500", "d": "8", "seed": "913"}, timeout=180)
    assert not at.exception
    notice = [i.value for i in at.info if "refining" in i.value]
    assert notice and notice[0].startswith("**Showing 1 of 10 repetitions per point")
    # 5 estimators at 3 of the 5 budgets, one repetition each
    assert _caption(at, "15 runs (1 datasets")
    first = _compare_run.frames()
    shown = [ExperimentConfig.from_json(k) for k in list(first._data)]
    assert any(c.repetitions == 1 and len(c.sweep["budget"]) == 3 for c in shown)
    at.run()  # the notice's next run: the full sweep, then the page draws it
    assert not at.exception
    assert not [i.value for i in at.info if "refining" in i.value]
    assert _caption(at, "Showing all 10 repetitions per point")
    assert _caption(at, "250 runs (10 datasets")


def test_the_environment_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPMEAN_WORKERS", "0")
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "0")
    assert not _compare_run.refines()
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "1")
    assert _compare_run.refines()
