from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pytest

from quest.synthesis.grammar import (
    GrammarAnswer,
    attack_answers,
    attack_classes,
    paraphrase_classes,
    paraphrases,
    sample,
)
from quest.synthesis.grammar.canonical import CANONICAL_SAY
from quest.synthesis.grammar.material import material_of
from quest.text.fold import strip_accents as fold

Fact = tuple[str, str, object, str]
Generated = dict[str, list[GrammarAnswer]]
WIKI = "https://en.wikipedia.org/wiki/"


def _leaf(leaf_id: str, check: dict[str, Any], critical: bool = False) -> dict[str, Any]:
    return {"id": leaf_id, "description": leaf_id, "critical": critical, "check": check}


def _fact_leaves(facts: Sequence[Fact]) -> list[dict[str, Any]]:
    leaves = []
    for i, (subject, _, value, _) in enumerate(facts, 1):
        kind = "number" if isinstance(value, int) else "mentions"
        check: dict[str, Any] = {"kind": kind, "value": value}
        if subject:
            check["subject"] = subject
        leaves.append(_leaf(f"f{i}", check))
        leaves.append(_leaf(f"f{i}_sourced", {**check, "kind": "source_supports"}))
    return leaves


def _reference(facts: Sequence[Fact], answer: str) -> str:
    urls = list(dict.fromkeys(url for *_, url in facts))
    said = [
        CANONICAL_SAY[rel].format(s=s, v=f"{v:,}" if isinstance(v, int) and v > 9999 else v)
        + f" [{urls.index(url) + 1}]."
        for s, rel, v, url in facts
    ]
    refs = "\n".join(f"[{i}] {u}" for i, u in enumerate(urls, 1))
    return " ".join(said) + f"\n\nExact answer: {answer}\n\n{refs}\n"


def _record(
    family: str, question: str, answer: str, facts: Sequence[Fact], **kw: Any
) -> dict[str, Any]:
    rivals = list(kw.get("rivals", ()))
    k = kw.get("k")
    if k is None:
        check = {"kind": "mentions", "value": answer, "committed": True, "others": rivals}
        head = [_leaf("answer", check, critical=True)]
    else:
        pool = list(kw["pool"])
        head = [
            _leaf(f"item_{i}", {"kind": "one_of", "values": pool, "committed": True, "at_least": i})
            for i in range(1, k + 1)
        ]
        head.append(_leaf("not_padded", {"kind": "at_most", "values": pool + rivals, "most": k}))
    root: dict[str, Any] = {"id": "root", "description": question, "strategy": "parallel"}
    root["children"] = head + _fact_leaves(facts)
    oracle = {"answers": kw.get("pool", [answer]), "facts": [], "distractors": rivals, "k": k}
    return {
        "question": question,
        "rubric": {"format": "questweb.rubric/1", "scoring": "quest", "root": root},
        "reference_answer": _reference(facts, answer),
        "oracle": oracle,
        "provenance": {"family": family},
    }


EL = "https://elements.questweb.local/"
US = "https://us-states.questweb.local/"
GEO = "https://www.geonames.org/"
RECORDS = [
    _record(
        "comparison",
        "Which of Osmium or Calcium has the highest atomic number?",
        "Osmium",
        [("Osmium", "atomic_number", 76, EL + "os"), ("Calcium", "atomic_number", 20, WIKI + "Ca")],
        rivals=["Calcium"],
    ),
    _record(
        "temporal_order",
        "Which of Indiana or Ohio became a state first?",
        "Ohio",
        [
            ("Indiana", "statehood_year", 1816, US + "in"),
            ("Ohio", "statehood_year", 1803, US + "oh"),
        ],
        rivals=["Indiana"],
    ),
    _record(
        "aggregation",
        "How many years after Ohio did Indiana become a state?",
        "13",
        [
            ("Indiana", "statehood_year", 1816, US + "in"),
            ("Ohio", "statehood_year", 1803, US + "oh"),
        ],
    ),
    _record(
        "lookup",
        "Which country in Africa uses XAF and borders Nigeria?",
        "Cameroon",
        [
            ("", "identity", "Cameroon", GEO + "2233387"),
            ("Cameroon", "capital", "Yaoundé", WIKI + "Yaounde"),
            ("Cameroon", "population", 25216237, GEO + "2233387"),
            ("Cameroon", "currency", "XAF", GEO + "2233387"),
        ],
        rivals=["Chad", "Nigeria"],
    ),
    _record(
        "chain",
        "Begin with Mexico; which of its neighbours is the most populous? Give its capital.",
        "United States",
        [
            ("United States", "population", 327167434, GEO + "6252001"),
            ("United States", "capital", "Washington", WIKI + "Washington"),
        ],
        rivals=["Guatemala", "Belize"],
    ),
    _record(
        "domain_chain",
        "Start from the element Lithium. Find the country it was discovered in. Name the "
        "highest airport listed for that country.",
        "Jonkoping Airport",
        [
            ("Lithium", "discovered_in", "Sweden", EL + "li"),
            (
                "Sweden",
                "highest_airport",
                "Jonkoping Airport",
                "https://airports.questweb.local/se",
            ),
        ],
    ),
    _record(
        "chain_fanout",
        "For the airports with IATA codes PGL and LUO, which leads to more subdivisions?",
        "PGL",
        [
            (
                "Trent Lott International Airport",
                "located_in",
                "United States",
                "https://airports.questweb.local/PGL",
            ),
            ("United States", "subdivision_count", 57, "https://subdivisions.questweb.local/us"),
            ("Luena Airport", "located_in", "Angola", "https://airports.questweb.local/LUO"),
            ("Angola", "subdivision_count", 18, "https://subdivisions.questweb.local/ao"),
        ],
        rivals=["LUO"],
    ),
    *(
        _record(
            family,
            "Name three elements discovered in Sweden after 1850.",
            "Thulium; Scandium; Nobelium",
            [
                ("Thulium", "discovered_in", "Sweden", EL + "tm"),
                ("Thulium", "discovery_year", 1879, EL + "tm"),
                ("Scandium", "discovered_in", "Sweden", EL + "sc"),
                ("Scandium", "discovery_year", 1879, WIKI + "Scandium"),
                ("Nobelium", "discovered_in", "Sweden", EL + "no"),
                ("Nobelium", "discovery_year", 1957, EL + "no"),
            ],
            k=3,
            pool=["Thulium", "Scandium", "Nobelium", "Helium", "Erbium"],
            rivals=["Cerium", "Chlorine", "Cobalt"],
        )
        for family in ("find_k", "intersection")
    ),
]
FAMILIES = {r["provenance"]["family"] for r in RECORDS}


