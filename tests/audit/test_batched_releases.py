"""The audit's batched releases are the public entry's releases, draw for draw
(``dpcore.audit.runners.releases``), and the Clopper–Pearson table gives the formula's bounds."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.audit import audit, pairs_for, runners
from dpcore.audit import bounds as audit_bounds
from dpcore.audit.broken import variant_runner
from dpcore.privacy import Budget

CASES = [("clipped_laplace", Budget.pure(1.0)), ("clipped_box_zcdp", Budget.zcdp(0.5))]


def _loop(run: runners.Runner, x: np.ndarray, draws: int, g: np.random.Generator) -> np.ndarray:
    return np.stack([np.ravel(run(x, g)) for _ in range(draws)])


@pytest.mark.parametrize(("name", "budget"), CASES)
@pytest.mark.parametrize("d", [1, 4])
def test_batch_is_the_loop_draw_for_draw(name: str, budget: Budget, d: int) -> None:
    for pair in pairs_for("replace-one", n=20, d=d, outside=True):
        run = runners.entry_runner(name, budget, pair)
        assert getattr(run, "one_draw", False)
        for x in (pair.x, pair.x_prime):
            g1, g2 = np.random.default_rng(11), np.random.default_rng(11)
            batch = runners.releases(run, x, 300, g1)
            assert batch.shape == (300, d)
            np.testing.assert_allclose(batch, _loop(run, x, 300, g2), rtol=0, atol=1e-15)
            assert g1.bit_generator.state == g2.bit_generator.state


def test_broken_variants_batch_the_same_draws() -> None:
    """A noise cut runs the same entry at a larger budget: batched, still the loop's numbers."""
    pair = pairs_for("replace-one", n=20, d=1, outside=True)[0]
    _, make = variant_runner("clipped_laplace", "noise_cut", Budget.pure(1.0))
    run = make(pair)
    got = runners.releases(run, pair.x, 200, np.random.default_rng(5))
    np.testing.assert_allclose(got, _loop(run, pair.x, 200, np.random.default_rng(5)), atol=1e-15)


def test_other_entries_run_the_loop() -> None:
    pair = pairs_for("replace-one", n=20, d=1, outside=True)[0]
    run = runners.entry_runner("wwm_smith", Budget.pure(1.0), pair)
    assert not getattr(run, "one_draw", False)


def test_a_release_that_is_not_the_draw_falls_back_to_the_loop() -> None:
    """A runner marked as one draw whose release is post-processed: the check on its first
    release sees it, and the rest come from the loop (the same numbers as the loop)."""
    pair = pairs_for("replace-one", n=20, d=1, outside=True)[0]
    inner = runners.entry_runner("clipped_laplace", Budget.pure(1.0), pair)

    def clipped(x: np.ndarray, g: np.random.Generator) -> np.ndarray:
        return np.clip(inner(x, g), 0.0, 1.0) * 0.5

    clipped.one_draw = True  # type: ignore[attr-defined]
    got = runners.releases(clipped, pair.x, 100, np.random.default_rng(2))
    np.testing.assert_array_equal(got, _loop(clipped, pair.x, 100, np.random.default_rng(2)))


def test_audit_numbers_do_not_depend_on_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    kw = dict(draws=400, confidence=0.95, grid="quick", calibrate=False, rng=3)
    fast = audit("clipped_laplace", Budget.pure(1.0), **kw)
    monkeypatch.setattr(runners, "ONE_DRAW", frozenset())
    slow = audit("clipped_laplace", Budget.pure(1.0), **kw)
    assert fast.hits == slow.hits and fast.event == slow.event
    assert fast.lower == pytest.approx(slow.lower, abs=1e-12)


@pytest.mark.parametrize("upper", [False, True])
def test_cp_table_matches_the_formula(upper: bool) -> None:
    k = np.array([0, 1, 7, 150, 399, 400])
    f = audit_bounds.cp_upper if upper else audit_bounds.cp_lower
    got = f(k, 400, 0.0125)
    want = np.array([float(f(int(i), 400, 0.0125)) for i in k])  # scalars: the formula
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def _best_event_loop(stats_d, stats_dp, claims, alpha):  # type: ignore[no-untyped-def]
    """The selection as one loop per statistic, direction, operator and claim (its first form)."""
    best = None
    for name, a in stats_d.items():
        b, m = stats_dp[name], a.size
        t = np.unique(np.quantile(np.concatenate([a, b]), audit_bounds.LEVELS))
        sa, sb = np.sort(a), np.sort(b)
        for op, count in audit_bounds._COUNTS.items():
            ka, kb = count(sa, t), count(sb, t)
            for top, bottom, num in ((ka, kb, "D"), (kb, ka, "D′")):
                lo = audit_bounds._cp_formula(np.asarray(top, float), m, alpha / 2, False)
                hi = audit_bounds._cp_formula(np.asarray(bottom, float), m, alpha / 2, True)
                for c in claims:
                    score = audit_bounds.loss_bound(lo, hi, c) - c.value
                    i = int(np.argmax(score))
                    if best is None or score[i] > best.score:
                        event = audit_bounds.Event(op, float(t[i]), num, name)
                        best = audit_bounds.Choice(float(score[i]), event, c)
    return best


@pytest.mark.parametrize("budget", [Budget.pure(1.0), Budget.zcdp(0.5)])
@pytest.mark.parametrize("shift", [0.0, 0.05, 0.3])
def test_best_event_is_the_loops_choice(budget: Budget, shift: float) -> None:
    g = np.random.default_rng(int(shift * 100))
    x = np.zeros((20, 2))
    a, b = g.laplace(0.0, 0.1, (400, 2)), g.laplace(shift, 0.1, (400, 2))
    claims = audit_bounds.claims_for(budget)
    sa, sb = audit_bounds.statistics(a, x), audit_bounds.statistics(b, x)
    got = audit_bounds.best_event(sa, sb, claims, 0.05)
    want = _best_event_loop(sa, sb, claims, 0.05)
    assert got.event == want.event and got.claim == want.claim
    assert got.score == pytest.approx(want.score, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("n", [2, 3, 400, 800, 801])
def test_level_quantiles_are_numpys(n: int) -> None:
    g = np.random.default_rng(n)
    for v in (
        g.laplace(0.0, 1.0, n),
        np.round(g.normal(0.0, 1.0, n), 1),  # ties
        g.exponential(1.0, n) * 1e-8 + 5.0,  # close values far from 0
        g.integers(0, 3, n).astype(float),
    ):
        want = np.quantile(v, audit_bounds.LEVELS)
        np.testing.assert_array_equal(audit_bounds._level_quantiles(v), want)
