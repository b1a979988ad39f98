"""The Your data page as views (exploration: a seeded simulation on the user's columns).

References: ``docs/architecture.md`` (Data flow), ``docs/release.md`` (Release mode).
"""

from __future__ import annotations

__all__ = ["error_headers"]


def error_headers(column: str | None) -> dict[str, str]:
    """Headers of Your data's per-estimator error table (:func:`dpcore.experiments.studies.
    your_data.summary`, renamed as the page shows it), each with its unit: a share of each
    column's range (``column=None``) or ``column``'s own units."""
    unit = "share of range" if column is None else f"{column}, its units"
    return {
        "estimator": "Estimator",
        "guarantee": "Guarantee",
        "median": f"Median error ({unit})",
        "10% of runs": "10% of runs below",
        "90% of runs": "90% of runs below",
        "ranked by": "Ranked by (miss of clipped mean)",
        "runs": "Runs",
        "library": "Peer library",
    }
