"""Human audit of rubric trees, framework-free: the verdict and error taxonomy, agreement
statistics (Cohen's kappa, Krippendorff's alpha, Wilson intervals), how several annotators'
decisions combine into one, and edit operations on canonical trees with a merge for
concurrent edits.

Nothing here imports Django: the web app's audit services call these functions with plain data.
"""

from __future__ import annotations

from quest.audit.agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from quest.audit.decisions import Outcome, Submission, combine_decisions, node_consensus
from quest.audit.edits import EditError, EditOp, apply_ops, parse_ops
from quest.audit.labels import NodeLabel, parse_labels
from quest.audit.merge import MergeConflict, rebase_ops
from quest.audit.taxonomy import (
    DECISIONS,
    ERROR_TYPES,
    VERDICTS,
    Decision,
    Verdict,
    judge_suggestion,
)
from quest.audit.wilson import Interval, wilson_interval

__all__ = [
    "DECISIONS",
    "ERROR_TYPES",
    "VERDICTS",
    "Decision",
    "EditError",
    "EditOp",
    "Interval",
    "MergeConflict",
    "NodeLabel",
    "Outcome",
    "Submission",
    "Verdict",
    "apply_ops",
    "cohen_kappa",
    "combine_decisions",
    "judge_suggestion",
    "krippendorff_alpha",
    "node_consensus",
    "parse_labels",
    "parse_ops",
    "percent_agreement",
    "rebase_ops",
    "wilson_interval",
]
