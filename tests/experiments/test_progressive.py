"""The progressive run's decision (dpcore.experiments.progressive), on its own: no Streamlit, no
pool, a cost model given as a function so that each case's times are exact."""

from __future__ import annotations

import pytest

from dpcore.experiments import ExperimentConfig
from dpcore.experiments.progressive import before_run_warning, decide, first_config

#: The page's limits: a full sweep within LIMIT runs by itself; a first result over ASK waits.
LIMIT, ASK, FIRST = 20.0, 3.0, 3


def _config(reps: int = 10, n: int = 2000, d: int = 32) -> ExperimentConfig:
    return ExperimentConfig(
        distribution="gaussian", n=n, d=d, estimators=["plan", "iome_paper"], repetitions=reps
    )


def _cost(per_rep: float):
    """A cost model: ``per_rep`` seconds per repetition at n = 2000, d = 32, linear in n * d."""
    return lambda c: per_rep * c.repetitions * (c.n * c.d) / (2000 * 32)


def _decide(cfg: ExperimentConfig, per_rep: float, **kw):
    return decide(
        cfg,
        limit=LIMIT,
        ask_above=ASK,
        first_reps=FIRST,
        background=kw.pop("background", True),
        cost=_cost(per_rep),
        n_choices=[100, 500, 1000, 2000, 4000],
        d_choices=[2, 8, 16, 32, 64],
        **kw,
    )


def test_a_short_sweep_is_shown_in_full_at_once_without_a_background_pool() -> None:
    made = _decide(_config(), per_rep=0.1, background=False)  # 1 s in all
    assert (made.state, made.shown, made.refine, made.offers) == ("full", made.full, False, ())
    made = _decide(_config(), per_rep=0.1)  # with one: a first result at once, refined behind
    assert (made.state, made.shown, made.refine) == ("refining", made.first, True)


def test_a_sweep_within_the_limit_shows_a_first_result_and_refines_it_behind() -> None:
    made = _decide(_config(), per_rep=1.5)  # 15 s in all, 4.5 s first: within the limit
    assert made.state == "refining" and made.refine
    assert made.shown is made.first and made.shown.repetitions == FIRST
    assert made.offers == ()
    # the first result is the full sweep's first repetitions at every other budget (both ends
    # and the middle): the same config otherwise
    full = made.full.to_dict()
    assert {**made.first.to_dict(), "repetitions": 10, "sweep": full["sweep"]} == full
    assert made.first.sweep["budget"] == full["sweep"]["budget"][::2]


def test_without_a_background_pool_a_sweep_within_the_limit_runs_in_full_now() -> None:
    made = _decide(_config(), per_rep=1.5, background=False)
    assert made.state == "full" and made.shown is made.full and not made.refine


def test_a_long_sweep_offers_the_full_run_and_smaller_settings_that_fit() -> None:
    made = _decide(_config(reps=30), per_rep=0.9)  # 27 s in all, a first result in 2.7 s
    assert made.state == "offered" and made.shown is made.first and not made.refine
    first, *smaller = made.offers
    assert (first.action, first.value, first.primary) == (
        "approve",
        made.full.to_json(indent=None),
        True,
    )
    assert first.seconds == pytest.approx(made.predicted)
    for o in smaller:  # each smaller setting's full sweep fits the limit, and is really smaller
        assert o.seconds <= LIMIT and not o.primary
        assert o.action in ("n", "d", "repetitions")
        assert o.value < {"n": 2000, "d": 32, "repetitions": 30}[o.action]
    # the largest smaller n and d of the choices that fit, and the most repetitions that fit
    assert [(o.action, o.value) for o in smaller] == [("n", 1000), ("d", 16), ("repetitions", 22)]
    assert [o.label for o in smaller] == ["Use n = 1,000", "Use d = 16", "Use 22 repetitions"]


def test_fewer_repetitions_are_offered_only_when_more_than_the_first_result_fit() -> None:
    made = _decide(_config(), per_rep=2.5)  # 25 s: 8 repetitions fit in 20 s
    assert [o.value for o in made.offers if o.action == "repetitions"] == [8]
    made = _decide(_config(), per_rep=0.9)  # fits the limit: nothing is offered
    assert made.offers == ()
    made = _decide(_config(reps=30), per_rep=6.0)  # 3 fit: no more than the first result
    assert made.state == "ask"
    assert not [o for o in made.offers if o.action == "repetitions"]


def test_when_even_the_first_result_is_long_nothing_runs_until_asked() -> None:
    made = _decide(_config(), per_rep=2.0 * ASK / FIRST * 3)
    assert made.state == "ask" and made.shown is None and not made.refine
    labels = [o.label for o in made.offers]
    assert labels[:2] == ["Run all 10 repetitions", f"Run {FIRST} repetitions first"]
    assert made.offers[1].value == made.first.to_json(indent=None)
    assert made.first_seconds == pytest.approx(made.predicted * FIRST / 10)


def test_a_sweep_of_few_repetitions_is_its_own_first_result() -> None:
    cfg = _config(reps=FIRST)
    assert first_config(cfg, FIRST) is cfg
    made = _decide(cfg, per_rep=30.0)  # 90 s and no quicker first result: ask, one run offered
    assert made.state == "ask"
    assert [o.action for o in made.offers][:1] == ["approve"]
    assert [o for o in made.offers if o.label.startswith("Run ")] == [made.offers[0]]
    made = _decide(cfg, per_rep=0.5)  # 1.5 s: in full
    assert made.state == "full" and made.shown is cfg


@pytest.mark.parametrize("how", ["approved", "ready"])
def test_an_approved_or_computed_long_sweep_is_wanted_in_full(how: str) -> None:
    cfg = _config()
    key = {how: {cfg.to_json(indent=None)}}
    made = _decide(cfg, per_rep=10.0, **key)  # 100 s, first result 30 s: would ask
    if how == "ready":
        assert made.state == "full" and made.shown is made.full
    else:  # approved: the first result now, the full sweep refining behind it
        assert made.state == "refining" and made.refine and made.shown is made.first
        made = _decide(cfg, per_rep=10.0, background=False, **key)
        assert made.state == "full"


def test_an_approved_first_result_is_shown_and_the_full_one_offered() -> None:
    cfg = _config()
    first = first_config(cfg, FIRST).to_json(indent=None)
    made = _decide(cfg, per_rep=10.0, approved={first})
    assert made.state == "offered" and made.shown.repetitions == FIRST
    made = _decide(cfg, per_rep=10.0, ready={first})
    assert made.state == "offered"


def test_the_default_cost_is_the_cost_model() -> None:
    from dpcore.experiments.cost import estimate_seconds

    cfg = _config()
    made = decide(cfg, limit=LIMIT, ask_above=ASK, first_reps=FIRST, background=True)
    assert made.predicted == estimate_seconds(cfg)
    assert made.first_seconds == estimate_seconds(first_config(cfg, FIRST))


def test_the_thin_budget_warning_comes_only_for_plan_under_zcdp() -> None:
    thin = ExperimentConfig(
        distribution="gaussian", n=4000, d=1024, budget=1 / 32, estimators=["plan"], repetitions=2
    )
    assert before_run_warning(thin)  # PLAN's centre steps need most of this budget
    assert (
        before_run_warning(ExperimentConfig(**{**thin.to_dict(), "estimators": ["iome_paper"]}))
        is None
    )
    assert (
        before_run_warning(ExperimentConfig(**{**thin.to_dict(), "d": 64, "budget": 0.5})) is None
    )
