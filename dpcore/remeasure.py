"""Measure, observe, re-measure: combine private releases of the same means by inverse variance.

An analyst spends part of a budget (:func:`dpcore.release.release`), looks at the estimate and its
accuracy, and may spend more on a second release of the same columns. Each release is private on
its own; :func:`combine` weighs them by the inverse of their noise variances (public: computed from
n, d, the bounds and the budget only), which is post-processing and costs nothing more. The
combined estimate has variance ``1 / sum(1 / v_i)`` per column, no more than the best single one.
:func:`composition` states what the releases spent together: under pure DP the ε's add, under
zCDP the ρ's add (a pure ε release counts ε²/2 in ρ).

References
----------
Nanayakkara, Smart, Cummings, Kaptchuk and Redmiles. "Measure-Observe-Remeasure: An Interactive
Paradigm for Differentially-Private Exploratory Analysis." IEEE S&P 2024.
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016 (composition of zCDP).
docs/release.md (the release, its accuracy and the session odometer).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcore.guarantee import Guarantee
from dpcore.privacy import Budget
from dpcore.release import Release
from dpcore.release_accuracy import FACTOR, LEVEL
from dpcore.release_certificate import DELTA

#: Draws of the combined noise used for its 95% half-width when a release's noise is Laplace
#: (public parameters only; a fixed seed, so the statement is the same on every rerun).
QUANTILE_DRAWS = 100_000


@dataclass(frozen=True)
class Combined:
    """Releases of the same means combined by inverse variance.

    Attributes
    ----------
    mean, variance, accuracy : ndarray (d,)
        The combined means, their noise variance ``1 / sum(1 / v_i)`` and the 95% half-width.
    weights : ndarray (k, d)
        Each release's weight per column (columns of weights sum to 1).
    method : str
        How the half-width was computed, in words.
    certificate : dict
        What may be published with the combined means: the composed guarantee of every release
        used, each release's certificate, the combined means and their accuracy.
    """

    mean: np.ndarray
    variance: np.ndarray
    accuracy: np.ndarray
    weights: np.ndarray
    method: str
    certificate: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def guarantee(self) -> Guarantee:
        """The composed guarantee of the releases combined."""
        return Guarantee.from_certificate(self.certificate)

    def certificate_json(self) -> str:
        """The combined certificate as indented JSON (for publication)."""
        return json.dumps(self.certificate, indent=2, ensure_ascii=False)


def inverse_variance(means: np.ndarray, variances: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(combined mean, combined variance)`` of ``k`` estimates per column.

    Parameters
    ----------
    means, variances : array (k, d)
        One row per estimate; every variance finite and positive.

    Returns
    -------
    mean, variance : ndarray (d,)
        ``sum(m_i / v_i) / sum(1 / v_i)`` and ``1 / sum(1 / v_i)``.

    Examples
    --------
    >>> m, v = inverse_variance(np.array([[0.0], [3.0]]), np.array([[1.0], [2.0]]))
    >>> m.round(6).tolist(), v.round(6).tolist()
    ([1.0], [0.666667])
    """
    m = np.atleast_2d(np.asarray(means, dtype=float))
    v = np.atleast_2d(np.asarray(variances, dtype=float))
    if m.shape != v.shape or m.shape[0] == 0:
        raise ValueError(
            f"means and variances must have the same shape (k, d) with k >= 1; got {m.shape} "
            f"and {v.shape}."
        )
    if not (np.all(np.isfinite(v)) and np.all(v > 0) and np.all(np.isfinite(m))):
        raise ValueError(
            "every variance must be finite and positive and every mean finite: combine only "
            "releases that state their noise variance."
        )
    precision = 1.0 / v
    total = precision.sum(axis=0)
    return (precision * m).sum(axis=0) / total, 1.0 / total


def combine(releases: Sequence[Release]) -> Combined:
    """Combine releases of the same columns by inverse variance (post-processing: no extra cost).

    Parameters
    ----------
    releases : sequence of Release
        At least one, all of the same columns, each with its ``variance``.

    Returns
    -------
    Combined
        The combined means, variance, 95% half-width and weights. The half-width is exact
        (``1.96 √V``) when every release's noise is Gaussian; when one is Laplace it is the 95%
        quantile of the weighted sum of the releases' noise distributions, drawn
        :data:`QUANTILE_DRAWS` times from public parameters (not a privacy draw); with a simulated
        release, ``√V`` times the largest ratio of a release's stated half-width to its standard
        deviation, at least 1.96 (an approximation, said in ``method``).

    Privacy
    -------
    Only released values and public variances are read; the guarantee is the composition of the
    releases' guarantees (:func:`composition`).
    """
    if not releases:
        raise ValueError("combine needs at least one release; make a release first.")
    columns = {tuple(r.certificate["columns"]) for r in releases}
    if len(columns) != 1:
        raise ValueError(
            "releases of different columns cannot be combined: re-measure the same columns."
        )
    means = np.stack([np.asarray(r.mean, dtype=float) for r in releases])
    variances = np.stack([np.asarray(r.variance, dtype=float) for r in releases])
    mean, var = inverse_variance(means, variances)
    weights = (1.0 / variances) * var
    kinds = [r.noise for r in releases]
    ratio = max(
        float(np.max(np.asarray(r.accuracy, dtype=float) / np.sqrt(r.variance))) for r in releases
    )
    half, method = _half_width(kinds, weights, variances, var, ratio)
    cert = combined_certificate(releases, mean, half, method)
    return Combined(mean, var, half, weights, method, cert)


