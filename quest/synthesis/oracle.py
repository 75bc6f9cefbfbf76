"""The ground truth of an objective task's answer: did it commit to the true answer?

An answer commits in its last line of prose, `Exact answer: <value>` (the label in any case,
possibly bold); only a reference list (`[n] url`) may follow. For a "find k" task the value is
k names separated by ";". A task record's `oracle` says what is true:

    {"family": "lookup" | "find_k" | "chain", "answers": [...], "k": 6, "facts": [...],
     "distractors": [...]}

`judge_answer` is deliberately strict and simple, and shares no code with the rubric reward
(quest.rubric): it is what the reward is measured against. An answer is **right** only when its
last exact-answer line (any earlier one saying the same) names the true answer as a whole name
("Sudan" is not "South Sudan"), neither struck out, hedged nor marked with a symbol, and the
prose does not deny or retract it; **wrong** when it commits to a wrong value; **uncommitted**
otherwise. A wrong find-k list still earns the share of the k names asked that it names validly.

`record_oracle` reads a record's oracle, or derives the same from a kg record written before
the generator wrote one (its rubric, solution and provenance, with the knowledge graph).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from quest.rubric.model import attributes
from quest.synthesis.kg import City, Country, KnowledgeGraph
from quest.text.fold import strip_accents

Verdict: TypeAlias = Literal["right", "wrong", "uncommitted"]
FAMILIES = ("lookup", "find_k", "chain")

_LABEL = re.compile(r"exact\s+answer", re.IGNORECASE)
_LINE = re.compile(r"^exact\s+answer\s*[:\uff1a]\s*(.*)$", re.IGNORECASE | re.DOTALL)
# A committed value is words and the punctuation inside names; any other sign (≠, ~, <, %)
# makes it something other than the answer.
_SYMBOL = re.compile(r"[^\w\s'\u2019.,&;()\-]")
_REFERENCE = re.compile(r"^\s*\[\d+\]:?\s+\S+\s*$")
_TAGS = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_ANY_TAG = re.compile(r"</?\s*answer\b[^>]*>", re.IGNORECASE)
_STRUCK = re.compile(r"~~(.+?)~~|<(del|s|strike)\b[^>]*>(.*?)</\2\s*>", re.IGNORECASE | re.DOTALL)
_CITATION = re.compile(r"\s*\[\d+\](?:\([^)]*\))?")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_QUOTES = " \t*_`\"'\u201c\u201d\u2018\u2019\u00ab\u00bb"
_HEDGES = re.compile(
    r"\?|/|\b(?:or|either|one of|maybe|probably|not sure|perhaps|possibly|likely|might|"
    r"unsure|uncertain|unclear|i think|i guess|guess|could be|unknown|undecided)\b",
    re.IGNORECASE,
)
# Words that deny the name they follow or precede, inside its sentence.
_DENIED_AFTER = re.compile(
    r"^[^.!?\n]{0,40}?\b(?:wrong|incorrect|false|ruled out|not the (?:right |correct |true )?"
    r"answer|not correct|not right|a mistake|mistaken|rejected|eliminated|excluded)\b",
    re.IGNORECASE,
)
_DENIED_BEFORE = re.compile(
    r"\b(?:forget|disregard|ignore|rule out|ruled out|reject|exclude|discard|scratch|"
    r"instead of|rather than|except|not|isn't|is not)\b[^.!?\n]{0,30}$",
    re.IGNORECASE,
)
_RETRACTED = re.compile(
    r"\b(?:(?:all|everything|each|any|most|some) of (?:the|this|that|it|what)\b[^.!?\n]{0,20}"
    r"|(?:everything|all|the|my|this|that) (?:above|before|said|written|previous answer)\b"
    r"[^.!?\n]{0,20})\b(?:is|are|was|were)\s+(?:all\s+)?(?:wrong|incorrect|false|mistaken|"
    r"not (?:right|correct|true))"
    r"|\b(?:disregard|ignore|forget|scratch|discard|retract)\b[^.!?\n]{0,15}"
    r"\b(?:above|everything|all|this|that|what i|my answer|the previous)\b",
    re.IGNORECASE,
)
_OTHER_ANSWER = re.compile(
    r"\banswer\s+(?:is|would be|must be|should be|=)\s*:?\s*([^.;\n]+)", re.IGNORECASE
)


@dataclass(frozen=True)
class OracleVerdict:
    verdict: Verdict
    reason: str
    value: str = ""  # the committed value as read, when there is one
    # What the answer earned: 1 when right; a find-k list that is wrong earns the share of
    # the k asked it names validly (QUEST's "k-th item" slots give that partial credit); 0
    # otherwise.
    credit: float = 0.0

    @property
    def right(self) -> bool:
        return self.verdict == "right"

    def to_dict(self) -> dict[str, str | float]:
        return attributes(self, "verdict reason value credit")


def judge_answer(oracle: Mapping[str, Any], answer: str) -> OracleVerdict:
    """Right, wrong or uncommitted, with the reason a person reads."""
    family, answers, k = _read(oracle)
    text, problem = _answer_text(answer)
    if problem:
        return OracleVerdict("uncommitted", problem)
    lines = _without_references(text.splitlines())
    labelled = [i for i, line in enumerate(lines) if _LINE.match(_plain(line))]
    if not labelled:
        return OracleVerdict("uncommitted", "no 'Exact answer:' line")
    index = labelled[-1]
    if len(_LABEL.findall(lines[index])) > 1:
        return OracleVerdict("uncommitted", "more than one 'Exact answer:' on its line")
    found = _LINE.match(_plain(lines[index]))
    assert found is not None
    earlier = {_clean(_LINE.sub(r"\1", _plain(lines[i]))) for i in labelled[:-1]}
    if earlier - {_clean(found.group(1))}:
        return OracleVerdict("uncommitted", "another 'Exact answer:' line names something else")
    # The last line is the commitment; prose after it is read like prose before it.
    prose = "\n".join(line for i, line in enumerate(lines) if i not in labelled)
    known = [*answers, *(str(d) for d in oracle.get("distractors") or ())]
    return _judge_value(found.group(1), prose, family, answers, k, known)


def _judge_value(
    raw: str, prose: str, family: str, answers: Sequence[str], k: int, known: Sequence[str]
) -> OracleVerdict:
    struck = bool(_STRUCK.search(raw))
    value = _clean(_STRUCK.sub(" ", raw))
    if not value:
        why = "the committed value is struck out" if struck else "the committed value is empty"
        return OracleVerdict("uncommitted", why)
    hedge = _HEDGES.search(value) or _SYMBOL.search(value)
    if hedge:
        why = f"is hedged or carries a sign ({hedge.group(0)!r})"
        return OracleVerdict("uncommitted", f"the committed value {why}")
    names = _names(value) if family == "find_k" else [value]
    wrong = _wrong(names, family, answers, k)
    if wrong:
        valid = {normal(a) for a in answers} & {normal(n) for n in names}
        credit = min(len(valid), k) / k if family == "find_k" else 0.0
        return OracleVerdict("wrong", wrong, value, credit)
    if struck:
        return OracleVerdict("uncommitted", "the committed line strikes text out", value)
    denied = _denied(prose, names, known)
    if denied:
        return OracleVerdict("uncommitted", denied, value)
    return OracleVerdict("right", "commits to the true answer", value, 1.0)


def _read(oracle: Mapping[str, Any]) -> tuple[str, list[str], int]:
    family = str(oracle.get("family", ""))
    answers = [str(a) for a in oracle.get("answers") or ()]
    if family not in FAMILIES or not answers:
        raise ValueError("oracle: needs a family (lookup, find_k or chain) and its answers")
    k = int(oracle.get("k") or 0) if family == "find_k" else 1
    if family == "find_k" and k < 1:
        raise ValueError("oracle: a find_k oracle needs k")
    return family, answers, k


def _answer_text(answer: str) -> tuple[str, str]:
    """The answer inside the protocol's lowercase <answer> tags (the last pair), or all of it;
    any other answer tag (another case, nested) is no commitment."""
    found = _TAGS.findall(answer)
    text = found[-1] if found else answer
    if _ANY_TAG.search(text):
        return text, "stray answer tags inside the answer"
    return text, ""


def _without_references(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and (not lines[end - 1].strip() or _REFERENCE.match(lines[end - 1])):
        end -= 1
    return lines[:end]


def _plain(line: str) -> str:
    """The line without Markdown emphasis, heading, quote or bullet marks."""
    text = line.replace("**", "").replace("__", "")
    return text.strip().lstrip("#>-+ \t").strip()


def _clean(value: str) -> str:
    text = _LINK.sub(r"\1", value)
    text = _CITATION.sub("", text)
    previous = None
    while previous != text:
        previous = text
        text = text.strip(_QUOTES).rstrip(".").strip(_QUOTES)
    return " ".join(text.split())


def _names(value: str) -> list[str]:
    names = []
    for part in value.split(";"):
        name = _clean(part)
        name = re.sub(r"^and\s+", "", name, flags=re.IGNORECASE)
        if name:
            names.append(name)
    return names


def _wrong(names: Sequence[str], family: str, answers: Sequence[str], k: int) -> str:
    valid = {normal(a) for a in answers}
    bad = [n for n in names if normal(n) not in valid]
    if bad:
        return f"commits to {bad[0]!r}, not a valid answer"
    distinct = {normal(n) for n in names}
    if family == "find_k" and len(distinct) != k:
        return f"names {len(distinct)} distinct valid answers, {k} asked"
    return ""


def _denied(prose: str, names: Sequence[str], known: Sequence[str]) -> str:
    for struck in _STRUCK.finditer(prose):
        inner = struck.group(1) or struck.group(3) or ""
        if any(_mentions(inner, n, known) for n in names):
            return "the prose strikes the committed value out"
    retraction = _RETRACTED.search(prose)
    if retraction:
        return f"the prose retracts the answer ({retraction.group(0)!r})"
    for name in names:
        for start, end in _occurrences(prose, name, known):
            if _DENIED_AFTER.search(prose[end:]) or _DENIED_BEFORE.search(prose[:start]):
                sentence = prose[max(0, start - 40) : end + 40].replace("\n", " ")
                return f"the prose denies {name!r} ({sentence.strip()!r})"
    for other in _OTHER_ANSWER.finditer(prose):
        if not any(_mentions(other.group(1), n, known) for n in names):
            return f"the prose gives another answer ({other.group(0).strip()!r})"
    return ""


@functools.lru_cache(maxsize=65_536)  # the same names, compared again and again
def normal(name: str) -> str:
    """A name compared as a whole: accents, case, punctuation and a leading "the" dropped."""
    bare = strip_accents(name).casefold()
    words = re.sub(r"[^\w]+", " ", bare).split()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)


def _occurrences(text: str, name: str, known: Sequence[str]) -> Iterator[tuple[int, int]]:
    """Where `name` stands in `text` as a whole name, not as part of a longer known one
    ("Sudan" inside "South Sudan")."""
    longer = [n for n in known if normal(name) != normal(n) and _contains(n, name)]
    masked = text
    for other in sorted(longer, key=len, reverse=True):
        masked = re.sub(_pattern(other), lambda m: "#" * len(m.group(0)), masked)
    for found in re.finditer(_pattern(name), masked):
        yield found.start(), found.end()


def _mentions(text: str, name: str, known: Sequence[str]) -> bool:
    return next(_occurrences(text, name, known), None) is not None


def _contains(longer: str, name: str) -> bool:
    return f" {normal(name)} " in f" {normal(longer)} "


def _pattern(name: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in re.split(r"[^\w]+", name) if w]
    return re.compile(r"(?<!\w)" + r"\W+".join(words) + r"(?!\w)", re.IGNORECASE)


# ---------------------------------------------------------------- a record's oracle
def record_oracle(record: Mapping[str, Any], kg: KnowledgeGraph) -> dict[str, Any] | None:
    """The record's `oracle`, or one derived from a kg record without it; None when neither
    (an llm or open-ended task)."""
    given = record.get("oracle")
    if isinstance(given, Mapping) and given.get("answers"):
        return dict(given)
    provenance = record.get("provenance") or {}
    family = provenance.get("family")
    leaves = {str(n.get("id")): n for n in _nodes(record.get("rubric", {}).get("root", {}))}
    if family == "lookup" and "identity" in leaves:
        return _lookup_oracle(kg, str(leaves["identity"]["check"]["value"]))
    if family == "find_k" and "item_1" in leaves:
        return _find_k_oracle(kg, leaves)
    if family == "chain":
        cities = [n for i, n in leaves.items() if i.endswith("_city") and "check" in n]
        isos = [str(e) for e in provenance.get("entities", [])[:-1]]
        if cities and isos and all(i in kg.countries for i in isos):
            return _chain_oracle(kg, str(cities[0]["check"]["value"]), isos)
    return None


def _nodes(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield node
    for child in node.get("children") or ():
        yield from _nodes(child)


def _lookup_oracle(kg: KnowledgeGraph, name: str) -> dict[str, Any] | None:
    country = country_named(kg, name)
    if country is None:
        return None
    near = [*kg.neighbours(country), *_by_population(kg.in_continent(country.continent), country)]
    return {
        "family": "lookup",
        "answers": [country.name],
        "facts": country_relations(country),
        "distractors": _distinct([c.name for c in near if c.iso != country.iso])[:6],
    }


def _find_k_oracle(kg: KnowledgeGraph, leaves: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    valid = [str(v) for v in leaves["item_1"]["check"]["values"]]
    k = sum(1 for i in leaves if re.fullmatch(r"item_\d+", i))
    padded = leaves.get("not_padded", {}).get("check", {}).get("values") or ()
    members = [c for c in (country_named(kg, n) for n in valid) if c is not None]
    near = _distinct(
        [n.name for c in members for n in kg.neighbours(c) if n.name in padded]
        + [str(n) for n in padded]
    )
    return {
        "family": "find_k",
        "answers": valid,
        "k": k,
        "facts": [f for c in members for f in country_relations(c)[:2]],
        "distractors": [n for n in near if n not in valid][:8],
    }


def _chain_oracle(kg: KnowledgeGraph, city_name: str, isos: Sequence[str]) -> dict[str, Any]:
    path = [kg.get(i) for i in isos]
    last = path[-1]
    cities = [c for c in (last.capital_city, *last.largest_cities) if c is not None]
    city = next((c for c in cities if c.name == city_name), None)
    facts = [{"subject": c.name, "relation": "population", "value": c.population} for c in path[1:]]
    if city is not None:
        facts.append({"subject": city.name, "relation": "population", "value": city.population})
    near = [c.name for c in cities] + [c.capital for c in path if c.capital]
    return {
        "family": "chain",
        "answers": [city_name],
        "facts": facts,
        "distractors": [n for n in _distinct(near) if normal(n) != normal(city_name)][:6],
    }


def country_relations(c: Country) -> list[dict[str, Any]]:
    pairs: list[tuple[str, Any]] = [
        ("continent", c.continent),
        ("capital", c.capital),
        ("population", c.population),
        ("area", c.area),
        ("currency", c.currency_code),
        ("largest_city", c.largest_city.name if c.largest_city else ""),
    ]
    return [{"subject": c.name, "relation": r, "value": v} for r, v in pairs if v]


def country_named(kg: KnowledgeGraph, name: str) -> Country | None:
    wanted = normal(name)
    return next((c for c in kg.countries.values() if normal(c.name) == wanted), None)


def city_named(kg: KnowledgeGraph, name: str) -> City | None:
    wanted = normal(name)
    for country in sorted(kg.countries.values(), key=lambda c: c.iso):
        for city in (country.capital_city, *country.largest_cities):
            if city is not None and normal(city.name) == wanted:
                return city
    return None


def _by_population(countries: Sequence[Country], target: Country) -> list[Country]:
    return sorted(countries, key=lambda c: (abs(c.population - target.population), c.iso))


def _distinct(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(n for n in names if n))
