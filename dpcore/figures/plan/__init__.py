"""Figure builders for the "PLAN step by step" page (pure plotly, no streamlit), one module per
picture: :mod:`.steps` (with :mod:`.geometry`), :mod:`.noise`, :mod:`.exponent`; :mod:`.common`
holds the colours and panel titles.

Every picture is drawn from the diagnostics of ONE run of the estimator on the full
``d``-dimensional data (centre ``mu~``, scale vector ``s``, clip radius ``C``, the clipped-row mask,
the per-coordinate noise std), restricted to two chosen coordinates: it shows exactly what the
estimator did, not a 2-D re-run. The clip ball lives in ``d`` dimensions, so in a 2-D slice a
point inside the drawn circle may still have been clipped (the rest of its distance lies in the
other coordinates); the reverse cannot happen, since a projection never lengthens a vector.

Builders return ``(figure, data_frame)``; the frame holds exactly the data drawn (points, outline
points of the circles and ellipses, the marked means), so it can be downloaded and re-plotted.

* :func:`plan_steps_figure` — the paper's Figure 1, live: (a) raw data and the true mean, (b)
  recentred and scaled, (c) clip ball in scaled space with the clipped rows pulled onto it,
  (d) the rows as they enter the mean, the clip ball mapped back to its ellipse (semi-axes
  ``C / s_i``, i.e. ``C sigma^_i^(2/(p+2))`` for PLAN's scaling), IOME's clip ball for contrast, and the
  private mean.
* :func:`noise_figure` — zoom on the mean: the noise ellipse (stds ``diagnostics.noise_std``) of
  PLAN against the isotropic noise of the baselines.
* :func:`exponent_curve` — expected noise (and total error) against the scaling exponent ``e``
  in ``s = sigma^(-2e)`` (Appendix C), with no scaling, PLAN's ``1/(p+2)`` and the equal split marked.
* :func:`noise_shapes_figure` — per-coordinate noise std of several estimators against the
  sampling std ``sigma_i / sqrt(n)``.
* :func:`error_split_frame` — the rows :func:`dpcore.figures.style.error_split_chart` draws.

References
----------
Aumüller, Lebeda, Nelson, Pagh. "PLAN: Variance-Aware Private Mean Estimation." PETS 2024,
Figure 1, Algorithm 1, Appendix C (Figure 6); docs/estimators/plan.md §2, §6 and §8.
"""

from dpcore.figures.plan.common import COLORS, PANEL_TITLES, wrap_title
from dpcore.figures.plan.exponent import exponent_curve, exponent_noise_std
from dpcore.figures.plan.geometry import step_summary
from dpcore.figures.plan.noise import error_split_frame, noise_figure, noise_shapes_figure
from dpcore.figures.plan.steps import plan_steps_figure

__all__ = [
    "COLORS",
    "PANEL_TITLES",
    "error_split_frame",
    "exponent_curve",
    "exponent_noise_std",
    "noise_figure",
    "noise_shapes_figure",
    "plan_steps_figure",
    "step_summary",
    "wrap_title",
]
