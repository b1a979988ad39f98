"""IOME-style mean estimation: random rotation, private coordinate medians, shifted clipped mean.

The baseline the PLAN paper compares with (Huang, Liang and Yi 2021), as run by the PLAN authors
(docs/estimators/plan.md §5a)::

    0. x~ = x - m0                    m0 = centre of the public box (public, free)
    1. xr = R x~                      R = (H D3)(H D2)(H D1), zero padding to D = 2^ceil(log2 d)
    2. c  = coordinate-wise private median of xr by binary search        prop * rho  (/D per coord.)
    3. shifted clipped mean with rho' = (1 - prop) rho:
         p1 = radius share of rho', p2 = the rest
         m  = floor(n - f * (2 sqrt(D/(2 p2)) + sqrt(T/(2 p1))))          (f = offset factor)
         C  = private binary-search quantile of ||xr_j - c||_2 at rank m on [0, U]      p1
         z  = mean_j clip_C(xr_j - c) + N(0, (2C)^2/(2 p2) / n^2 I_D)                   p2
    4. output  m0 + R^T (z + c), first d coordinates

Presets (labelled as such in the registry):

* ``"IOME (original parameters)"``: ``T = 10`` steps, ``p1 = 0.25 rho'``, ``p2 = 0.75 rho'``,
  offset factor 1 (the public IOME code's defaults).
* ``"IOME (as run in the PLAN paper)"``: ``T = 20``, ``p1 = 0.01 rho'``, ``p2 = 0.99 rho'``, offset
  doubled (the PLAN authors' code [R]; the 1%/99% split is not mentioned in the paper, §10.17).

Privacy
-------
* Neighbouring relation: replace-one, ``n`` public. The rotation and ``m0`` are data independent.
* Medians: ``D`` binary searches with ``T`` Gaussian counts each (sensitivity 1), ``prop rho / D``
  per rotated coordinate, ``prop rho`` in total. CoinPress centre instead (``center_step="coinpress"``):
  the private spread (log-grid exponential mechanism on ``n // 2`` disjoint pair distances, one
  person in one pair, ``spread_share * prop rho``) then ``T`` noisy clipped means in balls of public
  radius ``R_t`` (l2 sensitivity ``2 R_t`` under replace-one, Gaussian std ``2 R_t / (n sqrt(2 rho_t))``
  on the mean, ``rho_t``-zCDP), ``sum rho_t`` = the rest of ``prop rho``.
* Radius: one binary search on the ``n`` norms, ``p1``.
* Noise: each clipped row has norm ``<= C``; replacing a row moves the sum by ``<= 2C``; Gaussian
  std ``2C / sqrt(2 p2)`` on the sum, ``2C / (n sqrt(2 p2))`` on the mean, in every rotated
  coordinate. Rotating back keeps the noise isotropic, so every original coordinate gets the same
  std (the "noise shape" PLAN improves on).
* Ledger: ``prop rho + p1 + p2 = rho``; every line is written by the :mod:`dpcore.mechanisms` call
  that drew the noise, inside the stage it belongs to (an exponential-mechanism line converts
  ``eps**2 / 8``, so the total is ``rho`` to within a few ulps).

Decisions (the spec is silent or the authors' choice does not transfer)
----------------------------------------------------------------------
* Search ranges. [R] searches the rotated medians in ``[lo/sqrt d, hi/sqrt d]`` for symmetric boxes
  around data near 0, which misses the medians of data far from the origin. We subtract the public
  box centre ``m0`` first and search each rotated median in ``[-h, h]`` with
  ``h = ||hw||_2 sqrt(2 ln(2 D n / beta) / D)`` (``hw`` the box half widths; the IOME paper's high
  probability bound on a rotated coordinate of a vector of norm ``||hw||_2``), and the radius in
  ``[0, ||hw||_2 + h sqrt(D)]`` (the largest ``||xr - c||`` for ``x`` in the box).
* Budgets per rotated coordinate use the padded dimension ``D``.
* ``m`` is clamped to ``[n/2, n - 1/2]`` with a warning when the offset is larger than ``n/2``.

Layout
------
One file per stage, each a function ``(inputs, budget part, ledger, generator) -> frozen result``
composed by :func:`~dpcore.estimators.iome.compose.run_iome` (docs/architecture.md):
:mod:`.rotate`, :mod:`.centre`, :mod:`.radius` and :mod:`.noise`. :mod:`.options` is the protocol
the stages read the options through, :mod:`.spec` the frozen :class:`IomeSpec` that runs them,
:mod:`.variants` the family default ``iome`` and the registered variants.

References
----------
Huang, Liang, Yi. "Instance-optimal Mean Estimation Under Differential Privacy." NeurIPS 2021.
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7 and Appendix F; docs/estimators/plan.md
§5a, §9.8, §9.11, §10.17.
"""

from __future__ import annotations

from dpcore.estimators.iome.centre import centre
from dpcore.estimators.iome.compose import run_iome, stage_budgets
from dpcore.estimators.iome.diagnostics import IomeDiagnostics
from dpcore.estimators.iome.noise import Noise, noise
from dpcore.estimators.iome.options import IomeOptions
from dpcore.estimators.iome.radius import Radius, clip_rank, radius
from dpcore.estimators.iome.rotate import IdentityRotation, Rotated, rotate
from dpcore.estimators.iome.spec import PRESETS, IomeSpec
from dpcore.estimators.iome.variants import iome, iome_as_published, iome_original, iome_paper
from dpcore.rotation import RandomizedHadamard

__all__ = [
    "PRESETS",
    "IdentityRotation",
    "IomeDiagnostics",
    "IomeOptions",
    "IomeSpec",
    "Noise",
    "Radius",
    "RandomizedHadamard",
    "Rotated",
    "centre",
    "clip_rank",
    "iome",
    "iome_as_published",
    "iome_original",
    "iome_paper",
    "noise",
    "radius",
    "rotate",
    "run_iome",
    "stage_budgets",
]
