"""Refusals at the API edge: configs, the command line, CSV exports and uploads, and links.

Each test reproduces one finding of the reliability audit of November 2026
(``../shared/audits/reliability-2026-11.md``) and checks that it is refused cleanly or fixed.
"""

from __future__ import annotations

import json

import pytest

from dpcore import limits
from dpcore.experiments import ExperimentConfig
from dpcore.experiments.__main__ import main
from dpcore.experiments.cost import check_app_limits

BASE = {
    "name": "t",
    "distribution": "gaussian",
    "n": 200,
    "d": 4,
    "budget": 0.5,
    "unit": "rho",
    "sweep": {"budget": [0.25, 0.5]},
    "repetitions": 2,
    "seed": 0,
}


def _config(**change):
    return {**BASE, **change}


# ---- configs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("params", [None, [1, 2], "x", 3])
def test_config_params_that_are_not_an_object_are_refused(params):
    text = json.dumps(_config(estimators=[{"name": "plan", "params": params}]))
    with pytest.raises(ValueError, match="must be a JSON object of keyword arguments"):
        ExperimentConfig.from_json(text)


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("plan", {"foo": 1}, r"takes no parameter\(s\) \['foo'\]|has no parameter 'foo'"),
        ("gaussian_public", {"nope": 1}, "nope"),
        ("plan", {"epsilon": 1.0}, "set by the budget"),
    ],
)
def test_unknown_parameter_names_are_refused_when_the_config_is_read(name, params, match):
    with pytest.raises(ValueError, match=match):
        ExperimentConfig.from_dict(_config(estimators=[{"name": name, "params": params}]))


def test_known_forwarded_parameters_are_accepted():
    cfg = ExperimentConfig.from_dict(
        _config(estimators=[{"name": "plan", "params": {"beta": 0.1}, "id": "p"}])
    )
    assert cfg.estimator_entries()[0]["params"] == {"beta": 0.1}


@pytest.mark.parametrize(
    "change",
    [
        {"name": "a\rb"},
        {"estimators": [{"name": "plan", "id": "PLAN\r=cmd|'/C calc'!A0"}]},
        {"estimators": [{"name": "plan", "id": "x\ny"}]},
        {"estimators": [{"name": "plan", "id": "x\x00y"}]},
    ],
)
def test_control_characters_in_names_and_ids_are_refused(change):
    with pytest.raises(ValueError, match="one line of printable text"):
        ExperimentConfig.from_dict(_config(**{"estimators": ["plan"], **change}))


def _huge_grid(reps=50, estimators=64):
    return _config(
        n=2,
        d=1,
        estimators=[{"name": "empirical", "id": f"e{i}"} for i in range(estimators)],
        sweep={
            "budget": [round(0.10 + 0.01 * i, 2) for i in range(20)],
            "skew": [round(0.05 * i, 2) for i in range(20)],
        },
        repetitions=reps,
    )


def test_a_config_with_too_many_tasks_is_refused_from_any_source(tmp_path, capsys):
    """Audit 2.2: 400 points x 64 estimators x 50 repetitions = 1.28 M tasks, 5.7 GB."""
    with pytest.raises(ValueError, match="1,280,000 runs"):
        ExperimentConfig.from_dict(_huge_grid())
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_huge_grid()))
    assert main([str(path), "--out", str(tmp_path / "out"), "--no-png"]) == 2
    assert "1,280,000 runs" in capsys.readouterr().err


def test_the_page_caps_repetitions_tasks_and_cells_of_uploaded_configs():
    capped = check_app_limits(
        ExperimentConfig.from_dict(_config(estimators=["plan"], repetitions=10_000))
    )
    assert capped.repetitions == limits.APP_REPETITIONS[1]
    with pytest.raises(ValueError, match=f"limit is {limits.APP_TASKS:,}"):
        check_app_limits(ExperimentConfig.from_dict(_huge_grid(reps=3, estimators=40)))
    with pytest.raises(ValueError, match="page's limit"):
        check_app_limits(
            ExperimentConfig.from_dict(
                _config(estimators=["plan"], n=200_000, d=120, sweep={"budget": [0.5]})
            )
        )
    cfg = ExperimentConfig.from_dict(_config(estimators=["plan"]))
    assert check_app_limits(cfg) is cfg


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_configs_with_a_byte_order_mark_are_read(tmp_path, encoding):
    text = json.dumps(_config(estimators=["plan"]))
    assert ExperimentConfig.from_json(text.encode(encoding)).name == "t"
    path = tmp_path / "c.json"
    path.write_bytes(text.encode(encoding))
    assert ExperimentConfig.load(path).name == "t"
    assert ExperimentConfig.from_json("\ufeff" + text).name == "t"


# ---- command line -------------------------------------------------------------------------------


