"""A real private release of a user's own data: :func:`release`, :class:`Release`.

:func:`release` runs one registered estimator once, with no seed, on the floating-point-safe
backend of :mod:`dpcore.samplers` (OpenDP's exact samplers, the operating system's CSPRNG): every
noisy stage of the estimator goes through :mod:`dpcore.mechanisms`, which hands the draw to the
backend, so an estimator has one code path for simulations and releases. No NumPy generator is
created in a release.

It returns the released means, their accuracy (the 95% half-width of the noise, from public
parameters only) and two records. The **certificate** is what may be published: public parameters
(labelled public) and outputs of charged mechanisms only, the guarantee as a
:class:`~dpcore.guarantee.Guarantee`, sensitivities and scales as formulas. No hash of the input,
no number that embeds a private n. The **record** is the curator's, not for publication: the
exact n, an HMAC fingerprint of the input (:func:`dpcore.curator.fingerprint`), the numeric
sensitivities and scales, the estimator's own notes. :class:`~dpcore.odometer.Odometer` keeps a
total per data set and charges a release only after it succeeded.

The accuracy needs a number of rows. Under replace-one n is public by the guarantee's own terms,
and the caller confirms it (``n_public=True``). Under add/remove n is protected: the accuracy is
simulated at a noisy count charged to the budget (``count_share`` of it), unless the caller
declares n public.

Simulations, sweeps and seeded tests keep NumPy (fast, reproducible) and are not releases.

References
----------
Mironov. "On Significance of the Least Significant Bits for Differential Privacy." CCS 2012.
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016.
docs/release.md (what is published, what is kept, and why).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from dpcore import mechanisms, registry
from dpcore._validation import check_bounds, check_data
from dpcore.curator import fingerprint
from dpcore.data.dataset import Dataset
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.estimators.private_bounds import run_with_private_bounds
from dpcore.guarantee import Guarantee
from dpcore.odometer import Odometer
from dpcore.privacy import Budget, Ledger
from dpcore.release_accuracy import _SIM_RESULTS as _SIM_RESULTS  # the cache, for benchmarks
from dpcore.release_accuracy import (
    FACTOR,
    LEVEL,
    accuracy,
    exact_accuracy,
    simulate_accuracy,
    synthetic_rows,
    takes_bounds,
)
from dpcore.release_certificate import DELTA, Run, certificate_text, make_certificate, make_record
from dpcore.samplers import SafeBackend, no_stdlib_random

__all__ = [
    "COUNT_SHARE",
    "DELTA",
    "FACTOR",
    "LEVEL",
    "Odometer",
    "Release",
    "accuracy",
    "certificate_text",
    "exact_accuracy",
    "refusal",
    "release",
    "simulate_accuracy",
    "synthetic_rows",
    "takes_bounds",
]

#: Share of an add/remove release's budget spent on the noisy count its accuracy is simulated at.
COUNT_SHARE = 0.1

#: Entries whose noise is not drawn through dpcore.mechanisms or OpenDP, and why.
FLOAT_UNSAFE = {
    "peer_diffprivlib": "diffprivlib draws its Laplace noise in floating point from a NumPy "
    "RandomState, whose low bits leak the data (Mironov 2012; audit B1: ε ≥ 5.5 at a claimed 1)",
    **dict.fromkeys(
        ("iome_original", "iome_as_published"),
        "its binary search draws the noise apart from the data's counts and adds the two in "
        "floating point, which leaks the data through the last bits of the result; release "
        "iome_paper instead (the same method, its noise drawn safely)",
    ),
}

# --------------------------------------------------------------------------------------------
# refusals


def refusal(spec: EstimatorSpec) -> str | None:
    """Why ``spec`` cannot make a release, or ``None`` when it can.

    >>> refusal(registry.get("empirical")).split(":")[0]
    'empirical is a non-private reference'
    """
    if spec.notion == "none":
        return f"{spec.name} is a non-private reference: it releases the exact mean, no privacy"
    if spec.uses_oracle:
        return (
            f"{spec.name} is handed a value that is not private (an oracle input): a teaching "
            "reference only"
        )
    if spec.spend_factor != 1.0:
        return (
            f"{spec.name} spends {spec.spend_factor:g}× the budget it is given (as published): it "
            "is not private at the budget you set"
        )
    return FLOAT_UNSAFE.get(spec.name)


# --------------------------------------------------------------------------------------------
# the release


@dataclass(frozen=True)
class Release:
    """A private release: the means, their accuracy, the certificate and the curator's record.

    Attributes
    ----------
    mean : ndarray (d,)
        The released means, in the columns' units.
    accuracy : ndarray (d,)
        Per coordinate, the half-width ``a`` with ``P(|noise| < a) = 0.95`` (public parameters
        and charged outputs only).
    certificate : dict
        What may be published: public parameters and private outputs; see :func:`release`.
    variance : ndarray (d,)
        Per coordinate, the variance of the noise (exact for a one-stage release, else the mean
        squared error simulated with public parameters); :mod:`dpcore.remeasure` weighs by it.
    noise : str
        ``"laplace"`` or ``"gaussian"`` (one exact stage) or ``"simulated"``.
    record : dict
        The curator's record, **not for publication**: exact n, HMAC fingerprint, numbers.
    """

    mean: np.ndarray
    accuracy: np.ndarray
    certificate: dict[str, Any] = field(repr=False)
    variance: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    noise: str = "simulated"
    record: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def guarantee(self) -> Guarantee:
        """The guarantee the certificate states (the odometer charges it, the box reads it)."""
        return Guarantee.from_certificate(self.certificate)

    @property
    def budget(self) -> Budget:
        """The budget this release spent, in its estimator's notion (ε or ρ)."""
        return self.guarantee.budget

    def certificate_json(self) -> str:
        """The certificate as indented JSON (for publication)."""
        return json.dumps(self.certificate, indent=2, ensure_ascii=False)

    def record_json(self) -> str:
        """The curator's record as indented JSON (**not for publication**)."""
        return json.dumps(self.record, indent=2, ensure_ascii=False)

    def certificate_text(self) -> str:
        """The certificate as one plain paragraph fit for a report."""
        return certificate_text(self.certificate)


