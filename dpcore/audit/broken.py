"""Broken-on-purpose estimators and variants that the audit must catch.

Variants of a registered entry (audited against the honest entry's claim, same relation):

* ``"noise_halved"``: the entry run at ``2ε`` (pure) or ``4ρ`` (zCDP) while claiming the budget;
  for a multi-stage estimator this halves the noise of every stage.
* ``"noise_cut"``: 30% less noise. A one-stage entry runs at ``ε/0.7`` or ``ρ/0.49`` (exactly
  ``0.7×`` its Laplace scale or Gaussian standard deviation); an entry audited stage by stage
  (:mod:`dpcore.audit.stages`: PLAN's final noisy sum, PMWM's mean) gets the cut in that stage only.
* ``"data_derived_n"``: a mean that divides by the true ``n`` while declaring add-remove (where
  ``n`` is private): the registry's replace-one entry, audited on add-remove pairs.

Broken estimators, built here as unregistered specs (:data:`BROKEN_SPECS`; :func:`resolve` and
so :func:`dpcore.audit.audit` know their names, the public registry never sees them). Each claims
pure ``ε``-DP under replace-one on the public box, like ``clipped_laplace``:

* ``"broken_no_clamp"``: forgets to clamp the rows to the box (``ε = ∞``);
* ``"broken_full_eps_per_coordinate"``: gives every coordinate the whole ``ε`` (``dε`` in all);
* ``"broken_exact_mean_large_n"``: releases the exact mean once ``n >= 20`` (``ε = ∞``);

and three whose noise matches the sensitivity they declare, so that only the sensitivity probe
(:mod:`dpcore.audit.probe`, part of :func:`dpcore.audit.calibration`) sees the fault:

* ``"broken_data_box"``: clips to the box the data span, ``[min x, max x]``, and declares its
  width over ``n`` (``ε = ∞``: the box itself is a data value);
* ``"broken_unclipped_second_stage"``: a noisy clipped mean, then a second noisy mean of the
  rows around it that are not clipped, declared with the box's sensitivity;
* ``"broken_low_utility_sensitivity"``: an exponential-mechanism median over a public grid whose
  rank utility (sensitivity 1) is declared 0.5, so the mechanism runs at ``2ε``.

References
----------
docs/estimators/winsorized.md §4 (the clipped mean these break).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpcore import mechanisms, registry
from dpcore._validation import RngLike, check_positive
from dpcore.audit.neighbours import NeighbourPair
from dpcore.audit.runners import Runner, entry_runner
from dpcore.audit.runners import resolve as resolve_entry
from dpcore.estimate import PURE_UNITS, Diagnostics, Estimate, EstimatorSpec
from dpcore.privacy import Budget, Ledger

VARIANT_LABELS = {
    "honest": "as registered",
    "noise_halved": "noise halved (run at 2ε / 4ρ, claim the budget)",
    "noise_cut": "30% less noise (in the audited stage)",
    "data_derived_n": "divide by the true n under add-remove",
}
#: Noise scale kept by ``"noise_cut"``.
CUT = 0.7

#: Families whose add-remove entries get the data-derived-n variant, and the entry that divides by n.
_KNOWN_N_ENTRY = {
    "simplex": "simplex_known_n_{}_replace",
    "simplex baseline": "sum_known_n_{}_replace",
}


def _box_mean(x: np.ndarray, bounds: tuple, clamp: bool) -> tuple[np.ndarray, float, float]:
    X = np.asarray(x, float).reshape(len(x), -1)
    lo, hi = float(np.min(bounds[0])), float(np.max(bounds[1]))
    return (np.clip(X, lo, hi) if clamp else X).mean(axis=0), lo, hi


def _laplace_mean(
    x: np.ndarray, epsilon: float, bounds: tuple, rng: RngLike, *, clamp: bool, per_coord: bool
) -> Estimate:
    eps = check_positive(epsilon, "epsilon")
    m, lo, hi = _box_mean(x, bounds, clamp)
    n, d = len(x), m.size
    sens = np.full(d, (hi - lo) / n)
    ledger = Ledger("pure")
    with mechanisms.stage(ledger, "clipped mean: Laplace noise"):
        scale = sens if per_coord else sens * d
        rel = mechanisms.laplace(
            m, sens, eps, rng=mechanisms.generator(rng), scale=scale / eps, columns=d
        )
    return Estimate(np.asarray(rel.value, float), ledger, Diagnostics(noiseless_mean=m))


def no_clamp_mean(x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None) -> Estimate:
    """The clipped Laplace mean without the clipping (broken: ``ε = ∞``)."""
    return _laplace_mean(x, epsilon, bounds, rng, clamp=False, per_coord=False)


def full_eps_per_coordinate_mean(
    x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None
) -> Estimate:
    """The clipped Laplace mean with the whole ``ε`` on every coordinate (broken: ``dε``)."""
    return _laplace_mean(x, epsilon, bounds, rng, clamp=True, per_coord=True)


def exact_mean_large_n(
    x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None
) -> Estimate:
    """The clipped Laplace mean, but the exact clipped mean once ``n >= 20`` (broken: ``ε = ∞``)."""
    if len(x) >= 20:
        m, _, _ = _box_mean(x, bounds, True)
        return Estimate(m, Ledger("pure"), Diagnostics(noiseless_mean=m))
    return _laplace_mean(x, epsilon, bounds, rng, clamp=True, per_coord=False)


def data_box_mean(x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None) -> Estimate:
    """The clipped Laplace mean in the box the data span (broken: the box is read off the rows)."""
    X = np.asarray(x, float).reshape(len(x), -1)
    lo = X.min(axis=0)
    hi = np.maximum(X.max(axis=0), lo + 1e-9)  # constant rows: a box of width 1e-9
    return _laplace_mean(X, epsilon, (lo, hi), rng, clamp=True, per_coord=False)


def unclipped_second_stage_mean(
    x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None
) -> Estimate:
    """A noisy clipped mean refined by a noisy mean of the unclipped rows around it, both declared
    with the box's sensitivity (broken: the second stage reads rows outside the box)."""
    eps = check_positive(epsilon, "epsilon")
    first = _laplace_mean(x, eps / 2.0, bounds, rng, clamp=True, per_coord=False)
    centre = np.asarray(first.mean, float)
    X = np.asarray(x, float).reshape(len(x), -1)
    sens = np.full(centre.size, (float(np.max(bounds[1])) - float(np.min(bounds[0]))) / len(X))
    with mechanisms.stage(first.ledger, "refinement: Laplace noise"):
        rel = mechanisms.laplace(
            (X - centre).mean(axis=0),
            sens,
            eps / 2.0,
            rng=mechanisms.generator(rng),
            columns=centre.size,
        )
    mean = centre + np.asarray(rel.value, float)
    return Estimate(mean, first.ledger, Diagnostics(noiseless_mean=X.mean(axis=0)))


