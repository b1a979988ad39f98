"""Regression tests for the hostile/careless-user report: every reproduction of it, in the
library and the command line. (The pages' garbage URLs are in tests/pages/test_garbage_urls.py.)"""

from __future__ import annotations

import csv
import json
import tomllib
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import limits, registry
from dpcore.data import parse_csv
from dpcore.estimators.simplex_baselines import baseline_draws, resize_mean, uniform_sum
from dpcore.experiments import ExperimentConfig, needed_for_target, run
from dpcore.experiments.__main__ import main, write_outputs
from dpcore.export import escape_formulas, to_csv
from dpcore.privacy import Budget, approx_to_zcdp, zcdp_to_approx

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------------------------
# server exhaustion


def test_resize_with_a_tiny_count_budget_runs_in_constant_memory():
    # issue: /your_data?unit=rho&budget_value=1e-16 allocated 3 x 2.7 GiB of imputed rows. Here the
    # count's noise scale is 2e9 rows: the old code needed ~16 GB per column.
    x = np.random.default_rng(0).random((3, 2))
    tracemalloc.start()
    est = resize_mean(x, epsilon=1e-9, bounds=(0, 1), rng=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.all(np.isfinite(est.mean)) and est.mean.shape == (2,)
    assert est.diagnostics.imputed > 10**6 or est.diagnostics.resized_n == 1
    assert peak < 20 * 2**20


@pytest.mark.parametrize("kw", [{"epsilon": 1e-30}, {"epsilon": 1e-300}, {"rho": 1e-300}])
def test_resize_bounds_the_noisy_count_with_a_clear_error(kw):
    # issue: 1e-30 was a MemoryError, 1e-300 an IndexError (rint(N) overflowed int64)
    with pytest.raises(ValueError, match=r"resize: the count's budget .* noise scale"):
        resize_mean(np.ones((3, 1)) / 2, bounds=(0, 1), rng=0, **kw)


def test_uniform_sum_has_the_distribution_of_summed_uniform_rows():
    # exact construction (53 binomial bits); check it against direct sums, and its moments
    g = np.random.default_rng(7)
    k = np.full(4000, 5)
    fast = uniform_sum(k, 1, g)[:, 0]
    direct = g.random((4000, 5)).sum(axis=1)
    assert stats.ks_2samp(fast, direct).pvalue > 1e-6
    # a scale off by 30% is caught: sd of the mean of 4000 draws is sqrt(5/12/4000) ~ 0.01
    assert abs(fast.mean() - 2.5) < 5 * np.sqrt(5 / 12 / 4000)
    assert stats.ks_2samp(1.3 * (fast - 2.5) + 2.5, direct).pvalue < 1e-6
    # very large k: standardised sums are N(0, 1)
    big = 10**12
    z = (uniform_sum(np.full(2000, big), 1, g)[:, 0] - big / 2) / np.sqrt(big / 12)
    assert stats.kstest(z, "norm").pvalue > 1e-6


def test_resize_with_imputation_keeps_its_error():
    # the imputed rows' sum enters the mean exactly as before: the RMSE at a small n is unchanged
    x = np.full((20, 1), 0.5)
    draws = baseline_draws("resize", x, epsilon=0.5, bounds=(0, 1), reps=20000, rng=3)
    assert np.all(np.isfinite(draws))
    assert abs(float(np.mean(draws)) - 0.5) < 0.02


def test_config_toml_upload_limit_equals_the_library_limit():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["maxUploadSize"] == limits.MAX_UPLOAD_MB


def test_parse_csv_counts_header_fields_before_any_parsing(monkeypatch):
    # issue: a 240 KB header of 40,000 columns took 18 s of a core before the 512-column check
    def boom(*args, **kwargs):
        raise AssertionError("sniffed a 40,000-column header")

    monkeypatch.setattr(csv.Sniffer, "sniff", boom)
    raw = (
        ",".join(f"c{i}" for i in range(40_000)) + "\n" + ",".join(["1"] * 40_000) + "\n"
    ).encode()
    with pytest.raises(ValueError, match="40,000 columns; the limit is 512"):
        parse_csv(raw)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (
            {"repetitions": 10**9},
            "repetitions = 1,000,000,000 is too large: repetitions must be between 1 and 10,000",
        ),
        ({"n": 12_000, "d": 4096}, r"n \* d = 49,152,000 is too large"),
        ({"sweep": {"n": list(range(2, 1000))}}, "sweep grid has 998 points"),
        ({"n": None}, "n must be an integer"),
        ({"budget": [1]}, "budget must be"),
        ({"data_params": {"mean": "abc"}}, "data_params .* do not suit"),
        ({"sweep": {"budget": [None]}}, "must hold finite numbers"),
        ({"estimators": ["no_such_estimator"]}, "unknown estimator 'no_such_estimator'"),
        ({"bounds": {"half_width": 1e300}}, "half_width"),
    ],
)
def test_configs_have_upper_limits_and_typed_fields(change, match):
    with pytest.raises(ValueError, match=match):
        ExperimentConfig.from_dict({**ExperimentConfig().to_dict(), **change})


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('{"budget": Infinity}', "Infinity"),
        ('{"budget": NaN}', "NaN"),
        ('{"notes": ' + "[" * 5000 + "]" * 5000 + "}", "nested more than"),
        ("[" * 100_000, "nested more than"),
    ],
)
def test_config_json_constants_and_deep_nesting_are_refused(text, match):
    with pytest.raises(ValueError, match=match):
        ExperimentConfig.from_json(text)


