"""The oracle reads an answer's `Exact answer:` line strictly: a table of answers and verdicts."""

from __future__ import annotations

import pytest

from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.oracle import judge_answer, record_oracle

LOOKUP = {
    "family": "lookup",
    "answers": ["Switzerland"],
    "facts": [{"subject": "Switzerland", "relation": "currency", "value": "CHF"}],
    "distractors": ["Austria", "Germany", "Liechtenstein"],
}
FIND_K = {
    "family": "find_k",
    "answers": ["Sudan", "Chad", "Egypt", "Libya", "Republic of the Congo"],
    "k": 3,
    "distractors": ["South Sudan", "Democratic Republic of the Congo", "Niger"],
}
CHAIN = {"family": "chain", "answers": ["Hanoi"], "distractors": ["Ho Chi Minh City"]}
BODY = "The country is Switzerland [1]. The currency of Switzerland is CHF [1]."
REFS = "\n\n[1] https://www.geonames.org/2658434"

TABLE = [
    # (oracle, answer, verdict, a word of the reason)
    (LOOKUP, f"{BODY}\n\nExact answer: Switzerland{REFS}", "right", "true answer"),
    (LOOKUP, f"{BODY}\n\n**Exact answer:** Switzerland.{REFS}", "right", "true answer"),
    (LOOKUP, f"{BODY}\n\nexact ANSWER: “switzerland”", "right", "true answer"),
    (LOOKUP, f"{BODY}\n\n**Exact answer: Switzerland [1]**{REFS}", "right", "true answer"),
    (LOOKUP, f"<answer>{BODY}\n\nExact answer: Switzerland{REFS}</answer>", "right", "true"),
    (LOOKUP, f"{BODY}{REFS}", "uncommitted", "no 'Exact answer:'"),
    (LOOKUP, f"{BODY}\n\nExact answer: Austria{REFS}", "wrong", "Austria"),
    (LOOKUP, f"{BODY}\n\nExact answer: Switzerland, not Austria", "wrong", "not a valid"),
    # The last line commits; prose after it is read like prose before it.
    (LOOKUP, f"{BODY}\n\nExact answer: Switzerland\n\nThanks for asking.", "right", "true"),
    (
        LOOKUP,
        f"{BODY}\n\nExact answer: Switzerland\nExact answer: Austria",
        "uncommitted",
        "something else",
    ),
    (LOOKUP, f"{BODY}\n\nExact answer: Switzerland\nExact answer: Switzerland", "right", "true"),
    (LOOKUP, f"{BODY} So my exact answer: Switzerland", "uncommitted", "no 'Exact answer:'"),
    (LOOKUP, f"{BODY}\n\nExact answer: \u2260 Switzerland", "uncommitted", "sign"),
    (LOOKUP, f"{BODY}\n\nExact answer: Is it Switzerland?", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: Switzerland or Austria", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: either Switzerland", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: one of Switzerland, Austria", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: Switzerland/Austria", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: probably Switzerland", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: maybe Switzerland", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: Switzerland (not sure)", "uncommitted", "hedged"),
    (LOOKUP, f"{BODY}\n\nExact answer: ~~Switzerland~~", "uncommitted", "struck"),
    (LOOKUP, f"{BODY}\n\nExact answer: ~~Switzerland~~ Austria", "wrong", "Austria"),
    (LOOKUP, f"{BODY}\n\nExact answer: <del>Austria</del> Switzerland", "uncommitted", "strikes"),
    (LOOKUP, f"{BODY}\n\nExact answer: <s>Switzerland</s>", "uncommitted", "struck"),
    (LOOKUP, "The country is ~~Switzerland~~.\n\nExact answer: Switzerland", "uncommitted", "str"),
    (
        LOOKUP,
        f"{BODY} All of the above is wrong.\n\nExact answer: Switzerland",
        "uncommitted",
        "re",
    ),
    (LOOKUP, f"{BODY} Ignore the above.\n\nExact answer: Switzerland", "uncommitted", "retracts"),
    (LOOKUP, f"{BODY} Switzerland is wrong.\n\nExact answer: Switzerland", "uncommitted", "denies"),
    (LOOKUP, f"{BODY} Switzerland (false).\n\nExact answer: Switzerland", "uncommitted", "denies"),
    (
        LOOKUP,
        f"{BODY} Switzerland is ruled out.\n\nExact answer: Switzerland",
        "uncommitted",
        "den",
    ),
    (LOOKUP, f"{BODY} Forget Switzerland.\n\nExact answer: Switzerland", "uncommitted", "denies"),
    (LOOKUP, f"{BODY} The answer is Austria.\n\nExact answer: Switzerland", "uncommitted", "anoth"),
    (
        LOOKUP,
        "<answer>The answer is Austria.<ANSWER>"
        f"{BODY}\n\nExact answer: Switzerland</ANSWER></answer>",
        "uncommitted",
        "stray",
    ),
    (
        LOOKUP,
        "Austria is wrong. Exact answer follows.\n\nExact answer: Switzerland",
        "right",
        "true",
    ),
    (
        LOOKUP,
        "Austria is wrong; Germany is ruled out.\n\nExact answer: Switzerland",
        "right",
        "true",
    ),
    (FIND_K, "Exact answer: Sudan; Chad; Egypt", "right", "true answer"),
    (FIND_K, "Exact answer: Sudan; Chad; and Egypt.", "right", "true answer"),
    (FIND_K, "Exact answer: South Sudan; Chad; Egypt", "wrong", "South Sudan"),
    (FIND_K, "Exact answer: Democratic Republic of the Congo; Chad; Egypt", "wrong", "Democratic"),
    (FIND_K, "Exact answer: Republic of the Congo; Chad; Egypt", "right", "true"),
    (FIND_K, "Exact answer: Sudan; Chad", "wrong", "2 distinct"),
    (FIND_K, "Exact answer: Sudan; Chad; Sudan", "wrong", "2 distinct"),
    (FIND_K, "Exact answer: Sudan; Chad; Egypt; Libya", "wrong", "4 distinct"),
    (FIND_K, "South Sudan is wrong.\n\nExact answer: Sudan; Chad; Egypt", "right", "true answer"),
    (FIND_K, "Sudan is wrong.\n\nExact answer: Sudan; Chad; Egypt", "uncommitted", "denies"),
    (FIND_K, "Exact answer: Sudan; Chad; Egypt or Libya", "uncommitted", "hedged"),
    (
        CHAIN,
        "The capital of Vietnam is Hanoi [1].\n\nExact answer: Hanoi\n\n[1] https://x.org/1",
        "right",
        "true",
    ),
    (CHAIN, "Exact answer: Ho Chi Minh City", "wrong", "Ho Chi Minh"),
    (CHAIN, "Exact answer: Hanoi, Vietnam", "wrong", "not a valid"),
]


@pytest.mark.parametrize(("oracle", "answer", "verdict", "why"), TABLE)
def test_the_oracle_reads_each_answer_as_the_table_says(
    oracle: dict[str, object], answer: str, verdict: str, why: str
) -> None:
    got = judge_answer(oracle, answer)
    assert got.verdict == verdict, got.reason
    assert why.casefold() in got.reason.casefold()


def test_a_wrong_find_k_list_earns_the_share_it_names_validly() -> None:
    assert judge_answer(FIND_K, "Exact answer: South Sudan; Chad; Egypt").credit == 2 / 3
    assert judge_answer(FIND_K, "Exact answer: Niger; Mali; Ghana").credit == 0.0
    assert judge_answer(FIND_K, "Exact answer: Sudan; Chad; Egypt").credit == 1.0
    assert judge_answer(FIND_K, "Exact answer: Sudan; Chad; Egypt?").credit == 0.0
    assert judge_answer(LOOKUP, "Exact answer: Austria").credit == 0.0


def test_an_oracle_without_answers_is_refused() -> None:
    with pytest.raises(ValueError, match="oracle"):
        judge_answer({"family": "lookup", "answers": []}, "Exact answer: x")


def test_a_kg_record_without_an_oracle_gets_one_derived_from_its_tree() -> None:
    kg = KnowledgeGraph.load()
    identity = {"id": "identity", "check": {"kind": "mentions", "value": "Switzerland"}}
    record = {
        "rubric": {"root": {"id": "root", "children": [identity]}},
        "provenance": {"family": "lookup", "entities": ["CH", "currency"]},
    }
    oracle = record_oracle(record, kg)
    assert oracle is not None
    assert oracle["answers"] == ["Switzerland"] and "Austria" in oracle["distractors"]
    assert {"subject": "Switzerland", "relation": "currency", "value": "CHF"} in oracle["facts"]
    assert record_oracle({**record, "oracle": LOOKUP}, kg) == LOOKUP
    assert record_oracle({"provenance": {"family": "open_ended"}}, kg) is None
