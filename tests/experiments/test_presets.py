"""Every Compare preset is a checked claim: each preset runs at several seeds and its claim
must hold at every one. Only the claim's contenders are run (an estimator's runs do not depend on
which other estimators are in the config: seeds are keyed on the estimator and the setting), with
the preset's own parameters otherwise; the PLAN-scale presets run 4 repetitions per point instead of
6 to keep the suite fast. Compare runs a preset at the sidebar's seed, so the claims are checked at
the default seed 0 and a few more. ``make presets`` runs the full presets at more seeds."""

from __future__ import annotations

import pandas as pd
import pytest

from dpcore import registry
from dpcore.experiments import run
from dpcore.experiments.presets import PRESETS, Claim, check_claim

#: (preset, seeds, repetitions or None for the preset's own); seed 0 is the sidebar's default, the
#: seed a preset opens at on Compare
CASES = [
    ("skew_favours_plan", (0, 1, 2, 3), 4),
    ("no_skew_tie", (0, 1, 2, 3), 4),
    ("heavy_tails", (0, 1, 2, 3, 4, 5), None),
    ("free_lunch", (0, 1, 2, 3, 4, 5), None),
    ("sparse_binary", (0, 1, 2, 3), 4),
]


def test_every_preset_is_checked() -> None:
    assert {c[0] for c in CASES} == set(PRESETS)


@pytest.mark.parametrize(
    ("key", "seed", "reps"),
    [  # the first seed of each preset in ``make test-fast``, all of them in ``make test``
        pytest.param(k, s, r, marks=pytest.mark.slow if s != seeds[0] else ())
        for k, seeds, r in CASES
        for s in seeds
    ],
)
@pytest.mark.long  # a long statistical check: `make long` (CI runs it)
def test_preset_claim_holds(key: str, seed: int, reps: int | None) -> None:
    preset = PRESETS[key]
    overrides = {"seed": seed, "estimators": list(preset.claim.contenders)}
    if reps is not None:
        overrides["repetitions"] = reps
    cfg = preset.experiment(**overrides)
    result = check_claim(run(cfg), preset.claim, metric=cfg.headline_metric, unit=cfg.unit)
    assert result.holds, result.sentence
    if preset.claim.kind == "wins":
        assert result.winner == preset.claim.winner
        assert f"**{registry.get(preset.claim.winner).label}**" in result.sentence
    else:
        assert "tie" in result.sentence.lower()
    assert (
        "far-off runs (more than 3× the median at their point), over the sweep" in result.sentence
    )
    # a gap inside the run-to-run spread (the claim's tolerance) is said to be one
    assert result.close == ("inside" in result.sentence and "spread" in result.sentence)
    if result.close:
        assert "within" in result.sentence or "only" in result.sentence


def test_claims_are_private_and_within_one_guarantee() -> None:
    for p in PRESETS.values():
        p.claim.validate()
        assert all(registry.get(c).private for c in p.claim.contenders)
    with pytest.raises(ValueError, match="private"):
        Claim("wins", ("plan", "plan_oracle"), winner="plan").validate()
    with pytest.raises(ValueError, match="one guarantee"):
        Claim("wins", ("plan", "simplex_laplace"), winner="plan").validate()


def test_claim_sentence_is_computed_not_written() -> None:
    """A claim that does not hold says so, naming the estimator that did win."""
    cfg = PRESETS["heavy_tails"].experiment(
        estimators=["plan", "iome_paper"], repetitions=3, sweep={"budget": [0.25, 1.0]}
    )
    frame = run(cfg)
    wrong = Claim("wins", ("plan", "iome_paper"), winner="plan", margin=1.0)
    result = check_claim(frame, wrong)
    assert not result.holds
    assert "does not hold" in result.sentence
    assert registry.get("iome_paper").label in result.sentence


