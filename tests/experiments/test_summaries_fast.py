"""The numpy summaries against the pandas versions they replaced (the reference, verbatim, is in
_summaries.py): same DataFrames (columns, dtypes, order, values bit for bit) and the same
sentences, on frames from the engine (several metrics and x axes), with failed runs and NaN
errors, with rows out of order (pandas then sums with its Kahan kernel instead of
``np.add.reduceat``), on frames with ids the registry does not know, and empty ones; the
hand-made frames are in test_summaries_synthetic.py.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7; specs/plan.md §7 (the summaries the
Compare page draws).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest
from plotly.utils import PlotlyJSONEncoder

from dpcore.experiments import ExperimentConfig, tail_table
from dpcore.experiments.summaries import (
    _private_flags,
    needed_for_target,
    private_only,
    regret_table,
    summarise,
)
from dpcore.figures.compare import compare_views, headline, target_sentence
from dpcore.pool import process_pool
from tests.experiments._summaries import (
    _engine,
    _same,
    ref_headline,
    ref_needed_for_target,
    ref_private_flags,
    ref_private_only,
    ref_regret_table,
    ref_summarise,
    ref_tail_table,
    ref_target_sentence,
    ref_views,
)


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    budget, n = _engine("budget"), _engine("n", reps=3)
    broken = budget.copy()  # failed runs (NaN errors) and warnings, the page's failure rates
    rng = np.random.default_rng(0)
    hit = rng.random(len(broken)) < 0.15
    broken.loc[hit, "failed"] = "ValueError: boom"
    for c in [c for c in broken if c.startswith(("err_", "sampling_", "clipping_", "noise_"))]:
        broken.loc[hit, c] = np.nan
    broken.loc[rng.random(len(broken)) < 0.1, "warnings"] = "fell back"
    blowup = budget.copy()  # blow-ups above FAILURE_MULTIPLE x the median
    big = rng.random(len(blowup)) < 0.1
    blowup.loc[big, "err_l2"] *= 50.0
    dead = budget.copy()  # one estimator never succeeds at one point
    gone = (dead["estimator"] == "plan") & (dead["setting"] == 2)
    dead.loc[gone, "failed"], dead.loc[gone, "err_l2"] = "boom", np.nan
    handmade = budget.copy()  # ids the registry does not know: notion and relation from the frame
    handmade["name"] = handmade["estimator"] + "_custom"
    return {
        "budget": budget,
        "n": n,
        "d": _engine("d", reps=3),
        "shuffled": budget.sample(frac=1.0, random_state=1),  # Kahan path, other group order
        "reversed": n.iloc[::-1],
        "broken": broken,
        "broken shuffled": broken.sample(frac=1.0, random_state=2),
        "blowup": blowup,
        "dead": dead,
        "handmade": handmade,
        "grid": pd.concat([budget, budget.assign(d=8, setting=budget["setting"] + 100)]),
        "private only": budget[budget["notion"] != "none"],
        "empty": budget.iloc[:0],
    }


NAMES = ["budget", "n", "d", "shuffled", "reversed", "broken", "broken shuffled", "blowup", "dead"]
NAMES += ["handmade", "grid", "private only", "empty"]


# --------------------------------------------------------------------------------------------
# tests


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("metric", ["l2", "l1", "linf"])
def test_summarise_is_the_pandas_summary(frames: dict, name: str, metric: str) -> None:
    f = frames[name]
    _same(summarise(f, metric), ref_summarise(f, metric))
    _same(summarise(f, metric, low=0.25, high=0.75), ref_summarise(f, metric, low=0.25, high=0.75))
    _same(summarise(f, metric, by=["budget"]), ref_summarise(f, metric, by=["budget"]))
    _same(private_only(f), ref_private_only(f))
    assert _private_flags(f) == ref_private_flags(f)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("metric", ["l2", "l1"])
def test_regret_table_is_the_pandas_table(frames: dict, name: str, metric: str) -> None:
    f = frames[name]
    want = ref_regret_table(f, metric)
    _same(regret_table(f, metric), want)
    _same(regret_table(f, metric, summary=summarise(f, metric)), want)


@pytest.mark.parametrize("name", ["budget", "n", "shuffled", "broken", "dead", "grid", "empty"])
def test_needed_for_target_and_its_sentence(frames: dict, name: str) -> None:
    f = frames[name]
    by = "n" if name == "n" else "budget"
    summary = summarise(f)
    medians = summary["median"][np.isfinite(summary["median"])]
    targets = [1e-6, 1e6, *np.quantile(medians, [0.2, 0.5, 0.8])] if len(medians) else [1]
    for target in targets:
        for fixed in [None, {"d": 4}] if target == targets[-1] else [None]:
            want = ref_needed_for_target(f, float(target), by=by, fixed=fixed)
            _same(needed_for_target(f, float(target), by=by, fixed=fixed), want)
            _same(needed_for_target(f, float(target), by=by, fixed=fixed, summary=summary), want)
            for unit in ("rho", "eps"):
                assert target_sentence(want, by, float(target), "l2", unit) == (
                    ref_target_sentence(want, by, float(target), "l2", unit)
                )


@pytest.mark.parametrize("name", NAMES)
def test_headline_is_the_pandas_sentence(frames: dict, name: str) -> None:
    f = frames[name]
    x = {"n": "n", "reversed": "n", "d": "d"}.get(name, "budget")
    for metric in ("l2", "linf"):
        summary = summarise(f, metric)
        for at in (None, 0.01, 300, 1e9):
            for versus in (None, "iome_paper") if at is None else ("plan",):
                for where in (None, {"d": 4}) if at is None else (None,):
                    kw = dict(x=x, metric=metric, at=at, versus=versus, where=where)
                    want = ref_headline(f, **kw)
                    assert headline(f, **kw) == want
                    assert headline(f, **kw, summary=summary) == want


def _chart(d: dict) -> str:
    return json.dumps(d, cls=PlotlyJSONEncoder, sort_keys=True)


@pytest.mark.parametrize(("name", "x"), [("budget", "budget"), ("n", "n"), ("broken", "budget")])
def test_compare_views_is_the_old_view(frames: dict, name: str, x: str) -> None:
    frame = frames[name]
    config = ExperimentConfig.coerce(frame.attrs["config"]).to_json(indent=None)
    for metric in ("l2", "l1"):
        fig, data, sentence, table, summary = compare_views(frame, config, x, metric)
        want = ref_views(config, frame, x, metric)
        assert _chart(fig) == _chart(want[0])
        _same(data, want[1])
        assert sentence == want[2]
        _same(table, want[3])
        _same(summary, ref_summarise(frame, metric))


def test_compare_views_in_a_worker_process_is_the_same(frames: dict) -> None:
    """The page runs compare_views in the shared pool: a forkserver worker (as dpcore.pool starts
    them) returns, after pickling both ways, what it returns here."""
    frame = frames["budget"]
    config = ExperimentConfig.coerce(frame.attrs["config"]).to_json(indent=None)
    here = compare_views(frame, config, "budget", "l2")
    # dpcore.pool.process_pool starts its worker with a plain __main__: after an AppTest in the same
    # test process, __main__ is the app script, which a new worker would run and die of (CI saw it)
    with process_pool(1) as pool:
        there = pool.submit(compare_views, frame, config, "budget", "l2").result(timeout=300)
    assert _chart(there[0]) == _chart(here[0])
    assert there[2] == here[2]
    for i in (1, 3, 4):  # the chart's data, the table, the summary
        _same(there[i], here[i])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("metric", ["l2", "l1"])
def test_tail_table_is_the_pandas_table(frames: dict, name: str, metric: str) -> None:
    f = frames[name]
    want = ref_tail_table(f, metric)
    got = tail_table(f, metric)
    if want.empty:
        assert got.empty and list(got.columns) == list(want.columns)
    else:
        _same(got, want)


@pytest.mark.parametrize("name", ["budget", "n", "broken", "dead"])
def test_target_views_draw_what_the_page_drew(frames: dict, name: str) -> None:
    """The page's "what does each estimator need" view, now built in a worker and kept:
    the same chart (as st.plotly_chart sends it), data and sentence as the page built in its
    script thread before."""
    import plotly.io as pio
    import plotly.tools

    from dpcore.figures.compare import target_figure, target_views
    from dpcore.figures.style import PreparedFigure

    def sent(f: Any) -> Any:
        return json.loads(
            pio.to_json(plotly.tools.return_figure_from_figure_or_data(f, True), validate=False)
        )

    f = frames[name]
    x = "n" if name == "n" else "budget"
    summary = summarise(f, "l2")
    for target in (0.05, 0.3, 1.0):
        need = needed_for_target(f, target, by=x, metric="l2", summary=summary)
        colors = dict(zip(f["estimator"], f["color"], strict=False))
        fig, data = target_figure(need, x, target, "l2", colors, "rho")
        words = target_sentence(need, x, target, "l2", "rho")
        floor = float(np.nanmedian(f["sampling_l2"])) if x == "budget" else np.nan
        if x == "budget" and target < 1.5 * floor:
            words += (
                f" This target is within 1.5× of the sampling floor ({floor:.3g}), where the error "
                "hardly falls as the budget grows: there a small gap in error becomes a large gap "
                "in budget."
            )
        got_fig, got_data, got_words = target_views(f, summary, x, target, "l2", "rho")
        assert sent(PreparedFigure(got_fig)) == sent(fig)
        _same(got_data, data)
        assert got_words == words