def combined_certificate(
    releases: Sequence[Release], mean: np.ndarray, half: np.ndarray, method: str
) -> dict[str, Any]:
    """The certificate of an inverse-variance combination: the guarantee of all the releases
    together (:meth:`Guarantee.total`: ε's add, ρ's add), and each release's own certificate."""
    g = Guarantee.total(r.guarantee for r in releases)
    first = releases[0].certificate
    relation = first["neighbouring"]["words"]
    return {
        "what": f"the inverse-variance combination of {len(releases)} releases of the same "
        "columns (post-processing: it costs nothing beyond them)",
        "guarantee": {
            **g.numbers(DELTA),
            "composition": " + ".join(r.certificate["guarantee"]["budget_given"] for r in releases),
            "words": g.words(relation, DELTA),
        },
        "neighbouring": first["neighbouring"],
        "columns": first["columns"],
        "outputs": {
            "note": "private: post-processing of the releases' outputs",
            "mean": [float(v) for v in mean],
        },
        "accuracy": {"level": LEVEL, "method": method, "half_width": [float(v) for v in half]},
        "releases": [r.certificate for r in releases],
        "time_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }


def _half_width(
    kinds: list[str], weights: np.ndarray, variances: np.ndarray, var: np.ndarray, ratio: float
) -> tuple[np.ndarray, str]:
    """The 95% half-width of ``sum_i w_i E_i`` (``E_i`` the release noises) and its method;
    ``ratio`` is the largest ratio of a release's stated half-width to its standard deviation."""
    if len(kinds) == 1 and kinds[0] in FACTOR:  # one release: its own exact statement
        k = kinds[0]
        scale = np.sqrt(var / 2.0) if k == "laplace" else np.sqrt(var)
        return FACTOR[k] * scale, f"exact: one {k} release"
    if all(k == "gaussian" for k in kinds):
        return FACTOR["gaussian"] * np.sqrt(var), (
            "exact: a weighted sum of Gaussian noises is Gaussian, 1.96 √V"
        )
    if "simulated" in kinds:  # the noise's shape is not known: keep the releases' own ratio
        factor = max(FACTOR["gaussian"], ratio)
        return factor * np.sqrt(var), (
            f"approximate: {factor:.3g} √V, the largest ratio of a release's stated half-width "
            "to its standard deviation (a simulated release's noise is not known exactly)"
        )
    g = np.random.default_rng(0)  # public parameters only: not a privacy draw
    total = np.zeros((QUANTILE_DRAWS, var.shape[0]))
    for k, w, v in zip(kinds, weights, variances, strict=True):  # unit draws shared by columns
        if k == "laplace":
            total += w * np.sqrt(v / 2.0) * g.laplace(0.0, 1.0, size=(QUANTILE_DRAWS, 1))
        else:
            total += w * np.sqrt(v) * g.normal(0.0, 1.0, size=(QUANTILE_DRAWS, 1))
    half = np.quantile(np.abs(total), LEVEL, axis=0)
    return half, (
        f"the {LEVEL:.0%} quantile of the weighted sum of the releases' noise distributions "
        f"({QUANTILE_DRAWS:,} draws from public parameters)"
    )


@dataclass(frozen=True)
class Composition:
    """What a sequence of releases spent together.

    Attributes
    ----------
    unit : str
        ``"ε"`` (pure DP) or ``"ρ"`` (zCDP).
    costs : list of float
        Each release's cost in ``unit``.
    total : float
        Their sum: the guarantee of all releases together.
    rule : str
        The composition rule in words.
    """

    unit: str
    costs: list[float]
    total: float
    rule: str

    def equation(self) -> str:
        """``"ε = 0.25 + 0.5 = 0.75"``."""
        terms = " + ".join(f"{c:.4g}" for c in self.costs)
        return f"{self.unit} = {terms} = {self.total:.4g}"


def composition(budgets: Sequence[Budget], notion: str) -> Composition:
    """The total of ``budgets`` counted in ``notion`` (``"pure"``: ε's add; ``"zcdp"``: ρ's add).

    A pure ε budget counts ε²/2 in ρ (ε-DP implies ε²/2-zCDP); a zCDP budget cannot be counted in
    ε (``ValueError``), nor can an (ε, δ) one.

    Examples
    --------
    >>> composition([Budget.pure(0.25), Budget.pure(0.5)], "pure").equation()
    'ε = 0.25 + 0.5 = 0.75'
    >>> composition([Budget.zcdp(0.1), Budget.pure(1.0)], "zcdp").equation()
    'ρ = 0.1 + 0.5 = 0.6'
    """
    costs = []
    for b in budgets:
        if notion == "pure" and b.notion == "pure":
            costs.append(b.epsilon_value)
        elif notion == "zcdp" and b.notion == "pure":
            costs.append(b.epsilon_value**2 / 2.0)
        elif notion == "zcdp" and b.notion == "zcdp":
            costs.append(b.rho_value)
        else:
            raise ValueError(
                f"a {b} budget cannot be counted in {'ε' if notion == 'pure' else 'ρ'}: give "
                "every release as ε, or count the session in ρ."
            )
    rule = (
        "pure differential privacy composes by adding the ε's"
        if notion == "pure"
        else "zero-concentrated differential privacy composes by adding the ρ's (a pure ε "
        "release counts ε²/2)"
    )
    return Composition("ε" if notion == "pure" else "ρ", costs, float(sum(costs)), rule)
