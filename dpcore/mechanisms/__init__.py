"""The one noise interface: every random draw that carries privacy is made here.

An estimator opens a :func:`stage` on its ledger and calls a mechanism inside it; the mechanism
draws the noise itself and writes the ledger line itself (stage, amount, mechanism, sensitivity,
scale and the calibration ratio). No estimator draws privacy noise from a generator or writes a
ledger line by hand, so the ledger is what actually happened and
:func:`dpcore.audit.calibration` can check every stage white-box (docs/privacy-contract.md).

The mechanisms and their guarantees (Δ is the sensitivity under the caller's neighbouring
relation; replace-one doubles the sensitivity of a sum compared with add/remove):

* :func:`laplace`: ``value + b·Lap(1)`` per coordinate is ε-DP for ℓ1 sensitivity Δ when
  ``b = Δ / ε`` (Dwork et al. 2006). With ``columns = d`` and a per-coordinate sensitivity vector
  ``Δ_r``, it is ``d`` mechanisms of ε/d each (basic composition): ``Σ_r Δ_r / b_r = ε``.
* :func:`gaussian`: ``value + σ·N(0, 1)`` per coordinate is ρ-zCDP for ℓ2 sensitivity Δ when
  ``σ = Δ / √(2ρ)`` (Bun & Steinke 2016, Prop. 1.6); with a per-coordinate sensitivity vector the
  zCDP costs add over coordinates: ``ρ = Σ_r Δ_r² / (2 σ_r²)``.
* :func:`exponential`: report-noisy-max with Gumbel (or exponential-key) noise on log-weights
  ``c·u`` is ε-DP for utility sensitivity Δu when ``c = ε / (2Δu)`` (McSherry & Talwar 2007);
  ``ε / Δu`` for a monotone utility. It is ε²/8-zCDP (bounded range; Cesar & Rogers 2021).
* :func:`above_threshold`: the sparse-vector walk, a noisy threshold then noisy queries of
  sensitivity 1 until one exceeds it; with exponential noise of scales ``1/ε_T`` and ``1/ε_Q`` it
  is ``(ε_T + ε_Q)``-DP per column for any walk length (Durfee 2023); with Gaussian noise it is the
  winsorized paper's Lemma D.1 walk, charged ``ρ_T + ρ_Q``.
* :func:`external`: a release drawn by another library (OpenDP, diffprivlib) whose own privacy map
  gives the charge; recorded, never drawn here.

A pure mechanism charged into a zCDP ledger is converted per column: ε-DP ⇒ ε²/2-zCDP (Bun &
Steinke 2016, Prop. 1.4), or ε²/8 for the exponential mechanism. Nothing converts the other way: a
Gaussian stage in a pure-DP ledger raises ``ValueError``.

Two backends draw the noise: a seeded NumPy ``Generator`` (simulations, sweeps, tests: fast and
reproducible), or the release backend of :mod:`dpcore.release` (no seed, the operating system's
CSPRNG, floating-point-safe samplers), chosen by the ``rng`` the estimator passes on.

The package, one file per topic (import everything from ``dpcore.mechanisms``):
``stages.py`` (stages, parallel composition, the ledger line, the calibration hooks, external
releases), ``backend.py`` (the two backends, argument checks), ``additive.py`` (Laplace and
Gaussian, their scales and ratios), ``noisy_max.py`` (the exponential mechanism) and
``sparse_vector.py`` (AboveThreshold).

References
----------
Dwork, McSherry, Nissim, Smith. "Calibrating Noise to Sensitivity in Private Data Analysis." TCC 2006.
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016.
McSherry and Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
Cesar and Rogers. "Bounding, Concentrating, and Truncating." ALT 2021.
Durfee. "Unbounded Differentially Private Quantile and Maximum Estimation." NeurIPS 2023.
"""

from __future__ import annotations

from dpcore.mechanisms.additive import (
    Release,
    gaussian,
    gaussian_ratio,
    gaussian_std,
    laplace,
    laplace_ratio,
    laplace_scale,
)
from dpcore.mechanisms.backend import generator, is_release, released
from dpcore.mechanisms.noisy_max import envelope_redraw, exponential, exponential_by_envelope
from dpcore.mechanisms.sparse_vector import ThresholdWalk, above_threshold
from dpcore.mechanisms.stages import (
    DRAWING,
    DrawObserver,
    StageInput,
    external,
    observing,
    parallel,
    recording_inputs,
    stage,
)

__all__ = [
    "DRAWING",
    "DrawObserver",
    "Release",
    "StageInput",
    "ThresholdWalk",
    "above_threshold",
    "envelope_redraw",
    "exponential",
    "exponential_by_envelope",
    "external",
    "gaussian",
    "gaussian_ratio",
    "gaussian_std",
    "generator",
    "is_release",
    "laplace",
    "laplace_ratio",
    "laplace_scale",
    "observing",
    "parallel",
    "recording_inputs",
    "released",
    "stage",
]
