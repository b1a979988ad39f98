"""CSV output that a spreadsheet cannot mistake for formulas.

Estimator ids, labels and column names can come from a user (an uploaded config, a CSV header).
A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a formula by
Excel, LibreOffice and Google Sheets (CSV/formula injection, OWASP). Every CSV dpmean lab writes, in
the app and from the command line, goes through :func:`to_csv`, which prefixes such *text* cells
with a single quote. Numbers (a negative error, ``-0.5``) are left as numbers.

References
----------
OWASP, "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is a string a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(_TRIGGERS):
        return "'" + value
    return value


def escape_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names are escaped by :func:`escape_cell`."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]) \
                or isinstance(out[col].dtype, pd.CategoricalDtype):
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
