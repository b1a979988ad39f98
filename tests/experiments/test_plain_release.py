"""The plain-language box of a real release (dpcore.experiments.plain): the value and accuracy it
prints are the release's to the digits it shows, and its odds are those of what the session spent."""

import math
import re

import numpy as np
import pytest

from dpcore.experiments.plain import plus_minus, release_plan_words, released_words
from dpcore.guarantee import Guarantee
from dpcore.privacy import Budget
from dpcore.release import Odometer
from dpcore.theory.risk import odds_epsilon


@pytest.mark.parametrize("seed", range(5))
def test_plus_minus_keeps_the_value_to_the_accuracys_last_digit(seed):
    g = np.random.default_rng(seed)
    for _ in range(200):
        acc = float(10 ** g.uniform(-6, 6))
        value = float(g.normal(0, 10 ** g.uniform(-6, 7)))
        shown, shown_acc = plus_minus(value, acc)
        places = len(shown.split(".")[1]) if "." in shown else 0
        assert abs(float(shown.replace(",", "")) - value) <= 0.5 * 10.0**-places + 1e-15
        assert float(shown_acc.replace(",", "")) == pytest.approx(acc, rel=0.05, abs=0.5)
        # no more digits than the accuracy leaves: the last one printed is at most 1/10 of it
        assert 10.0**-places <= max(acc, 1.0) / 10 + 1e-15 or places == 0


def test_money_and_sign():
    assert plus_minus(-1234.7, 99.0, money=True) == ("-$1,235", "$99")
    assert plus_minus(-1234.7, 9.9, money=True) == ("-$1,234.7", "$9.9")
    assert plus_minus(-0.001, 1.0) == ("0.0", "1.0")  # both to the same decimal place


@pytest.mark.parametrize("total", [Budget.pure(1.0), Budget.zcdp(0.5)])
@pytest.mark.parametrize("spent", [0.0, 0.25])
def test_plan_words_say_what_the_next_release_spends(total, spent):
    odo = Odometer(total, spent=spent)
    nxt = Budget.pure(0.5)
    words = release_plan_words(odo, nxt, ["age"], delta=1e-6)
    cost = odo.cost(nxt)
    assert f"spends {odo.unit} = {cost:.4g} of this data's total" in words.text
    assert words.spent == pytest.approx(spent + cost)
    # the odds of the composed guarantee: a pure release on a ρ total stays pure (it was read as
    # ρ = ε²/2 and converted back, 1.6-fold became 4.3-fold: the old expectation was the bug)
    after = odo.guarantee.compose(Guarantee.pure(0.5))
    assert words.odds_factor == pytest.approx(after.odds_factor(1e-6))
    assert "refused" not in words.text
    assert "refused" in release_plan_words(Odometer(total, spent=0.9), Budget.pure(0.5), ["x"]).text


def test_plan_words_refuse_what_the_odometer_cannot_count():
    with pytest.raises(ValueError, match="cannot count it"):
        release_plan_words(Odometer(Budget.pure(1.0)), Budget.zcdp(0.1), ["x"])


def test_released_words_carry_the_release_and_the_session_spend():
    odo = Odometer(Budget.zcdp(0.5), spent=0.3)
    words = released_words(odo, "wage", 612.345, 17.9, releases=3, money=True, delta=1e-5)
    assert words.released == 612.345 and words.typical_error == 17.9 and words.runs == 3
    assert "$612 ± $18 (3 releases combined)" in words.text
    factor = float(re.search(r"at most ([\d,.]+)-fold", words.text).group(1))
    assert factor == pytest.approx(math.exp(odds_epsilon(Budget.zcdp(0.3), 1e-5).epsilon), 0.05)
    assert "1 in 100,000" in words.text
    with pytest.raises(ValueError, match="charged"):
        released_words(Odometer(Budget.pure(1.0)), "wage", 1.0, 0.1)
