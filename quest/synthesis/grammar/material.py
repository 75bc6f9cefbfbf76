"""What the grammar builds answers from: a kg record's facts, read back as structured claims.

The reference answer of a kg task is written in a small set of fixed sentence shapes (see
`lexicon.CANONICAL`); reading it back gives every fact the task needs *with the page that states
it*, including the full lists (every official language, every neighbour) that the oracle's facts
only sample. The grammar then says those facts again in its own words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quest.synthesis.grammar.canonical import AND_NAMES, CANONICAL, LIST_RELATIONS

_CITE = re.compile(r"\s*\[(\d+)\]")
_REF_LINE = re.compile(r"^\[(\d+)\]\s+(\S+)\s*$")
_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z0-9])")
_IATA_URL = re.compile(r"/([A-Z]{3})$")
_COMPILED = tuple((relation, re.compile(pattern)) for relation, pattern in CANONICAL)


@dataclass(frozen=True)
class Claim:
    """One fact: `value` is the canonical text ("1816", "60431283", "Spanish"); `items` holds a
    list relation's members; `code` an airport's IATA code when a cited page names it."""

    subject: str
    relation: str
    value: str
    urls: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    code: str = ""

    @property
    def is_number(self) -> bool:
        return bool(re.fullmatch(r"\d+(\.\d+)?", self.value))


@dataclass(frozen=True)
class Material:
    family: str
    question: str
    answers: tuple[str, ...]
    pool: tuple[str, ...]
    rivals: tuple[str, ...]
    claims: tuple[Claim, ...]
    k: int | None
    numeric: bool
    difference: bool

    @property
    def answer(self) -> str:
        return "; ".join(self.answers)

    @property
    def find_k(self) -> bool:
        return self.k is not None


def material_of(record: Mapping[str, Any]) -> Material:
    """Read a kg record into the grammar's material."""
    body, line, refs = split_reference(str(record["reference_answer"]))
    oracle = record.get("oracle") or {}
    answers = tuple(a.strip() for a in line.split(";") if a.strip())
    numeric = len(answers) == 1 and bool(re.fullmatch(r"-?\d+(\.\d+)?", answers[0]))
    question = str(record.get("question", ""))
    k = oracle.get("k")
    return Material(
        family=str((record.get("provenance") or {}).get("family", oracle.get("family", ""))),
        question=question,
        answers=answers,
        pool=tuple(str(a) for a in oracle.get("answers", answers)),
        rivals=_rivals(record, answers, numeric),
        claims=tuple(read_claims(body, refs)),
        k=int(k) if k is not None else None,
        numeric=numeric,
        difference=numeric and "how many years" in question.lower(),
    )


def split_reference(text: str) -> tuple[str, str, dict[int, str]]:
    """(body, exact answer, {citation number: url}) of a reference answer."""
    head, _, tail = text.partition("Exact answer:")
    line, _, rest = tail.strip().partition("\n")
    refs: dict[int, str] = {}
    for row in rest.splitlines():
        match = _REF_LINE.match(row.strip())
        if match:
            refs[int(match.group(1))] = match.group(2)
    return head.strip(), line.strip(), refs


def read_claims(body: str, refs: Mapping[int, str]) -> list[Claim]:
    claims: list[Claim] = []
    last_subject = ""
    for sentence in _SENTENCE_END.split(body.replace("\n", " ")):
        urls = tuple(refs[int(n)] for n in _CITE.findall(sentence) if int(n) in refs)
        plain = _CITE.sub("", sentence).strip().rstrip(".").strip()
        for claim in _claims_of(plain, urls, last_subject):
            claims.append(claim)
            last_subject = claim.subject or last_subject
    return claims


def _claims_of(plain: str, urls: tuple[str, ...], last_subject: str) -> list[Claim]:
    for relation, pattern in _COMPILED:
        match = pattern.match(plain)
        if not match:
            continue
        groups = match.groupdict()
        value = _canonical_value(groups["v"])
        if relation == "highest_airport" and "e" in groups:
            elevation = _canonical_value(groups["e"])
            return [
                Claim(last_subject, relation, value, urls),
                Claim(value, "elevation", elevation, urls),
            ]
        items = split_list(value) if relation in LIST_RELATIONS else ()
        code = _iata(urls) if relation == "located_in" else ""
        return [Claim(groups.get("s") or "", relation, value, urls, items, code)]
    return [Claim("", "raw", plain, urls)] if plain else []


def _canonical_value(text: str) -> str:
    stripped = text.strip()
    if re.fullmatch(r"[\d,]+(\.\d+)?", stripped):
        number = stripped.replace(",", "")
        return number[:-2] if number.endswith(".0") else number
    return stripped


def _iata(urls: Sequence[str]) -> str:
    for url in urls:
        match = _IATA_URL.search(url)
        if match and "airports." in url:
            return match.group(1)
    return ""


def split_list(text: str) -> tuple[str, ...]:
    """'A, B and C' -> (A, B, C), keeping names such as 'Trinidad and Tobago' whole."""
    if text in AND_NAMES:
        return (text,)
    parts = [p.strip() for p in text.split(", ")]
    last = parts.pop()
    if last not in AND_NAMES and " and " in last:
        parts.extend(p.strip() for p in last.rsplit(" and ", 1))
    else:
        parts.append(last)
    return tuple(p for p in parts if p)


def _rivals(record: Mapping[str, Any], answers: Sequence[str], numeric: bool) -> tuple[str, ...]:
    """Wrong answers a reader would recognise as answers: the task's other candidates first."""
    if numeric:
        value = float(answers[0])
        text = [value + 1, value - 1, value + 10, value * 2]
        return tuple(_number_text(v) for v in text if v != value)
    oracle = record.get("oracle") or {}
    pool = set(oracle.get("answers", answers)) | set(answers)
    names: list[str] = list(_committed_others(record.get("rubric") or {}))
    names += [str(d) for d in oracle.get("distractors", [])]
    for fact in oracle.get("facts", []):
        names += [str(fact.get("subject", "")), str(fact.get("value", ""))]
    seen: dict[str, None] = {}
    for name in names:
        if name and name not in pool and not re.fullmatch(r"[\d.]+", name):
            seen.setdefault(name, None)
    return tuple(seen)


def _committed_others(rubric: Mapping[str, Any]) -> list[str]:
    stack: list[Mapping[str, Any]] = [rubric.get("root") or {}]
    while stack:
        node = stack.pop()
        check = node.get("check") or {}
        if check.get("committed") and check.get("others"):
            return [str(o) for o in check["others"]]
        stack.extend(node.get("children") or [])
    return []


def _number_text(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"