def _as_matrix(data: Any) -> tuple[np.ndarray, list[str]]:
    columns = [str(c) for c in getattr(data, "columns", [])]
    if columns:
        try:
            arr = data.to_numpy(dtype=float)
        except (TypeError, ValueError) as err:
            raise ValueError(
                "every column must be numeric (a value that is not a number was found); "
                "remove or convert it before a release."
            ) from err
    else:
        arr = np.asarray(data, dtype=float) if not isinstance(data, np.ndarray) else data
    arr = check_data(arr[:, None] if np.ndim(arr) == 1 else arr, name="data", ndim=2)
    return arr, columns or [f"column {j + 1}" for j in range(arr.shape[1])]


def _native(spec: EstimatorSpec, budget: Budget, public: dict[str, Any]) -> Budget:
    """``budget`` in ``spec``'s notion, as :meth:`EstimatorSpec.run` converts it."""
    if spec.notion == "zcdp" and budget.notion == "pure" and public.get("at_implied_level"):
        return Budget.zcdp(budget.implied_zcdp().value)
    conv = budget.to_native(cast(Any, spec.notion))
    return Budget.pure(conv.value) if conv.notion == "pure" else Budget.zcdp(conv.value)


def _scaled(b: Budget, factor: float) -> Budget:
    return (
        Budget.pure(b.epsilon_value * factor)
        if b.notion == "pure"
        else Budget.zcdp(b.rho_value * factor)
    )


def _check_n(spec: EstimatorSpec, n_public: bool, count_share: float) -> None:
    if not isinstance(n_public, bool):
        raise ValueError(f"n_public must be True or False; got {n_public!r}.")
    if spec.neighbouring == "replace-one" and not n_public:
        raise ValueError(
            f"{spec.name} is private against replacing one row, which assumes the number of rows "
            "n is public: confirm it with n_public=True (n is then stated in the certificate), "
            "or choose an add/remove estimator. Nothing was released."
        )
    if not (isinstance(count_share, float | int) and 0.0 < float(count_share) < 1.0):
        raise ValueError(f"count_share must be a number in (0, 1); got {count_share!r}.")


