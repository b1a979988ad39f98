"""The two records of a release: the certificate (to publish) and the curator's record (kept).

Every number in :func:`make_certificate`'s output is a public parameter given by the curator
(labelled public) or an output of a charged mechanism (labelled private): the guarantee, the
budget per stage with its calibration as a formula, the public bounds (or the private ones),
the declared n or the noisy count, the sampler, the means and their accuracy. No hash of the
input, no sensitivity or scale as a number (under replace-one they embed n; it is printed only
when declared public). :func:`make_record` keeps what the curator may need and must not publish:
the exact n, the HMAC fingerprint of the input, the numeric sensitivities and scales, the
estimator's own notes.

References
----------
docs/release.md (what is published, what is kept, and why).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

from dpcore.estimate import EstimatorSpec
from dpcore.guarantee import Guarantee
from dpcore.privacy import Budget, Ledger
from dpcore.release_accuracy import LEVEL
from dpcore.samplers import SafeBackend, opendp_version

__all__ = ["DELTA", "Run", "certificate_text", "make_certificate", "make_record"]

#: δ at which a zCDP guarantee is also stated as (ε, δ)-DP.
DELTA = 1e-6

_RELATION_WORDS = {
    "replace-one": "replacing one person's row by any other row (the number of rows is public)",
    "add-remove": "adding or removing one person's row (the number of rows is protected too)",
}

#: How each mechanism's noise follows from its budget, in public terms (the certificate's words).
_FORMULAS = {
    "laplace": "Laplace noise of scale b = Δ₁/ε (Δ₁ the stage's ℓ1 sensitivity)",
    "gaussian": "Gaussian noise of standard deviation σ = Δ₂/√(2ρ) (Δ₂ the stage's ℓ2 sensitivity)",
    "exponential": "exponential mechanism (report noisy max) at the stage's ε over public "
    "candidates, score sensitivity Δ",
    "above_threshold": "AboveThreshold: noisy threshold and noisy queries at the stage's budget",
    "parallel composition": "the same mechanism on disjoint parts of the data (parallel "
    "composition: the largest part's budget)",
}
_SENSITIVITY_WORDS = {
    "replace-one": "Δ is a function of the public bounds, the number of columns d and the "
    "public number of rows n (e.g. (U − L)/n for a clipped mean of one column)",
    "add-remove": "Δ is a function of the public bounds and d only (e.g. U − L for a clipped "
    "sum of one column, 1 for a count); n is not used",
}


def _dpcore_version() -> str:
    try:
        return version("dpmean-lab")
    except PackageNotFoundError:
        return "unknown"


# the certificate (to publish) and the record (the curator's)


@dataclass(frozen=True)
class Run:
    """What the certificate and the record are written from."""

    spec: EstimatorSpec
    ledger: Ledger
    budget: Budget
    backend: SafeBackend
    columns: list[str]
    bounds_info: dict[str, Any]
    n: int
    n_public: bool
    noisy_n: float

    @property
    def guarantee(self) -> Guarantee:
        return Guarantee.of_notion(self.ledger.notion, self.ledger.total())


def _floats(a: Any) -> list[float]:
    return [float(v) for v in np.asarray(a, dtype=float).reshape(-1)]


def _public(run: Run, public: dict[str, Any]) -> dict[str, Any]:
    """The public parameters, each as given by the user."""
    b = run.bounds_info
    out: dict[str, Any] = {
        "note": "public: given by the curator, not computed from the data",
        "budget": str(run.budget),
        "columns": run.columns,
    }
    if "coarse_lower" in b:
        out["coarse_bounds"] = {
            "lower": _floats(b["coarse_lower"]),
            "upper": _floats(b["coarse_upper"]),
        }
    else:
        out["bounds"] = {
            "lower": _floats(b["lower"]),
            "upper": _floats(b["upper"]),
            "source": b["source"],
        }
    if run.n_public:
        out["n"] = {"value": run.n, "source": "declared public by the curator"}
    if public:
        out["tuning"] = {
            k: (v if isinstance(v, bool | int | float | str) else repr(v))
            for k, v in sorted(public.items())
        }
    return out


def _stages(run: Run) -> list[dict[str, Any]]:
    unit = run.ledger.unit()
    sens = _SENSITIVITY_WORDS[run.spec.neighbouring]
    return [
        {
            "stage": c.stage,
            "spent": float(c.amount),
            "unit": unit,
            "mechanism": c.mechanism or "see the estimator's documentation",
            "calibration": _FORMULAS.get(c.mechanism, "as the estimator's documentation states")
            + ("; " + sens if c.mechanism in ("laplace", "gaussian") else ""),
        }
        for c in run.ledger.charges
    ]


def make_certificate(
    run: Run,
    method: str,
    mean: np.ndarray,
    acc: np.ndarray,
    var: np.ndarray,
    public: dict[str, Any],
) -> dict[str, Any]:
    spec, g = run.spec, run.guarantee
    outputs: dict[str, Any] = {
        "note": "private: outputs of the charged mechanisms",
        "mean": _floats(mean),
    }
    if "coarse_lower" in run.bounds_info:
        outputs["bounds"] = {
            "lower": _floats(run.bounds_info["lower"]),
            "upper": _floats(run.bounds_info["upper"]),
            "source": run.bounds_info["source"],
        }
    if not run.n_public:
        outputs["noisy_count"] = run.noisy_n
    return {
        "estimator": {"name": spec.name, "label": spec.label, "description": spec.description},
        "dpcore_version": _dpcore_version(),
        "guarantee": {
            **g.numbers(DELTA),
            "budget_given": str(run.budget),
            "words": g.words(_RELATION_WORDS[spec.neighbouring], DELTA),
        },
        "neighbouring": {
            "relation": spec.neighbouring,
            "words": _RELATION_WORDS[spec.neighbouring],
        },
        "public": _public(run, public),
        "stages": _stages(run),
        "columns": run.columns,
        "outputs": outputs,
        "sampler": _sampler(run.backend, spec),
        "accuracy": {
            "level": LEVEL,
            "method": method,
            "half_width": _floats(acc),
            "variance": _floats(var),
        },
        "time_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }


def _sampler(backend: SafeBackend, spec: EstimatorSpec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "backend": "dpcore.samplers.SafeBackend",
        "opendp_version": opendp_version(),
        "noise": "OpenDP exact discrete samplers on a 2^k grid (make_laplace, make_gaussian, "
        "make_noisy_max; one-sided geometric and discrete Gaussian walk noise), OS CSPRNG",
        "other_draws": "os.urandom",
    }
    if not backend.draws and spec.family == "peers":
        out["noise"] = "the OpenDP peer's own pipeline (OpenDP's samplers and CSPRNG)"
    return out


def make_record(run: Run, cert: dict[str, Any], mark: str) -> dict[str, Any]:
    return {
        "not_for_publication": "the curator's record of this release: it holds the exact number "
        "of rows and numbers computed from it; publish the certificate instead",
        "certificate_time_utc": cert["time_utc"],
        "estimator": run.spec.name,
        "n": run.n,
        "input_fingerprint": {
            "hmac_sha256": mark,
            "key": "this installation's secret key (dpcore.curator.secret_key); without it the "
            "fingerprint cannot be recomputed from candidate files",
        },
        "stages": [
            {
                "stage": c.stage,
                "spent": float(c.amount),
                "note": c.note,
                "mechanism": c.mechanism,
                "sensitivity": c.sensitivity,
                "scale": c.scale,
            }
            for c in run.ledger.charges
        ],
        "draws": [
            {
                "kind": dr.kind,
                "variates": dr.variates,
                "sensitivity": dr.sensitivity,
                "scale_asked": dr.scale_asked,
                "scale_used": dr.scale_used,
            }
            for dr in run.backend.draws
        ],
    }


def certificate_text(cert: dict[str, Any]) -> str:
    """One plain paragraph from a certificate (:meth:`Release.certificate_text`)."""
    est, g, pub = cert["estimator"], cert["guarantee"], cert["public"]
    stages = "; ".join(f"{s['stage']} {s['spent']:.4g} {s['unit']}" for s in cert["stages"])
    cols = ", ".join(cert["columns"])
    if "bounds" in pub:
        b = pub["bounds"]
        where = f"The public bounds were {b['lower']} to {b['upper']} ({b['source']})."
    else:
        c, o = pub["coarse_bounds"], cert["outputs"]["bounds"]
        where = (
            f"The bounds were {o['source']} {c['lower']} to {c['upper']}: {o['lower']} to "
            f"{o['upper']}."
        )
    rows = (
        f"The number of rows, {pub['n']['value']}, was declared public."
        if "n" in pub
        else f"The number of rows is protected; a noisy count ({cert['outputs']['noisy_count']:.1f}, "
        "charged above) was used for the accuracy."
    )
    return (
        f"The means of {cols} were released on {cert['time_utc']} with the estimator "
        f"{est['label']} ({est['name']}, dpmean lab {cert['dpcore_version']}). The release "
        f"satisfies {g['words']}. The budget was spent as follows: {stages}. {where} {rows} "
        f"The noise was drawn by {cert['sampler']['noise']} (OpenDP "
        f"{cert['sampler']['opendp_version']}); no seed was used. Accuracy: with "
        f"{cert['accuracy']['level']:.0%} probability the noise moved each mean by less than the "
        f"stated half-width ({cert['accuracy']['method']})."
    )
