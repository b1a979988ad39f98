"""Why ``1/(p+2)``: expected noise and total error against the scaling exponent ``e`` in
``s = sigma^(-2e)`` (Appendix C), idealised with sigma known.

References
----------
PLAN (PETS 2024), Appendix C and Theorem 4.5; docs/estimators/plan.md §6; :mod:`dpcore.theory.plan`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.plan.common import COLORS
from dpcore.figures.style import figure, merge_layout, style, trace
from dpcore.theory import plan as theory


def _floor(sig: np.ndarray) -> np.ndarray:
    """A constant column (``sigma_i = 0``) would get an infinite scale: floor at ``1e-12 max(sigma)``, as PLAN does."""
    top = float(np.max(sig)) if sig.size else 0.0
    return np.maximum(sig, top * 1e-12 if top > 0 else 1.0)


def exponent_noise_std(
    sigma: np.ndarray,
    n: int,
    rho_noise: float,
    exponent: float,
    *,
    sigma_hat: np.ndarray | None = None,
    margin: float = 1.0,
) -> np.ndarray:
    """Idealised per-coordinate noise std of PLAN's output with scaling ``s = sigma^^(-2e)``.

    The clip radius is ``C = margin * sqrt(sum_i sigma_i^2 s_i^2)`` (the typical scaled norm), the
    sum gets ``N(0, 2C^2/rho_noise)`` per coordinate (sensitivity ``2C``), and coordinate ``i`` of the
    mean carries ``sqrt(2C^2/rho_noise) / (n s_i)``. This is Appendix C's release with sensitivities
    ``Delta = sigma`` and divisor ``sigma^^(2e)``: ``(2 margin / n) *``
    :func:`dpcore.theory.plan.noise_std_per_coordinate`.
    """
    sig = np.asarray(sigma, dtype=float)
    sh = _floor(sig if sigma_hat is None else np.asarray(sigma_hat, dtype=float))
    t = sh ** (2.0 * float(exponent))
    return 2.0 * margin / n * theory.noise_std_per_coordinate(sig, t, rho_noise)


def exponent_curve(
    sigma: np.ndarray,
    n: int,
    rho_noise: float,
    p: float = 2.0,
    *,
    sigma_hat: np.ndarray | None = None,
    current: float | None = None,
    margin: float = 1.0,
    num: int = 101,
    height: int = 380,
) -> tuple[go.Figure, pd.DataFrame]:
    """Expected noise and total error against the scaling exponent ``e`` (``s = sigma^^(-2e)``).

    noise: ``(E ||noise||_p^p)^(1/p) = (2 margin / n) (theory.expected_scaled_noise_pp(sigma,
    sigma^^(2e), rho_noise, p))^(1/p)`` (Appendix C); ``e = 0`` gives the Gaussian mechanism's
    ``d^(1/p) ||sigma||_2`` shape, ``e = 1/(p+2)`` PLAN's minimum ``||sigma||_{2p/(p+2)}``, ``e = 1/2``
    the equal split's ``sqrt(d) ||sigma||_p`` (each times ``margin G_p sqrt(2/rho_noise) / n``).
    sampling: ``theory.sampling_error`` (flat). total: ``(E ||sampling + noise||_p^p)^(1/p)`` for
    independent Gaussian coordinates, ``G_p (sum_i (sigma_i^2/n + noise_i^2)^(p/2))^(1/p)`` (clipping
    bias ignored).

    Returns
    -------
    (Figure, DataFrame)
        Columns ``exponent``, ``noise``, ``sampling``, ``total``, ``point`` (name of a marked
        exponent, else empty).

    References
    ----------
    PLAN, Appendix C and Theorem 4.5; docs/estimators/plan.md §6; :mod:`dpcore.theory.plan`.
    """
    df = exponent_frame(
        sigma, n, rho_noise, p, sigma_hat=sigma_hat, current=current, margin=margin, num=num
    )
    fig = figure(styled=True)
    for column, name, line in (
        ("total", "total (sampling and noise)", dict(color="#1d2733", width=2)),
        ("noise", "DP noise", dict(color=COLORS["noise"], width=3)),
        (
            "sampling",
            "sampling error (floor)",
            dict(color=COLORS["sampling"], width=2, dash="dash"),
        ),
    ):
        fig.add_trace(
            trace(go.Scatter, x=df.exponent, y=df[column], mode="lines", name=name, line=line)
        )
    pts = df[df.point != ""]
    fig.add_trace(
        trace(
            go.Scatter,
            x=pts.exponent,
            y=pts.noise,
            mode="markers+text",
            text=pts.point,
            name="named exponents",
            textposition=[
                "top right" if e < 0.1 else "top left" if e > 0.4 else "top center"
                for e in pts.exponent
            ],
            marker=dict(size=10, color=COLORS["noise"], line=dict(width=1, color="#1d2733")),
            showlegend=False,
        )
    )
    if current is not None:
        fig.add_vline(
            x=float(current),
            line=dict(color=COLORS["scaled"], width=2, dash="dot"),
            annotation_text="slider",
            annotation_position="bottom right",
        )
    merge_layout(
        fig,
        xaxis={"title": {"text": "scaling exponent e in s = σ⁻²ᵉ"}, "range": [-0.01, 0.51]},
        yaxis={"title": {"text": f"expected ℓ{p:g} error"}, "rangemode": "tozero"},
    )
    return style(fig, title="Why the middle ground wins (idealised, Appendix C)", height=height), df


def exponent_frame(
    sigma: np.ndarray,
    n: int,
    rho_noise: float,
    p: float = 2.0,
    *,
    sigma_hat: np.ndarray | None = None,
    current: float | None = None,
    margin: float = 1.0,
    num: int = 101,
) -> pd.DataFrame:
    """The numbers :func:`exponent_curve` draws: ``num`` exponents in [0, 1/2] with the named ones
    (0, ``1/(p+2)``, 1/2) and ``current`` added; columns ``exponent``, ``noise``, ``sampling``,
    ``total``, ``point`` (the name of a marked exponent, else empty)."""
    sig = np.asarray(sigma, dtype=float)
    sh = _floor(sig if sigma_hat is None else np.asarray(sigma_hat, dtype=float))
    named = {
        0.0: "no scaling (e = 0)",
        1.0 / (p + 2.0): f"PLAN (e = 1/{p + 2:g})",
        0.5: "equal split (e = 1/2)",
    }
    grid = np.union1d(np.linspace(0.0, 0.5, num), list(named))
    if current is not None:
        grid = np.union1d(grid, [float(current)])
    gp = theory.gaussian_moment_constant(p)
    samp = theory.sampling_error(sig, n, p)
    rows = []
    for e in grid:
        pp = theory.expected_scaled_noise_pp(sig, sh ** (2.0 * e), rho_noise, p)
        noise = 2.0 * margin / n * pp ** (1.0 / p)
        sd = exponent_noise_std(sig, n, rho_noise, e, sigma_hat=sh, margin=margin)
        total = gp * float(np.sum((sig**2 / n + sd**2) ** (p / 2.0))) ** (1.0 / p)
        name = next((v for k, v in named.items() if math.isclose(k, e, abs_tol=1e-12)), "")
        rows.append(
            {"exponent": float(e), "noise": noise, "sampling": samp, "total": total, "point": name}
        )
    return pd.DataFrame(rows)
