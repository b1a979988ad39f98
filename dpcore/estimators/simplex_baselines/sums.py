"""B1/B1c (a noisy sum over the known n), B2 (noisy sum over a noisy count) and B3 (the centred
sum over a noisy count): docs/estimators/simplex.md §3, the paper's eq. 1 and App. C.1. Privacy,
sensitivities and the ledger as in :mod:`dpcore.estimators.simplex_baselines`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_flag
from dpcore.estimate import (
    Estimate,
)
from dpcore.estimators.simplex import (
    SIDE_INFORMATION_NOTE,
    add_noise,
    check_known_n,
    check_relation,
    mechanism_of,
    noise_variance,
    preprocess,
)
from dpcore.estimators.simplex_baselines._shared import (
    _estimate,
    _split,
    _unit,
    _values,
    sum_sensitivity,
)
from dpcore.privacy import Ledger

# --------------------------------------------------------------------------------------------
# B1 / B1c: known n


def _noisy_sum_draws(
    x: Any,
    *,
    epsilon: float | None,
    rho: float | None,
    bounds: Any,
    centred: bool,
    neighbouring: str,
    radius: float | None,
    reps: int,
    rng: RngLike,
    side_information: bool = False,
):
    mech, budget = mechanism_of(epsilon, rho)
    rel = check_relation(neighbouring)
    check_known_n(True, rel, side_information)
    data = preprocess(x, bounds, radius)
    centring = "centre" if centred else "shift"
    u, base = _values(data, centring)
    sens = sum_sensitivity(data, mech, rel, centring)
    n = data.n
    unit, name = _unit(mech)
    ledger = Ledger("pure" if mech == "laplace" else "zcdp")
    side = SIDE_INFORMATION_NOTE if rel == "add-remove" else ""
    with mechanisms.stage(ledger, "noisy sum", note=side):
        noisy, scale = add_noise(
            u.sum(axis=0),
            mech,
            sens,
            budget,
            reps,
            mechanisms.generator(rng),
            f"{name}, {rel} sensitivity {sens:.4g}"
            + (" (centred at the box centre)" if centred else "")
            + f", {unit} = {budget:.4g}",
        )
    v = noise_variance(mech, sens, budget)
    return (
        base + noisy / n,
        base + u.mean(axis=0),
        ledger,
        np.full(data.d, math.sqrt(v) / n),
        data,
        {"sensitivity": sens, "noise_scale": scale, "noise_variance": v, "mechanism": mech},
    )


def noisy_sum_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    centred: bool = False,
    neighbouring: str = "add-remove",
    radius: float | None = None,
    rng: RngLike = None,
    side_information: bool = False,
) -> Estimate:
    """B1 / B1c: noisy sum divided by the known ``n`` (paper eq. 1; spec §3).

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
    epsilon, rho : float
        Exactly one: Laplace (pure DP) or Gaussian (zCDP); the whole budget goes to the sum.
    bounds : (lower, upper)
        Public range; data are clamped to it.
    centred : bool
        B1c: sum ``x - c`` with ``c`` the box centre (add/remove sensitivity ``R/2`` at d = 1).
    neighbouring : {"add-remove", "replace-one"}
        Replace-one (``n`` public). Add-remove is refused unless ``side_information=True``: the
        estimate divides by the true ``n``, which is private under add-remove.
    radius : float, optional
        Public l1 bound on the shifted rows (the simplex's domain; default the box's l1 diameter).
    rng : None, int, Generator or release backend
    side_information : bool
        Under add-remove only: compute the paper's "n as public side information" comparison,
        **not DP under add-remove**; its ledger says so.

    Returns
    -------
    Estimate
        Variance ``v/n²`` with ``v`` the noise variance of the sum.

    Privacy
    -------
    Under replace-one, ε-DP (Laplace) or ρ-zCDP (Gaussian): one stage "noisy sum" through
    :mod:`dpcore.mechanisms`, sensitivity :func:`sum_sensitivity`.

    References
    ----------
    Paper §3 eq. (1); docs/estimators/simplex.md §3 (B1, B1c) and §4.
    """
    means, noiseless, ledger, std, data, extra = _noisy_sum_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        centred=centred,
        neighbouring=neighbouring,
        radius=radius,
        reps=1,
        rng=rng,
        side_information=side_information,
    )
    return _estimate(
        means,
        noiseless,
        ledger,
        std,
        data,
        extra,
        center=data.lower + data.widths / 2 if centred else None,
    )


# --------------------------------------------------------------------------------------------
# B2 / B3 / OpenDP: noisy sum over noisy count


def _ratio_draws(
    x: Any,
    *,
    epsilon: float | None,
    rho: float | None,
    bounds: Any,
    centring: str,
    split: float | str,
    radius: float | None,
    reps: int,
    rng: RngLike,
):
    mech, budget = mechanism_of(epsilon, rho)
    data = preprocess(x, bounds, radius)
    u, base = _values(data, centring)
    sens = sum_sensitivity(data, mech, "add-remove", centring)
    f = _split(split, mech, sens)
    g = mechanisms.generator(rng)
    b_sum = f * budget
    b_count = budget - b_sum
    unit, name = _unit(mech)
    ledger = Ledger("pure" if mech == "laplace" else "zcdp")
    with mechanisms.stage(ledger, "noisy sum"):
        S, _ = add_noise(
            u.sum(axis=0),
            mech,
            sens,
            b_sum,
            reps,
            g,
            f"{name}, add/remove sensitivity {sens:.4g}, {unit} = {b_sum:.4g}",
        )
    with mechanisms.stage(ledger, "noisy count"):
        N, _ = add_noise(
            np.float64(data.n),
            mech,
            1.0,
            b_count,
            reps,
            g,
            f"{name}, add/remove sensitivity 1, {unit} = {b_count:.4g}",
        )
    means = base + S / np.maximum(N, 1.0)[:, None]
    v_s, v_n = noise_variance(mech, sens, b_sum), noise_variance(mech, 1.0, b_count)
    mu_u = u.mean(axis=0)
    std = np.sqrt(v_s + mu_u**2 * v_n) / data.n  # delta method, spec §3
    extra = {
        "split": f,
        "sum_sensitivity": sens,
        "sum_noise_variance": v_s,
        "count_noise_variance": v_n,
        "noisy_count": float(N[0]),
        "mechanism": mech,
    }
    return means, base + mu_u, ledger, std, data, extra


def plugin_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    split: float | str = 0.5,
    shift: bool = True,
    radius: float | None = None,
    rng: RngLike = None,
) -> Estimate:
    """B2: noisy sum over noisy count (add/remove; paper §3; spec §3 B2 and OpenDP ``dp.mean``).

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
    epsilon, rho : float
        Exactly one total budget (Laplace/pure DP or Gaussian/zCDP).
    bounds : (lower, upper)
        Public range; data are clamped to it.
    split : float in (0, 1) or "opendp"
        Fraction of the budget for the sum (the paper's experiments: 0.5); ``"opendp"`` gives both
        releases the same noise scale.
    shift : bool
        Sum ``x - L`` (the paper's ``[0, R]`` setting) or the raw clamped values (sensitivity
        ``max(|L|, |U|)``; error grows with the offset).
    radius : float, optional
    rng : None, int or Generator

    Returns
    -------
    Estimate
        First-order MSE ``(v_S + μ_u² v_N)/n²`` with ``μ_u`` the mean of the summed values (spec §3).

    References
    ----------
    Paper §3 and §5; docs/estimators/simplex.md §3 (B2, OpenDP) and §4.
    """
    out = _ratio_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        centring="shift" if check_flag(shift, "shift") else "raw",
        split=split,
        radius=radius,
        reps=1,
        rng=rng,
    )
    return _estimate(*out)


def centred_mean(
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    split: float = 0.5,
    radius: float | None = None,
    rng: RngLike = None,
) -> Estimate:
    """B3: centred noisy sum over noisy count floored at 1 (App. C.1; PipelineDP ``compute_dp_mean``).

    ``μ̂ = c + (sum (x - c) + Z_S)/max(N + Z_N, 1)`` with ``c`` the box centre, ``Δ_S = R/2`` and
    ``Δ_N = 1`` under add/remove; ``split`` of the budget to the sum (PipelineDP: 0.5).

    Under Gaussian noise with the equal split this has exactly the distribution of the simplex
    free-count mean (spec §4): the simplex's ``(m_1 - m_2)/2`` and ``(m_1 + m_2)/R`` are independent
    Gaussians with these same variances.

    References
    ----------
    Paper App. C.1; docs/estimators/simplex.md §3 (B3) and §4.
    """
    out = _ratio_draws(
        x,
        epsilon=epsilon,
        rho=rho,
        bounds=bounds,
        centring="centre",
        split=split,
        radius=radius,
        reps=1,
        rng=rng,
    )
    means, noiseless, ledger, std, data, extra = out
    return _estimate(
        means, noiseless, ledger, std, data, extra, center=data.lower + data.widths / 2
    )
