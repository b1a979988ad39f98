"""``MAX_UPLOAD_BYTES``, ``MAX_ROWS``, ``MAX_COLUMNS``, ``parse_csv``, ``_is_numeric``,
``describe_columns``, ``infer_kind``, ``data_bounds``, ``from_dataframe`` (moved from
``datasets.py``).
"""

from __future__ import annotations

import collections
import csv
import io
import math
import unicodedata
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpcore import limits
from dpcore._validation import (
    check_bounds,
    check_data,
    warn_bounds_from_data,
)
from dpcore.data.dataset import Dataset

#: Limits for user uploads (the page stays responsive and memory stays small).
MAX_UPLOAD_BYTES = limits.MAX_UPLOAD_BYTES


MAX_ROWS = limits.MAX_UPLOAD_ROWS


MAX_COLUMNS = limits.MAX_COLUMNS


# ----------------------------------------------------------------------------------------------
# user data
# ----------------------------------------------------------------------------------------------


def parse_csv(
    data: bytes,
    *,
    max_bytes: int = MAX_UPLOAD_BYTES,
    max_rows: int = MAX_ROWS,
    max_columns: int = MAX_COLUMNS,
) -> pd.DataFrame:
    """Parse the bytes of an uploaded CSV file in memory (nothing is written to disk).

    Raises a ``ValueError`` saying what is wrong and how to fix it for an empty file, a file that
    is not text CSV (binary, an image, a spreadsheet), one with no data rows, and one larger than
    ``max_bytes``, ``max_rows`` rows or ``max_columns`` columns.
    """
    text = _csv_text(data, max_bytes)
    # Count the header's fields before any parsing whose cost grows with the columns (the sniffer
    # and the parser are quadratic in a 40,000-field header): a delimiter count in one pass.
    header = text.lstrip("\r\n").split("\n", 1)[0]
    fields = max(header.count(c) for c in ",;\t|") + 1
    if fields > max_columns:
        raise ValueError(
            f"The header row has about {fields:,} columns; the limit is {max_columns}. "
            "Keep the columns you need."
        )
    try:
        dialect = csv.Sniffer().sniff(text[:20_000], delimiters=",;\t|")
        sep = dialect.delimiter
    except csv.Error:
        sep = ","
    _check_header(text, sep, max_columns)
    _check_rows(text, sep, max_columns)
    try:
        df = pd.read_csv(io.StringIO(text), sep=sep, nrows=max_rows + 1, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeError, ValueError) as err:
        raise ValueError(
            f"Could not read the file as CSV ({str(err).splitlines()[0]}). Check that every row "
            "has the same number of comma-separated fields and the first row names the columns."
        ) from None
    return _checked_frame(df, max_rows, max_columns)


