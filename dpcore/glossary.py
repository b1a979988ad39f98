"""Plain-words definitions of the terms the app (and a notebook) uses, in one place.

The app shows them as hover definitions (``help=`` on widgets, tooltips on a page's "words on this
page" line) and in full on its Glossary page. Each entry is a short definition a reader without the
papers can follow; where a term comes from a paper, the paper is named.

References
----------
Aumüller, Lebeda, Nelson and Pagh, *PLAN: variance-aware private mean estimation*, PETS 2024.
Huang, Liang and Yi, *Instance-optimal mean estimation under differential privacy*, NeurIPS 2021.
Bun and Steinke, *Concentrated differential privacy*, TCC 2016.
Canonne, Kamath and Steinke, *The discrete Gaussian for differential privacy*, NeurIPS 2020.
Ramsay and Spicker, *Improved subsample-and-aggregate via the private modified winsorized mean*, 2025.
"""

from __future__ import annotations

#: Term -> definition. Keys are the words as the app writes them.
GLOSSARY: dict[str, str] = {
    "DP": "Differential privacy: a promise that what is released changes little (by a factor e^ε, "
    "except with probability δ) whether or not any one person's data is included.",
    "ε (pure DP)": "ε-differential privacy: one person can change the probability of any outcome by at most a "
    "factor e^ε. Smaller ε is more private. Usually reached with Laplace noise.",
    "(ε, δ)-DP": "Approximate differential privacy: the ε-DP promise, allowed to fail with probability δ. δ "
    "should be far below 1/n, or releasing one random person's whole row would qualify.",
    "zCDP": "Zero-concentrated differential privacy (Bun and Steinke 2016), measured by ρ: a bound on how "
    "much one person shifts the output distribution, at every tail. Gaussian noise gives it naturally; "
    "ε-DP implies ε²/2-zCDP, and ρ-zCDP implies (ε, δ)-DP for every δ, but never pure ε-DP.",
    "ρ": "The zCDP budget (see zCDP). Smaller ρ is more private; ρ = ε²/2 is what ε-DP implies.",
    "CKS": "The Canonne–Kamath–Steinke (2020) conversion from ρ-zCDP to (ε, δ)-DP: tighter than the "
    "textbook ε = ρ + 2√(ρ ln(1/δ)).",
    "PLAN": "Private, variance-aware mean estimation (Aumüller, Lebeda, Nelson and Pagh, PETS 2024): centre at a "
    "private median, scale coordinate i by σ̂ᵢ^(−2/(p+2)) so spread-out coordinates get less "
    "noise per unit, clip, add Gaussian noise, undo the scaling.",
    "IOME": "Instance-optimal mean estimation (Huang, Liang and Yi 2021): randomly rotate the data, find a "
    "private centre with private coordinate medians, then release a shifted, clipped mean with "
    "Gaussian noise. Here run as the PLAN paper ran it.",
    "PMWM": "Private modified winsorized mean (Ramsay and Spicker 2025): find a private interval around the "
    "bulk of the data with two private quantile searches, pull every point outside it to its edge, "
    "add noise scaled to the interval's width.",
    "TV": "Total variation distance between two distributions: the largest difference in the probability "
    "they give to any event (0 = identical, 1 = disjoint).",
    "oracle": "An estimator given something a private release could not know (e.g. the true variances σ). "
    "A teaching device showing the best case: it is not private and is never ranked as a private "
    "estimator.",
    "regret": "An estimator's error divided by the best private estimator's error at the same setting: 1 means "
    "it was the best there, 2 means twice the best error.",
    "add-remove": "Neighbouring datasets differ by adding or removing one person's row, so the number of rows n "
    "is itself private.",
    "replace-one": "Neighbouring datasets differ by replacing one person's row with another, so n is public. "
    "An add/remove guarantee gives only 2ε (pure DP) or 4ρ (zCDP) under replace-one.",
    "sampling floor": "The error of the non-private mean of the same data: no private estimator can be expected "
    "to do better, since it sees the same sample.",
    "clipping bias": "The error caused by pulling rows (or values) in to a clip ball or interval before adding "
    "noise: it shrinks the mean toward the centre.",
    "sensitivity": "The most one person can change the quantity released; noise is scaled to it.",
}

#: Aliases a page may use for a glossary entry.
ALIASES: dict[str, str] = {
    "ε": "ε (pure DP)",
    "pure DP": "ε (pure DP)",
    "δ": "(ε, δ)-DP",
    "add/remove": "add-remove",
    "add-and-remove": "add-remove",
}


def define(term: str) -> str:
    """The definition of ``term`` (a key of :data:`GLOSSARY` or an alias).

    Raises
    ------
    ValueError
        If the term is not in the glossary (add it to :data:`GLOSSARY`).
    """
    key = ALIASES.get(term, term)
    if key not in GLOSSARY:
        raise ValueError(
            f"term {term!r} is not in dpcore.glossary.GLOSSARY; add a definition there."
        )
    return GLOSSARY[key]
