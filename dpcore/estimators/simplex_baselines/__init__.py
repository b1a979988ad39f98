"""The baselines the simplex paper compares with (docs/estimators/simplex.md §3), with their noise
variances.

* **B1** ``noisy_sum_mean(centred=False)``: known ``n``, ``μ̂ = L + (sum z + Z)/n`` (paper eq. 1;
  DiffPrivLib, Opacus). Variance ``v/n²``.
* **B1c** ``noisy_sum_mean(centred=True)`` [ext]: known ``n``, centred at the box centre ``c``:
  ``μ̂ = c + (sum (x - c) + Z)/n``; add/remove sensitivity halves to ``R/2``.
* **B2** ``plugin_mean``: noisy sum over noisy count, ``μ̂ = (S + Z_S)/max(N + Z_N, 1)`` with a
  budget split (equal by default, as OpenDP ``make_sum``/``make_count``, SmartNoise SQL and the
  paper's experiments). ``shift=True`` sums the shifted data ``z = x - L`` (the paper's ``[0, R]``
  setting) and adds ``L`` back; ``shift=False`` sums the raw clamped values, whose add/remove
  sensitivity is ``max(|L|, |U|)`` and whose error grows with the offset (not translation invariant).
  ``split="opendp"`` is OpenDP Polars ``dp.mean``: sum and count get the *same* noise scale, so the
  budget is split in proportion to sensitivity (``ε_S = ε Δ_S/(Δ_S + 1)``; Gaussian
  ``ρ_S = ρ Δ_S²/(Δ_S² + 1)``).
* **B3** ``centred_mean`` (App. C.1; current PipelineDP): ``μ̂ = c + (sum (x - c) + Z_S)/max(N + Z_N, 1)``
  with ``Δ_S = R/2``, equal split by default.
* **B4** ``resize_mean`` (App. C.2): ``ñ = max(round(N + Z_N), 1)``; subsample ``ñ`` rows without
  replacement if ``ñ < N``, else impute ``ñ - N`` rows (uniform on the box, or its midpoint, both
  scaled into the l1 ball of radius ``R`` when ``R`` is below the box's l1 diameter:
  :func:`imputation_top`); release the noisy sum of the resized shifted data with the replace-one
  sensitivity of a dataset of public size ``ñ`` and divide by ``ñ``. Its error is evaluated by
  simulation only.

Every count is floored at 1 (as PipelineDP does), which is also what makes the MSE of a ratio
finite (spec §3: exact moments of ``S/(N + Z_N)`` do not exist).

Privacy
-------
* Relations: B1 and B1c divide by the true ``n``, so they are registered under replace-one only (``n``
  public). Under add/remove ``n`` is private and the paper's "known n" comparison (``n`` as public
  side information, sensitivity ``R`` or ``R/2``) is not an add/remove guarantee; the functions still
  accept ``neighbouring="add-remove"`` for the simplex page's reproduction of that comparison. Under
  replace-one centring changes nothing: B1c has sensitivity ``||w||_p`` and equals B1 in
  distribution. B2, B3, B4 and OpenDP release a count and are add/remove only.
* Sensitivities of a sum over rows in the domain (box ``[0, w]`` intersected with the l1 ball of
  radius ``R``, spec §1 table): uncentred add/remove ``Δ1 = min(R, sum w)``, ``Δ2 = min(R, ||w||_2)``;
  replace-one ``Δ1 = min(2R, sum w)``, ``Δ2 = min(sqrt 2 R, ||w||_2)``; centred at ``w/2``:
  add/remove ``||w/2||_p``, replace-one ``||w||_p``; raw values: add/remove ``||max(|L|, |U|)||_p``.
  The count has add/remove sensitivity 1.
* Ledger: "noisy sum" ``f`` of the budget and "noisy count" the rest (B4 charges the count first),
  in ``ε`` (Laplace, pure DP) or ``ρ`` (Gaussian, zCDP). The charges sum to the budget.

Layout: ``_shared`` (sensitivities, budget split, diagnostics), ``sums`` (B1, B1c, B2, B3),
``resize`` (B4); this module re-exports them, batches them for simulation (:func:`baseline_draws`)
and registers them.

References
----------
Fitzsimons, Honaker, Shoemate, Singhal. "Private Means and the Curious Incident of the Free Lunch."
arXiv:2408.10438 (2024), §3, §5, App. C. docs/estimators/simplex.md §1, §3, §4.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from dpcore._validation import RngLike
from dpcore.estimate import (
    ADD_REMOVE,
    PURE_UNITS,
    REPLACE_ONE,
    ZCDP_UNITS,
    Cost,
    EstimatorSpec,
    register,
)
from dpcore.estimators.simplex import add_noise, check_reps
from dpcore.estimators.simplex_baselines._shared import NoisySumDiagnostics, sum_sensitivity
from dpcore.estimators.simplex_baselines.resize import (
    _resize_draws,
    imputation_top,
    imputed_rows,
    resize_mean,
    uniform_sum,
)
from dpcore.estimators.simplex_baselines.sums import (
    _noisy_sum_draws,
    _ratio_draws,
    centred_mean,
    noisy_sum_mean,
    plugin_mean,
)

# --------------------------------------------------------------------------------------------
# batched draws for simulation (the same code paths as the estimators)


def baseline_draws(
    kind: str,
    x: Any,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    bounds: Any = None,
    reps: int = 1000,
    rng: RngLike = None,
    **params: Any,
) -> np.ndarray:
    """``reps`` independent runs of a baseline on the same data, shape ``(reps, d)``.

    ``kind`` is ``"b1"`` (``centred=``, ``neighbouring=``, ``side_information=``), ``"plugin"``
    (``split=``, ``shift=``), ``"centred"`` (``split=``), ``"opendp"`` or ``"resize"``
    (``split=``, ``impute=``); every kind takes ``radius=``. The same code paths and refusals as
    the estimators; the draws go through :mod:`dpcore.mechanisms` outside any ledger stage, so
    nothing is charged (a simulation of one release, not a release).
    """
    reps = check_reps(reps)
    common = {
        "epsilon": epsilon,
        "rho": rho,
        "bounds": bounds,
        "radius": params.pop("radius", None),
        "reps": reps,
        "rng": rng,
    }
    if kind == "b1":
        return _noisy_sum_draws(
            x,
            centred=params.pop("centred", False),
            neighbouring=params.pop("neighbouring", "add-remove"),
            side_information=params.pop("side_information", False),
            **common,
        )[0]
    if kind == "plugin":
        return _ratio_draws(
            x,
            centring="shift" if params.pop("shift", True) else "raw",
            split=params.pop("split", 0.5),
            **common,
        )[0]
    if kind == "opendp":
        return _ratio_draws(x, centring="raw", split="opendp", **common)[0]
    if kind == "centred":
        return _ratio_draws(x, centring="centre", split=params.pop("split", 0.5), **common)[0]
    if kind == "resize":
        return _resize_draws(
            x, split=params.pop("split", 0.5), impute=params.pop("impute", "uniform"), **common
        )[0]
    raise ValueError(
        f"kind must be one of 'b1', 'plugin', 'opendp', 'centred', 'resize'; got {kind!r}."
    )


# --------------------------------------------------------------------------------------------
# registry

_KINDS = frozenset({"bounded", "binary"})


# B1 and B1c divide by the true n: private only when n is public (replace-one), so that is the only
# relation they are registered under. Under replace-one the centred sum's sensitivity is the full
# width ||U - L||_p (a row moves from one corner of the box to the other), not the add/remove ||w||_p/2.
def _plugin_draws(x: Any, **kw: Any) -> np.ndarray:
    """Batched B2, or its OpenDP-style equal-scale variant (``split="opendp"``)."""
    if kw.get("split") == "opendp":
        kw.pop("split")
        kw.pop("shift", None)
        return baseline_draws("opendp", x, **kw)
    return baseline_draws("plugin", x, **kw)


def _batched_b1(x: Any, **kw: Any) -> np.ndarray:
    """Batched B1 (``noisy_sum_mean``)."""
    return baseline_draws("b1", x, **kw)


def _batched_centred(x: Any, **kw: Any) -> np.ndarray:
    """Batched B3 (``centred_mean``)."""
    return baseline_draws("centred", x, **kw)


def _batched_resize(x: Any, **kw: Any) -> np.ndarray:
    """Batched B4 (``resize_mean``)."""
    return baseline_draws("resize", x, **kw)


_SUM_KNOWN_N_REPLACE = register(
    EstimatorSpec(
        name="sum_known_n_laplace_replace",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Noisy sum / n (ε)",
        detail="Noisy sum / n, replace-one (Laplace)",
        order=800,
        color="#009988",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="replace-one",
        units=PURE_UNITS,
        relations=REPLACE_ONE,
        func=noisy_sum_mean,
        params={"neighbouring": "replace-one"},
        family="simplex baseline",
        batched=_batched_b1,
        description="B1 under replace-one (n public): sensitivity U − L.",
    )
)
register(
    replace(
        _SUM_KNOWN_N_REPLACE,
        name="sum_known_n_gauss_replace",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Noisy sum / n (ρ)",
        detail="Noisy sum / n, replace-one (Gaussian)",
        order=810,
        color="#fdae6b",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

_CENTRED_SUM_KNOWN_N = register(
    EstimatorSpec(
        name="centred_sum_known_n_laplace",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Centred sum / n (ε)",
        detail="Centred noisy sum / n, replace-one (Laplace)",
        order=820,
        color="#9467bd",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="replace-one",
        units=PURE_UNITS,
        relations=REPLACE_ONE,
        func=noisy_sum_mean,
        params={"centred": True, "neighbouring": "replace-one"},
        family="simplex baseline",
        batched=_batched_b1,
        description=(
            "B1c under replace-one (n public): centre at the box midpoint, noisy sum / n, "
            "sensitivity U − L."
        ),
    )
)
register(
    replace(
        _CENTRED_SUM_KNOWN_N,
        name="centred_sum_known_n_gauss",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Centred sum / n (ρ)",
        detail="Centred noisy sum / n, replace-one (Gaussian)",
        order=830,
        color="#c5b0d5",
        notion="zcdp",
        units=ZCDP_UNITS,
        description=(
            "B1c under replace-one (n public): centre at the box midpoint, noisy sum / n, "
            "sensitivity ‖U − L‖."
        ),
    )
)

_PLUGIN = register(
    EstimatorSpec(
        name="plugin_laplace",
        cost=Cost(per_value_us=0.07, overhead_ms=2.0),
        label="Sum / noisy count (ε)",
        detail="Noisy sum / noisy count (Laplace)",
        order=840,
        color="#d62728",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=plugin_mean,
        family="simplex baseline",
        batched=_plugin_draws,
        description="B2: equal budget split between a noisy sum and a noisy count.",
    )
)
register(
    replace(
        _PLUGIN,
        name="plugin_gauss",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Sum / noisy count (ρ)",
        detail="Noisy sum / noisy count (Gaussian)",
        order=850,
        color="#ff9896",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

_CENTRED_PLUGIN = register(
    EstimatorSpec(
        name="centred_plugin_laplace",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Centred sum / count (ε)",
        detail="Centred sum / noisy count (Laplace)",
        order=860,
        color="#1f77b4",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=centred_mean,
        family="simplex baseline",
        batched=_batched_centred,
        description="B3 (PipelineDP): centred noisy sum over a noisy count, equal split.",
    )
)
register(
    replace(
        _CENTRED_PLUGIN,
        name="centred_plugin_gauss",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Centred sum / count (ρ)",
        detail="Centred sum / noisy count (Gaussian)",
        order=870,
        color="#aec7e8",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

_RESIZE = register(
    EstimatorSpec(
        name="resize_laplace",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Resize (ε)",
        detail="Resize (Laplace)",
        order=880,
        color="#a6761d",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=resize_mean,
        family="simplex baseline",
        batched=_batched_resize,
        description="B4: resize the data to a noisy count, then noisy sum / that count.",
    )
)
register(
    replace(
        _RESIZE,
        name="resize_gauss",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="Resize (ρ)",
        detail="Resize (Gaussian)",
        order=890,
        color="#c49c94",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

# Our own code in the style of OpenDP's dp.mean (it never calls opendp); the real library runs
# in dpcore.estimators.peers.
_NOISY_SUM_COUNT_EQUAL_SCALE = register(
    EstimatorSpec(
        name="noisy_sum_count_equal_scale_laplace",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="One-scale sum/count (ε)",
        detail="Noisy sum / noisy count, equal noise scales (Laplace)",
        order=900,
        color="#e377c2",
        notion="pure",
        data_kinds=_KINDS,
        neighbouring="add-remove",
        units=PURE_UNITS,
        relations=ADD_REMOVE,
        func=plugin_mean,
        params={"split": "opendp", "shift": False},
        family="simplex baseline",
        batched=_plugin_draws,
        description=(
            "Our raw noisy sum / noisy count with the same noise scale, as OpenDP's dp.mean does "
            "it."
        ),
    )
)
register(
    replace(
        _NOISY_SUM_COUNT_EQUAL_SCALE,
        name="noisy_sum_count_equal_scale_gauss",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="One-scale sum/count (ρ)",
        detail="Noisy sum / noisy count, equal noise scales (Gaussian)",
        order=910,
        color="#f7b6d2",
        notion="zcdp",
        units=ZCDP_UNITS,
    )
)

__all__ = [
    "NoisySumDiagnostics",
    "add_noise",
    "baseline_draws",
    "centred_mean",
    "imputation_top",
    "imputed_rows",
    "noisy_sum_mean",
    "plugin_mean",
    "resize_mean",
    "sum_sensitivity",
    "uniform_sum",
]
