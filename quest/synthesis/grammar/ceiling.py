"""The most a partly right answer truly deserves: QUEST's tree aggregation over the verdicts a
careful human grader would give each leaf.

Only the aggregation is borrowed from questweb (it is QUEST's rule, not a reading of English);
the per-leaf verdicts come from what the grammar knows it changed: a fact leaf fails when the
answer states that fact wrongly, a find-k item passes only while enough right items remain.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from quest.rubric import compile_tree, import_canonical

# The reward pays 0.75 * base + 0.25 * valid_rate * base; valid_rate 1 is the upper bound.
_VALID_RATE = 1.0


def leaves(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    if node.get("check"):
        yield node
    for child in node.get("children") or []:
        yield from leaves(child)


def same_value(left: object, right: object) -> bool:
    try:
        return float(str(left).replace(",", "")) == float(str(right).replace(",", ""))
    except ValueError:
        return str(left).casefold() == str(right).casefold()


def _broken(check: Mapping[str, Any], spoiled: Iterable[tuple[str, str]]) -> bool:
    subject = check.get("subject")
    for spoiled_subject, value in spoiled:
        if same_value(check.get("value"), value) and subject in (None, spoiled_subject):
            return True
    return False


def _verdict(check: Mapping[str, Any], spoiled: list[tuple[str, str]], items: int | None) -> str:
    threshold = check.get("at_least")
    if threshold is not None and items is not None:
        return "pass" if int(threshold) <= items else "fail"
    if check.get("committed") or check.get("kind") == "at_most":
        return "pass"
    return "fail" if _broken(check, spoiled) else "pass"


def ceiling(
    record: Mapping[str, Any],
    spoiled: Iterable[tuple[str, str]] = (),
    *,
    right_items: int | None = None,
) -> float:
    """Reward ceiling when the facts `spoiled` ((subject, value) pairs) are stated wrongly and,
    for find-k, only `right_items` list items count."""
    rubric = record["rubric"]
    facts = list(spoiled)
    verdicts: dict[str, str] = {}
    for leaf in leaves(rubric["root"]):
        verdicts[str(leaf["id"])] = _verdict(leaf["check"], facts, right_items)
        if right_items is not None and str(leaf["id"]).endswith("_cited"):
            number = _item_number(str(leaf["id"]))
            verdicts[str(leaf["id"])] = "pass" if number <= right_items else "fail"
    tree = compile_tree(import_canonical(rubric).tree)
    base = tree.score(verdicts).root_score
    return round(0.75 * base + 0.25 * _VALID_RATE * base, 6)


def _item_number(leaf_id: str) -> int:
    digits = "".join(c for c in leaf_id.split("_")[1] if c.isdigit()) if "_" in leaf_id else ""
    return int(digits) if digits else 0
