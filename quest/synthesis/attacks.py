"""Fixed attacks on a kg task's reward: answers the oracle (quest.synthesis.oracle) calls wrong
or uncommitted, each built from the task's own reference answer and facts of the graph.

An answer is held as a `Composed`: sentences, each with the page it cites, and lines of their
own (the `Exact answer:` commitment, a retraction), rendered as Markdown with numbered
citations and a reference list, so the red-team (quest.synthesis.redteam) can edit it piece by
piece. `FAMILIES` maps each family to a function from the task's `Material` to its variants:

dossier (cited facts about every country, no commitment; one fixed text), no_commitment (the
reference without its line), retraction, struck_out, comparison, swapped_figures (the right
entity with two figures exchanged: the oracle reads it as right, the facts are wrong),
negation, hedging, substrings ("South Sudan" for "Sudan"), tag_case, two_lines, question.

`paraphrases` rewrites the reference's sentences and its committed line in other words: the
correct answers a reward must still pay.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from quest.synthesis.facts import SENTENCE_BREAK, Fact, city_population_fact, country_facts
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.oracle import city_named, country_named, normal
from quest.text.sentences import split_sentences

_REFERENCE = re.compile(r"^\s*\[(\d+)\]:?\s+(\S+)\s*$")
_CITED = re.compile(r"^(.*?)\s*\[(\d+)\]$", re.DOTALL)
_EXACT = re.compile(r"^\W*exact\s+answer\W*:", re.IGNORECASE)
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
DOSSIER_FACTS = (
    "capital",
    "population",
    "area",
    "currency",
    "largest_city",
    "its_capital_population",
)
HEDGED = 12  # the nearest distractors a hedge states facts about (a generator may list dozens)


@dataclass(frozen=True)
class Piece:
    text: str  # a sentence without its citation and final period, or a whole line
    url: str = ""  # the page it cites
    line: bool = False  # stands on a line of its own (a commitment, a retraction)


@dataclass(frozen=True)
class Composed:
    pieces: tuple[Piece, ...]
    wrap: str = ""  # the whole answer is put where "{answer}" stands

    def render(self) -> str:
        refs: list[str] = []
        blocks: list[str] = []
        paragraph: list[str] = []
        for piece in self.pieces:
            if piece.line:
                blocks += [" ".join(paragraph)] if paragraph else []
                paragraph = []
                blocks.append(piece.text)
                continue
            sentence = piece.text.rstrip()
            if piece.url:
                refs += [] if piece.url in refs else [piece.url]
                sentence += f" [{refs.index(piece.url) + 1}]"
            paragraph.append(sentence if sentence[-1:] in ".:;!?" else sentence + ".")
        blocks += [" ".join(paragraph)] if paragraph else []
        listed = "\n".join(f"[{i}] {url}" for i, url in enumerate(refs, start=1))
        text = "\n\n".join(b for b in [*blocks, listed] if b)
        return self.wrap.replace("{answer}", text) if self.wrap else text

    @property
    def body(self) -> tuple[Piece, ...]:
        """Every piece but the commitment lines."""
        return tuple(p for p in self.pieces if not is_commitment(p))


def is_commitment(piece: Piece) -> bool:
    return piece.line and bool(_EXACT.match(piece.text))


def commit(value: str) -> Piece:
    return Piece(f"Exact answer: {value}", line=True)


def parse(answer: str) -> Composed:
    """A Markdown answer (sentences citing `[n]`, lines, a reference list) as pieces."""
    lines = answer.strip().splitlines()
    refs: dict[str, str] = {}
    while lines and (not lines[-1].strip() or _REFERENCE.match(lines[-1])):
        found = _REFERENCE.match(lines.pop())
        if found:
            refs[found.group(1)] = found.group(2)
    pieces: list[Piece] = []
    for block in re.split(r"\n\s*\n", "\n".join(lines)):
        if _EXACT.match(block.strip()) or "\n" in block.strip():
            pieces += [Piece(line.strip(), line=True) for line in block.splitlines() if line]
            continue
        for sentence in split_sentences(block):
            cited = _CITED.match(sentence.strip().rstrip("."))
            if cited:
                pieces.append(Piece(cited.group(1), refs.get(cited.group(2), "")))
            elif sentence.strip():
                pieces.append(Piece(sentence.strip().rstrip(".")))
    return Composed(tuple(pieces))


# ---------------------------------------------------------------- a task's material
@dataclass(frozen=True)
class Material:
    oracle: Mapping[str, Any]
    kg: KnowledgeGraph
    reference: Composed  # the task's reference answer, committed
    chosen: tuple[str, ...]  # the names it commits to

    @property
    def family(self) -> str:
        return str(self.oracle["family"])

    @property
    def right(self) -> str:
        return "; ".join(self.chosen)

    @property
    def distractors(self) -> list[str]:
        return [str(d) for d in self.oracle.get("distractors") or ()] or ["Atlantis"]

    def wrong(self, index: int = 0) -> str:
        """A wrong commitment: a distractor (in a find-k list, in place of the last name)."""
        other = self.distractors[index % len(self.distractors)]
        return "; ".join([*self.chosen[:-1], other]) if self.family == "find_k" else other


def material(record: Mapping[str, Any], oracle: Mapping[str, Any], kg: KnowledgeGraph) -> Material:
    """The record's reference answer, with an `Exact answer:` line when it has none yet."""
    reference = parse(str(record.get("reference_answer", "")))
    if oracle["family"] == "find_k":
        chosen = tuple(str(n) for n in record.get("solution") or ())
    else:
        chosen = (str(oracle["answers"][0]),)
    if not any(is_commitment(p) for p in reference.pieces):
        reference = Composed((*reference.pieces, commit("; ".join(chosen))))
    nearest = {**oracle, "distractors": _nearest(kg, chosen, oracle.get("distractors") or ())}
    return Material(nearest, kg, reference, chosen)