def _noisy_count(n: int, budget: Budget, backend: SafeBackend) -> tuple[float, Ledger]:
    """n with Laplace (pure) or Gaussian (zCDP) noise of add/remove sensitivity 1, charged."""
    ledger = Ledger(cast(Any, budget.notion))
    note = "the number of rows, add/remove sensitivity 1, for the accuracy statement"
    with mechanisms.stage(ledger, "noisy count (for the accuracy)", note):
        if budget.notion == "pure":
            out = mechanisms.laplace(float(n), 1.0, budget.epsilon_value, rng=backend, note=note)
        else:
            out = mechanisms.gaussian(float(n), 1.0, budget.rho_value, rng=backend, note=note)
    return float(np.asarray(out.value, dtype=float).reshape(-1)[0]), ledger


def release(
    name: str,
    data: Any,
    budget: Budget,
    *,
    bounds: Any = None,
    coarse_bounds: Any = None,
    share: float = 0.25,
    quantiles: tuple[float, float] = (0.01, 0.99),
    n_public: bool = False,
    count_share: float = COUNT_SHARE,
    source: bytes | None = None,
    key: bytes | None = None,
    **public: Any,
) -> Release:
    """Release ``name``'s estimate of the mean of ``data`` at ``budget``: once, unseeded, safe.

    Parameters
    ----------
    name : str
        A registered estimator (:func:`refusal` says which cannot release).
    data : array (n, d) or (n,), or a DataFrame of numeric columns
        The private data. NaN, infinities or text are refused.
    budget : Budget
        The privacy budget of this release (converted to the estimator's notion as in
        :meth:`EstimatorSpec.run`).
    bounds : (lower, upper), optional
        Public bounds typed by the user (scalars or one per column). ``None``: the bounds are
        estimated privately inside ``coarse_bounds`` with ``share`` of the budget
        (:func:`dpcore.estimators.private_bounds.run_with_private_bounds`).
    coarse_bounds : (lower, upper), optional
        The wide public range the private bounds are searched in (needed when ``bounds`` is None).
    share, quantiles : optional
        The bounds' share of the budget and the private quantiles used as bounds.
    n_public : bool
        The caller declares the number of rows public (required under replace-one; under
        add/remove it spares the noisy count). It is then printed in the certificate.
    count_share : float
        Under add/remove without ``n_public``: the share of the budget spent on the noisy count the
        accuracy is simulated at.
    source : bytes, optional
        The uploaded file's bytes, fingerprinted into the record (else the data's bytes are).
    key : bytes, optional
        The HMAC key of the record's fingerprint (default: this installation's,
        :func:`dpcore.curator.secret_key`).
    **public
        The estimator's public tuning keywords. ``rng`` and ``seed`` are refused.

    Returns
    -------
    Release
        ``mean``, ``accuracy``, ``certificate`` (to publish: estimator, version, guarantee in
        numbers and words, relation, public parameters, budget per stage with its formula, bounds,
        sampler, outputs, accuracy and its method, UTC time) and ``record`` (not for publication:
        n, HMAC-SHA256 fingerprint, numeric sensitivities and scales, the estimator's notes).

    Raises
    ------
    ValueError
        A seed, a refused estimator (:func:`refusal`), n not declared public under replace-one,
        bad data or bounds, a budget the estimator cannot meet, or an estimator that draws
        outside :mod:`dpcore.mechanisms`.

    Privacy
    -------
    The estimator's guarantee at ``budget`` under its neighbouring relation (with the noisy count,
    if any, composed in), every noise drawn by exact samplers on a 2^k grid. Every number in the
    certificate is a public parameter or an output of a charged mechanism.
    """
    for bad in ("rng", "seed"):
        if bad in public:
            raise ValueError(
                f"a release takes no {bad}=: its noise comes from the operating system's CSPRNG "
                "(a known seed would let anyone subtract the noise)."
            )
    spec = registry.get(name)
    why = refusal(spec)
    if why is not None:
        raise ValueError(f"{name} cannot make a private release: {why}.")
    _check_n(spec, n_public, count_share)
    x, columns = _as_matrix(data)
    n, d = x.shape
    backend = SafeBackend()
    native = _native(spec, budget, public)
    count: Ledger | None = None
    n_acc: float = n
    with no_stdlib_random():  # the tracer: Python's random module draws nothing in a release
        if not n_public:  # add/remove: a charged noisy count, never the true n
            n_acc, count = _noisy_count(n, _scaled(native, count_share), backend)
            native = _scaled(native, 1.0 - count_share)
        est, bounds_info = _run(
            spec, x, native, backend, bounds, (coarse_bounds, share, quantiles), public
        )
    mean = np.asarray(est.mean, dtype=float).reshape(-1)
    if mean.shape != (d,) or not np.all(np.isfinite(mean)):
        raise ValueError(f"{name} gave no finite mean for each of the {d} column(s).")
    sim_budget = _scaled(native, 1.0 - share) if "coarse_lower" in bounds_info else native
    shape = (max(2, int(round(n_acc))), d)
    acc, var, method = accuracy(
        spec, est, backend, shape, bounds_info, sim_budget, public, exact=n_public
    )
    ledger = Ledger(est.ledger.notion)
    if count is not None:
        ledger.absorb(count)
    ledger.absorb(est.ledger)
    run = Run(spec, ledger, budget, backend, columns, bounds_info, n, n_public, n_acc)
    cert = make_certificate(run, method, mean, acc, var, public)
    record = make_record(run, cert, fingerprint(x, source, key))
    noise = backend.draws[0].kind if method.startswith("exact") else "simulated"
    return Release(mean, acc, cert, np.asarray(var, dtype=float), noise, record)