def _csv_text(data: bytes, max_bytes: int) -> str:
    """The text of an uploaded file with Unix line ends, or a ``ValueError`` for an empty, too
    large, binary or blank file."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError("data must be the bytes of a CSV file.")
    raw = bytes(data)
    if len(raw) == 0:
        raise ValueError(
            "The file is empty; upload a CSV file with a header row and at least two data rows."
        )
    if len(raw) > max_bytes:
        raise ValueError(
            f"The file is {len(raw) / 2**20:.1f} MB; the limit is {max_bytes / 2**20:.0f} MB. "
            "Upload a sample or fewer columns."
        )
    text = _decode_text(raw)
    if text is None and (
        b"\x00" in raw[:8192]
        or raw[:4] in (b"PK\x03\x04", b"%PDF", b"\x89PNG")
        or raw[:3] == b"\xff\xd8\xff"
    ):
        raise ValueError(
            "That is not a CSV file (it looks binary: a spreadsheet, image or archive?). "
            "Save it as CSV (comma-separated text) and upload that."
        )
    if text is None:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # Windows and classic Mac line ends
    if not text.strip():
        raise ValueError(
            "The file holds only blank space; upload a CSV file with a header row and data rows."
        )
    return text


def _checked_frame(df: pd.DataFrame, max_rows: int, max_columns: int) -> pd.DataFrame:
    """``df`` with its column names stripped, or a ``ValueError`` for no data rows, too many rows
    or columns, or two columns of one name."""
    if df.shape[1] == 0 or df.shape[0] == 0:
        raise ValueError(
            "The CSV has a header but no data rows; it needs at least two rows of values."
        )
    if df.shape[0] > max_rows:
        raise ValueError(
            f"The CSV has more than {max_rows:,} rows; upload a random sample of at most {max_rows:,} rows."
        )
    if df.shape[1] > max_columns:
        raise ValueError(
            f"The CSV has {df.shape[1]:,} columns; the limit is {max_columns}. Keep the columns you need."
        )
    df.columns = [str(c).strip() for c in df.columns]
    if len(set(df.columns)) != len(df.columns):
        raise ValueError(
            "Two columns have the same name; give every column a unique name in the header row."
        )
    return df


def _decode_text(raw: bytes) -> str | None:
    """``raw`` decoded when it starts with a UTF-16 byte-order mark (Excel's "Unicode text"),
    else ``None`` (the caller tries UTF-8, then Latin-1)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            return None
    return None


def _check_header(text: str, sep: str, max_columns: int) -> None:
    """Refuse a header record (read by the ``csv`` module, so a quoted line break is followed)
    with more than ``max_columns`` fields or a repeated name, in time linear in its length."""
    reader = csv.reader(io.StringIO(text), delimiter=sep, skipinitialspace=True)
    try:
        header = next(reader, [])
    except csv.Error:
        return  # the parser below names the problem
    if len(header) > max_columns:
        raise ValueError(
            f"The header row has {len(header):,} columns; the limit is {max_columns}. "
            "Keep the columns you need."
        )
    names = [h.strip() for h in header]
    if len(set(names)) != len(names):
        counts = collections.Counter(names)
        twice = next(n for n in names if counts[n] > 1)
        raise ValueError(
            f"Two columns have the same name ({twice[:40]!r}); give every column a unique name "
            "in the header row."
        )
    _check_look_alikes(names)


def _check_rows(text: str, sep: str, max_columns: int) -> None:
    """Refuse a line with more than ``max_columns`` fields before pandas reads it (a one-column
    header over a line of 10 million fields kept the parser busy for minutes), in one pass."""
    for number, line in enumerate(text.split("\n"), 1):
        most = max(line.count(c) for c in ",;\t|")  # the sniffer may miss a ragged file's separator
        if most < max_columns:
            continue
        quoted = '"' in line and len(line) <= limits.MAX_LINE_CHARS  # separators in quotes
        if quoted and len(next(csv.reader([line], delimiter=sep), [])) <= max_columns:
            continue
        raise ValueError(
            f"Line {number:,} has about {most + 1:,} fields; the limit is "
            f"{max_columns} columns. Check the separator, or keep the columns you need."
        )


#: Letters of other scripts drawn like a Latin letter whose Unicode name does not end in it
#: (``CYRILLIC SMALL LETTER ER`` is drawn "p"); the others map by their name's last word.
_LOOKS_LIKE = {
    "IE": "e", "ER": "p", "ES": "c", "HA": "x", "U": "y", "EN": "h", "EM": "m", "TE": "t",
    "KA": "k", "VE": "b", "DZE": "s", "JE": "j", "OMICRON": "o", "ALPHA": "a", "RHO": "p",
    "NU": "v", "KAPPA": "k", "IOTA": "i", "TAU": "t", "BETA": "b", "ETA": "h", "MU": "m",
    "ZETA": "z", "CHI": "x", "EPSILON": "e", "UPSILON": "y",
}  # fmt: skip


def _skeleton(name: str) -> str:
    """How ``name`` looks: NFKC-normalised, invisible characters dropped, and each letter of
    another script that is drawn like a Latin letter replaced by it (case kept)."""
    out = []
    for ch in unicodedata.normalize("NFKC", name):
        if unicodedata.category(ch) == "Cf":  # zero-width spaces and joiners, direction marks
            continue
        words = unicodedata.name(ch, "").split()
        if ch.isascii() or "LETTER" not in words[:-1]:
            out.append(ch)
            continue
        latin = _LOOKS_LIKE.get(words[-1], words[-1].lower() if len(words[-1]) == 1 else ch)
        out.append(latin.upper() if "CAPITAL" in words and latin != ch else latin)
    return "".join(out)


def _check_look_alikes(names: list[str]) -> None:
    """Refuse two column names that differ but look the same (``wage`` and ``wаge`` with a
    Cyrillic ``а``, or a zero-width space): a visitor could not tell which one they picked."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(_skeleton(name), name)
        if other != name:
            odd = next(
                (
                    f"U+{ord(c):04X} {unicodedata.name(c, '?')}"
                    for c in name + other
                    if not c.isascii()
                ),
                "a character that is not plain text",
            )
            raise ValueError(
                f"Two columns have names that look the same: {other[:40]!r} and {name[:40]!r} "
                f"(one has {odd}); rename one of them in the header row."
            )


def _is_numeric(col: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)) or bool(
        pd.api.types.is_bool_dtype(col)
    )


def describe_columns(df: pd.DataFrame) -> pd.DataFrame:
    """One row per column: its type, whether it is usable (numeric), missing values and range."""
    rows = []
    for name in df.columns:
        col = df[name]
        numeric = _is_numeric(col)
        vals = col.dropna().astype(float) if numeric else None
        rows.append(
            {
                "column": str(name),
                "type": str(col.dtype),
                "numeric": numeric,
                "missing": int(col.isna().sum()),
                "min": float(vals.min()) if vals is not None and len(vals) else math.nan,
                "max": float(vals.max()) if vals is not None and len(vals) else math.nan,
                "distinct": int(col.nunique(dropna=True)),
            }
        )
    return pd.DataFrame(rows)


def infer_kind(x: np.ndarray) -> Literal["binary", "bounded"]:
    """``"binary"`` when every value is 0 or 1, else ``"bounded"`` (the data is clipped to the
    bounds chosen for it, public or private, so interval estimators apply)."""
    return "binary" if np.all((x == 0) | (x == 1)) else "bounded"


def data_bounds(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column ``(min, max)`` of the data itself: a **privacy leak**, so it warns with
    :class:`~dpcore._validation.PrivacyLeakWarning` (as diffprivlib does). A constant column gets
    ``value ± 0.5`` so the range is never empty."""
    arr = check_data(x, name="x", ndim=2)
    warn_bounds_from_data("bounds")
    lo, hi = arr.min(axis=0), arr.max(axis=0)
    same = hi <= lo
    return np.where(same, lo - 0.5, lo), np.where(same, hi + 0.5, hi)


def from_dataframe(
    df: pd.DataFrame,
    columns: Sequence[str] | None = None,
    bounds: Any = None,
    *,
    kind: str | None = None,
    nan_policy: Literal["error", "drop"] = "error",
    max_rows: int = MAX_ROWS,
    max_columns: int = MAX_COLUMNS,
    name: str = "your data",
) -> Dataset:
    """Turn chosen columns of a user's DataFrame into a :class:`~dpcore.data.dataset.Dataset`.

    Parameters
    ----------
    df : DataFrame
        The user's data (rows are people).
    columns : list of str, optional
        Columns to use (default: every column). Each must be numeric (or boolean).
    bounds : (lower, upper), optional
        Public per-column range (scalars or one value per column). ``None`` reads the range off
        the data: a privacy leak that warns with ``PrivacyLeakWarning``.
    kind : {"real", "bounded", "binary"}, optional
        Data kind; inferred by :func:`infer_kind` when omitted.
    nan_policy : {"error", "drop"}
        Rows with a missing value raise (default) or are dropped. Dropping rows depends on the
        data; the count of dropped rows is shown to the analyst and is not private.
    max_rows, max_columns : int
        Size limits.
    name : str
        Label.

    Returns
    -------
    Dataset
        ``true_mean`` is the empirical mean of the chosen columns (the non-private answer),
        ``true_std`` their empirical standard deviation; ``params["dropped_rows"]`` counts rows
        dropped for missing values. ``params["std_from_data"]`` is ``True``: that standard deviation
        is data-derived, not public, so :meth:`dpcore.estimate.EstimatorSpec.run` never passes it as
        a known ``sigma`` (the oracle estimators refuse such data unless given a public ``sigma=``).
    """
    cols = _chosen_columns(df, columns, max_columns)
    x, dropped = _complete_rows(df[cols], nan_policy, max_rows)
    d = x.shape[1]
    if bounds is None:
        lo, hi = data_bounds(x)
        from_data = True
    else:
        lo, hi = check_bounds(bounds, d)
        from_data = False
    k = infer_kind(x) if kind is None else kind
    if k not in ("real", "bounded", "binary"):
        raise ValueError(f"kind must be 'real', 'bounded' or 'binary'; got {kind!r}.")
    return Dataset(
        x,
        x.mean(axis=0),
        x.std(axis=0),
        k,
        (lo, hi),
        name,
        f"{name}: {x.shape[0]:,} rows × {d} columns",
        {
            "columns": [str(c) for c in cols],
            "dropped_rows": dropped,
            "bounds_from_data": from_data,
            "std_from_data": True,
        },
    )


def _chosen_columns(df: Any, columns: Sequence[str] | None, max_columns: int) -> list[Any]:
    """The columns of ``df`` to use, or a ``ValueError`` for a missing, repeated, text or
    surplus column."""
    if not isinstance(df, pd.DataFrame):
        raise ValueError("df must be a pandas DataFrame.")
    cols = list(df.columns) if columns is None else list(columns)
    if not cols:
        raise ValueError("columns is empty; choose at least one numeric column.")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the data; choose from {list(df.columns)}.")
    if len(set(cols)) != len(cols):
        raise ValueError("columns lists a column twice; choose each column once.")
    bad = [c for c in cols if not _is_numeric(df[c])]
    if bad:
        raise ValueError(
            f"columns {bad} are not numeric (text or dates); choose numeric columns only, "
            "or encode them as numbers first."
        )
    if len(cols) > max_columns:
        raise ValueError(f"{len(cols)} columns chosen; the limit is {max_columns}.")
    return cols


def _complete_rows(frame: pd.DataFrame, nan_policy: str, max_rows: int) -> tuple[np.ndarray, int]:
    """The rows of ``frame`` with no missing or infinite value as floats, and how many were
    dropped (``nan_policy='drop'``; ``'error'`` refuses a missing value), or a ``ValueError``
    for fewer than 2 or more than ``max_rows`` rows."""
    if nan_policy not in ("error", "drop"):
        raise ValueError(f"nan_policy must be 'error' or 'drop'; got {nan_policy!r}.")
    sub = frame.astype(float)
    sub = sub.replace([np.inf, -np.inf], np.nan)
    bad_rows = sub.isna().any(axis=1)
    dropped = int(bad_rows.sum())
    if dropped and nan_policy == "error":
        per = {c: int(v) for c, v in sub.isna().sum().items() if v}
        raise ValueError(
            f"the chosen columns have missing or infinite values {per}; drop those rows "
            "(nan_policy='drop') or impute them first."
        )
    x = sub[~bad_rows].to_numpy(dtype=float)
    if x.shape[0] < 2:
        raise ValueError(f"only {x.shape[0]} complete row(s) left; at least 2 are needed.")
    if x.shape[0] > max_rows:
        raise ValueError(f"{x.shape[0]:,} rows; the limit is {max_rows:,}. Use a random sample.")
    return x, dropped