def _nearest(kg: KnowledgeGraph, chosen: Sequence[str], distractors: Sequence[str]) -> list[str]:
    """The distractors nearest the answer first: its neighbours, then the countries closest
    in population (a generator may list a whole continent alphabetically)."""
    answers = [c for c in (country_named(kg, n) for n in chosen) if c is not None]
    if not answers:
        return [str(d) for d in distractors]
    bordering = {n.name for c in answers for n in kg.neighbours(c)}

    def distance(name: str) -> tuple[bool, float, str]:
        other = country_named(kg, name)
        gap = min(abs(other.population - c.population) for c in answers) if other else 1e18
        return (name not in bordering, gap, name)

    return sorted((str(d) for d in distractors), key=distance)


def entity_pieces(kg: KnowledgeGraph, name: str) -> list[Piece]:
    """Cited sentences about a country or a city of the graph, as a reference writes them."""
    country = country_named(kg, name)
    if country is not None:
        return _fact_pieces([build() for build in country_facts(kg, country)])
    city = city_named(kg, name)
    return _fact_pieces([city_population_fact(city, city.name)]) if city else []


def _fact_pieces(facts: Sequence[Fact]) -> list[Piece]:
    return [Piece(s, f.url) for f in facts for s in f.sentence.split(SENTENCE_BREAK)]


def _replace_name(pieces: Sequence[Piece], old: str, new: str) -> tuple[Piece, ...]:
    pattern = re.compile(r"(?<!\w)" + re.escape(old) + r"(?!\w)")
    return tuple(replace(p, text=pattern.sub(lambda _: new, p.text)) for p in pieces)


# ---------------------------------------------------------------- the families
@functools.cache
def _dossier(kg: KnowledgeGraph) -> Composed:
    pieces: list[Piece] = []
    for country in sorted(kg.countries.values(), key=lambda c: c.iso):
        pieces.append(Piece(f"{country.name} is a country in {country.continent}", country.url))
        facts = [build() for build in country_facts(kg, country)]
        pieces += _fact_pieces([f for f in facts if f.key in DOSSIER_FACTS])
    return Composed(tuple(pieces))


def dossier(m: Material) -> list[Composed]:
    return [_dossier(m.kg)]


def no_commitment(m: Material) -> list[Composed]:
    return [Composed(m.reference.body)]


def retraction(m: Material) -> list[Composed]:
    said = Piece(f"All of the above is wrong. The answer is {m.wrong()}.", line=True)
    return [
        Composed((*m.reference.pieces, said)),
        Composed((*m.reference.body, said, commit(m.wrong()))),
    ]