def _run(
    spec: EstimatorSpec,
    x: np.ndarray,
    budget: Budget,
    backend: SafeBackend,
    bounds: Any,
    private: tuple[Any, float, tuple[float, float]],
    public: dict[str, Any],
) -> tuple[Estimate, dict[str, Any]]:
    d = x.shape[1]
    coarse_bounds, share, _ = private
    try:
        if not takes_bounds(spec):
            est = registry.run(spec.name, x, budget, rng=cast(Any, backend), **public)
            lo, hi = np.zeros(d), np.ones(d)
            return est, {"source": "not used: 0/1 columns", "lower": lo, "upper": hi}
        if bounds is None and spec.data_kinds == {"binary"}:
            bounds = (0.0, 1.0)  # 0/1 columns: the range is public by definition
        if bounds is not None:
            lo, hi = check_bounds(bounds, d, name="bounds")
            est = registry.run(
                spec.name, x, budget, rng=cast(Any, backend), bounds=(lo, hi), **public
            )
            return est, {"source": "typed public bounds", "lower": lo, "upper": hi}
        if coarse_bounds is None:
            raise ValueError(
                "bounds=None estimates the bounds privately inside a public coarse range: pass "
                "coarse_bounds=(lower, upper), or type public bounds."
            )
        if public:
            raise ValueError(
                "public tuning parameters need typed bounds (the private-bounds path runs the "
                f"estimator at its defaults); got {', '.join(sorted(public))}."
            )
        est = _private_bounds_run(spec, x, budget, backend, private)
    except AttributeError as err:  # the estimator asked the backend for a NumPy-only draw
        raise ValueError(
            f"{spec.name} cannot make a private release yet: it makes a draw the safe backend does "
            f"not offer ({err}); its noise is not all drawn through dpcore.mechanisms."
        ) from err
    except ValueError as err:
        if "rng must be" in str(err):
            raise ValueError(
                f"{spec.name} cannot make a private release yet: it builds its own NumPy generator "
                "instead of drawing through dpcore.mechanisms."
            ) from err
        raise
    lo, hi = est.diagnostics.private_bounds  # type: ignore[misc]
    info = {
        "source": f"privately estimated ({share:g} of the budget) inside the public range",
        "coarse_lower": check_bounds(coarse_bounds, d, name="coarse_bounds")[0],
        "coarse_upper": check_bounds(coarse_bounds, d, name="coarse_bounds")[1],
        "lower": np.asarray(lo, dtype=float),
        "upper": np.asarray(hi, dtype=float),
    }
    return est, info


def _private_bounds_run(
    spec: EstimatorSpec,
    x: np.ndarray,
    budget: Budget,
    backend: SafeBackend,
    private: tuple[Any, float, tuple[float, float]],
) -> Estimate:
    coarse_bounds, share, quantiles = private
    lo, hi = check_bounds(coarse_bounds, x.shape[1], name="coarse_bounds")
    # no true mean, no standard deviation: nothing but the rows and the public range
    data = Dataset(x, None, None, "real", (lo, hi), name="upload")  # type: ignore[arg-type]
    return run_with_private_bounds(
        spec,
        data,
        budget,
        share=share,
        coarse_bounds=(lo, hi),
        quantiles=quantiles,
        rng=cast(Any, backend),
    )
