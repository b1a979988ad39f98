"""Shared pieces of every page: the global settings, the current dataset, and the conventions
every chart follows (a sentence with the number, a CSV download, a "show the code" expander).

The global settings live in ``st.session_state`` (written by the sidebar in ``app.py``) and in the
URL query string, so a link reproduces the view. This module holds no DP logic.
"""

from __future__ import annotations

import gc
import json
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any
from urllib.parse import parse_qs, urlparse

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpcore import export, limits
from dpcore.data import DISTRIBUTIONS, Dataset, generate
from dpcore.export import ImageFormat, to_csv
from dpcore.figures.slides import split_subplots
from dpcore.figures.style import PreparedFigure, prepared, remembered, tidy_log_axes
from dpcore.figures.theme import on_dark
from dpcore.privacy import Budget, Conversion, approx_to_zcdp, pure_to_zcdp, zcdp_to_approx
from pages._notebook import record
from pages._phone import figure_title, title_line

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


def navigation_pages() -> list[Any]:
    """The app's pages for ``st.navigation``: one ``st.Page`` per entry of
    :data:`pages._spec.PAGES` whose script exists, in that order (paths relative to ``app.py``)."""
    from pathlib import Path

    from pages._spec import PAGES

    root = Path(__file__).resolve().parent.parent
    return [
        st.Page(p.path, title=p.title, icon=p.icon, default=p.default)
        for p in PAGES
        if (root / p.path).exists()
    ]


#: Whether ``app.py`` is running a page in this thread (set by :func:`shell_runs`).
_SHELL = threading.local()


@contextmanager
def shell_runs() -> Iterator[None]:
    """The context ``app.py`` runs the chosen page in (``with shell_runs(): nav.run()``): inside
    it, :func:`settings` knows the page was reached through the shell."""
    _SHELL.running = True
    try:
        yield
    finally:
        _SHELL.running = False


def _leave_legacy_pages_mode() -> None:
    """Make sure ``app.py`` (the shell) runs, whatever page a fresh server is first asked for.

    Streamlit treats a folder called ``pages/`` next to the entry point as a legacy (v1) multipage
    app until some session calls ``st.navigation`` ("as soon as any session of your app executes
    the st.navigation command, your app will ignore the pages/ directory (across all sessions)",
    Streamlit's ``st.navigation`` reference). If the first request to a fresh server is a page URL
    (a shared link), Streamlit runs that page alone, without the sidebar and URL binding of
    ``app.py``. Pages call :func:`settings` first, so a page run outside :func:`shell_runs` calls
    ``st.navigation`` itself (with the app's own pages) and reruns: the rerun executes ``app.py``,
    which routes to the same page. ``AppTest`` starts every run in the legacy mode, hence the
    check on every call. Outside a script run (no server and no session the shell initialised,
    e.g. a unit test calling :func:`settings`) nothing is done.
    """
    if getattr(_SHELL, "running", False):
        return
    if not (st.runtime.exists() or st.session_state.get("_initialised")):
        return
    st.navigation(navigation_pages(), position="hidden")
    st.rerun()


