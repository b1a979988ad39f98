"""A real private release of a user's own data: :func:`release`, :class:`Release`, :class:`Odometer`.

:func:`release` runs one registered estimator once, with no seed, on the floating-point-safe
backend of :mod:`dpcore.samplers` (OpenDP's exact samplers, the operating system's CSPRNG): every
noisy stage of the estimator goes through :mod:`dpcore.mechanisms`, which hands the draw to the
backend, so an estimator has one code path for simulations and releases. No NumPy generator is
created in a release.

It returns the released means, the accuracy of each (the 95% half-width of the noise, from public
parameters only) and a certificate: a JSON-serialisable record of the guarantee, the budget per
stage, the bounds and their source, the sampler and a hash of the input. The certificate holds no
data value. :class:`Odometer` keeps a session's total budget and charges a release only after it
succeeded.

Simulations, sweeps and seeded tests keep NumPy (fast, reproducible) and are not releases.

References
----------
Mironov. "On Significance of the Least Significant Bits for Differential Privacy." CCS 2012.
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any, cast

import numpy as np

from dpcore import registry
from dpcore._validation import check_bounds, check_data
from dpcore.data.dataset import Dataset
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.estimators.private_bounds import run_with_private_bounds
from dpcore.privacy import Budget
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
from dpcore.samplers import SafeBackend, no_stdlib_random, opendp_version

__all__ = [
    "FACTOR",
    "LEVEL",
    "Odometer",
    "Release",
    "accuracy",
    "certificate_text",
    "exact_accuracy",
    "input_hash",
    "refusal",
    "release",
    "simulate_accuracy",
    "synthetic_rows",
    "takes_bounds",
]

#: δ at which a zCDP guarantee is also stated as (ε, δ)-DP.
DELTA = 1e-6

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

_RELATION_WORDS = {
    "replace-one": "replacing one person's row by any other row (the number of rows is public)",
    "add-remove": "adding or removing one person's row (the number of rows is protected too)",
}


def _dpcore_version() -> str:
    try:
        return version("dpmean-lab")
    except PackageNotFoundError:
        return "unknown"


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
    """A private release: the means, their accuracy and the certificate.

    Attributes
    ----------
    mean : ndarray (d,)
        The released means, in the columns' units.
    accuracy : ndarray (d,)
        Per coordinate, the half-width ``a`` with ``P(|noise| < a) = 0.95`` (public parameters only).
    certificate : dict
        JSON-serialisable record of the release (no data value); see :func:`release`.
    variance : ndarray (d,)
        Per coordinate, the variance of the noise (exact for a one-stage release, else the mean
        squared error simulated with public parameters); :mod:`dpcore.remeasure` weighs by it.
    noise : str
        ``"laplace"`` or ``"gaussian"`` (one exact stage) or ``"simulated"``.
    """

    mean: np.ndarray
    accuracy: np.ndarray
    certificate: dict[str, Any] = field(repr=False)
    variance: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    noise: str = "simulated"

    @property
    def budget(self) -> Budget:
        """The budget this release spent, in its estimator's notion (ε or ρ)."""
        g = self.certificate["guarantee"]
        return Budget.pure(g["epsilon"]) if "epsilon" in g else Budget.zcdp(g["rho"])

    def certificate_json(self) -> str:
        """The certificate as indented JSON."""
        return json.dumps(self.certificate, indent=2, ensure_ascii=False)

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


def input_hash(x: np.ndarray, source: bytes | None = None) -> str:
    """SHA-256 of ``source`` (the uploaded file's bytes) or of the data's float64 bytes and shape."""
    h = hashlib.sha256()
    if source is not None:
        h.update(source)
    else:
        h.update(repr(x.shape).encode())
        h.update(memoryview(cast(Any, np.ascontiguousarray(x, dtype=np.float64))).cast("B"))
    return h.hexdigest()


