"""What a curator keeps on this installation: the data folder, a secret key and keyed fingerprints.

A release's published certificate never holds a hash of the input (anyone holding the candidate
files could hash them and compare). The curator's own record holds :func:`fingerprint`, an
HMAC-SHA256 of the input under a secret key that never leaves this installation: without the key
it identifies nothing, and with it the curator can tell which file a release came from and keep
one budget per data set (:mod:`dpcore.odometer`).

The data folder is ``$DPMEAN_DATA_DIR`` if set, else ``~/.dpmean-lab``; the key is the file
``curator.key`` in it, created on first use with permissions 0600.

References
----------
docs/release.md (what is published, what is kept, and why).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Any, cast

import numpy as np

__all__ = ["DATA_DIR_ENV", "KEY_FILE", "data_dir", "fingerprint", "secret_key"]

#: The environment variable naming the app's data folder.
DATA_DIR_ENV = "DPMEAN_DATA_DIR"
#: The secret key's file name inside the data folder.
KEY_FILE = "curator.key"
#: Bytes of a new key.
KEY_BYTES = 32


def data_dir() -> Path:
    """The data folder (``$DPMEAN_DATA_DIR``, else ``~/.dpmean-lab``), created 0700 if missing."""
    raw = os.environ.get(DATA_DIR_ENV, "").strip()
    path = Path(raw).expanduser() if raw else Path.home() / ".dpmean-lab"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def secret_key(folder: Path | None = None) -> bytes:
    """This installation's secret key, read from ``folder/curator.key`` (created on first use,
    0600, from :func:`secrets.token_bytes`).

    Raises
    ------
    ValueError
        When the key file exists but is empty or too short (delete it to make a new one; the
        fingerprints and budgets recorded under the old key are then no longer found).
    """
    path = (folder or data_dir()) / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_bytes()
        if len(key) < 16:
            raise ValueError(
                f"the curator key {path} is shorter than 16 bytes; delete it to make a new one."
            ) from None
        return key
    with os.fdopen(fd, "wb") as f:
        f.write(secrets.token_bytes(KEY_BYTES))
    return path.read_bytes()


def fingerprint(
    x: np.ndarray | None = None, source: bytes | None = None, key: bytes | None = None
) -> str:
    """HMAC-SHA256 (hex) of ``source`` (an uploaded file's bytes), else of the data's shape and
    float64 bytes, under ``key`` (default: :func:`secret_key`).

    Privacy
    -------
    Not for publication: it is kept in the curator's record and the odometer. Without the key it
    cannot be recomputed from candidate files.

    Examples
    --------
    >>> a = fingerprint(np.zeros((2, 1)), key=b"k" * 32)
    >>> a == fingerprint(np.zeros((2, 1)), key=b"k" * 32), a == fingerprint(np.zeros((2, 1)), key=b"j" * 32)
    (True, False)
    """
    mac = hmac.new(key if key is not None else secret_key(), digestmod=hashlib.sha256)
    if source is not None:
        mac.update(source)
    elif x is not None:
        mac.update(repr(x.shape).encode())
        mac.update(memoryview(cast(Any, np.ascontiguousarray(x, dtype=np.float64))).cast("B"))
    else:
        raise ValueError("fingerprint needs the data (x=) or the file's bytes (source=).")
    return mac.hexdigest()
