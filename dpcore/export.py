"""What leaves the app as a file: formula-safe CSV, and static PNG/SVG images of a chart.

**CSV.** Estimator ids, labels and column names can come from a user (an uploaded config, a CSV
header). A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a
formula by Excel, LibreOffice and Google Sheets (CSV/formula injection, OWASP). Every CSV dpmean lab
writes, in the app and from the command line, goes through :func:`to_csv`, which prefixes such
*text* cells with a single quote. Numbers (a negative error, ``-0.5``) are left as numbers.

**Images.** kaleido 1.x renders in a headless Chrome it finds on the machine (``choreographer``
reads the ``BROWSER_PATH`` environment variable first). We point it at Debian's Chromium
(``/usr/bin/chromium``) or any ``chromium`` / ``google-chrome`` on ``PATH``, and never call
``kaleido.get_chrome``, which would download a browser. When kaleido or a browser is missing,
:func:`static_export_problem` says why and how to fix it, so the app can explain instead of fail.

References
----------
OWASP, "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection).
kaleido 1.x README (``write_fig_sync``, "Kaleido v1 requires Chrome"); plotly ``Figure.to_image``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pandas as pd

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is a string a spreadsheet would run as a formula."""
    if isinstance(value, str) and len(value) > 1 and value.startswith(_TRIGGERS):
        return "'" + value  # a lone "-" (our "no unit" mark) carries no formula and stays as it is
    return value


def escape_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names are escaped by :func:`escape_cell`."""
    out = frame.copy()
    for col in out.columns:
        if (
            out[col].dtype == object
            or pd.api.types.is_string_dtype(out[col])
            or isinstance(out[col].dtype, pd.CategoricalDtype)
        ):
            out[col] = out[col].astype(object).map(escape_cell)
    out.columns = [escape_cell(str(c)) if isinstance(c, str) else c for c in out.columns]
    return out


def to_csv(frame: pd.DataFrame, path: str | Path | None = None) -> bytes | None:
    """Write ``frame`` (without its index) as formula-safe CSV to ``path``, or return the bytes."""
    safe = escape_formulas(frame)
    if path is None:
        return safe.to_csv(index=False).encode()
    safe.to_csv(path, index=False)
    return None


ImageFormat = Literal["png", "svg"]

#: Where Debian installs Chromium.
DEBIAN_CHROMIUM = "/usr/bin/chromium"

#: Size of an exported chart: a 16:9 slide at 2× resolution for PNG.
SLIDE = {"width": 1280, "height": 720, "scale": 2}


def browser_path() -> str | None:
    """The Chrome/Chromium kaleido will use: ``$BROWSER_PATH``, Debian's Chromium, or one on PATH."""
    env = os.environ.get("BROWSER_PATH")
    if env:
        return env if os.access(env, os.X_OK) else None
    if os.access(DEBIAN_CHROMIUM, os.X_OK):
        return DEBIAN_CHROMIUM
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@functools.cache
def _kaleido_installed() -> bool:
    """Whether kaleido is importable; asked once per process (``find_spec`` takes the interpreter's
    import lock, which every page view's download buttons contended for; issue 18)."""
    return importlib.util.find_spec("kaleido") is not None


def static_export_problem() -> str | None:
    """``None`` when PNG/SVG export works here, else a sentence saying why not and the fix."""
    if not _kaleido_installed():
        return "PNG/SVG export needs kaleido: pip install -e '.[export]'."
    if browser_path() is None:
        env = os.environ.get("BROWSER_PATH")
        where = (
            f"BROWSER_PATH={env!r} is not an executable" if env else "no Chrome or Chromium found"
        )
        return (
            f"PNG/SVG export renders in Chrome or Chromium, and {where} "
            "(on Debian: apt install chromium; or set BROWSER_PATH)."
        )
    return None


def to_image(
    fig: Any,
    fmt: ImageFormat = "png",
    *,
    width: int = SLIDE["width"],
    height: int = SLIDE["height"],
    scale: float = SLIDE["scale"],
) -> bytes:
    """The figure as PNG or SVG bytes, sized for a slide.

    Raises
    ------
    RuntimeError
        With :func:`static_export_problem`'s sentence when export cannot work here.
    """
    import plotly.io as pio

    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt must be 'png' or 'svg'; got {fmt!r}.")
    problem = static_export_problem()
    if problem is not None:
        raise RuntimeError(problem)
    os.environ.setdefault("BROWSER_PATH", browser_path() or DEBIAN_CHROMIUM)
    with warnings.catch_warnings():  # plotly's "kopts ignored" note when a session() is open
        warnings.filterwarnings(
            "ignore", message="The kopts argument is ignored", category=UserWarning
        )
        return pio.to_image(
            fig, format=fmt, width=width, height=height, scale=scale if fmt == "png" else 1
        )


@contextmanager
def session() -> Iterator[None]:
    """Keep one Chromium open for several :func:`to_image` calls (kaleido's sync server).

    Does nothing when export cannot work here (then :func:`to_image` raises as usual).
    """
    if static_export_problem() is not None:
        yield
        return
    import kaleido

    os.environ.setdefault("BROWSER_PATH", browser_path() or DEBIAN_CHROMIUM)
    kaleido.start_sync_server(silence_warnings=True)
    try:
        yield
    finally:
        kaleido.stop_sync_server(silence_warnings=True)
