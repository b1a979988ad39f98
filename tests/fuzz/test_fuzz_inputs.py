"""Fuzz the other doors a visitor can push: budget constructors and conversions, ``parse_csv``
(random bytes and text), experiment configs (random JSON) and the URL query (``parse_query``).
Each case passes with a correct result or a clear ``ValueError``/``TypeError``."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from dpcore import limits
from dpcore.data import parse_csv
from dpcore.experiments import ExperimentConfig
from dpcore.privacy import Budget, approx_to_zcdp, zcdp_to_approx
from pages._ui import DEFAULTS, QUERY_RANGES, UNITS, parse_query
from tests.fuzz._outcome import outcome
from tests.fuzz.conftest import FUZZ

# ---------------------------------------------------------------------------------------------
# budgets

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(1e-20, 1e4),
    st.integers(-(10**500), 10**500),
    st.sampled_from([True, False, "0.5", None, 1e-320, 1e155, 10**400]),
    st.builds(lambda e: 10.0**e, st.floats(-330, 308)),
)


@FUZZ
@given(
    st.sampled_from(["pure", "zcdp", "approx"]),
    NUMBERS,
    NUMBERS,
    st.sampled_from(["cks", "standard"]),
)
def test_budgets_convert_correctly_or_refuse(case_counter, notion, value, delta, method) -> None:
    case_counter()
    make = {
        "pure": lambda: Budget.pure(value),
        "zcdp": lambda: Budget.zcdp(value),
        "approx": lambda: Budget.approx(value, delta),
    }[notion]
    kind, b = outcome(make)
    if kind == "refused":
        return
    for target in ("zcdp", "pure"):
        done, conv = outcome(lambda t=target: b.to_native(t, method))
        if done == "refused":  # e.g. a pure budget asked of a zCDP estimator: refused by name
            continue
        assert math.isfinite(conv.value) and conv.value > 0, (b, target, conv)
    if (
        notion == "approx"
    ):  # the implication runs the right way: rho converts back to at most epsilon
        rho = approx_to_zcdp(b.epsilon, b.delta, method)
        assert rho > 0
        back = (
            zcdp_to_approx(max(rho, limits.MIN_BUDGET), b.delta, method)
            if rho >= limits.MIN_BUDGET
            else None
        )
        if back is not None:
            assert back <= b.epsilon * (1 + 1e-9), (b, rho, back)
    eps, dl = b.to_approx(1e-6, method)
    assert math.isfinite(eps) and eps > 0 and 0 <= dl < 1


# ---------------------------------------------------------------------------------------------
# parse_csv

CSV_TEXT = st.lists(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
            st.text(max_size=6),
            st.integers().map(str),
        ),
        min_size=1,
        max_size=6,
    ),
    min_size=0,
    max_size=8,
).map(lambda rows: "\n".join(",".join(r) for r in rows))


@FUZZ
@given(
    st.one_of(
        st.binary(max_size=400),
        CSV_TEXT.map(str.encode),
        st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    )
)
def test_parse_csv_gives_a_frame_or_refuses(case_counter, raw: bytes) -> None:
    case_counter()
    kind, df = outcome(lambda: parse_csv(raw))
    if kind == "ok":
        assert 0 < df.shape[1] <= limits.MAX_COLUMNS and df.shape[0] >= 1


# ---------------------------------------------------------------------------------------------
# experiment configs

JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
BASE = ExperimentConfig(
    n=200,
    d=4,
    repetitions=2,
    estimators=["empirical", "gaussian_private"],
    sweep={"budget": [0.5, 1.0]},
).to_dict()
FIELDS = sorted(BASE)


@FUZZ
@given(
    st.dictionaries(st.sampled_from([*FIELDS, "id", "mean"]), JSON_VALUES, max_size=4),
    st.sampled_from(["", "Infinity", "NaN", "deep"]),
)
def test_configs_validate_or_refuse(case_counter, changes: dict, twist: str) -> None:
    case_counter()
    text = json.dumps({**BASE, **changes})
    if twist in ("Infinity", "NaN"):
        text = text.replace('"budget": 0.5', f'"budget": {twist}', 1)
    elif twist == "deep":
        text = text[:-1] + ', "notes": ' + "[" * 200 + "]" * 200 + "}"
    kind, cfg = outcome(lambda: ExperimentConfig.from_json(text))
    if kind == "ok":
        assert cfg.repetitions <= limits.MAX_REPETITIONS
        for s in cfg.settings():
            assert s["n"] * s["d"] <= limits.MAX_CELLS


# ---------------------------------------------------------------------------------------------
# the URL query

QUERY_VALUES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "inf",
            "-inf",
            "nan",
            "1e400",
            "-1e400",
            "1e-300",
            "0",
            "-1",
            "5",
            "2.5",
            "1e9",
            "gaussian",
            "rho",
        ]
    ),
    st.floats().map(repr),
    st.integers(-(10**20), 10**20).map(str),
)


@FUZZ
@given(
    st.dictionaries(
        st.one_of(
            st.sampled_from([*list(QUERY_RANGES), "distribution", "unit", "preset"]),
            st.text(max_size=5),
        ),
        QUERY_VALUES,
        max_size=8,
    )
)
def test_parse_query_keeps_only_values_widgets_accept(case_counter, params: dict) -> None:
    case_counter()
    out = parse_query(params)
    for key, value in out.items():
        if key in QUERY_RANGES:
            cast, lo, hi = QUERY_RANGES[key]
            assert isinstance(value, cast) and math.isfinite(value) and lo <= value <= hi
        elif key == "unit":
            assert value in UNITS
        else:
            assert key == "distribution"
    assert set(out) <= set(vars(DEFAULTS)) | {"distribution"}
    np.testing.assert_equal(parse_query(params), out)  # a pure function of the query