def test_cli_refuses_unknown_estimator_and_huge_configs(tmp_path, capsys):
    for change in (
        {"estimators": ["no_such_estimator"]},
        {"n": 100_000, "d": 4096},
        {"repetitions": 10**9},
    ):
        path = tmp_path / "c.json"
        path.write_text(json.dumps({**ExperimentConfig().to_dict(), **change}))
        assert main([str(path), "--out", str(tmp_path / "out")]) == 2
        assert capsys.readouterr().err.startswith("error: ")


def test_documented_id_field_and_empirical_only_targets():
    cfg = ExperimentConfig(
        n=100,
        d=2,
        repetitions=2,
        sweep={"budget": [0.5, 1.0]},
        estimators=[{"name": "gaussian_private", "id": "mine"}, "empirical"],
    )
    frame = run(cfg)
    assert set(frame["estimator"]) == {"mine", "empirical"}
    assert dict(zip(frame["estimator"], frame["name"], strict=False))["mine"] == "gaussian_private"
    only = frame[frame["estimator"] == "empirical"]
    need = needed_for_target(only, 0.1, by="budget")  # was KeyError 'budget_needed'
    assert "budget_needed" in need.columns and need.empty


# ---------------------------------------------------------------------------------------------
# silent NaN / inf


def _bounded(x, bounds):
    return type("D", (), {"x": x, "bounds": bounds})()


@pytest.mark.parametrize(
    "name",
    [
        "gaussian_public",
        "clipped_box_zcdp",
        "clipped_laplace",
        "wwm_smith",
        "pmwm_zcdp",
        "empirical",
    ],
)
@pytest.mark.parametrize(
    ("bounds", "x"),
    [
        ((-1e155, 1e155), np.random.default_rng(0).normal(size=(50, 3)) * 1e150),
        ((-1.7e308, 1.7e308), np.full((50, 3), 1.7e308)),
        ((-1e300, 1e300), np.random.default_rng(1).normal(size=(50, 3)) * 1e299),
    ],
)
def test_huge_bounds_or_values_are_refused_not_nan(name, bounds, x):
    spec = registry.get(name)
    if spec.needs_dimension == "scalar":
        x = x[:, :1]
    with pytest.raises(ValueError, match="rescale"):
        spec.run(_bounded(x, bounds), Budget.zcdp(0.5), rng=0)


def test_plan_names_huge_finite_data_instead_of_calling_it_nan():
    x = np.random.default_rng(0).normal(size=(100, 3)) * 1e200
    with pytest.raises(ValueError) as info:
        registry.get("plan").run(_bounded(x, (-1e201, 1e201)), Budget.zcdp(0.5), rng=0)
    assert "NaN" not in str(info.value) and "rescale" in str(info.value)


def test_largest_allowed_range_gives_finite_means():
    x = np.random.default_rng(0).normal(size=(200, 3)) * 1e99
    for name in (
        "gaussian_public",
        "clipped_box_zcdp",
        "clipped_laplace",
        "pmwm_zcdp",
        "empirical",
        "plan",
        "resize_gauss",
        "simplex_gauss",
    ):
        est = registry.get(name).run(_bounded(x, (-1e100, 1e100)), Budget.zcdp(0.5), rng=0)
        assert np.all(np.isfinite(est.mean)), name


