"""Shared pieces of every page: the global settings, the current dataset, and the conventions
every chart follows (a sentence with the number, a CSV download, a "show the code" expander).

The global settings live in ``st.session_state`` (written by the sidebar in ``app.py``) and in the
URL query string, so a link reproduces the view. This module holds no DP logic.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd
import streamlit as st

from dpcore import export, limits
from dpcore.data import DISTRIBUTIONS, Dataset, generate
from dpcore.export import ImageFormat, to_csv
from dpcore.figures import tidy_log_axes
from dpcore.privacy import Budget, Conversion

UNITS = {"rho": "ρ (zCDP)", "eps": "ε (pure DP)", "eps_delta": "(ε, δ)-DP"}
BUDGET_PRESETS = [0.01, 0.03, 0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
N_CHOICES = [100, 200, 500, 1000, 2000, 4000, 10_000, 20_000, 50_000, 100_000]
D_CHOICES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
MAX_SEED = 2**31 - 1
#: Every page cache keeps at most this many results per function and drops them after CACHE_TTL
#: seconds, so memory is bounded by entries × (MAX_APP_CELLS floats) and by time.
CACHE_TTL = 900


@dataclass(frozen=True)
class Settings:
    """The global controls, as plain values (hashable, cacheable, URL-serialisable)."""

    distribution: str = "gaussian"
    skew: float = 2.0
    n: int = 2000
    d: int = 32
    unit: str = "rho"
    budget_value: float = 0.5
    delta: float = 1e-6
    seed: int = 0

    @property
    def budget(self) -> Budget:
        """The budget as a :class:`dpcore.privacy.Budget` (raises ``ValueError`` if impossible)."""
        return Budget.from_unit(self.unit, self.budget_value, self.delta)

    @property
    def kind(self) -> str:
        return DISTRIBUTIONS[self.distribution].kind

    def to_query(self) -> dict[str, str]:
        return {k: (repr(v) if isinstance(v, float) else str(v)) for k, v in asdict(self).items()}

    def code(self) -> str:
        """The dpcore calls that reproduce the current dataset and budget in a notebook."""
        delta = f", {self.delta!r}" if self.unit == "eps_delta" else ""
        return (
            "from dpcore.data import generate\n"
            "from dpcore.privacy import Budget, Conversion\n"
            f"data = generate({self.distribution!r}, n={self.n}, d={self.d}, skew={self.skew!r}, rng={self.seed})\n"
            f"budget = Budget.from_unit({self.unit!r}, {self.budget_value!r}{delta})\n"
        )


DEFAULTS = Settings()


def _leave_legacy_pages_mode() -> None:
    """Make sure ``app.py`` (the shell) runs, whatever page a fresh server is first asked for.

    Streamlit still treats a folder called ``pages/`` next to the entry point as a legacy
    (v1) multipage app until the entry point calls ``st.navigation``. If the first request to a
    fresh server is a page URL (a shared link), Streamlit would run that page alone, without the
    sidebar and URL binding of ``app.py``. Pages import this module first, so here we switch the
    legacy mode off and rerun: the rerun executes ``app.py``, which routes to the same page.
    (``AppTest`` resets the mode before every run, hence a check on every ``settings()`` call.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()



#: Valid ranges of the numeric URL parameters (values outside fall back to the default, so no
#: widget is ever handed a value outside its own range).
QUERY_RANGES: dict[str, tuple[type, float, float]] = {
    "skew": (float, -1e6, 1e6), "budget_value": (float, -math.inf, math.inf), "delta": (float, -math.inf, math.inf),
    "n": (int, 2, limits.MAX_N), "d": (int, 1, limits.MAX_D), "seed": (int, 0, MAX_SEED),
}


def parse_query(params: dict[str, str]) -> dict[str, Any]:
    """Read the settings from URL query parameters, keeping only valid values.

    Returns a dict of session-state values; anything missing, malformed or out of range falls back
    to the default (a broken link still opens the app). Budgets outside dpcore's limits are kept, so
    the app can say why they are impossible.
    """
    out: dict[str, Any] = {}
    params = {k: v for k, v in params.items() if isinstance(k, str) and isinstance(v, str)}
    dist = params.get("distribution")
    if dist in DISTRIBUTIONS:
        out["distribution"] = dist
    for key, (cast, lo, hi) in QUERY_RANGES.items():
        if key not in params:
            continue
        try:
            value = float(params[key][:64])
        except ValueError:
            continue
        if not (math.isfinite(value) and lo <= value <= hi) or (cast is int and not value.is_integer()):
            continue
        out[key] = int(value) if cast is int else value
    if params.get("unit") in UNITS:
        out["unit"] = params["unit"]
    return out


def size_error(n: int, d: int) -> str | None:
    """Why ``n`` rows by ``d`` columns are too many for an interactive page, or ``None``."""
    if n * d > limits.MAX_APP_CELLS:
        return (f"n × d = {n * d:,} values is above the interactive pages' limit of {limits.MAX_APP_CELLS:,} "
                f"(dpcore.limits); use at most n = {limits.MAX_APP_CELLS // d:,} rows at d = {d}, or run "
                "larger experiments from a terminal (python -m dpcore.experiments).")
    try:
        limits.check_size(n, d)
    except ValueError as err:
        return str(err)
    return None


def settings() -> Settings:
    """The current global settings (as set in the sidebar)."""
    _leave_legacy_pages_mode()
    ss = st.session_state
    return Settings(**{k: ss.get(k, getattr(DEFAULTS, k)) for k in asdict(DEFAULTS)})


@st.cache_data(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _dataset(distribution: str, n: int, d: int, skew: float, seed: int) -> Dataset:
    return generate(distribution, n, d, skew, rng=seed)


def dataset(s: Settings | None = None) -> Dataset:
    """The dataset for the current settings (cached on plain values)."""
    s = s or settings()
    return _dataset(s.distribution, s.n, s.d, s.skew, s.seed)


@contextmanager
def user_errors() -> Iterator[None]:
    """Show a ``ValueError`` from dpcore as an ``st.error`` (with its fix) and stop the page."""
    try:
        yield
    except ValueError as err:
        st.error(f"{err}")
        st.stop()


def native_budget(budget: Budget, notion: str) -> Conversion:
    """The budget for a one-estimator teaching page in ``notion``. A zCDP estimator under a pure ε
    budget runs at the zCDP level ε-DP implies (:meth:`Budget.implied_zcdp`), with a warning that
    it does **not** give ε-DP (it is never ranked with ε-DP estimators)."""
    if notion == "zcdp":
        conv = budget.implied_zcdp()
        if not conv.meets_budget:
            st.warning(f"**Not ε-DP.** A zCDP estimator cannot meet a pure ε budget. {conv.rule} Switch the "
                       "sidebar budget to ρ or (ε, δ) for a guarantee it does meet.", icon=":material/warning:")
        return conv
    return budget.to_native(notion)  # type: ignore[arg-type]


def show_code(code: str, label: str = "Show the code") -> None:
    """An expander with the exact dpcore calls behind the view."""
    with st.expander(label):
        st.code(code, language="python")


def download_csv(df: pd.DataFrame, name: str, label: str = "Download the data (CSV)") -> None:
    """A CSV download of the data behind a chart (written only when clicked, so a rerun stays fast)."""
    st.download_button(label, lambda: to_csv(df), file_name=f"{name}.csv", mime="text/csv",
                       key=f"download-{name}")


def download_image(fig: Any, name: str, fmt: ImageFormat) -> None:
    """A slide-sized PNG or SVG download, rendered only when clicked (kaleido + Chromium); a
    disabled button that says why when this machine cannot render one."""
    problem = export.static_export_problem()
    mime = {"png": "image/png", "svg": "image/svg+xml"}[fmt]
    st.download_button(fmt.upper(), (lambda: export.to_image(fig, fmt)) if problem is None else b"",
                       file_name=f"{name}.{fmt}", mime=mime, key=f"download-{name}-{fmt}", disabled=problem is not None,
                       help=problem or f"The chart as {fmt.upper()}, 1280×720 (a 16:9 slide).")


def chart(fig: Any, data: pd.DataFrame, name: str, sentence: str, code: str) -> None:
    """A Plotly chart with its sentence, CSV/PNG/SVG downloads and code expander (the house pattern)."""
    fig = tidy_log_axes(fig)
    st.plotly_chart(fig, key=f"chart-{name}")
    st.markdown(sentence)
    cols = st.columns([3, 1, 1, 5])
    with cols[0]:
        download_csv(data, name)
    for col, fmt in zip(cols[1:3], ("png", "svg"), strict=True):
        with col:
            download_image(fig, name, fmt)
    with cols[3]:
        show_code(code)
    if (problem := export.static_export_problem()) is not None:
        st.caption(f"PNG/SVG: {problem}")
    st.session_state.setdefault("_ui_charts", {})[name] = (fig, sentence, data)


def report_button(title: str, names: list[str], *, settings: dict[str, Any], ledger: pd.DataFrame | None,
                  code: str, key: str) -> None:
    """A download of the view as one self-contained HTML file (:mod:`dpcore.report`), built from
    the charts this page drew with :func:`chart` under ``names``; built only when clicked."""
    drawn = st.session_state.get("_ui_charts", {})
    shown = [drawn[n] for n in names if n in drawn]

    def build() -> bytes:
        from dpcore.report import build_report

        return build_report(title=title, settings=settings, figures=[(f, t) for f, t, _ in shown],
                            tables=[(f"Data behind chart {i + 1}", d) for i, (_, _, d) in enumerate(shown)
                                    if len(d) <= 200],
                            ledger=ledger, code=code,
                            notes=["Noise from a seeded NumPy generator: a simulation, not a secure release."]
                            ).encode()

    st.download_button("Download a report of this view (HTML)", build, file_name=f"{key}_report.html",
                       mime="text/html", key=f"download-{key}-report",
                       help="One self-contained HTML file: the charts, their numbers, the settings, the budget "
                            "ledger and the code that reproduces them.")


PEERS_LABEL = "Include the libraries you would use instead"


def include_peers(key: str) -> bool:
    """A switch adding the peer libraries' means (OpenDP, diffprivlib); disabled, with how to
    install them, when none imports."""
    from dpcore.estimators import peers

    have = {lib: v for lib, v in peers.available().items() if v is not None}
    if not have:
        st.toggle(PEERS_LABEL, value=False, disabled=True, key=key,
                  help=f"Not installed here. Enable with: {peers.ENABLE_HINT}")
        st.caption(f"The peer libraries (OpenDP, diffprivlib) are not installed: `{peers.ENABLE_HINT}`.")
        return False
    versions = ", ".join(f"{lib} {v}" for lib, v in have.items())
    return st.toggle(PEERS_LABEL, value=False, key=key,
                     help=f"Adds the means of {versions}, run through the libraries' own APIs on the same data "
                          "and budget. OpenDP draws its own unseedable noise: its numbers change on every run.")


def simulation_notice() -> None:
    st.caption("Noise here comes from a seeded NumPy generator: right for teaching and simulation, "
               "not a secure differentially private release of real data.")