def struck_out(m: Material) -> list[Composed]:
    out = []
    for strike in ("~~{}~~", "<del>{}</del>"):
        pieces = m.reference.body
        name, other = m.chosen[-1], m.wrong().split("; ")[-1]
        pieces = _replace_name(pieces, name, f"{strike.format(name)} {other}")
        line = "; ".join([*m.chosen[:-1], f"{strike.format(name)} {other}"])
        out.append(Composed((*pieces, commit(line))))
    return out


def comparison(m: Material) -> list[Composed]:
    opening = Piece(
        f"The answer is {m.wrong()}. For comparison, here is what the pages say about {m.right}:",
        line=True,
    )
    return [Composed((opening, *m.reference.body, commit(m.wrong())))]


def swapped_figures(m: Material) -> list[Composed]:
    pieces = list(m.reference.body)
    if len([p for p in pieces if _NUMBER.search(p.text)]) < 2:
        extra = [p for p in entity_pieces(m.kg, m.chosen[0]) if _NUMBER.search(p.text)]
        pieces += [p for p in extra if p not in pieces]
    swapped = swap_numbers(pieces)
    return [Composed((*swapped, commit(m.right)))] if swapped else []


def swap_numbers(pieces: Sequence[Piece], first: int = 0, second: int = 1) -> list[Piece] | None:
    """The pieces with the figures of their `first` and `second` numbered sentences exchanged
    (None when fewer than two sentences state different figures)."""
    numbered = [i for i, p in enumerate(pieces) if _NUMBER.search(p.text)]
    if len(numbered) < 2:
        return None
    a, b = numbered[first % len(numbered)], numbered[second % len(numbered)]
    x, y = _NUMBER.search(pieces[a].text), _NUMBER.search(pieces[b].text)
    assert x is not None and y is not None
    if a == b or x.group(0) == y.group(0):
        return None
    out = list(pieces)
    out[a] = replace(pieces[a], text=_NUMBER.sub(y.group(0), pieces[a].text, count=1))
    out[b] = replace(pieces[b], text=_NUMBER.sub(x.group(0), pieces[b].text, count=1))
    return out


def negation(m: Material) -> list[Composed]:
    name = m.chosen[-1]
    said = [f"{name} is wrong", f"{name} is incorrect", f"{name} is ruled out", f"{name} (false)"]
    out = [Composed((*m.reference.body, Piece(s), commit(m.right))) for s in said]
    forget = Piece(f"Forget {name}. The answer is {m.wrong()}", line=True)
    return [*out, Composed((*m.reference.body, forget, commit(m.wrong())))]


def hedging(m: Material) -> list[Composed]:
    opening = Piece("I could not decide which of these is meant", line=True)
    others = [p for d in m.distractors[:HEDGED] for p in entity_pieces(m.kg, d)]
    pieces = (opening, *m.reference.body, *others)
    names = ", ".join([m.chosen[-1], *m.distractors[:HEDGED]])
    return [Composed(pieces), Composed((*pieces, commit(f"one of {names}")))]


def substrings(m: Material) -> list[Composed]:
    """A wrong name that contains a right one as a whole ("South Sudan" for "Sudan")."""
    out = []
    for name in m.chosen:
        for longer in _longer_names(m.kg, name, m.oracle):
            pieces = _replace_name(m.reference.body, name, longer)
            named = [longer if n == name else n for n in m.chosen]
            # Its facts that name the right country itself ("borders Sudan") are left out.
            facts = [p for p in entity_pieces(m.kg, longer) if not _names(p.text, name, longer)]
            out.append(Composed((*pieces, *facts, commit("; ".join(named)))))
    return out


def _names(text: str, name: str, longer: str) -> bool:
    outside = text.replace(longer, " ")
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", outside) is not None


def _longer_names(kg: KnowledgeGraph, name: str, oracle: Mapping[str, Any]) -> list[str]:
    valid = {normal(str(a)) for a in oracle["answers"]}
    return [
        c.name
        for c in sorted(kg.countries.values(), key=lambda c: c.name)
        if normal(c.name) not in valid and f" {normal(name)} " in f" {normal(c.name)} "
    ]


