"""dpcore.views.compare without Streamlit: the view is a pure function of its record (the same
record gives the same view, another seed other numbers), the page's path (the sweep handed to
:func:`present`) gives the view's numbers, and the notebook's code rebuilds them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dpcore.experiments import ExperimentConfig, run
from dpcore.views.compare import (
    CompareSettings,
    CompareView,
    config,
    options,
    peer_seconds,
    present,
    shown_config,
    sweep_views,
    view,
)
from dpcore.views.settings import DataSettings

SMALL = DataSettings(n=300, d=2, seed=5)
RECORD = CompareSettings(SMALL, x="budget", metric="l2", repetitions=3)


@pytest.fixture(scope="module")
def shown() -> CompareView:
    return view(RECORD)


def _close(a: object, b: object) -> bool:
    """Two figure dicts alike: the same structure, numbers equal within a tolerance."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray | float) or isinstance(b, np.ndarray | float):
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype.kind in "fiu" and y.dtype.kind in "fiu":
            return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-12, equal_nan=True))
        return x.shape == y.shape and bool(np.all(x.astype(str) == y.astype(str)))
    return a == b


def _same_view(a: CompareView, b: CompareView) -> None:
    assert _close(a.figure, b.figure)
    assert a.sentence == b.sentence and a.claim == b.claim and a.footer == b.footer
    for name in ("frame", "data", "table", "summary", "tails", "far_off"):
        left, right = (getattr(v, name).drop(columns="seconds", errors="ignore") for v in (a, b))
        pd.testing.assert_frame_equal(left, right)  # all but the wall-clock run time
    assert [r.sentence for r in a.rankings] == [r.sentence for r in b.rankings]
    assert a.default_target == b.default_target
    assert (a.target is None) == (b.target is None)
    if a.target is not None and b.target is not None:
        assert _close(a.target[0], b.target[0]) and a.target[2] == b.target[2]


def test_the_same_record_gives_the_same_view(shown: CompareView) -> None:
    _same_view(shown, view(RECORD))


def test_another_seed_gives_other_numbers(shown: CompareView) -> None:
    other = view(replace(RECORD, data=replace(SMALL, seed=6)))
    assert other.config.seed == 6 and shown.config.seed == 5
    assert not np.allclose(other.frame["err_l2"], shown.frame["err_l2"])
    assert other.sentence != shown.sentence or not other.table.equals(shown.table)


def test_the_pages_path_gives_the_views_numbers(shown: CompareView) -> None:
    # the page runs the sweep on its pool and hands the frame and its views to present()
    cfg = shown_config(RECORD)
    frame = run(cfg.to_json(indent=None))
    made = sweep_views(frame, cfg.to_json(indent=None), "budget", "l2")
    _same_view(replace(shown, target=None), present(RECORD, frame, made))


def test_the_notebook_code_rebuilds_the_chart(shown: CompareView) -> None:
    scope: dict = {}
    exec(shown.chart_code, scope)  # what "This view as a notebook" runs
    assert scope["fig"].to_dict()["data"]
    assert len(scope["fig"].data) == len(shown.figure["data"])
    pd.testing.assert_frame_equal(scope["data"], shown.data)


def test_the_defaults_are_the_storys_and_a_first_result_has_its_repetitions() -> None:
    o = options(SMALL)
    full = config(CompareSettings(SMALL))
    assert full.repetitions == o.repetitions_default and full.metric == o.metric_default
    assert [e if isinstance(e, str) else e["name"] for e in full.estimators] == list(
        o.estimators_default
    )
    first = shown_config(replace(RECORD, repetitions=10, shown_repetitions=3))
    assert first.repetitions == 3 and config(replace(RECORD, repetitions=10)).repetitions == 10


def test_bad_records_raise_a_message_naming_the_fix() -> None:
    with pytest.raises(ValueError, match="Pick at least one estimator"):
        config(replace(RECORD, estimators=()))
    with pytest.raises(ValueError, match="JSON"):
        options(SMALL, upload="{not json")


def test_an_upload_names_its_estimators_and_those_that_cannot_run() -> None:
    cfg = ExperimentConfig(
        name="steps",
        n=300,
        d=2,
        estimators=[{"name": "iome_original", "params": {"steps": 30}}, "empirical"],
        sweep={"budget": [0.5, 1.0]},
        repetitions=2,
    )
    o = options(SMALL, upload=cfg.to_json())
    assert o.upload_info is not None and "iome_original (steps=30)" in o.upload_info
    assert o.estimators_default == ("iome_original", "empirical") and o.upload_left is None


def test_rankings_split_by_guarantee_and_mark_the_boxs_estimator(shown: CompareView) -> None:
    assert shown.rankings and not shown.mixed_guarantees
    r = shown.rankings[0]
    assert r.columns == (
        "rank", "label", "mean_regret", "worst_regret", "won", "failure_rate", "side by side"
    )  # fmt: skip
    assert r.table["won"].str.fullmatch(r"\d+ of \d+").all()
    assert all(link.startswith("side_by_side?") for link in r.table["side by side"])
    assert shown.words is not None
    assert [bool(m) for m in r.table["label"] == shown.words.method] == list(r.closest)


def test_no_peer_library_no_time_budget() -> None:
    assert peer_seconds(config(RECORD).to_json(indent=None), 30.0) is None
