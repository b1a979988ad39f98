"""Fuzz what a hostile visitor or caller sends that no cap reached before: links whose values a
budget refuses (``?delta=-0``), a link with 10,000 parameters, huge magnitudes with a tiny budget
(pmwm's grid search), a CSV of 10^6 columns, one 200 MB line or a data line far wider than its
header, and column names that look alike.

Time is bounded by counting, not by a clock: the quantile grid search may compute the grid at
most :data:`GRID_PASSES` times per call (it stepped one grid point per pass before).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcore.data.csv import MAX_COLUMNS, parse_csv
from dpcore.privacy import Budget
from dpcore.quantiles import unbounded
from pages._sidebar import DEFAULTS, Settings, read_query
from tests.fuzz._outcome import assert_finite_mean, outcome
from tests.fuzz.conftest import FUZZ

#: Grid computations allowed per quantile call (one per column chunk and walk; was ~190,000).
GRID_PASSES = 64

NUMBERS = st.sampled_from(
    ["0", "-0", "0.0", "-0.0", "+0", "0e5", "1e-400", "1e-101", "1", "1.0", "2", "-1e-6", "nan",
     "inf", "1e400", "0x10", "１", "", " 0", "1e-6", "0.5", "5000", "100", "1e-12"]
)  # fmt: skip
KEYS = st.sampled_from(["delta", "budget_value", "n", "d", "seed", "skew", "unit"])


@FUZZ
@given(st.dictionaries(KEYS, NUMBERS | st.sampled_from(["rho", "eps", "eps_delta", "bits"])))
def test_link_settings_are_valid_or_fall_back_with_a_reason(case_counter, query):
    case_counter()
    values, why = read_query(query)
    record = Settings(**{**DEFAULTS.__dict__, **values})
    record.checked()  # never a budget or a delta that a page would refuse
    assert set(values) | set(why) == set(query)  # every key used or explained
    assert all(len(reason) >= 10 for reason in why.values())


@pytest.mark.parametrize("value", ["0", "-0", "0.0"])
def test_delta_zero_in_a_link_falls_back(value):
    values, why = read_query({"delta": value, "unit": "eps_delta"})
    assert "delta" not in values and "delta must be strictly between 0 and 1" in why["delta"]


def test_a_link_with_ten_thousand_parameters_is_read_in_one_pass():
    query = {f"k{i}": "x" * 10 for i in range(10_000)} | {"delta": "-0", "n": "300"}
    values, why = read_query(query)
    assert values == {"n": 300} and set(why) == {"delta"}


# ---- slow corners: huge magnitudes with a tiny budget ---------------------------------------


@pytest.fixture
def counted_grid(monkeypatch):
    """Count the grid computations of the unbounded quantile; fail past :data:`GRID_PASSES`."""
    calls = [0]
    real = unbounded._grid_minus_one

    def counted(i, log_beta):  # noqa: ANN001, ANN202
        calls[0] += 1
        if calls[0] > GRID_PASSES:
            raise AssertionError(f"over the grid-pass budget ({GRID_PASSES}): a slow search")
        return real(i, log_beta)

    monkeypatch.setattr(unbounded, "_grid_minus_one", counted)
    return calls


@FUZZ
@given(
    st.integers(60, 100),
    st.sampled_from([1e-3, 1e-2, 0.1]),
    st.integers(1, 40),
    st.integers(0, 2**32 - 1),
)
def test_pmwm_at_huge_magnitudes_ends_in_few_grid_passes(
    case_counter, counted_grid, exponent, eps, d, seed
):
    from dpcore import registry

    case_counter()
    counted_grid[0] = 0
    scale = 10.0**exponent
    x = np.clip(np.random.default_rng(seed).normal(size=(50, d)), -1, 1) * scale
    kind, value = outcome(
        lambda: registry.run("pmwm", x, Budget.pure(eps), rng=seed, bounds=(-scale, scale))
    )
    if kind == "ok":
        assert_finite_mean(value.mean, d)


def test_bin_index_matches_the_grid_at_the_magnitude_limit():
    lo, log_beta = np.array([-1e100]), math.log(1.001)
    k = unbounded._grid_size(lo, np.array([1e100]), 1.001)
    kmax = int(k.max())
    grid = lo[0] + unbounded._grid_minus_one(np.arange(1, kmax + 1), log_beta)
    x = np.array([[-1e100], [-1e99], [0.0], [3e99], [1e100], [grid[1000]], [grid[-2]]])
    b = unbounded._bin_index(x, lo[None, :], kmax, log_beta)
    want = [(grid <= v).sum() for v in x[:, 0]]
    assert b[:, 0].tolist() == want


# ---- uploads: 10^6 columns, a 200 MB line, look-alike names ---------------------------------


def test_a_csv_of_a_million_columns_is_refused_by_its_header():
    data = (",".join(f"c{i}" for i in range(10**6)) + "\n" + "1," * (10**6 - 1) + "1\n").encode()
    with pytest.raises(ValueError, match="columns; the limit is"):
        parse_csv(data)


def test_a_single_200_mb_line_is_refused_by_its_size():
    data = b"a" * (200 * 2**20)
    with pytest.raises(ValueError, match="MB; the limit is"):
        parse_csv(data)


@FUZZ
@given(st.integers(1, 3), st.integers(MAX_COLUMNS + 1, 20_000), st.sampled_from([",", ";", "\t"]))
def test_a_data_line_wider_than_the_column_limit_is_refused(case_counter, width, fields, sep):
    # pandas took 4 s per 10,000 extra fields and kept the first column: a wrong table, slowly
    case_counter()
    sep = sep if width > 1 else ","  # a one-column header names no separator: the default
    header = sep.join(f"c{i}" for i in range(width))
    data = f"{header}\n{sep.join(['1'] * fields)}\n{sep.join(['2'] * width)}\n".encode()
    kind, message = outcome(lambda: parse_csv(data))
    assert kind == "refused" and "fields; the limit is" in message, message


LOOK_ALIKE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
              "x": "\u0445", "i": "\u0456", "y": "\u0443"}  # fmt: skip


@FUZZ
@given(
    st.text(alphabet="aeopcxiy", min_size=1, max_size=8),
    st.integers(0, 7),
    st.sampled_from(["swap", "zero_width", "fullwidth"]),
)
def test_look_alike_column_names_are_refused_clearly(case_counter, name, where, how):
    case_counter()
    i = where % len(name)
    if how == "swap":
        twin = name[:i] + LOOK_ALIKE[name[i]] + name[i + 1 :]
    elif how == "zero_width":
        twin = name[:i] + "\u200b" + name[i:]
    else:
        twin = name[:i] + chr(ord(name[i]) + 0xFEE0) + name[i + 1 :]
    kind, message = outcome(lambda: parse_csv(f"{name},{twin}\n1,2\n3,4\n".encode()))
    assert kind == "refused" and "look the same" in message, (name, twin, message)
