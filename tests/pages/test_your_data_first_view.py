"""Your data's first view (pages/_your_data_refine.py): with progressive views on, the page first
shows FIRST_REPS runs per estimator and says so, then the runs slider's count replaces them (without
a pool in the notice's next run, with one from the pool's background refinement); those first runs
are the full view's first runs (the same streams)."""

import time

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.figures.your_data import runs_each
from dpcore.views.your_data import FIRST_REPS
from pages import _pool, _your_data_refine
from tests.pages._apptest import open_app, open_page


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _notice(at: AppTest) -> list[str]:
    return [i.value for i in at.info if i.value.startswith("First view")]


@pytest.mark.parametrize("pool", [False, True], ids=["no pool", "pool"])
def test_the_first_view_runs_fewer_then_the_notice_refines_it(
    monkeypatch: pytest.MonkeyPatch, pool: bool
):
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "1")
    if not pool:
        monkeypatch.setattr(_pool, "shared_pool", lambda: None)
    at = open_app(timeout=120)
    at.session_state["yd_error_table"] = True  # its expander open: the table is drawn
    at.run()
    at.switch_page("pages/your_data.py")
    at.run()
    assert not at.exception and not at.error
    assert f"Over {runs_each(FIRST_REPS)} (same data" in _markdown(at)
    assert _notice(at) == [
        f"First view: {runs_each(FIRST_REPS)}. The 10 runs you asked for replace them in a moment."
    ]
    first = next(df.value for df in at.dataframe if "median" in df.value.columns)
    assert set(first["runs"]) == {FIRST_REPS}
    at.run()  # no pool: the notice's next run computes the full runs, then the page again
    for _ in range(120 if pool else 0):  # the pool's background refinement, polled
        if not _notice(at):
            break
        time.sleep(0.5)
        at.run()
    assert not at.exception and not at.error
    assert "Over 10 runs each" in _markdown(at) and not _notice(at)
    full = next(df.value for df in at.dataframe if "median" in df.value.columns)
    assert set(full["runs"]) == {10} and set(full["estimator"]) == set(first["estimator"])
    # with a pool the full runs came from its background refinement, as Compare's sweep does
    assert bool(_your_data_refine.refined()._data) == pool


def test_without_progressive_views_the_first_view_is_the_full_one(monkeypatch):
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "0")
    at = open_page("pages/your_data.py", timeout=120)
    assert "Over 10 runs each" in _markdown(at) and not _notice(at)
