"""White-box calibration: the noise each stage drew against the noise its charge requires.

Every privacy-carrying draw goes through :mod:`dpcore.mechanisms`, which records in the ledger the
sensitivity, the scale it drew with and the budget it charged. :func:`calibration` runs a
registered estimator once through its public entry and returns one row per mechanism call, with
``ratio`` = noise drawn / noise required (``b·ε/Δ`` for Laplace, ``σ·√(2ρ)/Δ`` for Gaussian,
``ε/(2Δu·c)`` for the exponential mechanism with log-weights ``c·u``). It also watches the
generator: a noise draw made outside a mechanism, or by a mechanism outside any ledger stage, is a
row of its own ("unledgered") with ratio NaN. :func:`problems` lists what is wrong: a ratio other
than 1, an unledgered draw, or charges that do not add up to the declared budget times the entry's
``spend_factor`` (a stage charged twice, or one left out).

Unlike the black-box audit (:func:`dpcore.audit.audit`), this catches any scale error exactly and
needs one run. The sensitivity each stage declares is checked by the probe of
:mod:`dpcore.audit.probe`: the estimator also runs on worst-case neighbours of its relation with
the same randomness (and the same earlier releases), and ``moved`` is, per stage, the largest
movement of its input over the sensitivity it declares, in its own norm; :func:`problems` flags
a movement above 1 and a declared sensitivity that changes with the data
(docs/privacy-contract.md).

Examples
--------
>>> from dpcore.privacy import Budget
>>> tab = calibration("clipped_laplace", Budget.pure(1.0))
>>> list(tab.columns)
['stage', 'mechanism', 'sensitivity', 'scale', 'charged', 'ratio', 'moved']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dpcore import mechanisms
from dpcore.audit.broken import resolve
from dpcore.audit.neighbours import is_binary
from dpcore.audit.probe import probe as probe_stages
from dpcore.audit.probe import probe_problems
from dpcore.estimate import EstimatorSpec
from dpcore.privacy import Budget

#: Generator methods that draw privacy-type noise (a random rotation, permutation or uniform
#: position inside a chosen interval is not noise and is not counted).
NOISE_METHODS = (
    "laplace",
    "normal",
    "standard_normal",
    "gumbel",
    "exponential",
    "standard_exponential",
)

COLUMNS = ["stage", "mechanism", "sensitivity", "scale", "charged", "ratio", "moved"]


class _Tracer(np.random.Generator):
    """A NumPy generator that counts noise variates drawn outside a mechanism."""

    stray: int

    def __init__(self, seed: int | np.random.BitGenerator, root: _Tracer | None = None) -> None:
        bits = seed if isinstance(seed, np.random.BitGenerator) else np.random.PCG64(seed)
        super().__init__(bits)
        self.stray = 0
        self._root = root

    def spawn(self, n_children: int) -> list[_Tracer]:  # type: ignore[override]
        """Child generators, as ``Generator.spawn`` makes them (the same streams), whose stray
        draws count in this tracer."""
        return [_Tracer(bits, self._root or self) for bits in self.bit_generator.spawn(n_children)]


def _counting(method: str) -> Callable[..., Any]:
    parent = getattr(np.random.Generator, method)

    def draw(self: _Tracer, *args: Any, **kwargs: Any) -> Any:
        out = parent(self, *args, **kwargs)
        if not mechanisms.DRAWING.get():
            (self._root or self).stray += int(np.size(out))
        return out

    draw.__name__ = method
    return draw


for _m in NOISE_METHODS:
    setattr(_Tracer, _m, _counting(_m))


def default_data(name: str | EstimatorSpec) -> Any:
    """A small public data set the entry applies to (n = 2,000; d = 8, or 1 for scalar entries)."""
    from dpcore.data import binary_product, generate

    spec = resolve(name)
    d = 1 if spec.needs_dimension == "scalar" else 8
    if "real" in spec.data_kinds:
        return generate("gaussian", n=2000, d=d, skew=1.0, rng=7)
    if "bounded" in spec.data_kinds:
        return generate("bounded", n=2000, d=d, rng=7)
    return binary_product(2000, max(d, 2), rng=7)


def default_budget(name: str | EstimatorSpec) -> Budget:
    """The entry's native notion at a round value: ρ = 0.5 for a zCDP entry, else ε = 1."""
    return Budget.zcdp(0.5) if resolve(name).notion == "zcdp" else Budget.pure(1.0)


