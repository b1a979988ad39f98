"""The Home page's view: what dpmean lab is, one picture of why PLAN wins on skewed data, the
sidebar's settings in words and the glossary.

The picture is a fixed example (:data:`~dpcore.experiments.studies.HOME_SETTING`, seeds 0 to
:data:`SEEDS` - 1), not the sidebar's data: :func:`evidence` runs it once per process (a pure
function of constants, memoised), and :func:`view` adds what depends on the sidebar.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from dpcore.experiments.plain import PlainWords, evidence_words
from dpcore.experiments.studies import HOME_SETTING, Evidence, why_plan_wins
from dpcore.figures.gallery import why_plan_figures
from dpcore.figures.style import drawn_dict, plain, tidy_log_axes
from dpcore.figures.theme import on_dark
from dpcore.glossary import GLOSSARY
from dpcore.views.settings import DataSettings

__all__ = ["SEEDS", "HomeSettings", "HomeView", "evidence", "figures", "view"]

#: The example's runs (its own seeds 0 to SEEDS - 1).
SEEDS = 20


@dataclass(frozen=True)
class HomeSettings:
    """Home's record: the sidebar's settings and whether the app draws in the dark theme.

    Examples
    --------
    >>> HomeSettings().dark
    False
    """

    data: DataSettings = field(default_factory=DataSettings)
    dark: bool = False


@dataclass(frozen=True, eq=False)
class HomeView:
    """Everything Home shows (``eq=False``: it holds frames).

    Attributes
    ----------
    example, sentence : str
        The example's setting, and what its runs showed, in words.
    noise_figure, error_figure : dict
        The two figures as drawn in the settings' theme (``st.plotly_chart``'s dicts).
    light : tuple of dict
        The same two figures in the light theme (for the notebook, slides and reports).
    noise, errors : DataFrame
        The figures' data.
    words : PlainWords
        The box under the picture: the example's own budget and runs.
    sidebar : str
        The sidebar's settings in words.
    glossary : str
        The glossary as a markdown list.
    code : dict
        Per figure name, the notebook lines that rebuild it.
    """

    example: str
    sentence: str
    noise_figure: dict
    error_figure: dict
    light: tuple[dict, dict]
    noise: pd.DataFrame
    errors: pd.DataFrame
    words: PlainWords
    sidebar: str
    glossary: str
    code: dict[str, str]


@functools.cache
def evidence() -> Evidence:
    """:func:`~dpcore.experiments.studies.why_plan_wins` at ``HOME_SETTING`` over :data:`SEEDS`
    seeds (computed once per process)."""
    setting: dict[str, Any] = dict(HOME_SETTING)
    return why_plan_wins(seeds=SEEDS, **setting)


@functools.cache
def figures(dark: bool) -> tuple[dict, dict]:
    """Home's two figures (noise shape, error) as drawn in a dark or light theme, as plain dicts
    (built once per theme and process)."""
    ev = evidence()
    drawn = (tidy_log_axes(f) for f in why_plan_figures(ev.errors, ev.noise))
    left, right = (drawn_dict(on_dark(f) if dark else f) for f in drawn)
    return left, right


def _sentence(ev: Evidence) -> str:
    st_ = ev.setting
    med, worst = ev.medians(), ev.worst()
    wins = round(ev.win_rate() * st_["seeds"])
    return (
        f"**On data whose coordinates vary very differently** (the example above), **PLAN puts less "
        f"noise where the data vary less**, so its error was the smallest of the three in **{wins} of "
        f"{st_['seeds']} runs** (median ℓ2 error {plain(med['plan'])} against {plain(med['iome_paper'])} "
        f"for IOME and {plain(med['gaussian_private'])} for the Gaussian mechanism; worst runs "
        f"{plain(worst['plan'])}, {plain(worst['iome_paper'])} and {plain(worst['gaussian_private'])})."
    )


def _code(settings: HomeSettings) -> dict[str, str]:
    head = (
        "# Home's example is a fixed setting with its own seeds, not the sidebar's settings and "
        "seed\nimport plotly.graph_objects as go\n\n"
        "from dpcore.views.home import HomeSettings, view\n"
        "from dpcore.views.settings import DataSettings\n\n"
        f"v = view({settings!r})\n"
    )
    return {
        "why_plan_noise": head + "fig = go.Figure(v.light[0])\n",
        "why_plan_error": (
            f"# the same {SEEDS} runs (v from the cell above): how often PLAN's error was the "
            "smallest\nprint(v.sentence)\nfig = go.Figure(v.light[1])\n"
        ),
    }


def view(settings: HomeSettings) -> HomeView:
    """Home's view of ``settings``: the example's picture and words (the same for every
    sidebar) with the sidebar's settings in words and the box at the sidebar's δ."""
    ev = evidence()
    st_ = ev.setting
    left, right = figures(bool(settings.dark))
    s = settings.data
    return HomeView(
        example=(
            f"**Example** (a fixed setting, not your sidebar's): Gaussian data with σᵢ² = (d/i)², "
            f"n = {st_['n']:,} rows, d = {st_['d']} columns, ρ = {st_['rho']:g} (zCDP), "
            f"{st_['seeds']} runs."
        ),
        sentence=_sentence(ev),
        noise_figure=left,
        error_figure=right,
        light=figures(False),
        noise=ev.noise,
        errors=ev.errors,
        words=evidence_words(ev, delta=float(s.delta)),
        sidebar=(
            f"Your sidebar settings, which the other pages use: {s.n:,} rows × {s.d} columns, "
            f"{s.budget}. Copy the address bar to share exactly this view."
        ),
        glossary="\n".join(f"- **{word}**: {text}" for word, text in GLOSSARY.items()),
        code=_code(HomeSettings(data=s)),
    )
