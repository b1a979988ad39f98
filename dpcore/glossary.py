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
Kamath, Li, Singhal and Ullman, *Privately learning high-dimensional distributions*, COLT 2019.
Smith, *Privacy-preserving statistical estimation with optimal convergence rates*, STOC 2011.

An estimator's short name (``EstimatorSpec.label``) uses only words defined here (its
abbreviations in :data:`ESTIMATOR_WORDS`); its full description is ``EstimatorSpec.detail``
(``tests/core/test_registry_order.py`` checks both).
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
    "far-off run": "A run whose error is more than 3 times the median error of the same estimator at "
    "the same setting: a blow-up against its own typical run. Tables give the share of an "
    "estimator's runs that are far off over the whole sweep; a chart's hover, the share at that "
    "point.",
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

#: Words in the estimators' short names (``EstimatorSpec.label``) that a reader may not know; each
#: estimator's full description is its ``EstimatorSpec.detail``.
ESTIMATOR_WORDS: dict[str, str] = {
    "(ε) and (ρ)": "In an estimator's short name, (ε) marks the pure ε-DP member of a pair (Laplace "
    "noise) and (ρ) the ρ-zCDP one (Gaussian noise).",
    "Gaussian mechanism": "The baseline: clip every row to a ball around a centre and add the same "
    "Gaussian noise to every coordinate of the mean (here with a private centre and radius).",
    "as published": "An estimator run as the authors' code runs it, including steps that spend more "
    "than the stated budget; labelled so and never ranked with the honest estimators.",
    "PureDPPDE": "The pure ε-DP estimator for binary product distributions (practical version): "
    "rounds on disjoint blocks of rows sort the coordinates by how often they are 1, and each group "
    "gets its own truncation radius and Laplace noise, so rare coordinates get little noise.",
    "KLSU": "Kamath, Li, Singhal and Ullman (2019): private learning of binary product "
    'distributions. "KLSU-style Gaussian" is a ρ-zCDP estimator in that spirit, not their exact '
    "algorithm.",
    "Simplex": 'The simplex "free lunch": data on a simplex (each row\'s entries sum to a known '
    "total) let a private sum also give a private count, so the mean needs no separate count budget.",
    "known n": "The number of rows is public (replace-one neighbours), so the mean is a noisy sum "
    "divided by the true n.",
    "S&A": "Subsample and aggregate: split the data into groups, estimate on each group, and combine "
    "the group estimates privately (here with PMWM).",
    "Widened WM": "Smith's (2011) widened winsorized mean: a private interval from the private "
    "quartiles, widened by a factor that grows with n, then a clipped mean with Laplace noise.",
    "OpenDP": 'The OpenDP library (Harvard); "OpenDP mean" is its mean transformation with its '
    "Laplace or Gaussian measurement, run for comparison.",
}

#: Aliases a page may use for a glossary entry.
ALIASES: dict[str, str] = {
    "ε": "ε (pure DP)",
    "pure DP": "ε (pure DP)",
    "δ": "(ε, δ)-DP",
    "add/remove": "add-remove",
    "add-and-remove": "add-remove",
    "(ε)": "(ε) and (ρ)",
    "(ρ)": "(ε) and (ρ)",
    "KLSU-style": "KLSU",
    "WM": "Widened WM",
}


def define(term: str) -> str:
    """The definition of ``term`` (a key of :data:`GLOSSARY` or :data:`ESTIMATOR_WORDS`, or an
    alias).

    Raises
    ------
    ValueError
        If the term is not in the glossary (add it to :data:`GLOSSARY`).
    """
    key = ALIASES.get(term, term)
    words = {**GLOSSARY, **ESTIMATOR_WORDS}
    if key not in words:
        raise ValueError(
            f"term {term!r} is not in dpcore.glossary.GLOSSARY (or ESTIMATOR_WORDS); add a "
            "definition there."
        )
    return words[key]