# ---------------------------------------------------------------------------------------------
# budgets


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Budget.approx(1, 1e-320), "delta must be at least 1e-100"),
        (lambda: Budget.approx(1e-17, 1e-6), "epsilon must be between 1e-12 and 100"),
        (lambda: Budget.pure(1e155), "epsilon must be between"),
        (lambda: Budget.pure(10**400), "epsilon must be a positive finite number"),
        (lambda: Budget.approx(1e-6, 1e-300), "delta must be at least"),
        (lambda: Budget.pure(True), "not bool"),
        (lambda: Budget.zcdp("0.5"), "not str"),
        (lambda: Budget.approx(1.0, True), "not bool"),
    ],
)
def test_impossible_or_ambiguous_budgets_are_refused_by_name(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_budget_limits_are_stated_in_limits():
    assert Budget.pure(limits.MAX_EPSILON).implied_zcdp().value == limits.MAX_RHO
    Budget.zcdp(limits.MAX_RHO)
    Budget.approx(limits.MIN_BUDGET, limits.MIN_DELTA)


@pytest.mark.parametrize(
    ("eps", "delta"), [(1e-12, 1e-6), (1e-12, 1e-100), (1e-9, 0.5), (100.0, 1e-100)]
)
def test_tiny_and_large_approx_budgets_convert_the_right_way(eps, delta):
    for method in ("cks", "standard"):
        rho = approx_to_zcdp(eps, delta, method)
        assert np.isfinite(rho) and rho > 0
        if rho >= limits.MIN_BUDGET:  # converting back never exceeds the epsilon asked for
            assert zcdp_to_approx(rho, delta, method) <= eps * (1 + 1e-9)
    std = approx_to_zcdp(eps, delta, "standard")
    # closed form without cancellation: rho + 2 sqrt(rho L) == eps to rounding
    L = np.log(1 / delta)
    assert std + 2 * np.sqrt(std * L) == pytest.approx(eps, rel=1e-9)


# ---------------------------------------------------------------------------------------------
# formula injection


def test_text_cells_that_start_a_formula_are_escaped_and_numbers_are_not():
    df = pd.DataFrame(
        {
            "estimator": ['=HYPERLINK("http://x")', "+1", "-a", "@SUM(1)", "\tx", "\rx", "plan"],
            "err": [-0.5, 1.0, -2.0, 0.0, 3.0, -1e-3, 2.0],
        }
    )
    out = escape_formulas(df)
    assert list(out["estimator"]) == [
        '\'=HYPERLINK("http://x")',
        "+1",  # text that is just a number is read as a number, never a formula
        "'-a",
        "'@SUM(1)",
        "'\tx",
        "'\rx",
        "plan",
    ]
    assert list(out["err"]) == list(df["err"])
    text = to_csv(df).decode()
    assert "\n-0.5" not in text and ",-0.5" in text and "'=HYPERLINK" in text


def test_cli_outputs_escape_user_supplied_ids(tmp_path):
    cfg = ExperimentConfig(
        n=60,
        d=2,
        repetitions=2,
        sweep={"budget": [0.5, 1.0]},
        estimators=[{"name": "gaussian_private", "id": '=HYPERLINK("http://evil")'}, "empirical"],
    )
    frame = run(cfg)
    write_outputs(frame, cfg, tmp_path)
    for name in ("results.csv", "summary.csv", "regret.csv"):
        text = (tmp_path / name).read_text()
        assert "'=HYPERLINK" in text, name
        assert not any(
            cell.startswith("=") for row in csv.reader(text.splitlines()) for cell in row
        ), name


def test_size_limits_are_enforced_the_same_way_in_library_cli_and_config(tmp_path, capsys):
    from dpcore.data import generate

    with pytest.raises(ValueError) as lib:
        generate("gaussian", 12_000, 4096, rng=0)
    with pytest.raises(ValueError) as cfg:
        ExperimentConfig(n=12_000, d=4096).validate()
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**ExperimentConfig().to_dict(), "n": 12_000, "d": 4096}))
    assert main([str(path), "--out", str(tmp_path / "out")]) == 2
    cli = capsys.readouterr().err
    assert str(lib.value) == str(cfg.value) and str(lib.value) in cli


def test_config_toml_has_no_file_watcher():
    # a file watcher costs every new session ~0.5 s of CPU walking the loaded modules
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["fileWatcherType"] == "none" and cfg["server"]["runOnSave"] is False


def test_config_toml_has_no_full_collection_after_every_run():
    # Streamlit's default gc.collect(2) after each script run (fragment reruns included) walked the
    # whole heap: 73% of the server's GIL time under thirty sessions
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["runner"]["postScriptGC"] is False
