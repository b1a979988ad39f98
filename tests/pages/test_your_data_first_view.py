"""Your data's first view (pages/_your_data_refine.py): with progressive views on, the page first
shows FIRST_REPS runs per estimator and says so, then the next run of its notice replaces them by
the runs slider's count; those first runs are the full view's first runs (the same streams)."""

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.figures.your_data import runs_each
from dpcore.views.your_data import FIRST_REPS
from tests.pages._apptest import open_page


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _notice(at: AppTest) -> list[str]:
    return [i.value for i in at.info if i.value.startswith("First view")]


def test_the_first_view_runs_fewer_then_the_notice_refines_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "1")
    at = open_page("pages/your_data.py", timeout=120)
    assert not at.exception and not at.error
    assert f"Over {runs_each(FIRST_REPS)} (same data" in _markdown(at)
    assert _notice(at) == [
        f"First view: {FIRST_REPS} runs per estimator. The 10 runs you asked for replace them "
        "in a moment."
    ]
    first = next(df.value for df in at.dataframe if "median" in df.value.columns)
    assert set(first["runs"]) == {FIRST_REPS}
    at.run()  # the notice's next run: the full runs, then the page again
    assert not at.exception and not at.error
    assert "Over 10 runs each" in _markdown(at) and not _notice(at)
    full = next(df.value for df in at.dataframe if "median" in df.value.columns)
    assert set(full["runs"]) == {10} and set(full["estimator"]) == set(first["estimator"])


def test_without_progressive_views_the_first_view_is_the_full_one(monkeypatch):
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "0")
    at = open_page("pages/your_data.py", timeout=120)
    assert "Over 10 runs each" in _markdown(at) and not _notice(at)
