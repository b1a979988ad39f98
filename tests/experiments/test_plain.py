"""The plain-language box (dpcore.experiments.plain): as the Compare stories are checked, every
number in its two sentences is recomputed from the run and read back out of the text."""

import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dpcore.audit.bounds import Claim
from dpcore.data import generate
from dpcore.experiments.attack import attack
from dpcore.experiments.plain import (
    audit_words,
    chance,
    choice_words,
    fold,
    number,
    plain_words,
    release_errors,
    release_words,
    sweep_point,
    your_data_words,
)
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
    claim = Claim(budget="ε = 1", notion="pure", epsilon=1.0, delta=0.0)
    result = SimpleNamespace(
        violated=violated, lower=1.7 if violated else 0.62, claim=claim, draws=2000
    )
    words = audit_words(result, Budget.pure(1.0))
    first = words.sentences[0]
    assert "2,000" in first and "1" in first
    assert (f"{result.lower:.3g}" in first) and ("do not use it" in first) == violated
    assert words.odds_factor == pytest.approx(math.e)


@pytest.mark.parametrize("seed", range(4))
def test_choice_words_name_the_closest_method_and_its_median(seed):
    rng = np.random.default_rng(seed)
    errors = {"A": rng.exponential(1.0, 30), "B": rng.exponential(1.3, 30), "C": [9.0]}
    words = choice_words(Budget.zcdp(0.5), errors, delta=1e-6, what="the average income")
    medians = {k: float(np.median(np.abs(v))) for k, v in errors.items()}
    best, runner = sorted(medians, key=medians.get)[:2]
    first = words.sentences[0]
    assert (words.method, words.runner_up) == (best, runner)
    assert words.typical_error == medians[best] and words.runner_up_error == medians[runner]
    assert first.startswith(f"With this budget, {best} came closest to the average income")
    shown = _numbers(first)
    assert any(abs(x - medians[best]) <= 0.05 * medians[best] for x in shown), first
    assert any(abs(x - medians[runner]) <= 0.05 * medians[runner] for x in shown), first
    assert f"the next best, {runner}" in first and str(len(errors[best])) in first
    assert words.odds_factor == pytest.approx(math.exp(odds_epsilon(Budget.zcdp(0.5)).epsilon))


def test_one_method_is_not_said_to_come_closest():
    words = choice_words(Budget.pure(1.0), {"Simplex": [0.25]})
    assert "came closest" not in words.text and "Simplex estimated the average" in words.text
    assert "in its run on screen" in words.text and words.runner_up == ""
    with pytest.raises(ValueError, match="at least one finite error"):
        choice_words(Budget.pure(1.0), {"A": [np.inf]})


def test_one_run_each_gives_the_range_and_names_no_method():
    errors = {"A": [0.3], "B": [0.00005], "C": [2.0]}
    words = choice_words(Budget.pure(1.0), errors, what="the means", rank=False)
    first = words.sentences[0]
    assert "0.00005 to 2 of the truth" in first and "too few runs to rank them" in first
    assert not any(name in first.split("(")[0].split() for name in errors), first
    assert not re.search(r"\de[+-]?\d", words.text)  # no scientific notation for a stakeholder


def test_release_words_measure_the_l2_distance_to_the_truth():
    truth = np.array([1.0, 2.0])
    words = release_words(
        Budget.pure(1.0), {"A": [[1.0, 2.5]], "B": np.array([[4.0, 6.0], [1.0, 2.0]])}, truth
    )
    assert release_errors({"B": [[4.0, 6.0]]}, truth)["B"].tolist() == [5.0]
    assert (words.method, words.typical_error) == ("A", 0.5)
    assert (words.runner_up, words.runner_up_error) == ("B", 2.5)


def test_sweep_point_takes_the_nearest_value_of_the_axis():
    frame = pd.DataFrame({"budget": [0.0625, 0.25, 0.25, 1.0], "skew": [0.0, 0.5, 1.0, 2.0]})
    assert sweep_point(frame, "budget", 0.3)["budget"].tolist() == [0.25, 0.25]
    assert sweep_point(frame, "budget", 0.6)["budget"].tolist() == [1.0]  # nearer on a log scale
    assert sweep_point(frame, "skew", 0.1)["skew"].tolist() == [0.0]


def test_your_data_words_use_the_column_in_its_units():
    frame = pd.DataFrame(
        {
            "estimator": ["A", "A", "B", "B", "A"],
            "column": ["income", "income", "income", "income", "age"],
            "error": [100.0, -300.0, 50.0, -60.0, 1.0],
        }
    )
    words = your_data_words(frame, "income", Budget.pure(1.0))
    assert (words.method, words.typical_error, words.runs) == ("B", 55.0, 2)
    assert "the average income" in words.text and "55" in words.text and "200" in words.text
    with pytest.raises(ValueError, match="choose one of the columns"):
        your_data_words(frame, "height", Budget.pure(1.0))
