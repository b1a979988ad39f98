"""Compare under the shared worker pool: a long sweep first shows a first result (one repetition
at every other budget), the full sweep runs on the pool in the background and then replaces it;
the numbers are those of the engine run in the script thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.experiments import ExperimentConfig, default_estimators, run
from dpcore.experiments.progressive import first_config
from pages._pool import SharedCache

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def test_first_result_then_the_full_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPMEAN_PROGRESSIVE", "1")
    monkeypatch.setenv("DPMEAN_WORKERS", "2")
    puts: list[tuple[str, object]] = []
    put = SharedCache.put

    def recorded(self: SharedCache, key: object, value: object) -> None:
        puts.append((threading.current_thread().name, key))
        put(self, key, value)

    monkeypatch.setattr(SharedCache, "put", recorded)
    import pages._compare_run as runs

    reused: list[object] = []  # the first result each refinement took its repetitions from

    def recorded_run(config: object, *args: object, **kwargs: object) -> object:
        if kwargs.get("reuse") is not None:
            reused.append(kwargs["reuse"])
        return run(config, *args, **kwargs)

    monkeypatch.setattr(runs, "run", recorded_run)
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update({"n": "300", "d": "4", "seed": "11"})
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    cfg = ExperimentConfig(n=300, d=4, seed=11, estimators=default_estimators("real", "rho", 4))
    first = first_config(cfg, 1)  # one repetition at every other budget
    if not any("Showing 1 of 10 repetitions per point, refining" in i.value for i in at.info):
        pytest.skip("no worker pool here: the page computed the full sweep at once")
    assert f"{len(run(first)):,} runs" in _captions(at)
    deadline = time.monotonic() + 240
    while any("refining" in i.value for i in at.info) and time.monotonic() < deadline:
        time.sleep(1.0)
        at.run()
    assert not at.exception, at.exception
    assert not any("refining" in i.value for i in at.info), (
        "the full sweep never replaced the first result"
    )
    # the refiner drew the full sweep's views and its target view too (on the background pool),
    # before the sweep itself appeared: the rerun that shows them computes nothing
    refined = [key for name, key in puts if name == "dpmean-refine"]
    assert len(refined) == 3 and isinstance(refined[-1], str), puts  # the sweep comes last
    assert refined[0] == (refined[-1], "budget", "l2"), puts  # its views
    assert refined[1][:3] == (refined[-1], "budget", "l2") and len(refined[1]) == 4, puts  # target
    full = run(cfg)
    assert f"{len(full):,} runs" in _captions(at)
    assert "Showing all 10 repetitions per point" in _captions(at)
    # the refinement ran only the missing runs: it took the first result's
    assert len(reused) == 1 and sorted(set(reused[0]["rep"])) == [0], reused
    # the first result is exactly the full sweep's first repetition at those budgets (numbered
    # there as the full sweep's settings 0, 2 and 4)
    at_first = (full["rep"] < 1) & full["budget"].isin(first.sweep["budget"])
    part = full[at_first].reset_index(drop=True).drop(columns=["seconds", "setting"])
    assert part.equals(run(first).drop(columns=["seconds", "setting"]))
