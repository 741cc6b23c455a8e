"""The taught classifier: the heads fitted on a lead's corrections (encoder, language-model state, words,
characters, the calibrated prompt; one table, ``_head_table``, where adding a head is adding a row), their
combination and its weights, whether the language model's heads may change a label (``refinement_verdict``),
the lexical features, the first pass (the prompt-free heads before the language model reads a ticket), the
teacher that fits and relabels a table, and *Teach next*'s suggestions.

Imports :mod:`..model` (its protocols), :mod:`..prompt` and :mod:`..table`; never :mod:`..scoring`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._combination import describe
    from ._examples import Examples, RowSource, Scaler
    from ._first_pass import embed_table, first_block
    from ._head_table import (
        EMBEDDINGS,
        HIDDEN,
        PROMPT_SCORES,
        HeadRow,
        NGrams,
        TableFeatures,
        heads,
        in_words,
        llm_heads,
        table_sources,
    )
    from ._heads import Fit, Head, fit_all, out_of_fold
    from ._lexical import LexicalStore
    from ._refinement import RefinementVerdict, refinement_verdict
    from ._suggest import suggest
    from ._teacher import (
        Teacher,
        apply_fit,
        baseline_labels,
        embed_each,
        features_of,
        prompt_examples,
        pseudo_set,
        reweigh,
        row_source,
        row_values,
        taught_set,
        with_twins,
    )

# Imported on first use: scikit-learn (0.5 s) stays out of the window's start; the teaching thread imports it.
__getattr__ = lazy_face(
    __name__,
    {
        "_combination": ["describe"],
        "_first_pass": ["embed_table", "first_block"],
        "_examples": ["Examples", "RowSource", "Scaler"],
        "_head_table": [
            "EMBEDDINGS",
            "HIDDEN",
            "PROMPT_SCORES",
            "HeadRow",
            "NGrams",
            "TableFeatures",
            "heads",
            "in_words",
            "llm_heads",
            "table_sources",
        ],
        "_heads": ["Fit", "Head", "fit_all", "out_of_fold"],
        "_lexical": ["LexicalStore"],
        "_refinement": ["RefinementVerdict", "refinement_verdict"],
        "_suggest": ["suggest"],
        "_teacher": [
            "Teacher",
            "apply_fit",
            "baseline_labels",
            "embed_each",
            "features_of",
            "prompt_examples",
            "pseudo_set",
            "reweigh",
            "row_source",
            "row_values",
            "taught_set",
            "with_twins",
        ],
    },
)

__all__ = [
    "EMBEDDINGS",
    "HIDDEN",
    "PROMPT_SCORES",
    "Examples",
    "Fit",
    "Head",
    "HeadRow",
    "LexicalStore",
    "NGrams",
    "RefinementVerdict",
    "RowSource",
    "Scaler",
    "TableFeatures",
    "Teacher",
    "apply_fit",
    "baseline_labels",
    "describe",
    "embed_each",
    "embed_table",
    "features_of",
    "first_block",
    "fit_all",
    "heads",
    "in_words",
    "llm_heads",
    "out_of_fold",
    "prompt_examples",
    "pseudo_set",
    "refinement_verdict",
    "reweigh",
    "row_source",
    "row_values",
    "suggest",
    "table_sources",
    "taught_set",
    "with_twins",
]
