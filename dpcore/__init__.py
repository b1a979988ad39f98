"""dpcore: differentially private mean estimation (see README, Layout)."""

from dpcore import registry
from dpcore._validation import PrivacyLeakWarning
from dpcore.estimate import Estimate
from dpcore.privacy import Budget
from dpcore.release import release

__all__ = ["Budget", "Estimate", "PrivacyLeakWarning", "registry", "release"]
