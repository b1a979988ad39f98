"""The exponential-mechanism quantile drawn without a sort (docs/speed.md, "PLAN, round 6"):
:func:`dpcore.mechanisms.exponential_by_envelope` behind the switch
``dpcore.quantiles.exponential.ENVELOPE_MEDIANS``.

The new sampler must have the mechanism's law exactly: gap ``i`` of the padded sorted column with
probability ``∝ L_i exp(-c |i - q n|)``, then a uniform point of it. Tiny columns (ties, values at
and beyond the bounds) are checked against the exact gap probabilities by a chi-square test at
p > 1e-4 (the old path as a control); the test is shown to fail for a halved envelope and for a
sampler without its accept step. Larger columns: a two-sample KS test of new against old draws.
The ledger line is the old call's, and the fallback to the full sort (forced with 0 rounds) keeps
the law.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import _kernels, _kernels_quantile, mechanisms, registry
from dpcore.audit import calibration, problems
from dpcore.audit.probe import ReplayBackend
from dpcore.privacy import Ledger
from dpcore.quantiles import _envelope as QV
from dpcore.quantiles import exponential as QE
from tests.quantiles._quantiles import P_OK, P_REJECT, _chisquare_p

#: Tiny columns and their public ranges: ties, values at the bounds and beyond them.
COLUMNS = [
    (np.array([0.3]), (0.0, 1.0)),
    (np.array([0.0, 1.0]), (0.0, 1.0)),
    (np.array([2.0, 2.0, 5.0]), (0.0, 6.0)),
    (np.array([-3.0, 0.5, 0.5, 0.5]), (0.0, 2.0)),
    (np.array([1.0, 1.5, 4.0, 9.0, 9.5]), (0.0, 10.0)),
    (np.array([0.0, 0.0, 1.0, 2.0, 8.0, 12.0]), (0.0, 8.0)),
]
DRAWS = 20_000
#: the module's floor, read before the fixture below lowers it for each test
DEFAULT_FLOOR = QE.ENVELOPE_MIN_VALUES


@pytest.fixture(autouse=True)
def _envelope_at_every_size(monkeypatch):
    """These tests draw small calls on purpose: lower the size floor of the envelope path
    (``ENVELOPE_MIN_VALUES``) so that the switch alone decides; the floor has its own test."""
    monkeypatch.setattr(QE, "ENVELOPE_MIN_VALUES", 0)


def _draws(x, q, bounds, eps, rng, monkeypatch, *, on=True, rounds=None):
    """``DRAWS`` independent draws of the quantile of column ``x`` at ``eps`` per column."""
    monkeypatch.setattr(QE, "ENVELOPE_MEDIANS", on)
    if rounds is not None:
        monkeypatch.setattr(QV, "ENVELOPE_ROUNDS", rounds)
    X = np.repeat(x[:, None], DRAWS, axis=1)
    return QE.exponential_quantile_fast(X, q, bounds, rho=eps * eps * DRAWS / 8.0, rng=rng)


def _gap_counts(v, x, bounds):
    z = np.concatenate(([bounds[0]], np.sort(np.clip(x, *bounds)), [bounds[1]]))
    idx = np.minimum(np.searchsorted(z, v, side="right") - 1, x.size)
    return np.bincount(idx, minlength=x.size + 1)


def _p(x, q, bounds, eps):
    return QE.exponential_quantile_probabilities(x, q, bounds, eps)


def _fit(counts, p):
    """The chi-square p-value of ``counts`` against ``p`` (1 when one gap holds all the mass and
    every draw fell in it; 0 when a draw fell in a gap of probability 0)."""
    if np.any(counts[p == 0]):
        return 0.0
    if np.count_nonzero(p) == 1:
        return 1.0
    return _chisquare_p(counts, p)


@pytest.mark.parametrize("on", [True, False], ids=["envelope", "sorted (control)"])
@pytest.mark.parametrize(("eps", "q"), [(0.5, 0.5), (3.0, 0.2), (8.0, 0.9)])
def test_tiny_columns_have_the_exact_gap_probabilities(on, eps, q, monkeypatch):
    for k, (x, bounds) in enumerate(COLUMNS):
        v = _draws(x, q, bounds, eps, 100 + k, monkeypatch, on=on)
        assert np.all((v >= bounds[0]) & (v <= bounds[1]))
        assert _fit(_gap_counts(v, x, bounds), _p(x, q, bounds, eps)) > P_OK, (x, eps, q)


def _broken(change):
    """The kernel with its uniforms changed by ``change`` (a deliberately wrong sampler)."""
    right = _kernels_quantile.envelope_draws

    def wrong(V, lo, hi, weight, bins, uniforms):
        u = uniforms.copy()
        change(u)
        return right(V, lo, hi, weight, bins, u)

    return wrong


def _halve(u):  # accept with probability min(1, 2 w / U): the envelope U times 0.5
    u[..., 2] *= 0.5


def _no_accept(u):  # every proposal accepted: the accept step left out
    u[..., 2] = 0.0


@pytest.mark.parametrize("change", [_halve, _no_accept], ids=["halved envelope", "no accept"])
def test_the_chi_square_test_rejects_a_wrong_envelope(change, monkeypatch):
    monkeypatch.setattr(_kernels_quantile, "envelope_draws", _broken(change))
    x, bounds = np.array([1.0, 1.5, 4.0, 9.0, 9.5]), (0.0, 10.0)
    v = _draws(x, 0.5, bounds, 1.0, 7, monkeypatch)
    assert _chisquare_p(_gap_counts(v, x, bounds), _p(x, 0.5, bounds, 1.0)) < P_REJECT


def _rows_draw(rows, lo, hi, q, eps, rounds, rng):
    """``exponential_by_envelope`` on ``rows`` with its fallback sorted as the quantile does."""
    m, n = rows.shape
    log_u = -(eps / 2.0) * np.abs(np.arange(n + 1) - q * n)

    def exact(idx):
        z, w = np.empty((idx.size, n + 2)), np.empty((idx.size, n + 1))
        z[:, 0], z[:, -1], z[:, 1:-1] = lo[idx], hi[idx], rows[idx]
        QE._sorted_gaps(z, w, lo[idx], hi[idx], False)
        return z, w

    return mechanisms.exponential_by_envelope(
        rows,
        lo,
        hi,
        log_u,
        exact,
        sensitivity=1.0,
        epsilon=eps * m,
        coefficient=eps / 2.0,
        rng=rng,
        columns=m,
        bins=QV.envelope_bins(n, eps / 2.0),
        rounds=rounds,
    )


@pytest.mark.parametrize("rounds", [0, 1])
def test_the_fallback_happens_and_keeps_the_law(rounds, monkeypatch):
    # 0 rounds: every row falls back to the full sort; 1 round (eps = 6: about a quarter of the
    # proposals rejected) a mixture of accepted proposals and fallbacks. Both have the exact law.
    x, bounds, eps = np.array([0.0, 0.0, 1.0, 2.0, 8.0, 12.0]), (0.0, 8.0), 6.0
    rows = np.repeat(x[None, :], DRAWS, axis=0)
    lo, hi = np.full(DRAWS, bounds[0]), np.full(DRAWS, bounds[1])
    v, used = _rows_draw(rows, lo, hi, 0.5, eps, rounds, 3)
    fell = np.mean(used == 0)
    assert fell == 1.0 if rounds == 0 else 0.05 < fell < 0.95
    assert _fit(_gap_counts(v, x, bounds), _p(x, 0.5, bounds, eps)) > P_OK
    # the same through the quantile with the switch on and no rounds
    v = _draws(x, 0.5, bounds, eps, 4, monkeypatch, rounds=0)
    assert _fit(_gap_counts(v, x, bounds), _p(x, 0.5, bounds, eps)) > P_OK


@pytest.mark.parametrize(
    ("n", "eps", "q"), [(2000, 0.05, 0.5), (5000, 0.026, 0.5), (800, 0.4, 0.3)]
)
def test_larger_columns_new_and_old_draws_agree(n, eps, q, monkeypatch):
    # One column of PLAN-like data (log half squares, ties from rounding), 3000 draws each way.
    g = np.random.default_rng(n)
    x = np.round(np.log(0.5 * g.standard_normal(n) ** 2 + 1e-6), 2)
    bounds, m = (-14.0, 6.0), 3000
    X = np.repeat(x[:, None], m, axis=1)
    rho = eps * eps * m / 8.0
    out = {}
    for on in (True, False):
        monkeypatch.setattr(QE, "ENVELOPE_MEDIANS", on)
        out[on] = QE.exponential_quantile_fast(X, q, bounds, rho=rho, rng=11)
    assert stats.ks_2samp(out[True], out[False]).pvalue > P_OK
    # power: the old draws at a quantile level 0.05 off are told apart
    monkeypatch.setattr(QE, "ENVELOPE_MEDIANS", False)
    shifted = QE.exponential_quantile_fast(X, q + 0.05, bounds, rho=rho, rng=12)
    assert stats.ks_2samp(out[True], shifted).pvalue < P_REJECT


def _ledger(on, x, monkeypatch):
    monkeypatch.setattr(QE, "ENVELOPE_MEDIANS", on)
    led = Ledger("zcdp")
    with mechanisms.recording_inputs() as inputs, mechanisms.stage(led, "median"):
        QE.exponential_quantile_fast(x, 0.5, (-5.0, 5.0), rho=0.3, rng=0)
    return led, inputs


@pytest.mark.parametrize(("n", "d"), [(300, 5), (2000, 70)])
def test_the_ledger_lines_are_the_old_calls(n, d, monkeypatch):
    x = np.random.default_rng(0).standard_normal((n, d))
    new, new_inputs = _ledger(True, x, monkeypatch)
    old, old_inputs = _ledger(False, x, monkeypatch)
    assert new.charges == old.charges
    assert len(new.charges) == math.ceil(d / max(32, QE._BLOCK_VALUES // (n + 2)))
    assert all(c.ratio == pytest.approx(1.0, rel=1e-12) for c in new.charges)
    for a, b in zip(new_inputs, old_inputs, strict=True):
        assert (a.stage, a.kind, a.columns) == (b.stage, b.kind, b.columns)
        np.testing.assert_array_equal(a.value, b.value)
        np.testing.assert_array_equal(a.sensitivity, b.sensitivity)
        np.testing.assert_array_equal(a.scale, b.scale)


def test_a_release_keeps_its_path(monkeypatch):
    x = np.random.default_rng(3).standard_normal((400, 6))
    out = []
    for on in (False, True):
        monkeypatch.setattr(QE, "ENVELOPE_MEDIANS", on)
        out.append(QE.exponential_quantile_fast(x, 0.5, (-5.0, 5.0), rho=0.2, rng=ReplayBackend(4)))
    np.testing.assert_array_equal(out[0], out[1])
    with pytest.raises(ValueError, match="simulation"):
        _rows_draw(np.zeros((2, 3)), np.zeros(2), np.ones(2), 0.5, 1.0, 2, ReplayBackend(0))


def _both(x, monkeypatch, calls):
    """The draws of one seeded call with the switch on and off, and how many envelope calls
    (``calls``: the ``envelope_calls`` fixture) they made."""
    before, out = len(calls), []
    for on in (True, False):
        monkeypatch.setattr(QE, "ENVELOPE_MEDIANS", on)
        out.append(QE.exponential_quantile_fast(x, 0.5, (-5.0, 5.0), rho=0.5, rng=7))
    return out, len(calls) - before


def test_on_by_default_above_the_kernels_size_only(monkeypatch, envelope_calls):
    # The module's defaults: on, from the kernels' size. A call of fewer values (Compare's
    # default sweep, the presets, the fingerprints) draws exactly what the sort draws and never
    # runs the envelope; a call at the floor runs it and draws other numbers of the same law.
    assert QE.ENVELOPE_MEDIANS is True
    assert DEFAULT_FLOOR == _kernels.MIN_SIZE == 1 << 18
    monkeypatch.setattr(QE, "ENVELOPE_MIN_VALUES", DEFAULT_FLOOR)
    g = np.random.default_rng(5)
    small = g.standard_normal((1000, 32))  # 32,000 values
    (on, off), calls = _both(small, monkeypatch, envelope_calls)
    np.testing.assert_array_equal(on, off)
    assert calls == 0
    n = _kernels.MIN_SIZE // 64
    large = g.standard_normal((n, 64))  # exactly the floor
    (on, off), calls = _both(large, monkeypatch, envelope_calls)
    assert calls > 0
    assert not np.array_equal(on, off)
    assert np.all(np.abs(on - off) < 0.5)  # both near the columns' medians, 0
    (on, off), calls = _both(large[:-1], monkeypatch, envelope_calls)  # one row short of it
    np.testing.assert_array_equal(on, off)
    assert calls == 0


ENTRIES = [s.name for s in registry.all_estimators() if s.name.startswith(("plan", "iome"))]


@pytest.mark.parametrize("name", ENTRIES)
def test_plan_and_iome_stay_calibrated_with_the_switch_on(name, monkeypatch, envelope_calls):
    # The white-box check on each entry's default data (n = 2,000, d = 8): ratio 1 at every
    # stage, no draw outside a mechanism, the charges add up. The probe runs a release backend,
    # which keeps the old path, so it is left out here.
    monkeypatch.setattr(QE, "ENVELOPE_MEDIANS", True)
    tab = calibration(name, probe=False)
    assert problems(tab) == [], tab.to_string()
    if name == "plan":
        assert envelope_calls, "the envelope path did not run"


def test_per_row_scores_are_refused_not_read_from_the_first_row():
    """The envelope shares one weight table by every row: utilities that differ by row (or have
    the wrong length) are refused with the fix, before anything is drawn or charged."""
    rows = np.random.default_rng(0).standard_normal((3, 5))
    lo, hi = np.full(3, -4.0), np.full(3, 4.0)
    per_row = np.tile(-0.5 * np.abs(np.arange(6) - 2.5), (3, 1))
    for scores in (per_row, np.zeros(5)):
        with pytest.raises(ValueError, match=r"shared by every row, shape \(6,\)"):
            mechanisms.exponential_by_envelope(
                rows,
                lo,
                hi,
                scores,
                lambda idx: (None, None),
                sensitivity=1.0,
                epsilon=3.0,
                coefficient=0.5,
                rng=0,
                columns=3,
                bins=64,
                rounds=2,
            )
