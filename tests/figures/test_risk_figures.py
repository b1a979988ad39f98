"""dpcore.figures.risk draws exactly the data it returns, with the legend below the plot and a
short title (so each chart fits a phone), and puts measured points where they were measured."""

import numpy as np
import pytest

from dpcore.audit import audit
from dpcore.data import generate
from dpcore.experiments.attack import attack, attack_curve, tradeoff_points
from dpcore.figures.risk import (
    attack_figure,
    audit_points,
    deployments_figure,
    guesses_figure,
    posterior_figure,
    tradeoff_figure,
)
from dpcore.privacy import Budget
from dpcore.theory.risk import deployments_on_scale, posterior_bound


@pytest.fixture(scope="module")
def run():
    return attack(generate("bounded", 500, 2, 0.0, rng=0), Budget.zcdp(0.5), draws=400, rng=0)


def _phone_ready(fig):
    assert fig.layout.legend.y < 0, "legend below the plot"
    assert len(fig.layout.title.text) <= 30, fig.layout.title.text


def test_guesses_figure_counts_every_release(run):
    fig, df = guesses_figure(run)
    _phone_ready(fig)
    counts = [c for c in df.columns if c.startswith("count")]
    assert [int(df[c].sum()) for c in counts] == [run.draws, run.draws]
    np.testing.assert_allclose(fig.data[0].y, df[counts[0]] / run.draws)


def test_the_candidates_labels_lean_away_from_each_other(run):
    # two close candidates on a phone: both labels to the right of their lines overlapped
    fig, _ = guesses_figure(run)
    at = {a.text: (a.x, a.xanchor) for a in fig.layout.annotations}
    (lo, lo_side), (hi, hi_side) = sorted(at.values())
    assert lo <= hi and (lo_side, hi_side) == ("right", "left"), at


def test_attack_figure_draws_the_curve():
    data = generate("bounded", 300, 2, 0.0, rng=1)
    curve = attack_curve(data, "rho", (0.1, 1.0, 10.0), draws=200, rng=1)
    fig, df = attack_figure(curve, 1.0, "ρ")
    _phone_ready(fig)
    measured = next(t for t in fig.data if t.name == "measured success")
    assert list(measured.y) == df["success"].tolist()
    assert fig.layout.xaxis.type == "log"


def test_posterior_figure_is_the_bound():
    fig, df = posterior_figure(1.0)
    _phone_ready(fig)
    np.testing.assert_allclose(df["posterior_max"], posterior_bound(df["prior"], 1.0))
    assert np.all(df["posterior_min"] <= df["prior"] + 1e-12)


def test_tradeoff_figure_needs_a_curve_and_keeps_its_points(run):
    pts = tradeoff_points(run)
    fig, df = tradeoff_figure(mu=1.0, points=pts, points_label="attack")
    _phone_ready(fig)
    assert (df["kind"] == "attack").sum() == len(pts)
    assert list(fig.data[-1].x) == pts["alpha"].tolist()
    with pytest.raises(ValueError, match="mu="):
        tradeoff_figure()


def test_audit_points_start_with_the_audits_event():
    r = audit(
        "gaussian_public", Budget.zcdp(0.125), draws=500, grid="quick", calibrate=False, rng=0
    )
    pts = audit_points(r)
    top_hits, other_hits = r.hits
    assert pts.iloc[0]["alpha"] == pytest.approx(other_hits / r.draws)
    assert pts.iloc[0]["beta"] == pytest.approx(1 - top_hits / r.draws)
    assert pts["alpha"].between(0, 1).all() and pts["beta"].between(0, 1).all()


def test_deployments_figure_lists_every_deployment():
    rows = deployments_on_scale(1e-6)
    fig, df = deployments_figure(rows, 5.2, 1e-6)
    _phone_ready(fig)
    assert len(df) == len(rows)
    assert sum(len(t.x) for t in fig.data if t.mode == "markers") == len(rows)
    assert list(fig.layout.yaxis.categoryarray) == df["short"].tolist()  # smallest ε on top


def test_a_narrow_log_axis_gets_ticks_inside_its_span():
    """ε from 2 to 15 (a decade and a bit): ticks at 2, 5 and 10 lie inside it, not "10" alone."""
    from dpcore.figures.risk import _decades

    ticks = _decades([2.0, 15.0])["tickvals"]
    inside = [t for t in ticks if 2.0 <= t <= 15.0]
    assert inside == [2.0, 5.0, 10.0]
    wide = _decades([0.01, 50.0])["tickvals"]  # four decades: powers of ten only
    assert wide == [0.01, 0.1, 1.0, 10.0, 100.0]