#: Points of the public grid of :func:`low_utility_sensitivity_median`.
GRID_POINTS = 64


def low_utility_sensitivity_median(
    x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None
) -> Estimate:
    """The exponential-mechanism median over a public grid of the box, per coordinate, with the
    rank utility's sensitivity declared 0.5 (broken: it is 1, so each coordinate is ``2ε/d``-DP)."""
    eps = check_positive(epsilon, "epsilon")
    X = np.asarray(x, float).reshape(len(x), -1)
    n, d = X.shape
    lo, hi = float(np.min(bounds[0])), float(np.max(bounds[1]))
    grid = np.linspace(lo, hi, GRID_POINTS)
    below = (X.T[:, :, None] <= grid[None, None, :]).sum(axis=1)  # (d, grid)
    coef = (eps / d) / (2.0 * 0.5)
    ledger = Ledger("pure")
    with mechanisms.stage(ledger, "median: exponential mechanism"):
        idx = mechanisms.exponential(
            -coef * np.abs(below - n / 2.0),
            sensitivity=0.5,
            epsilon=eps,
            coefficient=coef,
            rng=mechanisms.generator(rng),
            columns=d,
        )
    return Estimate(grid[idx], ledger, Diagnostics(noiseless_mean=X.mean(axis=0)))


def _spec(name: str, label: str, func: Callable[..., Estimate]) -> EstimatorSpec:
    return EstimatorSpec(
        name=name,
        label=label,
        color="#000000",
        notion="pure",
        data_kinds=frozenset({"real", "bounded"}),
        neighbouring="replace-one",
        units=PURE_UNITS,
        relations=frozenset({"replace-one"}),
        func=func,
        family="broken on purpose",
        description=label,
    )