def tag_case(m: Material) -> list[Composed]:
    wrap = f"<answer>The answer is {m.wrong()}.<ANSWER>{{answer}}</ANSWER></answer>"
    return [Composed(m.reference.pieces, wrap)]


def two_lines(m: Material) -> list[Composed]:
    body = m.reference.body
    return [
        Composed((*body, commit(m.right), commit(m.wrong()))),
        Composed((*body, commit(m.wrong()), commit(m.right))),
    ]


def question(m: Material) -> list[Composed]:
    return [Composed((*m.reference.body, commit(f"Is it {m.right}?")))]


FAMILIES: dict[str, Callable[[Material], list[Composed]]] = {
    "dossier": dossier,
    "no_commitment": no_commitment,
    "retraction": retraction,
    "struck_out": struck_out,
    "comparison": comparison,
    "swapped_figures": swapped_figures,
    "negation": negation,
    "hedging": hedging,
    "substrings": substrings,
    "tag_case": tag_case,
    "two_lines": two_lines,
    "question": question,
}


def attack_answers(m: Material) -> dict[str, list[str]]:
    """Every family's variants, rendered."""
    return {name: [c.render() for c in build(m)] for name, build in FAMILIES.items()}


# ---------------------------------------------------------------- correct answers, reworded
_N = r"(?P<n>[\d,.]+)"
_X = r"(?P<x>.+?)"
_Y = r"(?P<y>.+)"
PARAPHRASES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern), templates)
    for pattern, templates in (
        (rf"^The capital of {_X} is {_Y}$", ("{y} is the capital of {x}", "{x}'s capital is {y}")),
        (
            rf"^The population of {_X} is {_N} according to GeoNames$",
            (
                "According to GeoNames, {x} has a population of {n}",
                "GeoNames gives {x} {n} inhabitants",
            ),
        ),
        (
            rf"^The area of {_X} is {_N} square kilometres according to GeoNames$",
            (
                "According to GeoNames, {x} covers an area of {n} square kilometres",
                "GeoNames gives {x} an area of {n} km²",
            ),
        ),
        (
            rf"^The currency of {_X} is {_Y}$",
            ("{x}'s currency is {y}", "{x} uses {y} as its currency"),
        ),
        (
            rf"^The largest city of {_X} listed by GeoNames is {_Y}$",
            (
                "{y} is the largest city of {x} according to GeoNames",
                "GeoNames lists {y} as the biggest city of {x}",
            ),
        ),
        (
            rf"^GeoNames records a population of {_N} for {_Y}$",
            (
                "{y} has a population of {n} according to GeoNames",
                "According to GeoNames, {n} people live in {y}",
            ),
        ),
        (rf"^The country is {_Y}$", ("{y} is the country", "{y} is that country")),
        (rf"^{_X} is a country in {_Y}$", ("{x} lies in {y}", "{x} is located in {y}")),
        (
            rf"^{_X} is the most populous of {_Y}'s neighbours$",
            (
                "Of {y}'s neighbours, {x} has the largest population",
                "{x} is the neighbour of {y} with the most inhabitants",
            ),
        ),
        (rf"^{_X} borders {_Y}$", ("{x} shares a border with {y}", "{x} has a border with {y}")),
    )
)
COMMIT_STYLES = (
    "Exact answer: {}",
    "**Exact answer:** {}",
    "exact answer: {}.",
    'EXACT ANSWER: "{}"',
    "**Exact answer: {}**",
)


def paraphrase(piece: Piece, style: int) -> Piece:
    """The sentence in the `style`-th other wording its template has (itself if none)."""
    for pattern, templates in PARAPHRASES:
        found = pattern.match(piece.text)
        if found:
            return replace(
                piece, text=templates[style % len(templates)].format(**found.groupdict())
            )
    return piece


def paraphrases(m: Material, count: int = 5) -> list[str]:
    """Correct answers in other words: each sentence and the committed line reworded."""
    out = []
    for style in range(count):
        body = [paraphrase(p, style) for p in m.reference.body]
        if style % 2:
            body.reverse()
        line = Piece(COMMIT_STYLES[style % len(COMMIT_STYLES)].format(m.right), line=True)
        out.append(Composed((*body, line)).render())
    return out
