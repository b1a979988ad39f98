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

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from dpcore._validation import RngLike
from dpcore.estimate import Cost, Estimate
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.estimators.simplex import Relation, add_noise, check_reps
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


@dataclass(frozen=True, kw_only=True)
class _BaselineOptions(EstimatorOptions):
    """A registered variant of one simplex baseline (its function in :attr:`function`, the
    batched draws in :attr:`batched`), called as ``registry.get(name).func(x, epsilon=...,
    bounds=..., rng=...)`` (``rho=`` for a zCDP one); ``notion`` picks the budget and the noise."""

    notion: Literal["pure", "zcdp"] = "pure"
    radius: float | None = None
    fixed: tuple[str, ...] = field(default=("notion",), compare=False)

    function: ClassVar[Callable[..., Estimate]]
    batched: ClassVar[Callable[..., np.ndarray]]

    def run(self, x: Any, *, rng: RngLike, bounds: Any = None, **budget: Any) -> Estimate:
        """The baseline with these options; ``budget`` is ``epsilon=`` or ``rho=``."""
        return type(self).function(x, bounds=bounds, rng=rng, **budget, **self.options())

    def draws(self, x: Any, **kw: Any) -> np.ndarray:
        """The batched draws with these options (``kw`` replaces any of them)."""
        return type(self).batched(x, **{**self.options(), **kw})


@dataclass(frozen=True, kw_only=True)
class SumOptions(_BaselineOptions):
    """B1 / B1c (:func:`noisy_sum_mean`): noisy sum / n, optionally centred."""

    centred: bool = False
    neighbouring: Relation = "add-remove"
    side_information: bool = False
    name: str = field(default="noisy_sum_mean", compare=False)
    function = staticmethod(noisy_sum_mean)
    batched = staticmethod(_batched_b1)


@dataclass(frozen=True, kw_only=True)
class PluginOptions(_BaselineOptions):
    """B2 (:func:`plugin_mean`): noisy sum / noisy count."""

    split: float | str = 0.5
    shift: bool = True
    name: str = field(default="plugin_mean", compare=False)
    function = staticmethod(plugin_mean)
    batched = staticmethod(_plugin_draws)


@dataclass(frozen=True, kw_only=True)
class CentredOptions(_BaselineOptions):
    """B3 (:func:`centred_mean`, PipelineDP): centred noisy sum over a noisy count."""

    split: float = 0.5
    name: str = field(default="centred_mean", compare=False)
    function = staticmethod(centred_mean)
    batched = staticmethod(_batched_centred)


@dataclass(frozen=True, kw_only=True)
class ResizeOptions(_BaselineOptions):
    """B4 (:func:`resize_mean`): resize to a noisy count, then noisy sum / that count."""

    split: float = 0.5
    impute: str = "uniform"
    name: str = field(default="resize_mean", compare=False)
    function = staticmethod(resize_mean)
    batched = staticmethod(_batched_resize)


#: The simplex baselines' defaults.
BASELINES = Family(
    family="simplex baseline",
    data_kinds=frozenset({"bounded", "binary"}),
    neighbouring="add-remove",
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)


def _pair(
    options: _BaselineOptions,
    names: tuple[str, str],
    labels: tuple[str, str],
    order: int,
    colors: tuple[str, str],
    details: tuple[str, str],
    descriptions: tuple[str, str],
    cost: Cost | None = None,
) -> None:
    """Register the Laplace (pure ε) and Gaussian (zCDP) variants of one baseline."""
    variants = (
        dataclasses.replace(options, notion="pure"),
        dataclasses.replace(options, notion="zcdp"),
    )
    for i, variant in enumerate(variants):
        more = {"cost": cost} if cost is not None and i == 0 else {}
        BASELINES.register(
            names[i],
            labels[i],
            order + 10 * i,
            variant,
            color=colors[i],
            detail=details[i],
            batched=variant.draws,
            description=descriptions[i],
            **more,
        )


# B1 and B1c divide by the true n: private only when n is public (replace-one), so that is the only
# relation they are registered under. Under replace-one the centred sum's sensitivity is the full
# width ||U - L||_p (a row moves from one corner of the box to the other), not the add/remove ||w||_p/2.
_B1 = "B1 under replace-one (n public): sensitivity U − L."
_pair(
    SumOptions(neighbouring="replace-one"),
    ("sum_known_n_laplace_replace", "sum_known_n_gauss_replace"),
    ("Noisy sum / n (ε)", "Noisy sum / n (ρ)"),
    800,
    ("#009988", "#fdae6b"),
    ("Noisy sum / n, replace-one (Laplace)", "Noisy sum / n, replace-one (Gaussian)"),
    (_B1, _B1),
)
_pair(
    SumOptions(centred=True, neighbouring="replace-one"),
    ("centred_sum_known_n_laplace", "centred_sum_known_n_gauss"),
    ("Centred sum / n (ε)", "Centred sum / n (ρ)"),
    820,
    ("#9467bd", "#c5b0d5"),
    (
        "Centred noisy sum / n, replace-one (Laplace)",
        "Centred noisy sum / n, replace-one (Gaussian)",
    ),
    (
        "B1c under replace-one (n public): centre at the box midpoint, noisy sum / n, "
        "sensitivity U − L.",
        "B1c under replace-one (n public): centre at the box midpoint, noisy sum / n, "
        "sensitivity ‖U − L‖.",
    ),
)
_B2 = "B2: equal budget split between a noisy sum and a noisy count."
_pair(
    PluginOptions(),
    ("plugin_laplace", "plugin_gauss"),
    ("Sum / noisy count (ε)", "Sum / noisy count (ρ)"),
    840,
    ("#d62728", "#ff9896"),
    ("Noisy sum / noisy count (Laplace)", "Noisy sum / noisy count (Gaussian)"),
    (_B2, _B2),
    cost=Cost(per_value_us=0.07, overhead_ms=2.0),
)
_B3 = "B3 (PipelineDP): centred noisy sum over a noisy count, equal split."
_pair(
    CentredOptions(),
    ("centred_plugin_laplace", "centred_plugin_gauss"),
    ("Centred sum / count (ε)", "Centred sum / count (ρ)"),
    860,
    ("#1f77b4", "#aec7e8"),
    ("Centred sum / noisy count (Laplace)", "Centred sum / noisy count (Gaussian)"),
    (_B3, _B3),
)
_B4 = "B4: resize the data to a noisy count, then noisy sum / that count."
_pair(
    ResizeOptions(),
    ("resize_laplace", "resize_gauss"),
    ("Resize (ε)", "Resize (ρ)"),
    880,
    ("#a6761d", "#c49c94"),
    ("Resize (Laplace)", "Resize (Gaussian)"),
    (_B4, _B4),
)
# Our own code in the style of OpenDP's dp.mean (it never calls opendp); the real library runs
# in dpcore.estimators.peers.
_ONE_SCALE = (
    "Our raw noisy sum / noisy count with the same noise scale, as OpenDP's dp.mean does it."
)
_pair(
    PluginOptions(split="opendp", shift=False, fixed=("notion", "split", "shift")),
    ("noisy_sum_count_equal_scale_laplace", "noisy_sum_count_equal_scale_gauss"),
    ("One-scale sum/count (ε)", "One-scale sum/count (ρ)"),
    900,
    ("#e377c2", "#f7b6d2"),
    (
        "Noisy sum / noisy count, equal noise scales (Laplace)",
        "Noisy sum / noisy count, equal noise scales (Gaussian)",
    ),
    (_ONE_SCALE, _ONE_SCALE),
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
