"""Parsing what an auditor says about nodes: `{node_id: {verdict, error_type?, comment?}}`.

The same parser checks a draft (anything may still be missing) and a submission (every node of
the audited version needs a verdict), so both paths give the same messages.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, cast

from quest.audit.taxonomy import ERROR_TYPES, VERDICTS, Verdict

MAX_COMMENT = 4_000
SHOWN_MISSING = 5


@dataclass(frozen=True)
class NodeLabel:
    verdict: Verdict
    error_type: str = ""
    comment: str = ""

    def to_dict(self) -> dict[str, str]:
        out: dict[str, str] = {"verdict": self.verdict}
        if self.error_type:
            out["error_type"] = self.error_type
        if self.comment:
            out["comment"] = self.comment
        return out


def parse_comment(raw: Mapping[str, Any], where: str) -> str:
    comment = raw.get("comment") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise ValueError(f"{where}: comment must be text of at most {MAX_COMMENT} characters")
    return comment.strip()


def parse_label(raw: object, where: str) -> NodeLabel:
    """One node's label; a bare string is taken as the verdict."""
    if isinstance(raw, str):
        raw = {"verdict": raw}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: expected an object with a verdict")
    verdict = raw.get("verdict")
    if verdict not in VERDICTS:
        raise ValueError(f"{where}: verdict must be one of {', '.join(VERDICTS)}")
    error_type = raw.get("error_type") or ""
    if error_type and error_type not in ERROR_TYPES:
        raise ValueError(f"{where}: error_type must be one of {', '.join(ERROR_TYPES)}")
    if error_type and verdict == "correct":
        raise ValueError(f"{where}: a correct node has no error type")
    return NodeLabel(cast(Verdict, verdict), error_type, parse_comment(raw, where))


def parse_draft_label(raw: object, where: str) -> dict[str, str]:
    """A label in a draft: like parse_label, but a comment may come before the verdict."""
    if isinstance(raw, Mapping) and not raw.get("verdict"):
        if raw.get("error_type"):
            raise ValueError(f"{where}: an error type needs the verdict wrong or unverifiable")
        return {"comment": parse_comment(raw, where)}
    return parse_label(raw, where).to_dict()


def parse_labels(raw: object, *, nodes: Collection[str], complete: bool) -> dict[str, NodeLabel]:
    """Labels for nodes of one tree version. `complete` asks for a verdict on every node."""
    if not isinstance(raw, Mapping):
        raise ValueError("verdicts must be an object mapping node ids to verdicts")
    unknown = [str(key)[:64] for key in raw if key not in nodes]
    if unknown:
        raise ValueError(f"no node {unknown[0]!r} in this version of the tree")
    labels = {str(k): parse_label(v, f"node {k!r}") for k, v in raw.items() if v is not None}
    missing = [node for node in nodes if node not in labels]
    if complete and missing:
        shown = ", ".join(missing[:SHOWN_MISSING])
        more = f" and {len(missing) - SHOWN_MISSING} more" if len(missing) > SHOWN_MISSING else ""
        raise ValueError(f"{len(missing)} node(s) have no verdict yet: {shown}{more}")
    return labels
