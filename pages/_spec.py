"""One description per page: what the app's navigation, its sidebar, Home's tour, presenter mode
and the tests read about a page.

:data:`PAGES` lists every page in display order. To add a page, write ``pages/<name>.py`` and add
its :class:`PageSpec` here; ``app.py`` puts it in the navigation and greys out the sidebar
settings it ignores, Home's tour lists it (every page but Home), and the page tests that walk
every page pick it up.

Examples
--------
>>> page("pages/simplex.py").title
'Free lunch (simplex)'
>>> [p.url_path for p in PAGES][:3]
['', 'privacy_budget', 'plan_step_by_step']
>>> "d" in page("pages/binary_product.py").ignores
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import MappingProxyType


@dataclass(frozen=True)
class PageSpec:
    """How the app shows one page.

    Attributes
    ----------
    path : str
        The page's script, relative to the repository root (``"pages/compare.py"``).
    title : str
        Its name in the navigation and in Home's tour.
    icon : str
        Its navigation icon (a Streamlit ``:material/...:`` name).
    blurb : str
        One line on what the page shows (Home's tour prints it under the title).
    tour : bool
        Whether Home's tour lists the page (numbered in :data:`PAGES` order; every page but Home
        itself, so that the tour covers the app).
    ignores : Mapping[str, str]
        The sidebar settings (keys of :class:`pages._ui.Settings`) the page does not use, each with
        the reason shown as the greyed-out control's help text.
    steps : tuple[str, ...]
        The screens of presenter mode, in order (empty: the page shows as one screen).
    default : bool
        Whether this is the page the app opens on.
    """

    path: str
    title: str
    icon: str
    blurb: str
    tour: bool = True
    ignores: Mapping[str, str] = field(default_factory=dict)
    steps: tuple[str, ...] = ()
    default: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "ignores", MappingProxyType(dict(self.ignores)))
        object.__setattr__(self, "steps", tuple(self.steps))

    @property
    def url_path(self) -> str:
        """The page's address after the app's root (``""`` for the default page)."""
        return "" if self.default else PurePosixPath(self.path).stem


def _own_data(keys: tuple[str, ...], reason: str) -> dict[str, str]:
    return dict.fromkeys(keys, reason)


_OWN_DATA = "This page draws its own data"

#: PLAN step by step in presenter mode: one step (a)-(d) per screen (the panel of that step, whose
#: own title is :data:`dpcore.figures.plan.PANEL_TITLES`), each slide titled by its takeaway.
PLAN_STEPS = (
    "(a) Raw data: some coordinates vary far more",
    "(b) Centre and scale: the cloud gets rounder",
    "(c) Rows longer than C are pulled onto the ball",
    "(d) Scaled back, the ball becomes an ellipse",
)

#: Every page, in display order.
PAGES: tuple[PageSpec, ...] = (
    PageSpec(
        "pages/home.py",
        "Home",
        ":material/home:",
        "what dpmean lab is, who it is for, a short guided tour.",
        tour=False,
        default=True,
    ),
    PageSpec(
        "pages/privacy_budget.py",
        "Privacy budget",
        ":material/balance:",
        "what ε, (ε, δ) and ρ mean, how they convert, and how each estimator splits its budget.",
    ),
    PageSpec(
        "pages/plan_step_by_step.py",
        "PLAN step by step",
        ":material/filter_center_focus:",
        "centre, scale, clip, add noise: the PLAN paper's Figure 1, live, on your data.",
        steps=(
            *PLAN_STEPS,
            "PLAN's noise is an ellipse, the others' a circle",
            "PLAN's exponent 1/(p+2) keeps the noise lowest",
            "PLAN puts less noise where the data vary less",
            "The error: sampling, clipping bias and noise",
        ),
    ),
    PageSpec(
        "pages/compare.py",
        "Compare estimators",
        ":material/leaderboard:",
        "error against the budget (or n, d, skew) for every estimator, beside the sampling floor.",
        steps=(
            "The story",
            "The chart",
            "The ranking",
            "The failure rate",
            "What each estimator needs",
        ),
    ),
    PageSpec(
        "pages/side_by_side.py",
        "Side by side",
        ":material/compare:",
        "every estimator's clipping and noise on the same data, and 100 releases of one.",
        steps=(
            "Clipping and noise, side by side",
            "Draw 100 releases",
            "PLAN's four steps (animated)",
            "The scaling exponent (animated)",
        ),
    ),
    PageSpec(
        "pages/winsorized.py",
        "Winsorized mean",
        ":material/content_cut:",
        "robust private means of one column, and subsample-and-aggregate.",
    ),
    PageSpec(
        "pages/simplex.py",
        "Free lunch (simplex)",
        ":material/change_history:",
        "a private count for free when summing bounded data.",
        ignores=_own_data(
            ("distribution", "skew", "d"),
            f"{_OWN_DATA}: one column on [0, R], placed by the p slider below (n and the "
            "budget from the sidebar apply).",
        ),
    ),
    PageSpec(
        "pages/binary_product.py",
        "Binary product",
        ":material/apps:",
        "pure-DP estimation of many rare bits.",
        ignores=_own_data(
            ("distribution", "skew", "n", "d"),
            f"{_OWN_DATA}: binary product profiles with this page's own n and d (the "
            "budget and seed from the sidebar apply).",
        ),
    ),
    PageSpec(
        "pages/your_data.py",
        "Your data",
        ":material/upload_file:",
        "bring a CSV, or use a bundled data set.",
        ignores=_own_data(
            ("distribution", "skew", "n", "d"),
            "This page uses your file (or a bundled data set) with its own rows and columns; "
            "the budget and seed from the sidebar apply.",
        ),
    ),
    PageSpec(
        "pages/privacy_audit.py",
        "Privacy audit",
        ":material/verified_user:",
        "run an estimator thousands of times on worst-case neighbours: a lower bound on its ε, against its claim.",
    ),
)


def page(path: str) -> PageSpec:
    """The :class:`PageSpec` of ``path`` (``"pages/x.py"``); ``KeyError`` for an unknown page."""
    for spec in PAGES:
        if spec.path == path:
            return spec
    raise KeyError(f"no page {path!r} in pages/_spec.py PAGES")


def tour() -> list[tuple[PageSpec, str]]:
    """Home's tour: each page with ``tour`` set and its numbered label (``"1. Privacy budget"``)."""
    return [(p, f"{k}. {p.title}") for k, p in enumerate((p for p in PAGES if p.tour), start=1)]