def release(
    name: str,
    data: Any,
    budget: Budget,
    *,
    bounds: Any = None,
    coarse_bounds: Any = None,
    share: float = 0.25,
    quantiles: tuple[float, float] = (0.01, 0.99),
    source: bytes | None = None,
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
    source : bytes, optional
        The uploaded file's bytes, hashed into the certificate (else the data's bytes are).
    **public
        The estimator's public tuning keywords. ``rng`` and ``seed`` are refused.

    Returns
    -------
    Release
        ``mean``, ``accuracy`` and ``certificate`` (estimator, dpcore version, guarantee in numbers
        and words, neighbouring relation, budget per stage, bounds and their source, sampler, UTC
        time, accuracy method, SHA-256 of the input).

    Raises
    ------
    ValueError
        A seed, a refused estimator (:func:`refusal`), bad data or bounds, a budget the estimator
        cannot meet, or an estimator that draws outside :mod:`dpcore.mechanisms`.

    Privacy
    -------
    The estimator's guarantee at ``budget`` under its neighbouring relation, with every noise drawn
    by exact samplers on a 2^k grid (no floating-point low-bit leak). The certificate's input
    hash identifies the file to anyone holding it and is not private.
    """
    for key in ("rng", "seed"):
        if key in public:
            raise ValueError(
                f"a release takes no {key}=: its noise comes from the operating system's CSPRNG "
                "(a known seed would let anyone subtract the noise)."
            )
    spec = registry.get(name)
    why = refusal(spec)
    if why is not None:
        raise ValueError(f"{name} cannot make a private release: {why}.")
    x, columns = _as_matrix(data)
    d = x.shape[1]
    backend = SafeBackend()
    with no_stdlib_random():  # the tracer: Python's random module draws nothing in a release
        est, bounds_info = _run(
            spec, x, budget, backend, bounds, (coarse_bounds, share, quantiles), public
        )
    mean = np.asarray(est.mean, dtype=float).reshape(-1)
    if mean.shape != (d,) or not np.all(np.isfinite(mean)):
        raise ValueError(f"{name} gave no finite mean for each of the {d} column(s).")
    sim_budget = budget
    if "coarse_lower" in bounds_info:  # the estimator ran on its share; the bounds are released
        v = budget.to_native(spec.notion).value * (1.0 - share)
        sim_budget = Budget.zcdp(v) if spec.notion == "zcdp" else Budget.pure(v)
    acc, var, method = accuracy(spec, est, backend, x.shape, bounds_info, sim_budget, public)
    cert = _certificate(spec, est, budget, backend, columns, bounds_info, method, acc)
    cert["accuracy"]["variance"] = _floats(var)
    cert["input_sha256"] = input_hash(x, source)
    noise = backend.draws[0].kind if method.startswith("exact") else "simulated"
    return Release(mean, acc, cert, np.asarray(var, dtype=float), noise)


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


# --------------------------------------------------------------------------------------------
# the certificate


def _guarantee(spec: EstimatorSpec, est: Estimate, budget: Budget) -> dict[str, Any]:
    notion = est.ledger.notion
    total = est.ledger.total()
    relation = spec.neighbouring
    if notion == "pure":
        numbers = {"notion": "pure ε-DP", "epsilon": total}
        words = (
            f"ε-differential privacy with ε = {total:.4g}: {_RELATION_WORDS[relation]} changes "
            f"the probability of any released result by at most a factor e^ε ≈ {math.exp(total):.3g}"
        )
    else:
        eps, delta = Budget.zcdp(total).to_approx(DELTA)
        numbers = {"notion": "ρ-zCDP", "rho": total, "implies_epsilon": eps, "at_delta": delta}
        words = (
            f"ρ-zero-concentrated differential privacy with ρ = {total:.4g} (which implies "
            f"(ε = {eps:.3g}, δ = {delta:g})-differential privacy) against "
            f"{_RELATION_WORDS[relation]}"
        )
    return {**numbers, "budget_given": str(budget), "words": words}


def _sampler(backend: SafeBackend, spec: EstimatorSpec) -> dict[str, Any]:
    kinds = sorted({dr.kind for dr in backend.draws})
    out: dict[str, Any] = {
        "backend": "dpcore.samplers.SafeBackend",
        "opendp_version": opendp_version(),
        "noise": "OpenDP exact discrete samplers on a 2^k grid (make_laplace, make_gaussian, "
        "make_noisy_max; one-sided geometric and discrete Gaussian walk noise), OS CSPRNG",
        "other_draws": "os.urandom",
        "draws": [
            {
                "kind": dr.kind,
                "variates": dr.variates,
                "sensitivity": dr.sensitivity,
                "scale_asked": dr.scale_asked,
                "scale_used": dr.scale_used,
            }
            for dr in backend.draws
        ],
        "kinds": kinds,
    }
    if not backend.draws and spec.family == "peers":
        out["noise"] = "the OpenDP peer's own pipeline (OpenDP's samplers and CSPRNG)"
    return out


def _floats(a: Any) -> list[float]:
    return [float(v) for v in np.asarray(a, dtype=float).reshape(-1)]


def _certificate(
    spec: EstimatorSpec,
    est: Estimate,
    budget: Budget,
    backend: SafeBackend,
    columns: list[str],
    bounds_info: dict[str, Any],
    method: str,
    acc: np.ndarray,
) -> dict[str, Any]:
    bounds = {k: (_floats(v) if k != "source" else v) for k, v in bounds_info.items()}
    return {
        "estimator": {"name": spec.name, "label": spec.label, "description": spec.description},
        "dpcore_version": _dpcore_version(),
        "guarantee": _guarantee(spec, est, budget),
        "neighbouring": {
            "relation": spec.neighbouring,
            "words": _RELATION_WORDS[spec.neighbouring],
        },
        "stages": [
            {"stage": c.stage, "spent": float(c.amount), "unit": est.ledger.unit(), "note": c.note}
            for c in est.ledger.charges
        ],
        "columns": columns,
        "bounds": bounds,
        "sampler": _sampler(backend, spec),
        "accuracy": {"level": LEVEL, "method": method, "half_width": _floats(acc)},
        "time_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "input_note": "input_sha256 identifies the input file to anyone holding a copy; it is not "
        "private (drop it before publishing if the file could be guessed)",
    }


def certificate_text(cert: dict[str, Any]) -> str:
    """One plain paragraph from a certificate (:meth:`Release.certificate_text`)."""
    est, g, b = cert["estimator"], cert["guarantee"], cert["bounds"]
    stages = "; ".join(f"{s['stage']} {s['spent']:.4g} {s['unit']}" for s in cert["stages"])
    cols = ", ".join(cert["columns"])
    return (
        f"The means of {cols} were released on {cert['time_utc']} with the estimator "
        f"{est['label']} ({est['name']}, dpmean lab {cert['dpcore_version']}). The release "
        f"satisfies {g['words']}. The budget was spent as follows: {stages}. The bounds were "
        f"{b['source']}. The noise was drawn by {cert['sampler']['noise']} (OpenDP "
        f"{cert['sampler']['opendp_version']}); no seed was used. Accuracy: with "
        f"{cert['accuracy']['level']:.0%} probability the noise moved each mean by less than the "
        f"stated half-width ({cert['accuracy']['method']}). Input file SHA-256: "
        f"{cert.get('input_sha256', 'not recorded')}."
    )


# --------------------------------------------------------------------------------------------
# the session odometer


@dataclass
class Odometer:
    """A session's total privacy budget; a release is charged only after it succeeds.

    ``total`` is pure (ε) or zCDP (ρ). A pure release charges its ε to a pure odometer and
    ε²/2 to a zCDP one; a zCDP release charges its ρ to a zCDP odometer and is refused by a pure
    one (ρ-zCDP does not give ε-DP).

    Examples
    --------
    >>> odo = Odometer(Budget.pure(1.0))
    >>> odo.cost(Budget.pure(0.25)), odo.remaining
    (0.25, 1.0)
    """

    total: Budget
    spent: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.total.notion not in ("pure", "zcdp"):
            raise ValueError("the odometer's total must be Budget.pure(ε) or Budget.zcdp(ρ).")

    @property
    def amount(self) -> float:
        return self.total.epsilon_value if self.total.notion == "pure" else self.total.rho_value

    @property
    def unit(self) -> str:
        return "ε" if self.total.notion == "pure" else "ρ"

    @property
    def remaining(self) -> float:
        return max(0.0, self.amount - self.spent)

    def cost(self, budget: Budget) -> float:
        """What ``budget`` costs in the odometer's notion (``ValueError`` if it cannot be)."""
        if self.total.notion == "pure":
            if budget.notion != "pure":
                raise ValueError(
                    f"this session's total is ε-DP; a {budget} budget cannot be counted in ε "
                    "(choose a pure ε budget, or start a session with a ρ total)."
                )
            return budget.epsilon_value
        if budget.notion == "pure":
            return budget.epsilon_value**2 / 2.0
        if budget.notion == "zcdp":
            return budget.rho_value
        raise ValueError("an (ε, δ) budget cannot be counted in ρ; give it as ρ or ε.")

    def check(self, budget: Budget) -> float:
        """The cost of ``budget``, or ``ValueError`` when it exceeds what is left."""
        c = self.cost(budget)
        if c > self.remaining * (1.0 + 1e-12):
            raise ValueError(
                f"this release costs {self.unit} = {c:.4g} but only {self.remaining:.4g} of the "
                f"session's {self.unit} = {self.amount:g} is left; nothing was released."
            )
        return c

    def run(self, fn: Callable[..., Release], *args: Any, budget: Budget, **kwargs: Any) -> Release:
        """``fn(*args, budget, **kwargs)`` (e.g. :func:`release`) charged after it succeeds."""
        c = self.check(budget)
        out = fn(*args, budget, **kwargs)
        self.spent += c
        self.history.append(
            {"estimator": out.certificate["estimator"]["name"], "cost": c, "unit": self.unit}
        )
        return out
