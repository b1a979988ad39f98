"""What leaves the app as a file: formula-safe CSV, and static PNG/SVG images of a chart.

**CSV.** Estimator ids, labels and column names can come from a user (an uploaded config, a CSV
header). A cell starting with ``=``, ``+``, ``-``, ``@`` (or their full-width forms, or after
blank space), a tab or a line break is run as a formula by Excel, LibreOffice and Google Sheets
(CSV/formula injection, OWASP). Every CSV dpmean lab writes, in the app and from the command line,
goes through :func:`to_csv`, which prefixes such *text* cells (checked line by line) with a single
quote and quotes every cell holding a line break. Numbers (a negative error, ``-0.5``) are left as
numbers.

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
import re
import shutil
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pandas as pd

#: Characters that make a spreadsheet read a cell as a formula when a line of it starts with one
#: (after any leading blank space): ASCII, full-width and small-form variants.
_TRIGGERS = (
    "=",
    "+",
    "-",
    "@",
    "\uff1d",
    "\uff0b",
    "\uff0d",
    "\uff20",
    "\ufe66",
    "\ufe62",
    "\ufe63",
    "\ufe6b",
)
#: A cell starting with one of these is escaped too (a tab or line break can start a formula).
_LEADING = ("\t", "\r", "\n")
#: Text that is just a number (``-0.5``, ``+5``, ``-1e5``): a spreadsheet reads a number, no formula.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_LINES = re.compile(r"\r\n|\r|\n")


def _runs(line: str) -> bool:
    """Whether a spreadsheet could run ``line`` as a formula."""
    body = line.lstrip()
    return (len(body) > 1 or body != line) and body.startswith(_TRIGGERS)


def escape_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is a string a spreadsheet would run as a formula.

    Every line of the cell is checked, after any leading blank space, for ``=``, ``+``, ``-``,
    ``@`` and their full-width forms; a cell starting with a tab or a line break is escaped too.
    Each later line that would run gets its own ``'``. A lone ``-`` (our "no unit" mark) and text
    that is just a number are left as they are.

    >>> escape_cell("=1+1"), escape_cell(" ＝1"), escape_cell("-0.5"), escape_cell("-")
    ("'=1+1", "' ＝1", '-0.5', '-')
    """
    if not isinstance(value, str) or not value or _NUMBER.fullmatch(value):
        return value
    lines = _LINES.split(value)
    if not value.startswith(_LEADING) and not any(_runs(line) for line in lines):
        return value
    if len(lines) == 1:
        return "'" + value
    seps = _LINES.findall(value)
    parts = ["'" + lines[0]]
    for sep, line in zip(seps, lines[1:], strict=True):
        parts.append(sep + ("'" + line if _runs(line) else line))
    return "".join(parts)


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
    # "\r\n" (RFC 4180) makes the csv writer quote every field holding a CR or an LF, so a line
    # break inside a cell never starts a new row
    if path is None:
        return safe.to_csv(index=False, lineterminator="\r\n").encode()
    safe.to_csv(path, index=False, lineterminator="\r\n")
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
    import lock, which every page view's download buttons contend for)."""
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