@pytest.mark.parametrize("params", ["null", "[1, 2]"])
def test_cli_refuses_non_object_params_in_one_line(tmp_path, capsys, params):
    path = tmp_path / "c.json"
    text = json.dumps(_config(estimators=[{"name": "plan", "params": 0}]))
    path.write_text(text.replace('"params": 0', f'"params": {params}'))
    assert main([str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize("where", ["existing_file", "under_a_file", "proc"])
def test_cli_turns_an_unusable_out_into_one_line(tmp_path, capsys, where):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_config(estimators=["empirical"], n=20, d=1)))
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    out = {
        "existing_file": blocker,
        "under_a_file": blocker / "sub",
        "proc": "/proc/dpmean-test/out",
    }[where]
    assert main([str(path), "--out", str(out), "--no-png"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


# ---- links --------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["inf", "-inf", "1e400", "-1e400", "nan", "2.5", "1" * 65, "x"])
def test_url_integers_refuse_non_finite_fractional_and_long_text(raw):
    from pages._ui import _decode

    with pytest.raises(ValueError):
        _decode(raw, 3)


def test_url_numbers_normalise_minus_zero():
    from pages._ui import _decode, url_number

    assert str(url_number("-0")) == "0.0" and str(_decode("-0.0", 0.1)) == "0.0"
    assert _decode("1e3", 3) == 1000 and isinstance(_decode("1e3", 3), int)


@pytest.mark.parametrize(
    "raw", ["[" * 3000, '{"a": [[[[1]]]]}', '{"a": [NaN, 1]}', "{" + '"a": 1,' * 2000 + "}"]
)
def test_url_json_refuses_deep_long_and_non_finite_text_before_parsing(raw):
    from pages._ui import url_json

    with pytest.raises(ValueError):
        url_json(raw)


def test_url_json_reads_a_bounds_object():
    from pages._ui import url_json

    assert url_json('{"wage": [1000, 1001]}') == {"wage": [1000, 1001]}


# ---- CSV exports --------------------------------------------------------------------------------


def _cells(data: bytes) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(data.decode(), newline="")))


def test_a_carriage_return_inside_a_cell_never_starts_a_row():
    """Audit 2.4: 'PLAN\\r=cmd|...' split into two rows, the second starting with =cmd."""
    import pandas as pd

    from dpcore.export import to_csv

    b = to_csv(pd.DataFrame({"estimator": ["PLAN\r=cmd|'/C calc'!A0", "a\n@x"], "rmse": [0.1, 2]}))
    rows = _cells(b)
    assert len(rows) == 3 and all(len(r) == 2 for r in rows)
    for row in rows[1:]:
        for line in row[0].replace("\r", "\n").split("\n")[1:]:
            assert not line.startswith(("=", "@")), row


@pytest.mark.parametrize(
    "cell",
    [" =1+1", "  +A1", "\uff1d1+1", "\uff0bA1", "\uff0dA1", "\uff20SUM(A1)", "\ufe661+1", "\t=1"],
)
def test_blank_space_and_full_width_signs_before_a_formula_are_escaped(cell):
    from dpcore.export import escape_cell

    assert escape_cell(cell).startswith("'")


@pytest.mark.parametrize("cell", ["-0.5", "-1e5", "+5", "-", "plan", "PLAN (tuned)", "a-b"])
def test_numbers_and_plain_text_are_left_alone(cell):
    from dpcore.export import escape_cell

    assert escape_cell(cell) == cell


# ---- uploads ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        ("a,b\r" + "".join(f"{i},{2 * i}\r" for i in range(300))).encode(),  # classic Mac
        ("a,b\n" + "".join(f"{i},{2 * i}\n" for i in range(300))).encode("utf-16"),
        b"\xfe\xff" + ("a,b\n" + "".join(f"{i},{2 * i}\n" for i in range(300))).encode("utf-16-be"),
        ("a,b\r\n" + "".join(f"{i},{2 * i}\r\n" for i in range(300))).encode("utf-8-sig"),
    ],
    ids=["cr-only", "utf-16-le-bom", "utf-16-be-bom", "utf-8-bom-crlf"],
)
def test_uploads_with_other_line_ends_and_encodings_are_read(data):
    from dpcore.data.csv import parse_csv

    df = parse_csv(data)
    assert list(df.columns) == ["a", "b"] and df.shape == (300, 2)
    assert df["b"].sum() == 2 * sum(range(300))


def test_duplicate_header_refusal_is_linear_and_follows_quoted_line_breaks():
    import time

    from dpcore.data.csv import parse_csv

    hidden = '"a\nb",' + ",".join(["x"] * 10_000) + "\n" + ",".join(["1"] * 10_001) + "\n"
    dups = ",".join(["x"] * 500) + "\n" + ",".join(["1"] * 500) + "\n"
    for text, match in ((hidden, "10,001 columns"), (dups, "same name")):
        start = time.perf_counter()
        with pytest.raises(ValueError, match=match):
            parse_csv(text.encode())
        assert time.perf_counter() - start < 0.5


# ---- memory -------------------------------------------------------------------------------------


def test_byte_cache_holds_at_most_its_bytes_and_skips_large_values():
    import numpy as np

    from pages._bytecache import ByteCache, deep_nbytes

    cache = ByteCache(max_entries=100, max_bytes=10 * 2**20)
    for seed in range(20):  # 20 values of 1 MB: at most 10 MB kept
        cache.put(seed, (np.zeros(2**17), {"seed": seed}))
        assert cache.bytes <= cache.max_bytes
    assert cache.get(19)[0] and not cache.get(0)[0]
    cache.put("big", np.zeros(2**20))  # 8 MB: above half the budget, not kept
    assert not cache.get("big")[0]
    x = np.zeros((100, 100))
    assert deep_nbytes((x, x[:, 0], [x])) == x.nbytes  # a view counts its base once


def test_byte_cached_functions_share_one_cache_across_page_runs():
    """A page's script defines its functions again on every run; they must find one cache."""
    from pages._bytecache import byte_cached

    calls = []

    def define():
        @byte_cached(4, 2**20)
        def square(v):
            calls.append(v)
            return v * v

        return square

    assert define()(3) == 9 and define()(3) == 9
    assert calls == [3]
