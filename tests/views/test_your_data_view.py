"""The Your data views: the form, the bounds table's parsing, the exploration (each estimator's
runs on its own noise stream, the estimators a budget leaves out) and the Release panel's pure
parts; the notebook's settings line rebuilds the same record."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dpcore import registry
from dpcore.data import bundled_frame
from dpcore.views.settings import DataSettings
from dpcore.views.your_data import (
    ExploreSettings,
    FormSettings,
    Source,
    YourDataSettings,
    form,
    overview,
    parse_bounds,
    runs,
    typed_ranges,
    view,
    your_dataset,
)
from dpcore.views.your_data_release import Inputs, panel, series_key

CPS = Source("bundled", "cps1988")
COLS = ("wage", "education")
CSV = b"age,income,person_id\n34,52000,1\n51,,2\n29,41000,3\n45,70000,4\n"


def _explore(**kw) -> ExploreSettings:
    base = dict(
        data=DataSettings(seed=2),
        source=CPS,
        columns=COLS,
        lower=(0.0, 0.0),
        upper=(2000.0, 20.0),
        reps=5,
    )
    return ExploreSettings(**{**base, **kw})


def test_the_form_of_a_bundled_set_and_of_an_upload() -> None:
    f = form(FormSettings(CPS))
    assert f.rows == len(bundled_frame("cps1988")) and "wage" in f.default_columns
    assert f.documented["wage"][0] <= f.documented["wage"][1]
    up = form(FormSettings(Source("upload", CSV), ("age", "income")))
    assert up.default_columns == ("age", "income")  # an identifier is not chosen for you
    assert up.documented == {} and up.missing == 1
    assert form(FormSettings(Source("upload", CSV), ("age",))).missing == 0


def test_a_broken_file_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        form(FormSettings(Source("paste", b"")))


def test_the_typed_bounds_are_parsed_without_assuming_a_range() -> None:
    assert parse_bounds([1.0, 0.0], [2.0, 9.0], 2) == ((1.0, 0.0), (2.0, 9.0))
    assert parse_bounds(["1", "x"], [2, 3], 2) is None
    assert parse_bounds([1.0], [2.0], 2) is None
    assert parse_bounds([float("nan")], [2.0], 1) is None
    kept = typed_ranges(
        [("a", 1, 2), ("b", 0, 9), ("c", "", 1)], {"c": (0.0, 1.0)}, {"b": (0.0, 9.0)}
    )
    assert kept == {"a": (1.0, 2.0)}


@pytest.mark.parametrize(
    "cell",
    [
        "0",
        "16",
        "-5",
        "250000",
        "999999999999999",
        "1000000000000000",
        "-0",
        "00",
        "+5",
        "1_000",
        " 5",
        "1.5",
        "1e3",
        "0.1",
        "nan",
        "inf",
        "",
        "abc",
        "٣",
        0.5,
        float("nan"),
        -0.0,
        3,
        True,
        None,
    ],
)
def test_a_bound_is_read_as_pandas_reads_it(cell) -> None:
    """The boxes' fast path (a float, a plain whole number) reads every cell as
    ``pd.to_numeric(..., errors="coerce")`` does, sign of zero and NaN included."""
    import math

    import pandas as pd

    from dpcore.views.your_data import _number

    got = _number(cell)
    want = float(pd.to_numeric(pd.Series([cell]), errors="coerce").iloc[0])
    assert (math.isnan(got) and math.isnan(want)) or (
        got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    )


def test_the_runs_are_the_overviews_estimators() -> None:
    """``runs`` picks its estimators without the overview: the same names, ours and the
    libraries', and the same frame as before (each estimator on its own stream)."""
    for es in (_explore(), _explore(data=DataSettings(unit="eps", budget_value=1.0))):
        o = overview(es)
        r = runs(es)
        assert tuple(dict.fromkeys(r.frame["name"])) == o.own
        peers = replace(es, peers=True, family="peers")
        assert set(runs(peers).frame.get("name", [])) <= set(overview(peers).theirs)


def test_the_overview_reads_no_seed_and_no_run_count() -> None:
    """The page caches the overview under :func:`overview_settings` (seed, count and family
    fixed): it equals the overview of the record itself, at other seeds and counts too."""
    import dataclasses

    import pandas as pd

    from dpcore.views.your_data import overview_settings

    for es in (
        _explore(),
        _explore(data=DataSettings(seed=9, unit="eps", budget_value=1.0), reps=20, peers=True),
        _explore(mode="private", share=0.2, family="peers"),
    ):
        got, want = overview(overview_settings(es)), overview(es)
        for f in dataclasses.fields(want):
            a, b = getattr(got, f.name), getattr(want, f.name)
            if isinstance(b, pd.DataFrame):
                pd.testing.assert_frame_equal(a, b)
            else:
                assert a == b, f.name


