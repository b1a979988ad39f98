"""The Your data study: repeated runs keep each column's error in its units, the clipping bias
is measured apart from the noise, and the summary never adds columns of different units."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import registry
from dpcore.data.dataset import Dataset
from dpcore.experiments.studies.your_data import (
    best_few,
    clipping_frame,
    data_spread,
    repeated_runs,
    summary,
)
from dpcore.privacy import Budget

COLUMNS = ["age", "income"]


def _incomes(n: int = 800, seed: int = 0) -> Dataset:
    g = np.random.default_rng(seed)
    x = np.c_[g.uniform(20, 70, n), g.lognormal(10.8, 0.5, n)]
    x[0, 1] = 61_000_000.0  # one outlier, far outside the bounds
    lo, hi = np.array([0.0, 0.0]), np.array([100.0, 250_000.0])
    return Dataset(x, x.mean(axis=0), x.std(axis=0), "real", (lo, hi), name="incomes")


def test_clipping_frame_measures_the_shift_of_the_mean() -> None:
    data = _incomes()
    clip = clipping_frame(data, COLUMNS).set_index("column")
    x = data.x[:, 1]
    assert clip.loc["income", "clipped_share"] == pytest.approx(np.mean(x > 250_000))
    assert clip.loc["income", "shift"] == pytest.approx(np.clip(x, 0, 250_000).mean() - x.mean())
    assert clip.loc["age", "shift"] == 0.0 and clip.loc["age", "clipped_share"] == 0.0


def test_repeated_runs_separate_clipping_bias_from_noise() -> None:
    """Over several data seeds, the clipped-bounds estimator's median error against the raw mean
    sits at the clipping bias (the shift), and its error against the clipped mean is small: the
    two references tell the bias and the noise apart."""
    far, near = [], []
    for seed in range(4):
        data = _incomes(seed=seed)
        shift = clipping_frame(data, COLUMNS)["shift"].iloc[1]
        spec = registry.get("clipped_box_zcdp")
        runs = repeated_runs([spec], data, Budget.zcdp(0.5), 20, seed, columns=COLUMNS)
        inc = runs.frame[runs.frame["column"] == "income"]
        near.append(abs(inc["error_clipped"].median()) / abs(shift))
        far.append(abs(inc["error"].median() - shift) / abs(shift))
    assert max(near) < 0.05, f"median {np.median(near):.3g}, worst {max(near):.3g}"
    assert max(far) < 0.05, f"median {np.median(far):.3g}, worst {max(far):.3g}"


def test_summary_is_a_share_of_range_or_one_column_in_its_units() -> None:
    data = _incomes()
    specs = [registry.get(n) for n in ("clipped_box_zcdp", "gaussian_public", "pmwm_zcdp")]
    runs = repeated_runs(specs, data, Budget.zcdp(0.5), 10, 1, columns=COLUMNS)
    assert set(runs.frame["column"]) == set(COLUMNS) and len(runs.ledgers) == 3
    whole = summary(runs.frame)
    f = runs.frame[runs.frame["estimator"] == specs[0].label]
    per_run = np.sqrt(((f["error_clipped"] / f["width"]) ** 2).groupby(f["run"]).mean().to_numpy())
    row = whole.set_index("estimator").loc[specs[0].label]
    assert row["median"] == pytest.approx(np.median(per_run))
    assert row["low"] <= row["median"] <= row["high"]
    # a share of each range: income in thousands of dollars gives the same numbers
    thousands = Dataset(
        data.x / [1.0, 1000.0], None, None, "real", (data.bounds[0], data.bounds[1] / [1, 1000])
    )
    lap = registry.get("clipped_laplace")
    again = summary(repeated_runs([lap], thousands, Budget.pure(1.0), 10, 1).frame)
    first = summary(repeated_runs([lap], data, Budget.pure(1.0), 10, 1).frame)
    assert again["median"].iloc[0] == pytest.approx(first["median"].iloc[0], rel=1e-9)
    one = summary(runs.frame, "income").set_index("estimator").loc[specs[0].label]
    assert one["median"] == pytest.approx(f.loc[f["column"] == "income", "error"].median())
    assert data_spread(data, 1) == pytest.approx(data.x[:, 1].std())


def test_best_few_keeps_the_best_of_each_guarantee_and_every_library() -> None:
    data = _incomes(200)
    specs = [
        sp
        for sp in registry.applicable("real", 2)
        if sp.notion != "none"
        and not sp.uses_oracle
        and sp.meets(Budget.zcdp(0.5))
        and sp.family != registry.PEERS
    ]
    table = summary(repeated_runs(specs, data, Budget.zcdp(0.5), 5, 0, columns=COLUMNS).frame)
    table.loc[table.index[-1], "library"] = True  # the worst one, marked as a library
    few = best_few(table, 2)
    for g, part in few[~few["library"]].groupby("guarantee"):
        ranks = table[(table["guarantee"] == g) & ~table["library"]]["rank"].sort_values()
        assert sorted(part["rank"]) == list(ranks.iloc[: len(part)]) and len(part) <= 2
    assert table.iloc[-1]["estimator"] in set(few["estimator"])


def test_a_refusing_estimator_leaves_the_others() -> None:
    x = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]])
    data = Dataset(x, x.mean(0), x.std(0), "real", (np.zeros(2), np.full(2, 10.0)))
    runs = repeated_runs(
        [registry.get("sa_pmwm"), registry.get("clipped_laplace")], data, Budget.pure(1.0), 3, 0
    )
    assert registry.get("sa_pmwm").label in runs.refused
    assert set(runs.frame["name"]) == {"clipped_laplace"}