def calibration(
    name: str | EstimatorSpec,
    budget: Budget | None = None,
    *,
    data: Any = None,
    rng: int = 0,
    runner: Callable[..., Any] | None = None,
    probe: bool = True,
    **public: Any,
) -> pd.DataFrame:
    """One row per noisy stage actually run by ``name`` at ``budget``, with its calibration ratio
    and the sensitivity probe's movement.

    Parameters
    ----------
    name : str or EstimatorSpec
        A registered estimator, a broken-on-purpose one's name, or a spec (a custom estimator).
    budget : Budget, optional
        Default :func:`default_budget`.
    data : Dataset or array, optional
        Default :func:`default_data`.
    rng : int
        Seed of the traced generator.
    runner : callable, optional
        ``runner(data, budget, rng=..., **public) -> Estimate`` instead of the registry entry (the
        tests pass broken variants here).
    probe : bool
        Also run the sensitivity probe (:func:`dpcore.audit.probe.probe`) on worst-case
        neighbours of ``data`` under the entry's relation.
    **public
        Public tuning passed to the entry.

    Returns
    -------
    pandas.DataFrame
        Columns ``stage, mechanism, sensitivity, scale, charged, ratio, moved`` (``moved``: the
        stage's largest input movement over its declared sensitivity, NaN when not probed);
        ``attrs`` holds ``declared`` (the budget the ledger should add up to, in the native unit,
        times ``spend_factor``), ``total`` (what it adds up to), ``unit`` and ``probe`` (the
        probe's rows).

    Examples
    --------
    >>> tab = calibration("clipped_laplace")
    >>> list(tab["ratio"].round(12)), problems(tab)
    ([1.0], [])
    """
    spec = resolve(name)
    budget = budget or default_budget(spec)
    data = default_data(spec) if data is None else data
    run = runner or spec.run
    gen = _Tracer(rng)
    misplaced: list[tuple[str, int]] = []

    def observe(kind: str, stage: str | None, variates: int) -> None:
        if stage is None:
            misplaced.append((kind, variates))

    with mechanisms.observing(observe):
        est = run(data, budget, rng=gen, **public)
    rows = [
        {
            "stage": c.stage,
            "mechanism": c.mechanism or "(not recorded by a mechanism)",
            "sensitivity": c.sensitivity,
            "scale": c.scale,
            "charged": c.amount,
            "ratio": c.ratio if c.ratio is not None else math.nan,
        }
        for c in est.ledger.charges
    ]
    for kind, variates in misplaced:
        rows.append(_unledgered(f"{kind} draw outside any ledger stage ({variates} variates)"))
    if gen.stray:
        rows.append(_unledgered(f"noise drawn outside dpcore.mechanisms ({gen.stray} variates)"))
    probed: list[dict[str, Any]] = []
    if probe and spec.notion != "none":
        probed = probe_stages(
            lambda x, b, **kw: run(x, b, **kw, **public),
            data,
            budget,
            spec.neighbouring,
            binary=is_binary(spec),
            seed=rng,
        )
    for row in rows:
        ratios = [r["ratio"] for r in probed if r["stage"] == row["stage"]]
        row["moved"] = max((v for v in ratios if not math.isnan(v)), default=math.nan)
    tab = pd.DataFrame(rows, columns=COLUMNS)
    native = budget.to_native(spec.notion).value if spec.notion != "none" else 0.0
    tab.attrs.update(
        declared=native * spec.spend_factor,
        total=est.ledger.total(),
        unit=est.ledger.unit(),
        estimator=spec.name,
        probe=probed,
    )
    return tab


def _unledgered(what: str) -> dict[str, Any]:
    return {
        "stage": "unledgered",
        "mechanism": what,
        "sensitivity": math.nan,
        "scale": math.nan,
        "charged": 0.0,
        "ratio": math.nan,
        "moved": math.nan,
    }


def problems(tab: pd.DataFrame, rel_tol: float = 1e-9) -> list[str]:
    """What is wrong with a :func:`calibration` table (an empty list when nothing is).

    * a stage whose ratio is not 1 (too little noise below 1, wasted budget above);
    * a draw not in the ledger (``unledgered``);
    * charges that do not add up to the declared budget (a stage charged twice, or left out);
    * a stage whose input moved beyond its declared sensitivity on a neighbour, or whose declared
      sensitivity changes with the data (the probe, :func:`dpcore.audit.probe.probe_problems`).
    """
    out = []
    for row in tab.itertuples(index=False):
        if row.stage == "unledgered":
            out.append(f"unledgered: {row.mechanism}")
        elif not math.isclose(float(row.ratio), 1.0, rel_tol=rel_tol):
            out.append(
                f"{row.stage}: noise drawn is {float(row.ratio):.4g}x the noise its charge requires"
            )
    declared, total = tab.attrs.get("declared"), tab.attrs.get("total")
    if declared is not None and not math.isclose(total, declared, rel_tol=rel_tol, abs_tol=1e-15):
        out.append(
            f"the stages charge {total:.6g} {tab.attrs.get('unit', '')} in all, but the declared "
            f"budget is {declared:.6g}"
        )
    return out + probe_problems(tab.attrs.get("probe", []))
