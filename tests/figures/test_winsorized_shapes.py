"""dpcore.figures.winsorized: the interval histogram and the S&A strip draw their lines and zones
where the run puts them (the shapes are added in one layout assignment)."""

import numpy as np

from dpcore.figures.winsorized import interval_histogram, sa_strip
from dpcore.privacy import Budget
from dpcore.registry import get
from dpcore.theory.winsorized import trimmed_interval


def test_interval_histogram_lines_sit_at_the_run():
    x = np.random.default_rng(0).normal(size=800)
    est = get("pmwm").run(x, Budget.pure(1.0), rng=1, bounds=(-50.0, 50.0))
    fig, _ = interval_histogram(x, est, true_mean=0.0)
    (L,), (U,) = est.diagnostics.clip_interval
    ql, qu = (float(v[0]) for v in trimmed_interval(x, float(est.diagnostics.tau)))
    shapes = fig.layout.shapes
    assert [s.type for s in shapes] == ["rect", "rect"] + ["line"] * 6
    assert shapes[0].x1 == L and shapes[1].x0 == U
    lines = [s.x0 for s in shapes[2:]]
    np.testing.assert_allclose(lines, [L, U, ql, qu, est.mean[0], 0.0])
    assert all(s.yref == "y domain" and (s.y0, s.y1) == (0, 1) for s in shapes)


def test_sa_strip_zone_and_lines():
    theta = np.linspace(-1.0, 1.0, 40)
    est = get("pmwm").run(theta, Budget.pure(1.0), rng=2, bounds=(-5.0, 5.0))
    fig, _ = sa_strip(theta, est, 0.25)
    (L,), (U,) = est.diagnostics.clip_interval
    rect, mean, full = fig.layout.shapes
    assert (rect.type, rect.x0, rect.x1) == ("rect", L, U)
    assert (mean.x0, full.x0) == (est.mean[0], 0.25)
