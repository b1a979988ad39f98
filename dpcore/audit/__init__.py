"""Privacy audits: black-box through the public entries, stage by stage, and white-box.

:func:`audit` runs an estimator many times on a grid of worst-case neighbouring data sets of its
declared relation (:mod:`dpcore.audit.neighbours`) and returns a lower confidence bound on its
privacy loss against its native claim (:mod:`dpcore.audit.bounds`, :mod:`dpcore.audit.estimate_loss`);
multi-stage estimators are also audited stage by stage (:mod:`dpcore.audit.stages`) and checked
white-box (:func:`dpcore.audit.calibration`). :mod:`dpcore.audit.broken` holds the broken-on-purpose
estimators and variants the audit must catch; :mod:`dpcore.audit.profile` runs them all
(``make audit``).
"""

from dpcore.audit._calibration import calibration, default_budget, default_data, problems
from dpcore.audit.bounds import Claim, Event, claims_for
from dpcore.audit.broken import BROKEN_SPECS, VARIANT_LABELS, variants_for
from dpcore.audit.estimate_loss import (
    AuditResult,
    audit,
    audit_all,
    gaussian_ledger,
    likelihood_ratio,
    minimal_n,
    native_budget,
)
from dpcore.audit.neighbours import NeighbourPair, pair_grid, pairs_for

__all__ = [
    "BROKEN_SPECS",
    "VARIANT_LABELS",
    "AuditResult",
    "Claim",
    "Event",
    "NeighbourPair",
    "audit",
    "audit_all",
    "calibration",
    "claims_for",
    "default_budget",
    "default_data",
    "gaussian_ledger",
    "likelihood_ratio",
    "minimal_n",
    "native_budget",
    "pair_grid",
    "pairs_for",
    "problems",
    "variants_for",
]
