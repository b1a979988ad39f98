"""Compare's per-view summaries read the frame's columns through one boolean mask instead of
filtering the frame (a copy of every column, several times a view): ``tail_table``,
``lowest_error_question`` and ``sweep_words`` give what the pandas versions they replaced gave
(the reference versions, verbatim, are below), and none of them (nor the view's failed-runs
line) selects rows of the frame when nothing failed. The chart's sampling floor and its stars
(``floor_frame``, ``_marked``) are numpy groupings now, equal to the pandas groupbys they
replaced. docs/speed.md ("Compare, round 5").
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.experiments import ExperimentConfig, tail_table
from dpcore.experiments.plain import frame_words, sweep_point, sweep_words
from dpcore.experiments.questions import _AXIS, _UNITS, Question, lowest_error_question
from dpcore.experiments.summaries import private_only, regret_table, summarise
from dpcore.figures import compare as fc
from dpcore.privacy import Budget
from dpcore.views import compare as cmp
from tests.experiments._summaries import _engine, _same, ref_tail_table


def ref_lowest_error_question(frame: pd.DataFrame, x: str, metric: str, *, unit: str) -> Question:
    """The pandas version ``lowest_error_question`` replaced."""
    rows = private_only(frame)
    rows = rows[rows["failed"] == ""]
    at = rows[rows[x] == rows[x].min()] if not rows.empty else rows
    medians = at.groupby("label", sort=False)[f"err_{metric}"].median().dropna()
    if medians.empty:
        raise ValueError("no private estimator completed a run at the first point; pick others.")
    name = _AXIS[x].format(unit=_UNITS.get(unit, unit))
    point = float(at[x].iloc[0])
    return Question(
        key=f"lowest-{x}-{metric}",
        text=f"Which estimator has the smallest typical error at the smallest {name} of the "
        f"sweep ({point:g})?",
        options=tuple(rows["label"].drop_duplicates()),
        answer=str(medians.index[int(np.argmin(medians.to_numpy()))]),
    )


def ref_sweep_words(frame, table, config, x, metric, *, delta=1e-6):  # type: ignore[no-untyped-def]
    """The pandas version ``sweep_words`` replaced."""
    base = {"n": config.n, "d": config.d, "skew": config.base_skew(), "budget": config.budget}
    rows = private_only(sweep_point(frame, x, float(base[x])))
    ranked = table.loc[table["guarantee"] == table["guarantee"].iloc[0], "estimator"]
    rows = rows[(rows["failed"] == "") & rows["estimator"].isin(list(ranked))]
    if rows.empty:
        raise ValueError("no ranked private estimator ran at this point; pick other estimators.")
    first = rows.iloc[0]
    budget = Budget.from_unit(str(first["unit"]), float(first["budget"]), float(first["delta"]))
    what = f"the {int(first['d'])} column averages of {int(first['n']):,} rows"
    return frame_words(budget, rows, by="label", error=f"err_{metric}", delta=delta, what=what)


def ref_marked(s: pd.DataFrame) -> pd.DataFrame:
    """The pandas version ``dpcore.figures.compare._marked`` replaced."""
    s = s[np.isfinite(s["median"])]
    priv = s[s["private"]]
    best_idx = (
        priv.groupby(["guarantee", "setting"])["median"].idxmin()
        if not priv.empty
        else pd.Series(dtype=int)
    )
    return s.assign(best=s.index.isin(best_idx.to_numpy()), curve=s["label"])


def ref_floor_frame(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The pandas version ``dpcore.figures.compare.floor_frame`` replaced."""
    return (
        frame.groupby(["setting", "n", "d", "skew", "budget"], sort=False)[f"sampling_{metric}"]
        .median()
        .reset_index()
        .rename(columns={f"sampling_{metric}": "value"})
        .assign(curve=fc.FLOOR_NAME)
    )


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    budget = _engine("budget")
    rng = np.random.default_rng(4)
    broken = budget.copy()  # failed runs with NaN errors, some at the smallest budget
    hit = rng.random(len(broken)) < 0.2
    broken.loc[hit, "failed"] = "ValueError: boom"
    broken.loc[hit, [c for c in broken if c.startswith("err_")]] = np.nan
    first = budget["budget"] == budget["budget"].min()
    dead = budget.copy()  # PLAN never completes at the smallest budget
    gone = (dead["estimator"] == "plan") & first
    dead.loc[gone, "failed"], dead.loc[gone, "err_l2"] = "boom", np.nan
    tie = budget.copy()  # two estimators with the same errors: the first in the sweep wins
    tie.loc[tie["estimator"] == "iome_paper", "err_l2"] = tie.loc[
        tie["estimator"] == "plan", "err_l2"
    ].to_numpy()
    handmade = budget.copy()  # ids the registry does not know: privacy from the frame's notion
    handmade["name"] = handmade["estimator"] + "_custom"
    return {
        "budget": budget,
        "n": _engine("n", reps=3),
        "shuffled": budget.sample(frac=1.0, random_state=1),
        "broken": broken,
        "dead": dead,
        "tie": tie,
        "handmade": handmade,
        "nothing private": budget[budget["notion"] == "none"],
        "grid": pd.concat([budget, budget.assign(d=8, setting=budget["setting"] + 100)]),
        "empty": budget.iloc[:0],
    }


def _config(frame: pd.DataFrame) -> ExperimentConfig:
    return ExperimentConfig.coerce(frame.attrs["config"])


def _outcome(f, *args, **kw):  # type: ignore[no-untyped-def]
    try:
        return f(*args, **kw)
    except ValueError as err:
        return ("ValueError", str(err))


@pytest.mark.parametrize(
    "name",
    [
        "budget",
        "n",
        "shuffled",
        "broken",
        "dead",
        "tie",
        "handmade",
        "nothing private",
        "grid",
        "empty",
    ],
)
@pytest.mark.parametrize("metric", ["l2", "linf"])
def test_the_masked_summaries_are_the_pandas_ones(
    frames: dict[str, pd.DataFrame], name: str, metric: str
) -> None:
    f = frames[name]
    x = "n" if name == "n" else "budget"
    _same(tail_table(f, metric), ref_tail_table(f, metric))
    _same(fc.floor_frame(f, metric), ref_floor_frame(f, metric))
    summary = summarise(f, metric)
    _same(fc._marked(summary), ref_marked(summary))
    assert _outcome(lowest_error_question, f, x, metric, unit="rho") == _outcome(
        ref_lowest_error_question, f, x, metric, unit="rho"
    )
    table = regret_table(f, metric)
    if not table.empty:
        cfg = _config(frames["n" if name == "n" else "budget"])
        for c in (cfg, ExperimentConfig.from_dict({**cfg.to_dict(), "budget": 0.01})):
            assert _outcome(sweep_words, f, table, c, x, metric) == _outcome(
                ref_sweep_words, f, table, c, x, metric
            )


def test_no_filtered_copy_of_the_frame_per_view(
    frames: dict[str, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Selecting rows of a frame by a boolean mask copies every column; the summaries above and
    the view's failed-runs line read columns through masks instead (the old versions filtered
    the frame two to four times each)."""
    f = frames["budget"]
    table = regret_table(f, "l2")

    def refused(self: pd.DataFrame, key: object) -> pd.DataFrame:
        raise AssertionError("a boolean row selection of the frame")

    monkeypatch.setattr(pd.DataFrame, "_getitem_bool_array", refused)
    tail_table(f, "l2")
    lowest_error_question(f, "budget", "l2", unit="rho")
    sweep_words(f, table, _config(f), "budget", "l2")
    assert cmp._failed(f) is None