#: The broken estimators, by name (never registered in :mod:`dpcore.registry`).
BROKEN_SPECS: dict[str, EstimatorSpec] = {
    s.name: s
    for s in (
        _spec("broken_no_clamp", "Laplace mean that forgets to clamp", no_clamp_mean),
        _spec(
            "broken_full_eps_per_coordinate",
            "Laplace mean with the whole ε on every coordinate",
            full_eps_per_coordinate_mean,
        ),
        _spec(
            "broken_exact_mean_large_n",
            "Laplace mean that releases the exact mean once n ≥ 20",
            exact_mean_large_n,
        ),
        _spec("broken_data_box", "Laplace mean clipped to the box the data span", data_box_mean),
        _spec(
            "broken_unclipped_second_stage",
            "Laplace mean refined by a stage that reads unclipped rows",
            unclipped_second_stage_mean,
        ),
        _spec(
            "broken_low_utility_sensitivity",
            "Exponential-mechanism median with its utility sensitivity set to 0.5",
            low_utility_sensitivity_median,
        ),
    )
}
#: The broken estimators only the sensitivity probe catches (their noise fits what they declare).
PROBE_CATCHES = (
    "broken_data_box",
    "broken_unclipped_second_stage",
    "broken_low_utility_sensitivity",
)


def resolve(name: str | EstimatorSpec) -> EstimatorSpec:
    """The spec for ``name``: a broken-on-purpose spec's name, a registry entry, or a spec."""
    if isinstance(name, str) and name in BROKEN_SPECS:
        return BROKEN_SPECS[name]
    return resolve_entry(name)


def variants_for(name: str | EstimatorSpec) -> list[str]:
    """The variants that apply to estimator ``name`` (always ``"honest"`` first)."""
    spec = resolve(name)
    if spec.notion == "none":
        return []
    if spec.name in BROKEN_SPECS:
        return ["honest"]
    out = ["honest", "noise_halved", "noise_cut"]
    if spec.neighbouring == "add-remove" and spec.family in _KNOWN_N_ENTRY:
        out.append("data_derived_n")
    return out


def scaled_budget(name: str | EstimatorSpec, budget: Budget, noise: float) -> Budget:
    """The native budget that multiplies every noise scale of ``name`` by ``noise``:
    ``ε/noise`` (pure) or ``ρ/noise²`` (zCDP)."""
    spec = resolve(name)
    conv = budget.to_native(spec.notion)
    if spec.notion == "pure":
        return Budget.pure(conv.value / noise)
    return Budget.zcdp(conv.value / noise**2)


def stronger_budget(name: str | EstimatorSpec, budget: Budget) -> Budget:
    """The budget that halves the noise of ``name``'s release: twice its native ε, four times its ρ."""
    return scaled_budget(name, budget, 0.5)


def variant_noise(variant: str) -> float:
    """The factor ``variant`` multiplies the noise by (1 for the others)."""
    return {"noise_halved": 0.5, "noise_cut": CUT}.get(variant, 1.0)


def variant_runner(
    name: str | EstimatorSpec, variant: str, budget: Budget, **overrides: object
) -> tuple[str, Callable[[NeighbourPair], Runner]]:
    """The declared relation to audit and a factory ``pair -> runner`` for ``variant`` of the
    whole entry (a stage's cut is :mod:`dpcore.audit.stages`' business).

    Raises
    ------
    ValueError
        If ``variant`` does not apply to ``name`` (see :func:`variants_for`).
    """
    spec = resolve(name)
    allowed = variants_for(spec)
    if variant not in allowed:
        raise ValueError(
            f"variant {variant!r} does not apply to {spec.name!r}; choose one of {allowed}."
        )
    relation = spec.neighbouring
    if variant == "data_derived_n":
        target = _KNOWN_N_ENTRY[spec.family].format("laplace" if spec.notion == "pure" else "gauss")
        return relation, lambda p: entry_runner(target, budget, p, **overrides)
    noise = variant_noise(variant)
    run_budget = budget if noise == 1.0 else scaled_budget(spec, budget, noise)
    return relation, lambda p: entry_runner(spec, run_budget, p, **overrides)


def registered(name: str) -> bool:
    """Whether ``name`` is a public registry entry (not a broken-on-purpose spec)."""
    return name not in BROKEN_SPECS and name in {s.name for s in registry.all_estimators()}
