"""dpcore.experiments.run(..., reuse=first): a refinement takes the repetitions a first result
already ran instead of running them again, and returns the frame of a run from scratch."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

from dpcore.experiments import ExperimentConfig, default_estimators, run


def _config(reps: int, **over: object) -> ExperimentConfig:
    base = ExperimentConfig(
        n=300,
        d=4,
        seed=17,
        estimators=default_estimators("real", "rho", 4),
        sweep={"budget": [0.25, 1.0]},
        repetitions=reps,
    )
    return ExperimentConfig.from_dict({**base.to_dict(), **over})


def _tasks_run(cfg: ExperimentConfig, **kwargs: object) -> tuple[pd.DataFrame, int]:
    totals: list[int] = []
    frame = run(cfg, progress=lambda _done, total: totals.append(total), **kwargs)
    return frame, (totals[-1] if totals else 0)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    assert (a.dtypes == b.dtypes).all(), (a.dtypes[a.dtypes != b.dtypes], b.dtypes)
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"))
    assert a.attrs == b.attrs


@pytest.mark.parametrize("executor", [None, "threads"])
def test_a_refinement_runs_only_the_missing_repetitions_and_gives_the_same_frame(executor) -> None:
    first = run(_config(2))
    with ThreadPoolExecutor(2) as pool:
        ex = pool if executor else None
        scratch, scratch_tasks = _tasks_run(_config(5))
        refined, refined_tasks = _tasks_run(_config(5), reuse=first, executor=ex)
    assert (scratch_tasks, refined_tasks) == (5, 3)  # one task per repetition; two were there
    _same(refined, scratch)
    kept = refined[refined["rep"] < 2].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, first.reindex(columns=kept.columns))  # its own rows


def test_a_frame_of_another_config_is_not_reused() -> None:
    other = run(_config(2, seed=18))
    refined, tasks = _tasks_run(_config(5), reuse=other)
    assert tasks == 5
    _same(refined, run(_config(5)))


def test_a_first_result_with_every_repetition_runs_nothing() -> None:
    whole = run(_config(3))
    again, tasks = _tasks_run(_config(3), reuse=whole)
    assert tasks == 0
    _same(again, whole)
    fewer, tasks = _tasks_run(_config(2), reuse=whole)  # more repetitions than asked: a subset
    assert tasks == 0
    _same(fewer, run(_config(2)))


def test_repetitions_sharing_a_task_are_run_again() -> None:
    cfg = _config(4, resample="noise", estimators=["empirical", "gaussian_private"])
    first = run(_config(2, resample="noise", estimators=["empirical", "gaussian_private"]))
    refined, tasks = _tasks_run(cfg, reuse=first)
    assert tasks == 1
    _same(refined, run(cfg))


def test_a_first_result_at_every_other_point_is_reused_where_it_ran() -> None:
    # the first result Compare draws: fewer repetitions at every other budget (first_config)
    from dpcore.experiments.progressive import first_config

    full = _config(4, sweep={"budget": [0.125, 0.25, 0.5, 1.0, 2.0]})
    first_cfg = first_config(full, 2)
    assert first_cfg.sweep == {"budget": [0.125, 0.5, 2.0]} and first_cfg.repetitions == 2
    first = run(first_cfg)
    scratch, scratch_tasks = _tasks_run(full)
    refined, refined_tasks = _tasks_run(full, reuse=first)
    assert (scratch_tasks, refined_tasks) == (4, 4)  # reps 0 and 1 still run their other budgets
    _same(refined, scratch)
    mine = refined.merge(first[["estimator", "budget", "rep", "seconds"]], how="inner")
    assert len(mine) == len(first)  # every run of the first result was taken, seconds and all


def test_a_first_result_at_other_values_is_not_reused() -> None:
    full = _config(4, sweep={"budget": [0.125, 0.25, 0.5]})
    other = run(_config(2, sweep={"budget": [0.125, 0.3]}))
    refined, tasks = _tasks_run(full, reuse=other)
    assert tasks == 4
    _same(refined, run(full))
