"""Empirical privacy audits through the public registry (issue 11).

:func:`audit` runs a registered estimator many times on worst-case neighbouring data sets of its
declared relation (:mod:`dpcore.audit.neighbours`) and returns a lower confidence bound on its
privacy loss with the event that achieves it (:mod:`dpcore.audit.estimate_loss`, where the
statistics are explained). :mod:`dpcore.audit.broken` holds the broken-on-purpose variants the audit
must catch.
"""

from dpcore.audit.broken import VARIANT_LABELS, variants_for
from dpcore.audit.estimate_loss import (
    AuditResult,
    Claim,
    Event,
    audit,
    audit_all,
    claims_for,
    likelihood_ratio,
    minimal_n,
)
from dpcore.audit.neighbours import NeighbourPair, pairs_for

__all__ = [
    "VARIANT_LABELS",
    "AuditResult",
    "Claim",
    "Event",
    "NeighbourPair",
    "audit",
    "audit_all",
    "claims_for",
    "likelihood_ratio",
    "minimal_n",
    "pairs_for",
    "variants_for",
]
