"""The Home page's view: what dpmean lab is, one picture of why PLAN wins on skewed data, the
sidebar's settings in words and the glossary.

The first screen is for someone who has never heard of differential privacy: :attr:`HomeView.lead`
says in one sentence what the lab is for, with every number in a unit (people, measurements, data
units, times); the picture under it has plain titles; the jargon (n, d, ρ, ℓ2) waits in the
example's details further down.

The picture is a fixed example (:data:`~dpcore.experiments.studies.HOME_SETTING`, seeds 0 to
:data:`SEEDS` - 1), not the sidebar's data: :func:`evidence` runs it once per process (a pure
function of constants, memoised), and :func:`view` adds what depends on the sidebar.
"""

from __future__ import annotations

import functools
import math
import threading
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

__all__ = ["SEEDS", "TOUR_HEADING", "HomeSettings", "HomeView", "evidence", "figures", "view"]

#: The example's runs (its own seeds 0 to SEEDS - 1).
SEEDS = 20

#: The heading of Home's tour (every page, one line each).
TOUR_HEADING = "A tour of every page"


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
    lead : str
        The first thing on the page: one plain sentence, every number with its unit.
    intro : str
        What the lab does, for the reader who stays (after the picture and the box).
    example, sentence : str
        The example's setting, and what its runs showed, in words.
    noise_figure, error_figure : dict
        The two figures as drawn in the settings' theme (``st.plotly_chart``'s dicts); the error
        figure is the first screen's picture, titled in plain words.
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

    lead: str
    intro: str
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


#: held while the evidence is computed: the server's warm-up thread and a first visitor asking at
#: once get one computation (the second waits for it), not two
_EVIDENCE = threading.Lock()


def evidence() -> Evidence:
    """:func:`~dpcore.experiments.studies.why_plan_wins` at ``HOME_SETTING`` over :data:`SEEDS`
    seeds (computed once per process, by the first caller; callers meanwhile wait for it)."""
    with _EVIDENCE:
        return _evidence()


@functools.cache
def _evidence() -> Evidence:
    setting: dict[str, Any] = dict(HOME_SETTING)
    return why_plan_wins(seeds=SEEDS, **setting)


@functools.cache
def figures(dark: bool) -> tuple[dict, dict]:
    """Home's two figures (noise shape, error) as drawn in a dark or light theme, as plain dicts
    (built once per theme and process)."""
    ev = evidence()
    noise, errors = (tidy_log_axes(f) for f in why_plan_figures(ev.errors, ev.noise))
    d, seeds = ev.setting["d"], ev.setting["seeds"]
    errors.update_layout(
        title_text=f"How far off each method was<br><sup>{seeds} trials; lower is better</sup>"
    )
    errors.update_yaxes(title_text=f"miss in data units ({d} averages; log)")
    left, right = (drawn_dict(on_dark(f) if dark else f) for f in (noise, errors))
    return left, right


def _lead(ev: Evidence) -> str:
    """One sentence for a newcomer: what the lab is for and what the example showed, each number
    with its unit (per measurement: the ℓ2 error over √d, in the data's own units)."""
    st_ = ev.setting
    med = ev.medians()
    per = {k: v / math.sqrt(st_["d"]) for k, v in med.items()}
    ratio = per["gaussian_private"] / per["plan"]
    return (
        f"**Publish the average of sensitive records without exposing any one person:** in the "
        f"example below ({st_['n']:,} people, {st_['d']} measurements each, {st_['seeds']} trials), "
        f"the best method's published averages missed the true ones by about {per['plan']:.2g} data "
        f"units per measurement, a miss {ratio:.1f} times smaller than the textbook method's."
    )


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
        lead=_lead(ev),
        intro=(
            "**What this lab is.** A private average adds random noise so that no one person's "
            "record can be read back from it; the methods differ in how much noise they need. Pick "
            "your data and a privacy budget in the sidebar, and the pages show what each method "
            "does (centring, scaling, clipping, noise) and how close it lands. Every number comes "
            "from the Python package `dpcore`, so a notebook reproduces it with the same seed."
        ),
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
