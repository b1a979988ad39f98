"""The plain-language box (dpcore.experiments.plain): as the Compare stories are checked, every
number in its two sentences is recomputed from the run and read back out of the text."""

import math
import re
from types import SimpleNamespace

import numpy as np
import pytest

from dpcore.data import generate
from dpcore.experiments.attack import attack
from dpcore.experiments.plain import audit_words, chance, fold, number, plain_words
from dpcore.privacy import Budget
from dpcore.theory.risk import odds_epsilon


def _numbers(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\d[\d,]*\.?\d*", text)]


@pytest.mark.parametrize(
    "budget", [Budget.pure(1.0), Budget.zcdp(0.5), Budget.approx(2.0, 1e-5), Budget.zcdp(0.01)]
)
@pytest.mark.parametrize("seed", range(4))
def test_box_numbers_are_the_runs_on_screen(budget, seed):
    data = generate("bounded", 1000, 2, 0.0, rng=seed)
    run = attack(data, budget, draws=400, rng=seed)
    errors = np.abs(run.releases - run.truth)
    words = plain_words(budget, errors, delta=1e-6)
    typical = float(np.median(errors))
    assert words.typical_error == typical
    assert words.runs == 400
    odds = odds_epsilon(budget, 1e-6)
    assert words.odds_factor == pytest.approx(math.exp(odds.epsilon))
    first, second = words.sentences
    shown = _numbers(first)
    assert any(abs(x - typical) <= 0.05 * typical for x in shown), (first, typical)
    assert 400 in shown
    factor = _numbers(second.split("most ")[1])[0]
    assert factor == pytest.approx(words.odds_factor, rel=0.05), second
    if odds.delta:
        assert chance(odds.delta) in second
    else:
        assert "except" not in second


def test_number_and_fold_formats():
    assert number(0.000123) == "0.00012"
    assert number(2134.6) == "2,135"
    assert number(float("inf")) == "unbounded"
    assert fold(math.e) == "2.7-fold"
    assert fold(1e12) == "more than a million-fold"
    assert chance(1e-6) == "1 in 1,000,000"


def test_no_finite_error_is_refused():
    with pytest.raises(ValueError, match="at least one finite error"):
        plain_words(Budget.pure(1.0), [np.nan])


@pytest.mark.parametrize("violated", [False, True])
def test_audit_words_say_what_the_audit_found(violated):
    claim = SimpleNamespace(measure="ε", value=1.0)
    result = SimpleNamespace(
        violated=violated, lower=1.7 if violated else 0.62, claim=claim, draws=2000
    )
    words = audit_words(result, Budget.pure(1.0))
    first = words.sentences[0]
    assert "2,000" in first and "1" in first
    assert (f"{result.lower:.3g}" in first) and ("do not use it" in first) == violated
    assert words.odds_factor == pytest.approx(math.e)
