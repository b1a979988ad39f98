"""The words of Your data's release panel: one unit and one rounding for a value and its ±, and
a failed release said once."""

import re
from types import SimpleNamespace

import numpy as np

from dpcore.figures.your_data import release_table, remeasure_table
from dpcore.views.your_data_release import Combination, failed


def test_the_best_single_release_is_in_the_columns_unit():
    series = [SimpleNamespace(mean=np.array([520.3]), accuracy=np.array([756.9]))] * 2
    combined = SimpleNamespace(mean=np.array([519.0]), accuracy=np.array([535.2]))
    rows = [("r1", s.mean, s.accuracy) for s in series] + [("c", combined.mean, combined.accuracy)]
    table = remeasure_table(["income"], rows)
    c = Combination(table, ["r1", "r2", "c"], np.array([False, False, True]), {}, "")
    sentence = c.chart_inputs(series, combined, "income", ["income"])[2]  # type: ignore[arg-type]
    assert "against ± $757 for the best" in sentence, sentence
    assert re.fullmatch(r"\$519 ± \$535", table["income"].iloc[-1])


def test_a_value_has_as_many_decimals_as_its_noise():
    t = release_table(["hours"], np.array([39.51234]), np.array([0.2422]))
    assert (t["released mean"].iloc[0], t["noise at most (95%)"].iloc[0]) == ("39.51", "± 0.24")
    t = remeasure_table(["hours"], [("r", np.array([39.51234]), np.array([0.2422]))])
    assert t["hours"].iloc[0] == "39.51 ± 0.24"


def test_nothing_was_released_is_said_once():
    text = failed(ValueError("only ε = 0.1 of the total is left; nothing was released."))
    assert text.lower().count("nothing was released") == 1, text
    assert "only ε = 0.1 of the total is left" in text