def test_the_data_set_follows_the_bounds_columns_and_choices() -> None:
    """``your_dataset`` reads the seed, count and budget not at all: another seed gives the same
    rows; other bounds or columns give their own values, and a bad record raises its error."""
    es = _explore()
    data = your_dataset(es)
    np.testing.assert_array_equal(
        your_dataset(_explore(data=DataSettings(seed=7, unit="eps"), reps=20)).x, data.x
    )
    wider = your_dataset(_explore(upper=(4000.0, 20.0)))
    assert wider.bounds[1][0] == 4000.0 and data.bounds[1][0] == 2000.0
    assert your_dataset(_explore(columns=("wage",), lower=(0.0,), upper=(1.0,))).d == 1
    with pytest.raises(ValueError, match="type a lower and an upper"):
        your_dataset(_explore(lower=None))


def test_each_estimators_runs_come_from_its_own_noise_stream() -> None:
    """The runs of an estimator are the children of streams.seq("noise:<name>"), whatever else
    runs beside it (the old study spawned every estimator's runs from SeedSequence(seed))."""
    es = _explore()
    r = runs(es)
    data = your_dataset(es)
    name = overview(es).own[0]
    spec = registry.get(name)
    children = es.data.streams.seq(f"noise:{name}").spawn(es.reps)
    want = [spec.run(data, es.data.budget, rng=np.random.default_rng(c)).mean[0] for c in children]
    got = r.frame[(r.frame.name == name) & (r.frame.column == "wage")].sort_values("run")
    np.testing.assert_allclose(got.estimate.to_numpy(), want, rtol=1e-12)
    old = [
        spec.run(data, es.data.budget, rng=np.random.default_rng(c)).mean[0]
        for c in np.random.SeedSequence(2).spawn(es.reps)
    ]
    assert not np.allclose(got.estimate.to_numpy(), old)


def test_a_pure_budget_leaves_out_zcdp_oracles_and_over_spenders() -> None:
    o = overview(_explore(data=DataSettings(unit="eps", budget_value=1.0)))
    budget = DataSettings(unit="eps", budget_value=1.0).budget
    assert o.own and o.zcdp_note and "zCDP" in o.zcdp_note
    for name in o.own:
        spec = registry.get(name)
        assert spec.notion == "pure" and "oracle" not in name and spec.meets(budget)


def test_the_view_is_a_function_of_its_record_and_its_code_rebuilds_it() -> None:
    s = YourDataSettings(_explore(), column="wage")
    a, b = view(s), view(s)
    np.testing.assert_allclose(a.table["median"], b.table["median"], rtol=0, atol=0)
    assert a.sentence == b.sentence and a.column == "wage"
    assert a.shift == pytest.approx(float(a.overview.clip["shift"].iloc[0]))
    from dpcore.views import your_data as module

    names = {k: getattr(module, k) for k in ("ExploreSettings", "Source", "YourDataSettings")}
    assert eval(repr(s), {**names, "DataSettings": DataSettings}) == s  # noqa: S307
    assert "v = view(" + repr(s) + ")" in a.code
    upload = Source("upload", CSV)
    assert "open('your.csv', 'rb')" in repr(upload) and "52000" not in repr(upload)


def test_the_release_panel_refuses_what_it_cannot_release() -> None:
    es = _explore()
    data = your_dataset(es)
    inp = Inputs(data, list(COLS), "public", None, (0.01, 0.99), "cps1988", 0)
    p = panel(inp, DataSettings(unit="eps", budget_value=1.0))
    assert p.refused is None and p.default == "clipped_laplace" and p.default in p.names
    assert "(ε, δ)" not in str(p.budget)
    assert "give the sidebar budget as ε or ρ" in panel(inp, DataSettings(unit="eps_delta")).refused
    leak = Inputs(data, list(COLS), "data", None, (0.01, 0.99), "cps1988", 0)
    assert "not private" in panel(leak, DataSettings()).refused
    nan = Inputs(data, list(COLS), "public", None, (0.01, 0.99), "cps1988", 3)
    assert "missing values" in panel(nan, DataSettings()).refused
    assert series_key("plan", inp, True) != series_key("plan", inp, False)
