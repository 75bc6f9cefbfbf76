"""What an auditor can say about a node and about a whole task.

The error types are the faults found when QUEST-style trees are read by hand: a leaf that
hard-codes the expected answer instead of checking it, a leaf testing two things at once, a
critical flag or aggregation strategy that scores the task wrongly, duplicates, a constraint of
the question nobody checks, and plain factual errors.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

Verdict: TypeAlias = Literal["correct", "wrong", "unverifiable"]
Decision: TypeAlias = Literal["accept", "fix_accept", "reject"]

VERDICTS: dict[str, str] = {
    "correct": "Correct",
    "wrong": "Wrong",
    "unverifiable": "Unverifiable",
}

DECISIONS: dict[str, str] = {
    "accept": "Accept",
    "fix_accept": "Fix and accept",
    "reject": "Reject",
}

ERROR_TYPES: dict[str, str] = {
    "hard_coded_answer": "Hard-coded answer",
    "not_atomic": "Not atomic",
    "wrong_critical": "Wrong critical flag",
    "wrong_strategy": "Wrong strategy",
    "duplicate": "Duplicate",
    "missing_constraint": "Missing constraint",
    "factually_wrong": "Factually wrong",
    "other": "Other",
}

# A decision that says the generator's tree was not right as written.
FAULTY_DECISIONS = frozenset({"fix_accept", "reject"})
# Decisions that let a task into training data.
ACCEPTING_DECISIONS = frozenset({"accept", "fix_accept"})

# A judge scored the task's own reference solution against the tree: a leaf the reference
# fails is probably a wrong leaf, and a judge that could not decide suggests the leaf cannot
# be verified. A skipped leaf was never judged, so it suggests nothing.
_JUDGE_TO_VERDICT: dict[str, Verdict] = {
    "pass": "correct",
    "fail": "wrong",
    "error": "unverifiable",
}


def judge_suggestion(status: str) -> Verdict | None:
    return _JUDGE_TO_VERDICT.get(status)