#: Valid ranges of the numeric URL parameters (values outside fall back to the default, so no
#: widget is ever handed a value outside its own range).
QUERY_RANGES: dict[str, tuple[type, float, float]] = {
    "skew": (float, -1e6, 1e6),
    "budget_value": (float, -math.inf, math.inf),
    "delta": (float, -math.inf, math.inf),
    "n": (int, 2, limits.MAX_N),
    "d": (int, 1, limits.MAX_D),
    "seed": (int, 0, MAX_SEED),
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
        if not (math.isfinite(value) and lo <= value <= hi) or (
            cast is int and not value.is_integer()
        ):
            continue
        out[key] = int(value) if cast is int else value + 0.0  # -0.0 -> 0.0
    if params.get("unit") in UNITS:
        out["unit"] = params["unit"]
    return out


def size_error(n: int, d: int) -> str | None:
    """Why ``n`` rows by ``d`` columns are too many for an interactive page, or ``None``."""
    if n * d > limits.MAX_APP_CELLS:
        return (
            f"n × d = {n * d:,} values is above the interactive pages' limit of {limits.MAX_APP_CELLS:,} "
            f"(dpcore.limits); use at most n = {limits.MAX_APP_CELLS // d:,} rows at d = {d}, or run "
            "larger experiments from a terminal (python -m dpcore.experiments)."
        )
    try:
        limits.check_size(n, d)
    except ValueError as err:
        return str(err)
    return None


# ---------------------------------------------------------------------------------------------
# one source of truth for state: the sidebar (global keys) and page-local controls, both in the URL

#: The session-state keys of the sidebar controls (they double as URL query parameters).
GLOBAL_KEYS = tuple(asdict(DEFAULTS))
_PENDING = "_pending_sidebar"


def url_value(key: str) -> str | None:
    """A query parameter of the URL the session opened (or of the current query string).

    ``app.py`` rewrites the query string before a page runs, and page links drop page-own
    parameters, so on a session's first run a page's value is recovered from the URL the browser
    opened (``st.context.url``).
    """
    v = st.query_params.get(key)
    if v:
        return str(v) if len(str(v)) <= MAX_URL_VALUE else None
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - no browser context (e.g. under AppTest)
        url = ""
    found = parse_qs(urlparse(url).query).get(key)
    return found[0] if found and len(found[0]) <= MAX_URL_VALUE else None


def _encode(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(value) if isinstance(value, float) else str(value)


#: Longest URL value a page reads (characters); a longer one is treated as absent.
MAX_URL_VALUE = 4096
#: Deepest nesting of JSON read from a URL value (``yd_bounds`` is ``{column: [lower, upper]}``).
MAX_URL_DEPTH = 3
#: What a malformed URL value raises while it is read (each falls back to the default).
URL_ERRORS = (TypeError, ValueError, OverflowError, RecursionError, AttributeError, KeyError)


def url_number(raw: str, *, integer: bool = False) -> float | int:
    """The one reader of numbers in links: a finite float (``-0`` read as ``0``) or an int.

    Raises ``ValueError`` for text longer than 64 characters, ``inf``/``nan``/``1e400`` and, when
    ``integer``, a number with a fraction, so every page falls back to its default on them.

    >>> url_number("-0"), url_number("12", integer=True), url_number("1e3", integer=True)
    (0.0, 12, 1000)
    >>> url_number("1e400")
    Traceback (most recent call last):
    ...
    ValueError: not a finite number: '1e400'
    """
    if not isinstance(raw, str) or len(raw) > 64:
        raise ValueError(f"not a number: {str(raw)[:64]!r}")
    v = float(raw)
    if not math.isfinite(v) or (integer and not v.is_integer()):
        raise ValueError(f"not a finite {'integer' if integer else 'number'}: {raw!r}")
    return int(v) if integer else v + 0.0  # + 0.0 turns -0.0 into 0.0 (one cache key, one label)


def url_json(raw: str, max_depth: int = MAX_URL_DEPTH) -> Any:
    """JSON from a link, refused (``ValueError``) above :data:`MAX_URL_VALUE` characters or
    ``max_depth`` levels of nesting before it is parsed; NaN and infinities are refused too."""
    if not isinstance(raw, str) or len(raw) > MAX_URL_VALUE:
        raise ValueError("the link's value is too long")
    depth = 0
    for ch in raw:  # brackets inside strings count too: a stricter bound, never a looser one
        depth += (ch in "[{") - (ch in "]}")
        if depth > max_depth:
            raise ValueError("the link's value is nested too deeply")
    return json.loads(raw, parse_constant=_refuse_constant)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _decode(raw: str, default: Any) -> Any:
    """Parse ``raw`` as the type of ``default`` (raises ``ValueError`` on a malformed value)."""
    if not isinstance(raw, str) or len(raw) > MAX_URL_VALUE:
        raise ValueError("the link's value is too long")
    if isinstance(default, bool):
        if raw not in ("0", "1", "True", "False"):
            raise ValueError(raw)
        return raw in ("1", "True")
    if isinstance(default, int):
        return url_number(raw, integer=True)
    if isinstance(default, float):
        return url_number(raw)
    if isinstance(default, (list, tuple)):
        return [r for r in raw.split(",") if r]
    return raw


def url_state(
    key: str,
    default: Any,
    *,
    valid: Callable[[Any], bool] | None = None,
    parse: Callable[[str], Any] | None = None,
) -> str:
    """Bind the page-local widget ``key`` to the URL and let it survive page changes.

    Call it just before drawing the widget with ``key=key`` (and no ``value=``/``index=``), then
    call :func:`url_sync` with the widget's value. On a session's first visit the value comes from
    the URL (``?key=...``), else ``default``; afterwards it lives in ``st.session_state['_keep_' + key]``,
    which Streamlit does not clear when the widget is off screen (a widget's own state is dropped
    when another page runs). ``valid`` rejects stored or URL values that no longer fit (e.g. options
    that changed); ``parse`` turns the URL text into a value (defaults to the type of ``default``).
    Returns ``key``.
    """
    ss = st.session_state
    keep = f"_keep_{key}"
    read = ss.setdefault("_url_read", set())
    ok = valid or (lambda _v: True)
    if keep not in ss and key not in read:
        read.add(key)
        raw = url_value(key)
        if raw is not None:
            try:
                value = parse(raw) if parse else _decode(raw, default)
                if isinstance(value, float):
                    value += 0.0  # -0.0 -> 0.0
                if ok(value):
                    ss[keep] = value
            except URL_ERRORS:
                pass
    if keep in ss and not ok(ss[keep]):
        del ss[keep]
    if key in ss and not ok(ss[key]):
        del ss[key]
    if key not in ss:
        ss[key] = ss.get(keep, default)
    send_values(key)
    return key


def send_values(*keys: str) -> None:
    """Set these widgets' session values again, so this run sends them to the browser.

    Call it before drawing widgets whose value lives in ``st.session_state`` (drawn with ``key=`` and
    no ``value=``/``index=``). Streamlit sends a widget's value only in a run that set it through the
    session (``set_value``); otherwise the message carries the widget's own default (a multiselect's
    empty list, a select box's first option, a number box's minimum), and a browser that has dropped
    its copy of the value draws that. Seen in use: Compare's estimators drawn empty and its story
    as "Your sidebar settings" after the background refinement's ``st.rerun()``, and the sidebar at
    n = 2, d = 1, ρ = 0, seed 0 after a page change under load, while the server held other values.
    """
    ss = st.session_state
    for key in keys:
        if key in ss:
            ss[key] = ss[key]


def url_sync(key: str, value: Any) -> Any:
    """Record the widget's current ``value`` (session and URL); returns ``value``."""
    st.session_state[f"_keep_{key}"] = value
    st.session_state.setdefault("_page_keys", set()).add(key)
    if value is None:  # no choice made yet (a radio with no default): nothing to carry
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = _encode(value)
    return value


def url_widget(
    widget: Callable[..., Any],
    label: str,
    *args: Any,
    key: str,
    default: Any,
    valid: Callable[[Any], bool] | None = None,
    parse: Callable[[str], Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Draw ``widget(label, *args, key=key, **kwargs)`` bound to the URL (see :func:`url_state`).

    ``widget`` is any Streamlit input (``st.radio``, ``col.slider``, ...); pass no ``value=`` or
    ``index=``: the start value is ``default`` or what the URL or this session said. A value from
    the URL or the session must fit the widget itself (a slider's or number box's range, a choice
    widget's options: :func:`_fits_widget`) and ``valid``, when given, as well.
    """
    fits = _fits_widget(widget, args, kwargs)
    both = fits if valid is None else (lambda v: fits(v) and valid(v))
    url_state(key, default, valid=both, parse=parse)
    return url_sync(key, widget(label, *args, key=key, **kwargs))


def _fits_widget(
    widget: Callable[..., Any], args: tuple, kwargs: dict[str, Any]
) -> Callable[[Any], bool]:
    """Whether a value fits what ``widget(label, *args, **kwargs)`` can show: within a slider's or
    number box's ``min_value``/``max_value``, or one of (for a multiselect: a subset of) a radio's,
    select box's or select slider's ``options`` (positional or keyword, as Streamlit takes them)."""
    name = getattr(widget, "__name__", "")

    def arg(i: int, name_: str) -> Any:
        return kwargs.get(name_, args[i] if len(args) > i else None)

    if name in ("slider", "number_input"):
        lo, hi = arg(0, "min_value"), arg(1, "max_value")

        def in_range(v: Any) -> bool:
            if isinstance(v, bool) or not isinstance(v, int | float):
                return False
            return (lo is None or v >= lo) and (hi is None or v <= hi)

        return in_range
    options = arg(0, "options")
    if options is None or name not in ("radio", "selectbox", "select_slider", "multiselect"):
        return lambda _v: True
    choices = list(options)
    if name == "multiselect":
        return lambda v: isinstance(v, list) and all(c in choices for c in v)
    return lambda v: v in choices


def forget(*keys: str) -> None:
    """Drop page-local values (e.g. when a preset resets the controls it owns) back to their defaults."""
    for key in keys:
        st.session_state.pop(key, None)
        st.session_state.pop(f"_keep_{key}", None)


def sidebar_values(values: dict[str, Any]) -> dict[str, Any]:
    """The sidebar keys ``values`` sets, normalised (skew inside the distribution's range)."""
    out = {k: v for k, v in values.items() if k in GLOBAL_KEYS}
    dist = DISTRIBUTIONS[
        out.get("distribution", st.session_state.get("distribution", DEFAULTS.distribution))
    ]
    if "skew" in out and not dist.skew_range[0] <= out["skew"] <= dist.skew_range[1]:
        out["skew"] = dist.default_skew
    return out


def set_sidebar(values: dict[str, Any], *, rerun: bool = False) -> None:
    """Write ``values`` into the sidebar's controls: the one state the URL carries.

    From a widget callback (which runs before the sidebar is drawn) the values apply at once. From a
    page body (the sidebar is already drawn) pass ``rerun=True``: they are applied by ``app.py`` at
    the start of the next run.
    """
    vals = sidebar_values(values)
    if rerun:
        st.session_state[_PENDING] = vals
        st.rerun()
    apply_sidebar(vals)


def apply_sidebar(vals: dict[str, Any] | None = None) -> None:
    """Apply sidebar values (or the pending ones ``set_sidebar(..., rerun=True)`` left)."""
    ss = st.session_state
    if vals is None:
        vals = ss.pop(_PENDING, None)
        if not vals:
            return
    for k, v in vals.items():
        ss[k] = v
    if "budget_value" in vals:
        ss["budget_preset"] = nearest_preset(float(vals["budget_value"]))
    ss["_prev_unit"] = ss.get("unit", DEFAULTS.unit)
    ss["_prev_distribution"] = ss.get("distribution", DEFAULTS.distribution)
    ss.pop("_unit_rule", None)


def nearest_preset(value: float) -> float:
    """The budget preset closest to ``value`` on a log scale (the smallest for a non-positive value)."""
    if not value > 0:
        return BUDGET_PRESETS[0]
    return min(BUDGET_PRESETS, key=lambda p: abs(math.log(p / value)))


def convert_unit(old: str, new: str, value: float, delta: float) -> tuple[float, str]:
    """The budget in unit ``new`` that matches ``value`` in unit ``old``, and the rule used.

    Rule: where the old guarantee implies one in the new unit, take the value it implies
    (ε-DP ⇒ ε²/2-zCDP; ρ-zCDP ⇒ (ε, δ)-DP by the Canonne–Kamath–Steinke bound; ε-DP ⇒ (ε, δ)-DP).
    Where nothing is implied (zCDP or (ε, δ) never imply pure ε-DP; (ε, δ) never implies zCDP), take
    the weakest budget in the new unit that implies the old one (ε = √(2ρ); the largest ρ whose CKS
    conversion is (ε, δ); the same ε). These are the conversions the app runs estimators by, and
    each pair is inverse to the other, so switching back and forth returns the first value.
    """
    if old == new or not value > 0:
        return value, ""
    if (old, new) == ("eps", "rho"):
        return pure_to_zcdp(
            value
        ), f"ρ = ε²/2 = {pure_to_zcdp(value):.4g} (what ε = {value:g}-DP implies)"
    if (old, new) == ("rho", "eps"):
        e = math.sqrt(2 * value)
        return e, (
            f"ε = √(2ρ) = {e:.4g}: the pure ε whose implied zCDP level is ρ = {value:g} (zCDP never "
            "implies pure ε-DP, so this ε-DP budget is the weakest that still meets the ρ one)"
        )
    if (old, new) == ("rho", "eps_delta"):
        e = zcdp_to_approx(value, delta, "cks")
        return (
            e,
            f"ε = {e:.4g} at δ = {delta:g}: what ρ = {value:g}-zCDP implies (Canonne–Kamath–Steinke bound)",
        )
    if (old, new) == ("eps_delta", "rho"):
        r = approx_to_zcdp(value, delta, "cks")
        return r, (
            f"ρ = {r:.4g}: the largest ρ whose guarantee implies (ε, δ) = ({value:g}, {delta:g}) "
            "(Canonne–Kamath–Steinke bound)"
        )
    if (old, new) == ("eps", "eps_delta"):
        return value, f"same ε = {value:g}: ε-DP implies (ε, δ)-DP for every δ"
    return value, (
        f"same ε = {value:g}: (ε, δ)-DP never implies pure ε-DP; ε-DP at the same ε is the weakest "
        "pure budget that meets it"
    )  # eps_delta -> eps


def settings() -> Settings:
    """The current global settings (as set in the sidebar)."""
    _leave_legacy_pages_mode()
    ss = st.session_state
    return Settings(**{k: ss.get(k, getattr(DEFAULTS, k)) for k in asdict(DEFAULTS)})


@st.cache_data(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _dataset(distribution: str, n: int, d: int, skew: float, seed: int) -> Dataset:
    return generate(distribution, n, d, skew, rng=seed)


#: Datasets with more values than this are not kept in the cache all sessions share (8 entries
#: there could hold 8 × 16 MB at the page limit); each session keeps only its latest one.
SHARED_DATASET_CELLS = 250_000


_LAST_COLLECT = [0.0]


def _collect_old_runs(every: float = 2.0) -> None:
    """Run Python's cycle collector (at most once per ``every`` seconds per process).

    A page's previous runs end as reference cycles (its functions and its module namespace, which
    holds that run's dataset); the collector runs by object counts, not bytes, so at the largest
    sizes a visitor stepping through seeds would pile up one 16 MB dataset per run until it did.
    """
    now = time.monotonic()
    if now - _LAST_COLLECT[0] >= every:
        _LAST_COLLECT[0] = now
        gc.collect()


def dataset(s: Settings | None = None) -> Dataset:
    """The dataset for the current settings (cached on plain values).

    Small datasets come from a cache shared by all sessions; one above
    :data:`SHARED_DATASET_CELLS` values is kept per session, only the latest (a copy of its rows
    is returned, as the shared cache returns copies).
    """
    s = s or settings()
    key = (s.distribution, int(s.n), int(s.d), float(s.skew), int(s.seed))
    if key[1] * key[2] <= SHARED_DATASET_CELLS:
        return _dataset(*key)
    try:
        # in a thread outside a script run Streamlit hands out one process-wide stand-in state:
        # the copy is then kept there (one at most), as for a session
        ss: Any = st.session_state
    except Exception:  # noqa: BLE001 - no session state at all: no per-session copy
        ss = None
    held = None if ss is None else ss.get("_large_dataset")
    if held is None or held[0] != key:
        _collect_old_runs()
        held = (key, generate(key[0], key[1], key[2], key[3], rng=key[4]))
        if ss is not None:
            ss["_large_dataset"] = held
    return replace(held[1], x=held[1].x.copy())


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
            st.warning(
                f"**Not ε-DP.** A zCDP estimator cannot meet a pure ε budget. {conv.rule} Switch the "
                "sidebar budget to ρ or (ε, δ) for a guarantee it does meet.",
                icon=":material/warning:",
            )
        return conv
    return budget.to_native(notion)  # type: ignore[arg-type]


def show_code(code: str, label: str = "Show the code") -> None:
    """An expander with the exact dpcore calls behind the view."""
    with st.expander(label):
        st.code(code, language="python")


def download_csv(df: pd.DataFrame, name: str, label: str = "Download the data (CSV)") -> None:
    """A CSV download of the data behind a chart (written only when clicked, so a rerun stays fast)."""
    st.download_button(
        label, lambda: to_csv(df), file_name=f"{name}.csv", mime="text/csv", key=f"download-{name}"
    )


def download_image(fig: Any, name: str, fmt: ImageFormat) -> None:
    """A slide-sized PNG or SVG download, rendered only when clicked (kaleido + Chromium); a
    disabled button that says why when this machine cannot render one."""
    problem = export.static_export_problem()
    mime = {"png": "image/png", "svg": "image/svg+xml"}[fmt]
    st.download_button(
        fmt.upper(),
        (lambda: export.to_image(fig, fmt)) if problem is None else b"",
        file_name=f"{name}.{fmt}",
        mime=mime,
        key=f"download-{name}-{fmt}",
        disabled=problem is not None,
        help=problem or f"The chart as {fmt.upper()}, 1280×720 (a 16:9 slide).",
    )


def themed(fig: Any) -> Any:
    """``fig`` as drawn for the visitor's theme: in a dark theme its near-black ink turns light."""
    return on_dark(fig) if st.context.theme.type == "dark" else fig


def chart(
    fig: Any,
    data: pd.DataFrame,
    name: str,
    sentence: str,
    code: str,
    on_click: Callable[[], None] | None = None,
    columns: int = 1,
    panel: int | None = None,
    *,
    narrow: bool = False,
) -> None:
    """A Plotly chart with its sentence, CSV/PNG/SVG downloads and code expander (the house pattern).

    ``on_click``: called when the user clicks a point (the selection is in
    ``st.session_state[f"chart-{name}"]``). ``columns`` > 1: a figure of several panels is drawn as
    one figure per panel, ``columns`` to a row (``st.columns``: one per row on a phone); the
    downloads keep the whole figure. ``panel``: draw only that panel (a slide in presenter mode).
    ``narrow``: the chart sits in a narrow column; the buttons then get short labels in one row and
    the code expander goes below them (their full labels would be cut off).
    """
    fig = tidy_log_axes(fig)  # as exported and in the reports and slides (a white page)
    shown = themed(fig)
    alt = sentence.replace("**", "")  # the sentence is the alt text
    split = columns > 1 or panel is not None
    if isinstance(shown, go.Figure):  # a kept figure's JSON is made once (style.keep)
        parts = remembered(
            shown,
            split,
            lambda: [
                (PreparedFigure(p.to_dict()), p.layout.title.text)
                for p in (split_subplots(shown) if split else [shown])
            ],
        )
    else:  # a kept drawn_dict is sent as it is
        parts = (
            [(p, p.layout.title.text) for p in split_subplots(shown)]
            if split
            else [(prepared(shown), None)]
        )
    parts = parts if panel is None else [parts[panel]]
    if len(parts) == 1:
        title_line(st, parts[0][1] or figure_title(parts[0][0]))  # shown on a phone only
        st.plotly_chart(
            parts[0][0],
            key=f"chart-{name}",
            alt=alt,
            **({"on_select": on_click, "selection_mode": "points"} if on_click else {}),
        )
    else:
        for start in range(0, len(parts), columns):
            row = zip(st.columns(columns), parts[start : start + columns], strict=False)
            for k, (col, (part, title)) in enumerate(row):
                title_line(col, title)
                col.plotly_chart(part, key=f"chart-{name}-{start + k}", alt=f"{title}. {alt}")
    st.markdown(sentence)
    st.session_state.setdefault("_ui_charts", {})[name] = (fig, sentence, data)
    record(name, sentence, code)  # for the notebook of this view (pages/_notebook.py)
    if st.session_state.get(
        "present", False
    ):  # presenter mode (pages/_present.py): no downloads, no code
        return
    cols = st.columns(3 if narrow else [3, 1, 1, 5])
    with cols[0]:
        download_csv(data, name, "CSV" if narrow else "Download the data (CSV)")
    for col, fmt in zip(cols[1:3], ("png", "svg"), strict=True):
        with col:
            download_image(fig, name, fmt)
    with st.container() if narrow else cols[3]:
        show_code(code)
    if (problem := export.static_export_problem()) is not None:
        st.caption(f"PNG/SVG: {problem}")


def report_button(
    title: str,
    names: list[str],
    *,
    settings: dict[str, Any],
    ledger: pd.DataFrame | None,
    code: str,
    key: str,
) -> None:
    """A download of the view as one self-contained HTML file (:mod:`dpcore.report`), built from
    the charts this page drew with :func:`chart` under ``names``; built only when clicked."""
    drawn = st.session_state.get("_ui_charts", {})
    shown = [drawn[n] for n in names if n in drawn]

    def build() -> bytes:
        from dpcore.report import build_report

        return build_report(
            title=title,
            settings=settings,
            figures=[(f, t) for f, t, _ in shown],
            tables=[
                (f"Data behind chart {i + 1}", d)
                for i, (_, _, d) in enumerate(shown)
                if len(d) <= 200
            ],
            ledger=ledger,
            code=code,
            notes=["Noise from a seeded NumPy generator: a simulation, not a secure release."],
        ).encode()

    st.download_button(
        "Download a report of this view (HTML)",
        build,
        file_name=f"{key}_report.html",
        mime="text/html",
        key=f"download-{key}-report",
        help="One self-contained HTML file: the charts, their numbers, the settings, the budget "
        "ledger and the code that reproduces them.",
    )


PEERS_LABEL = "Include the libraries you would use instead"


def include_peers(key: str) -> bool:
    """A switch adding the peer libraries' means (OpenDP, diffprivlib); disabled, with how to
    install them, when none imports."""
    from dpcore.estimators import peers

    have = {lib: v for lib, v in peers.available().items() if v is not None}
    if not have:
        st.toggle(
            PEERS_LABEL,
            value=False,
            disabled=True,
            key=key,
            help=f"Not installed here. Enable with: {peers.ENABLE_HINT}",
        )
        st.caption(
            f"The peer libraries (OpenDP, diffprivlib) are not installed: `{peers.ENABLE_HINT}`."
        )
        return False
    versions = ", ".join(f"{lib} {v}" for lib, v in have.items())
    return url_widget(
        st.toggle,
        PEERS_LABEL,
        key=key,
        default=False,
        valid=lambda v: isinstance(v, bool),
        help=f"Adds the means of {versions}, run through the libraries' own APIs on the same data "
        "and budget. OpenDP draws its own unseedable noise: its numbers change on every run.",
    )


def simulation_notice() -> None:
    st.caption(
        "Noise here comes from a seeded NumPy generator: right for teaching and simulation, "
        "not a secure differentially private release of real data."
    )


# ---------------------------------------------------------------------------------------------
# words: hover definitions from the one glossary (dpcore.glossary)


def term(name: str, shown: str | None = None) -> str:
    """HTML for ``name`` with its glossary definition on hover (use with ``unsafe_allow_html=True``)."""
    from html import escape

    from dpcore.glossary import define

    return f'<abbr title="{escape(define(name), quote=True)}">{escape(shown or name)}</abbr>'


def words_on_this_page(*names: str) -> None:
    """One line listing the page's technical terms, each defined on hover (full list: Glossary page)."""
    st.markdown(
        "<small>Words on this page (hover for a definition): "
        + " · ".join(term(n) for n in names)
        + "</small>",
        unsafe_allow_html=True,
    )


# ---------------------------------------------------------------------------------------------
# feedback: the time a run will take, and a choice before a long one

#: A run predicted to take longer than this many seconds asks first.
LONG_RUN_SECONDS = 3.0
#: Compare draws a first result at once and refines it by itself (on the shared pool, behind
#: every page view) when the whole sweep is predicted within this many seconds; beyond, it offers
#: the full run with its time, and smaller settings.
AUTO_REFINE_SECONDS = 20.0


def confirm_long_run(
    key: str,
    seconds: float,
    what: str,
    smaller: Sequence[tuple[str, float, Callable[[], None]]] = (),
) -> None:
    """Before a run predicted to take more than :data:`LONG_RUN_SECONDS`, show the estimate and a choice.

    ``key`` names the exact run (e.g. its config JSON); once the user chose "Run", the same run is not
    asked about again. ``smaller`` offers cheaper settings as ``(label, predicted seconds, callback)``;
    a callback writes the smaller setting into session state. Stops the page until the user picks.
    """
    if seconds <= LONG_RUN_SECONDS:
        return
    ss = st.session_state
    approved = ss.setdefault("_approved_runs", set())
    if key in approved:
        return
    box = st.container(border=True)
    box.markdown(
        f"**This will take about {duration_text(seconds)}** ({what}). Run it, or pick a smaller setting "
        "for a quick first result."
    )
    cols = box.columns(1 + len(smaller))
    cols[0].button(
        f"Run (≈ {duration_text(seconds)})",
        type="primary",
        key=f"run-{abs(hash(key))}",
        on_click=approved.add,
        args=(key,),
    )
    for col, (label, secs, callback) in zip(cols[1:], smaller, strict=True):
        col.button(f"{label} (≈ {duration_text(secs)})", on_click=callback, key=f"smaller-{label}")
    st.stop()


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    return f"{seconds / 60:.0f} min"


def smaller_data_choices(
    n: int, d: int, seconds: Callable[[int, int], float], *, within: float = LONG_RUN_SECONDS
) -> list[tuple[str, float, Callable[[], None]]]:
    """Cheaper sidebar settings for a page whose cost is ``seconds(n, d)``: the largest n (and d) on the
    usual grids that fit in ``within`` seconds, each as a choice for :func:`confirm_long_run`."""
    out: list[tuple[str, float, Callable[[], None]]] = []
    fit_n = [c for c in N_CHOICES if c < n and seconds(c, d) <= within]
    if fit_n:
        out.append(
            (
                f"Use n = {fit_n[-1]:,}",
                seconds(fit_n[-1], d),
                lambda v=fit_n[-1]: set_sidebar({"n": v}),
            )
        )
    fit_d = [c for c in D_CHOICES if c < d and seconds(n, c) <= within]
    if fit_d:
        out.append(
            (
                f"Use d = {fit_d[-1]}",
                seconds(n, fit_d[-1]),
                lambda v=fit_d[-1]: set_sidebar({"d": v}),
            )
        )
    return out
