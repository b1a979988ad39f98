"""Your data's plain box measures as the chart does (from the mean of the clipped data) and names
the chart's winner; clipping's move is said apart from the noise."""

from __future__ import annotations

import pytest

from dpcore.views.settings import DataSettings
from dpcore.views.your_data import ExploreSettings, Source, YourDataSettings, view

OUTLIER = "age,income,hours\n29,61000000,40\n" + "".join(
    f"{20 + i % 50},{20000 + (i * 7919) % 90000},{30 + i % 20}\n" for i in range(600)
)


def _view(column: str | None):
    es = ExploreSettings(
        DataSettings(seed=3, unit="rho", budget_value=0.5),
        Source("paste", OUTLIER.encode()),
        ("age", "income", "hours"),
        lower=(0.0, 0.0, 0.0),
        upper=(100.0, 250000.0, 80.0),
        reps=5,
    )
    return view(YourDataSettings(es, column))


@pytest.mark.parametrize("column", [None, "income"])
def test_the_box_names_the_charts_winner_against_the_clipped_mean(column):
    v = _view(column)
    best = v.table.loc[v.table["rank"].idxmin()]
    assert v.words.method == best["estimator"], (v.words.text, v.table)
    assert v.words.typical_error == pytest.approx(best["rank"], rel=1e-9)
    if column == "income":  # the outlier moves the raw mean by ~$100k: said as clipping, apart
        shift = abs(float(v.overview.clip.set_index("column").loc["income", "shift"]))
        assert shift > 50_000 and v.words.typical_error < shift / 10
        assert f"Clipping to your bounds moved the mean of income by ${shift:,.0f}" in v.words.text
        assert "the noise adds about ±$" in v.words.text


def test_columns_in_different_units_are_explained():
    v = _view(None)
    note = v.units_note
    assert note and "use one scale for all columns" in note and "hours" in note, note
    assert "scales each column to its own range" in note
    # ranges within tenfold of each other: no note
    same = view(
        YourDataSettings(
            ExploreSettings(
                DataSettings(seed=3, unit="rho", budget_value=0.5),
                Source("paste", OUTLIER.encode()),
                ("age", "hours"),
                lower=(0.0, 0.0),
                upper=(100.0, 100.0),
                reps=5,
            )
        )
    )
    assert same.units_note is None