@pytest.fixture(scope="module")
def generated() -> Generated:
    return {
        r["provenance"]["family"]: [*attack_answers(r, seed=3), *paraphrases(r, seed=3)]
        for r in RECORDS
    }


def _visible(text: str) -> str:
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"<span[^>]*(hidden|display:\s*none)[^>]*>.*?</span>", "", text, flags=re.S)
    return text


def _line(text: str) -> str:
    return next(
        row for row in text.splitlines() if "xact answer" in row.replace("Answer", "answer")
    )


def test_it_reads_every_fact_of_the_reference_back() -> None:
    for record in RECORDS:
        material = material_of(record)
        assert len(material.claims) == record["reference_answer"].count("].")
        assert all(claim.relation != "raw" and claim.urls for claim in material.claims)


def test_every_general_class_answers_every_family(generated: Generated) -> None:
    general = [c for c in attack_classes() if c.split(":")[1] not in ("figures", "list")]
    general = [c for c in general if "symbol_" not in c or c.endswith(("_ne", "_not", "_tilde"))]
    general = [c for c in general if not c.endswith(("sign_flip", "rounding"))]
    general += [c for c in paraphrase_classes() if c.split(":")[1] in ("lexicon", "shape")]
    general += ["para:url:query", "para:url:inline", "para:line:bold", "para:length:20k"]
    for family, answers in generated.items():
        missing = set(general) - {a.cls for a in answers}
        assert not missing, (family, sorted(missing))


def test_every_class_is_produced_for_some_task(generated: Generated) -> None:
    made = {a.cls for answers in generated.values() for a in answers}
    assert set(attack_classes()) - made == set()
    assert set(paraphrase_classes()) - made <= {"para:name:short"}


def test_a_paraphrase_commits_to_the_right_answer_and_states_every_value(
    generated: Generated,
) -> None:
    for record in RECORDS:
        material = material_of(record)
        for answer in paraphrases(record):
            line = fold(_line(answer.text)).casefold()
            assert all(fold(a).casefold() in line for a in material.answers), answer.cls
            if answer.where in ("lexicon", "url", "line", "length"):
                digits = re.sub(r"[,\u2009\u202f]", "", answer.text)
                for claim in material.claims:
                    assert claim.value in digits or claim.items, (answer.cls, claim)


def test_a_symbol_attack_line_is_not_the_bare_value(generated: Generated) -> None:
    for answers in generated.values():
        for answer in answers:
            if answer.where == "answer_line" and answer.what.startswith("symbol_"):
                content = _line(answer.text).split(":", 1)[1].strip()
                assert re.search(r"[≠¬~≈<>≥\u2212%]", content), content
                assert answer.verdict in ("wrong", "uncommitted") and answer.ceiling == 0


def test_a_hidden_span_hides_the_right_answer_and_shows_a_wrong_one(generated: Generated) -> None:
    for record in RECORDS:
        right = material_of(record).answer
        for answer in attack_answers(record):
            if answer.where != "hidden":
                continue
            shown = _line(_visible(answer.text))
            assert right not in shown.split(":", 1)[1], answer.text
            assert right in answer.text and answer.verdict == "wrong"


def test_attacks_carry_a_ceiling_below_the_reference(generated: Generated) -> None:
    for answers in generated.values():
        for answer in answers:
            if answer.verdict == "right":
                assert answer.ceiling == 1.0
            else:
                assert 0.0 <= answer.ceiling < 1.0, answer.cls
    swaps = [a for a in generated["find_k"] if a.what == "swap_two"]
    assert swaps and swaps[0].verdict == "partial"


def test_the_grammar_is_deterministic_for_a_seed() -> None:
    for record in RECORDS:
        assert attack_answers(record, seed=7) == attack_answers(record, seed=7)
        assert paraphrases(record, seed=7, per_class=2) == paraphrases(record, seed=7, per_class=2)
        assert sample(record, seed=7, n=10) == sample(record, seed=7, n=10)
    assert len(sample(RECORDS[0], seed=1, n=10)) == 10


def test_a_paraphrase_never_contains_the_rubric(generated: Generated) -> None:
    for record in RECORDS:
        rubric = json.dumps(record["rubric"])
        for answer in paraphrases(record, per_class=2):
            assert rubric not in answer.text
            assert '"kind"' not in answer.text and "committed" not in answer.text


def test_long_paraphrases_reach_their_length(generated: Generated) -> None:
    for answers in generated.values():
        sizes = {a.what: len(a.text) for a in answers if a.where == "length"}
        assert 20_000 <= sizes["20k"] < 25_000
        assert 120_000 <= sizes["120k"] < 130_000
