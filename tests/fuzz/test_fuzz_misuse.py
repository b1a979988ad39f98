"""Fuzz the API edge with misuse and garbage links: what a caller or a visitor sends.

* Every registered estimator called with budgets that are not a ``Budget``, bounds beyond float
  range, NaN, infinite, one ulp wide or narrow for their offset (OpenDP's map), wrong keywords and
  NaN parameters. A case passes with a finite mean or a clear ``ValueError``/``TypeError``
  (:mod:`tests.fuzz._outcome`), within :data:`CASE_SECONDS`.
* Every page opened with garbage in its own and the global URL keys (non-finite, out of range,
  ``-0``, over-long, deeply nested, control characters): no exception reaches the visitor.
"""

from __future__ import annotations

import math
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import registry
from dpcore.privacy import Budget
from tests.fuzz._outcome import assert_finite_mean, outcome
from tests.fuzz.conftest import FUZZ, PROFILE

SPECS = registry.all_estimators()
#: Longest a single fuzzed call may take (the OpenDP scale search is the slowest: well under 1 s).
CASE_SECONDS = 10.0
NAN, INF = math.nan, math.inf

BUDGETS = [
    lambda: Budget.zcdp(0.5),
    lambda: Budget.pure(1.0),
    lambda: Budget.approx(1.0, 1e-6),
    lambda: 0.5,
    lambda: "0.5",
    lambda: None,
    lambda: {"rho": 0.5},
]
BOUNDS = [
    (0.0, 1.0),
    (-(10**400), 10**400),
    (1000.0, 1000.000000001),
    (1.0, 1.0 + 2.3e-16),
    (NAN, 1.0),
    (0.0, INF),
    "0,1",
    (0.0, 1.0, 2.0),
    None,
]
EXTRAS = [
    {},
    {},
    {"foo": 1},
    {"epsilon": 1.0},
    {"rho": 0.5},
    {"params": {}},
    {"center": NAN},
    {"budget_split": NAN},
    {"group_size": NAN},
    {"beta": INF},
]


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_api_misuse_is_refused_clearly_and_in_time(spec: registry.EstimatorSpec, case_counter):
    @FUZZ
    @given(
        st.integers(0, len(BUDGETS) - 1),
        st.integers(0, len(BOUNDS) - 1),
        st.integers(0, len(EXTRAS) - 1),
        st.integers(2, 30),
        st.integers(1, 4),
        st.integers(0, 2**32 - 1),
    )
    def check(b: int, lo_hi: int, extra: int, n: int, d: int, seed: int) -> None:
        case_counter()
        d = 1 if spec.needs_dimension == "scalar" else d
        rng = np.random.default_rng(seed)
        bounds = BOUNDS[lo_hi]
        x = rng.random((n, d))
        if isinstance(bounds, tuple) and len(bounds) == 2 and bounds[0] == 1000.0:
            x = 1000.0 + x * 1e-9
        kwargs = dict(EXTRAS[extra])
        if bounds is not None:
            kwargs["bounds"] = bounds
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kind, value = outcome(lambda: registry.run(spec.name, x, BUDGETS[b](), rng=0, **kwargs))
        assert time.perf_counter() - start < CASE_SECONDS, "over the time budget"
        if kind == "ok":
            assert_finite_mean(value.mean, d)

    check()


# ---- links on every page --------------------------------------------------------------------

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE_KEYS = {
    "pages/home.py": [],
    "pages/privacy_budget.py": [],
    "pages/plan_step_by_step.py": ["plan_p", "plan_i", "plan_j", "plan_e", "plan_source"],
    "pages/compare.py": ["cmp_reps", "cmp_x", "cmp_metric", "preset", "cmp_est"],
    "pages/winsorized.py": ["wins_size", "wins_eta", "wins_contam"],
    "pages/simplex.py": [],
    "pages/binary_product.py": ["bp_d", "bp_n"],
    "pages/your_data.py": [
        "yd_reps",
        "yd_bounds",
        "yd_peers",
        "yd_source",
        "yd_bundled",
        "yd_cols",
    ],
}
GLOBAL_KEYS = ["n", "d", "seed", "skew", "budget_value", "unit", "delta", "distribution"]
GARBAGE = [
    "inf", "-inf", "nan", "1e400", "-1e400", "-0", "-0.0", "0", "-1", "2.5", "1e-400", "",
    "1" * 70, "x", "\x00", "%00", "１２", "[" * 3000, '{"wage": [1000, 1000.000000001]}',
    '{"a": [1e999, 1]}', "=cmd|'/C calc'!A0", "a\rb", "9" * 400,
]  # fmt: skip
#: AppTest page opens per page: few in `make test`, more in `make fuzz`.
PAGE_EXAMPLES = {"fast": 1, "fuzz": 12}[PROFILE]


@pytest.mark.parametrize("page", list(PAGE_KEYS))
def test_garbage_links_never_show_a_traceback(page: str, case_counter):
    from streamlit.testing.v1 import AppTest

    keys = PAGE_KEYS[page] + GLOBAL_KEYS

    @settings(FUZZ, max_examples=PAGE_EXAMPLES)
    @given(st.dictionaries(st.sampled_from(keys), st.sampled_from(GARBAGE), min_size=1, max_size=4))
    def check(query: dict[str, str]) -> None:
        case_counter()
        at = AppTest.from_file(APP, default_timeout=180)
        for k, v in {"n": "200", "d": "2", **query}.items():
            at.query_params[k] = v
        at.run()
        at.switch_page(page)
        at.run()
        assert not at.exception, (query, at.exception)

    check()
