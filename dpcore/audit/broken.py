"""Broken-on-purpose variants that the audit must catch (issue 11).

Each variant is built from public registry entries only, and is audited against the claim of the
honest estimator (same budget, same declared relation):

* ``"noise_halved"`` — the entry run at ``2ε`` (pure) or ``4ρ`` (zCDP) while claiming the original
  budget. For a Laplace release of scale ``Δ/ε`` and a Gaussian release of standard deviation
  ``Δ/√(2ρ)`` this is exactly the release with half the noise; for a multi-stage estimator it halves
  the noise of every stage.
* ``"data_derived_n"`` — a mean that divides by the true ``n`` while declaring add-remove (where
  ``n`` is private): the registry's replace-one entry (``simplex_known_n_*_replace`` for the simplex
  family, ``sum_known_n_*_replace`` for the simplex baselines), audited on add-remove pairs.

Not here: the binary-product paper's truncated-mean scale ``B/(mε)`` (instead of the corrected
``min(2B, k)/(mε)``). It differs from the corrected scale only when ``k >= 2B`` coordinates are
truncated together, i.e. at large ``d``, where the shift is spread over ``>= 2B`` Laplace
coordinates and a 1-D threshold audit of the whole pipeline has no power at a few thousand draws.
``tests/estimators/test_binary_product.py::test_s2_privacy_audit_truncated_mean_primitive`` catches
it at ``2ε`` with an orthant event on the primitive.

References
----------
Issue 11; specs/simplex.md §2.3; specs/binary_product.md §2.1.
"""

from __future__ import annotations

from collections.abc import Callable

from dpcore import registry
from dpcore.audit.neighbours import NeighbourPair
from dpcore.audit.runners import Runner, entry_runner
from dpcore.privacy import Budget

VARIANT_LABELS = {
    "honest": "as registered",
    "noise_halved": "noise halved (run at 2ε / 4ρ, claim the budget)",
    "data_derived_n": "divide by the true n under add-remove",
}

#: Families whose add-remove entries get the data-derived-n variant, and the entry that divides by n.
_KNOWN_N_ENTRY = {
    "simplex": "simplex_known_n_{}_replace",
    "simplex baseline": "sum_known_n_{}_replace",
}


def variants_for(name: str) -> list[str]:
    """The variants that apply to estimator ``name`` (always ``"honest"`` first)."""
    spec = registry.get(name)
    if spec.notion == "none":
        return []
    out = ["honest", "noise_halved"]
    if spec.neighbouring == "add-remove" and spec.family in _KNOWN_N_ENTRY:
        out.append("data_derived_n")
    return out


def stronger_budget(name: str, budget: Budget) -> Budget:
    """The budget that halves the noise of ``name``'s release: twice its native ε, four times its ρ."""
    spec = registry.get(name)
    conv = budget.to_native(spec.notion)
    return Budget.pure(2.0 * conv.value) if spec.notion == "pure" else Budget.zcdp(4.0 * conv.value)


def variant_runner(
    name: str, variant: str, budget: Budget
) -> tuple[str, Callable[[NeighbourPair], Runner]]:
    """The declared relation to audit and a factory ``pair -> runner`` for ``variant``.

    Raises
    ------
    ValueError
        If ``variant`` does not apply to ``name`` (see :func:`variants_for`).
    """
    spec = registry.get(name)
    allowed = variants_for(name)
    if variant not in allowed:
        raise ValueError(
            f"variant {variant!r} does not apply to {name!r}; choose one of {allowed}."
        )
    relation = spec.neighbouring
    if variant == "honest":
        return relation, lambda p: entry_runner(name, budget, p)
    if variant == "noise_halved":
        strong = stronger_budget(name, budget)
        return relation, lambda p: entry_runner(name, strong, p)
    target = _KNOWN_N_ENTRY[spec.family].format("laplace" if spec.notion == "pure" else "gauss")
    return relation, lambda p: entry_runner(target, budget, p)
