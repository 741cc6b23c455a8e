"""Whether the language model's heads may change a label: only where the lead's own evidence shows they help.

The first pass (encoder, word and character heads) labels every ticket; the language model's two heads
(its hidden state and the calibrated prompt) join the weighted geometric mean only when, on the tickets the
lead's session can judge by (taught tickets, each judged by heads not trained on it; random checks or gold where
present), the labels
with them fixed clearly more first-pass labels than they broke. Untaught they weigh 0, so the refined label
is the first pass's exactly. Measured before this gate (README; issue 33): untaught, those heads are fitted
on pseudo-tickets made from the prompt's descriptions, and on data no weight was tuned on they cost
accuracy (a lead's from-scratch prompt 82.6 % -> 77.3 %; held-back IT tickets -2.0 points untaught and
-3.2 at 10 taught per label), while on the dev sets they added -0.5 to +1.9.

The test is a one-sided sign test on the tickets where the two disagree (those where both are right or
both wrong say nothing about which is better): the refinement is used when fixed - broken is at least
:data:`MIN_NET` and at least :data:`Z` standard deviations of that difference under "no better" (the
square root of fixed + broken): 9 fixed against 3 broken is used (6 >= 5.7), 6 against 2 is not (4 < 4.7),
nor is 4 against 0 (4 < 5).
Measured (``eval``'s steps; three draws at K>0), untaught, K=10 and 20 per label, the first pass against
the heads as weighted before this gate: queues5 (300 tickets) 0.763 / 0.785 / 0.845 against 0.740 / 0.776 /
0.838; clinc-assistant (150, a set no weight was tuned on) 0.920 / 0.933 / 0.990 against 0.873 / 0.933 /
0.986; clinc-support-terse (150) 0.813 / 0.856 / 0.925 against 0.787 / 0.852 / 0.925; queues5narrow (150)
0.960 / 0.963 / 0.980 against 0.960 / 0.967 / 0.987; queues8 (150) 0.633 / 0.724 / 0.782 against 0.660 /
0.748 / 0.782. Refined with the gate: the first pass's to three places everywhere (the heads let in on one draw
of three at K=10 and 20 on queues8). The price: where the language model's heads help and the taught tickets
are too few to show it (queues8, the set their weights were tuned on), the gate gives up what they add.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from . import _head_table as table

# fixed - broken: fewer is never evidence. 5 against 0 is the fewest an exact one-sided sign test calls
# significant at 5 % (p = 0.031); with 3 (3 against 0: p = 0.125) the heads were let in on weights chosen on
# those same tickets and cost 0.8 points in one of three draws (clinc-support-terse, K=10).
MIN_NET = 5
Z = 1.645  # one-sided 5 % for the sign test's normal approximation
NO_EVIDENCE = "not used: no evidence yet that it helps"
NO_ENCODER = "used: without the sentence encoder the language model's heads label every row"
TAUGHT = "taught"  # the default evidence, said in a lead's words (the window once said "out of fold")


def evidence_words(n: int, what: str = TAUGHT) -> str:
    """How many tickets the evidence is, in a lead's words: "40 taught tickets, each judged by a model that did
    not see it" (out of fold: the jargon the Accuracy tab and the run bar said); other evidence as named."""
    if what != TAUGHT:
        return f"{n} {what}"
    if n == 1:
        return "1 taught ticket, judged by a model that did not see it"
    return f"{n:,} taught tickets, each judged by a model that did not see it"


@dataclass(frozen=True)
class RefinementVerdict:
    """Whether the language model's heads are used for labels, and the evidence: of ``evidence`` tickets
    judged, those the refinement ``fixed`` (first pass wrong, refined right) and ``broken`` (the reverse);
    ``reason``: one line a window shows ("used: on 40 taught tickets, each judged by a model that did not see it,
    it fixed 9 and broke 3")."""

    used: bool
    fixed: int
    broken: int
    evidence: int
    reason: str


def refinement_verdict(
    refined: np.ndarray, first: np.ndarray, truth: np.ndarray, what: str = TAUGHT
) -> RefinementVerdict:
    """The verdict from label indices on the evidence tickets: the refined labels, the first pass's, and
    the right ones (rows where any is negative, no label, are left out). ``what`` names the evidence
    (:func:`evidence_words`; by default taught tickets, each labelled by heads not trained on it)."""
    refined, first, truth = (np.asarray(a, dtype=np.int64) for a in (refined, first, truth))
    known = (refined >= 0) & (first >= 0) & (truth >= 0)
    refined, first, truth = refined[known], first[known], truth[known]
    fixed = int(((refined == truth) & (first != truth)).sum())
    broken = int(((refined != truth) & (first == truth)).sum())
    evidence = len(truth)
    if not evidence:
        return RefinementVerdict(False, 0, 0, 0, NO_EVIDENCE)
    used = fixed - broken >= max(MIN_NET, Z * math.sqrt(fixed + broken))
    said = f"on {evidence_words(evidence, what)}, it fixed {fixed} and broke {broken}"
    if used:
        return RefinementVerdict(True, fixed, broken, evidence, f"used: {said}")
    if fixed == broken == 0:
        none = f"not used: it changed none of {evidence_words(evidence, what)}"
        return RefinementVerdict(False, 0, 0, evidence, none)
    return RefinementVerdict(False, fixed, broken, evidence, f"not used: {said}, not clearly more fixed than broken")


def without_llm(first: Mapping[str, float]) -> dict[str, float]:
    """Full weights that give every row the first pass's label: the first pass's weights as they are, the
    language model's heads at 0 (so a row it has read is combined exactly as one it has not)."""
    llm = set(table.llm_heads())
    return {h: (0.0 if h in llm else float(first.get(h, 0.0))) for h in table.names()}


def labels_of(probs: np.ndarray) -> np.ndarray:
    """Label index per row, -1 where the row has no label (NaN)."""
    return np.where(np.isnan(probs[:, 0]), -1, np.nan_to_num(probs).argmax(axis=1))