def test_each_preset_budget_is_the_middle_of_its_sweep() -> None:
    # the headline under Compare's chart speaks of the sidebar budget and the claim of the sweep's
    # middle: one point, so the two sentences compare the same numbers
    for preset in PRESETS.values():
        cfg = preset.experiment()
        values = sorted(cfg.sweep["budget"])
        assert cfg.budget == values[len(values) // 2], preset.key


def test_every_preset_fits_the_compare_page() -> None:
    """A preset's repetitions are what the page's slider can show (the free-lunch preset once asked
    for 60 and the page silently ran 50)."""
    from dpcore import limits

    lo, hi = limits.APP_REPETITIONS
    for p in PRESETS.values():
        assert lo <= p.experiment().repetitions <= hi, p.key


@pytest.mark.parametrize("key", list(PRESETS))
@pytest.mark.long  # a long statistical check: `make long` (CI runs it)
def test_the_first_result_a_preset_opens_with_tells_its_story(key: str) -> None:
    # Compare opens a preset at seed 0 with its first result (first_reps repetitions at every
    # other point); ``benchmarks/presets.py --first`` checks 12 seeds
    from dpcore.experiments.progressive import first_config

    preset = PRESETS[key]
    full = preset.experiment(seed=0, estimators=list(preset.claim.contenders))
    cfg = first_config(full, preset.first_reps)
    assert cfg.repetitions == min(preset.first_reps, full.repetitions)
    result = check_claim(run(cfg), preset.claim, metric=cfg.headline_metric, unit=cfg.unit)
    assert result.holds, result.sentence


def test_a_win_read_up_to_a_budget_asks_only_the_spread_above_it() -> None:
    """``read_up_to``: the winner must win every point up to it and stay within the tolerance of
    the lowest above it (the old reading, every point, fails on a 2% loss at the top budget)."""
    contenders = ("plan", "iome_paper", "gaussian_private")
    cfg = PRESETS["skew_favours_plan"].experiment(
        n=200, d=4, estimators=list(contenders), repetitions=2
    )
    base = run(cfg)

    def frame(iome_top: float, iome_half: float = 1.3) -> pd.DataFrame:
        f = base.copy()
        errors = {"plan": 1.0, "iome_paper": 1.3, "gaussian_private": 1.5}
        f["err_l2"] = f["name"].map(errors)
        f.loc[(f["name"] == "iome_paper") & (f["budget"] == 1.0), "err_l2"] = iome_top
        f.loc[(f["name"] == "iome_paper") & (f["budget"] == 0.5), "err_l2"] = iome_half
        return f

    every = Claim("wins", contenders, winner="plan")
    up_to = Claim("wins", contenders, winner="plan", read_up_to=0.5)
    assert check_claim(frame(1.3), every).holds and check_claim(frame(1.3), up_to).holds
    result = check_claim(frame(0.98), up_to)
    assert result.holds and "within 25% of the lowest: it is within 2%" in result.sentence
    assert "Above" not in check_claim(frame(1.3), up_to).sentence  # won there: nothing to add
    assert not check_claim(frame(0.98), every).holds
    assert not check_claim(frame(0.7), up_to).holds  # 43% behind: outside the spread
    assert not check_claim(frame(1.3, iome_half=0.98), up_to).holds  # a loss at rho <= 0.5


def test_the_skew_story_draws_plan_s_medians_with_the_sort(envelope_calls) -> None:
    # Its claim was checked at 6 runs with the sorted medians (48 seeds); the envelope medians
    # need 16 (docs/speed.md, "PLAN, round 7"). The preset's calls stay under the envelope's
    # floor, so its runs take the sort: a bigger n or d here must come with 16 runs.
    import numpy as np

    from dpcore.estimators.plan import plan_l2

    cfg = PRESETS["skew_favours_plan"].experiment(seed=0, estimators=["plan"])
    x = np.random.default_rng(0).standard_normal((cfg.n, cfg.d))
    plan_l2(x, rho=1.0, bounds=(-50.0, 50.0), rng=0)
    assert envelope_calls == []
    plan_l2(np.vstack([x, x[:200]]), rho=1.0, bounds=(-50.0, 50.0), rng=0)
    assert envelope_calls, (
        "a larger sample takes the envelope: the floor is where this test assumes"
    )
