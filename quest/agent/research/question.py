"""What a question asks for, read without any model: its terms, the named things in it (entity
phrases, quoted strings), the numbers it already states, and the searches that follow from it.

Terms use the search index's tokenizer (quest.search.tokens) so that a term counted here is a
term the search engine matches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from quest.agent.research.tallies import fold
from quest.search.tokens import normalise, terms
from quest.text.words import STOPWORDS

# Words that shape a question but never its answer.
QUESTION_WORDS = frozenset(
    {"name", "named", "list", "give", "tell", "find", "please", "many", "much", "also"}
    | {"exactly", "approximately", "know", "whose", "answer", "question", "cite"}
)
# Lower-case words that may sit inside a name: "Leaning Tower of Pisa".
CONNECTORS = frozenset({"of", "the", "de", "la", "le", "du", "von", "van", "da", "del", "di"})
SUFFIXES = ("ations", "ation", "ings", "ing", "ion", "ed", "er", "ly")
MIN_STEM = 4
MAX_QUERIES = 5
STRONG_COVERAGE = 0.75
_WORD = re.compile(r"[^\W_][\w'\u2019.-]*[^\W_]|[^\W_]")
# "largest", "closest", "biggest"; not the -est words that are no superlative.
_SUPERLATIVE = re.compile(
    r"(?!(?:for|inter|hon|mod|earn|requ|harv|prot|cont|conqu|sugg|inv|manif|dig|arr|north|south"
    r"|mid|ever|budap|buchar|inqu|pri|att|det|man)est$)\w{2,}est"
)
_QUOTED = re.compile(r"\"([^\"]{2,120})\"|“([^”]{2,120})”|(?<!\w)'([^']{3,120})'(?!\w)")
_NUMBER = re.compile(r"\b(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\b")
_ORDINAL_SUPERLATIVE = re.compile(
    r"\b(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:nd|rd|th))"
    r"[- ](?:most[- ])?(\w+est)\b",
    re.IGNORECASE,
)
# Where a superlative holds: "the highest mountain [in Kenya]", up to the end of the clause.
_SCOPE = re.compile(r"[^,.;()]{0,40}?\bin (?:the )?([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")


def key_terms(text: str) -> list[str]:
    """Content terms of `text`, stemmed, in order, each once."""
    return list(_key_terms(text))


@lru_cache(maxsize=65_536)  # the scripted agent reads the same sentences turn after turn
def _key_terms(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(stem(t) for t in terms(text) if t not in QUESTION_WORDS))


@lru_cache(maxsize=65_536)  # the scripted agent stems the same terms over and over
def stem(term: str) -> str:
    """A light suffix fold, so "painted", "painting" and "painter" meet; the search tokenizer
    folds plurals only, and a question rarely uses the verb form its answer uses."""
    for suffix in SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= MIN_STEM:
            return term[: -len(suffix)]
    return term


def numbers(text: str) -> frozenset[str]:
    """The numbers written in `text`, normalised: "1,083" and "1083.0" are both "1083"."""
    found = set()
    for raw in _NUMBER.findall(text):
        value = float(raw.replace(",", ""))
        found.add(f"{value:g}" if value != int(value) else str(int(value)))
    return frozenset(found)


def phrases(text: str, *, skip_first: bool = True) -> list[str]:
    """Runs of capitalised words ("Eiffel Tower", "Leaning Tower of Pisa"), each once. The
    first word of a sentence counts only when it is not a stopword (so "What" never does)."""
    words = _WORD.findall(text)
    found: list[str] = []
    run: list[str] = []
    for index, word in enumerate(words):
        starts = _capitalised(word) and not (skip_first and index == 0 and _is_stopword(word))
        joins = bool(run) and word.lower() in CONNECTORS and _next_capitalised(words, index)
        if starts or joins:
            run.append(word)
        else:
            _close(run, found)
            run = []
    _close(run, found)
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Match:
    matched: frozenset[str]
    coverage: float  # share of the question's terms found
    entity_hits: int  # how many of the question's entity terms were found
    entities: int  # how many entity terms the question has
    total: int  # how many terms the question has
    picks: bool = True  # states the superlative the question picks its answer by, if any

    @property
    def relevant(self) -> bool:
        """Worth keeping as evidence: names what the question names, and more than one term
        of it (or its only term)."""
        named = self.entities == 0 or self.entity_hits > 0
        return named and self.total > 0 and len(self.matched) >= min(2, self.total)

    @property
    def strong(self) -> bool:
        """States the question's subject and most of what is asked about it."""
        full = self.entity_hits == self.entities and self.coverage >= STRONG_COVERAGE
        return full and self.picks  # "the largest planet" is not stated by "a planet"

    @property
    def score(self) -> float:
        named = self.entity_hits / self.entities if self.entities else 0.0
        return round(self.coverage + 0.5 * named, 6)


@dataclass(frozen=True)
class Question:
    text: str

    @cached_property
    def terms(self) -> tuple[str, ...]:
        return tuple(key_terms(self.text))

    @cached_property
    def quoted(self) -> tuple[str, ...]:
        found = (next(g for g in m.groups() if g) for m in _QUOTED.finditer(self.text))
        return tuple(dict.fromkeys(q.strip() for q in found if q.strip()))

    @cached_property
    def entities(self) -> tuple[str, ...]:
        """Quoted strings first, then capitalised phrases not inside one."""
        inside = " ".join(self.quoted)
        named = [p for p in phrases(self.text) if p not in inside and key_terms(p)]
        return (*self.quoted, *named)

    @cached_property
    def entity_terms(self) -> frozenset[str]:
        return frozenset(t for phrase in self.entities for t in key_terms(phrase))

    @cached_property
    def term_words(self) -> tuple[str, ...]:
        """Each term as the question first writes it ("According", "GeoNames"): the terms are
        stemmed for matching ("accord", "geoname"), which a person should not have to read."""
        written: dict[str, str] = {}
        for word in _WORD.findall(self.text):
            written.setdefault(stem(normalise(word)), word)
        return tuple(written.get(term, term) for term in self.terms)

    @cached_property
    def attribute_words(self) -> tuple[str, ...]:
        """The question's content words that are not part of a named thing, as written."""
        return tuple(
            dict.fromkeys(
                word
                for word in _WORD.findall(self.text)
                if (term := stem(normalise(word))) in self.terms and term not in self.entity_terms
            )
        )

    @cached_property
    def numbers(self) -> frozenset[str]:
        return numbers(self.text)

    @cached_property
    def common_terms(self) -> frozenset[str]:
        """Terms a question written in sentence case uses only as common words ("a burn"):
        in a text they mean something else where they only stand inside a name ("Robert
        Burns"). A question typed all in lower case says nothing of the kind."""
        if not self.text[:1].isupper():
            return frozenset()
        written: dict[str, bool] = {}
        for word in _WORD.findall(self.text)[1:]:
            term = stem(normalise(word))
            written[term] = written.get(term, True) and word.islower()
        return frozenset(t for t, lower in written.items() if lower) - self.entity_terms

    def match(self, text: str) -> Match:
        found = frozenset(key_terms(text)) & frozenset(self.terms)
        if found & self.common_terms:
            found -= _named_only(text, found & self.common_terms)
        total = len(self.terms) or 1
        return Match(
            matched=found,
            coverage=len(found) / total,
            entity_hits=len(found & self.entity_terms),
            entities=len(self.entity_terms),
            total=len(self.terms),
            picks=self.superlatives <= found - ranked_lower(text),
        )

    @cached_property
    def superlatives(self) -> frozenset[str]:
        """The superlatives the question picks its answer by ("the largest planet")."""
        return frozenset(
            t for t in self.terms if t not in self.entity_terms and _SUPERLATIVE.fullmatch(t)
        )

    def plan(self) -> list[tuple[str, str]]:
        """The first searches, as (query, intent): quoted phrases, the question's key words,
        the question as written, then each named thing with what is asked about it."""
        attributes = " ".join(self.attribute_words[:4])
        planned = [(f"{q} {attributes}".strip(), f'the quoted phrase "{q}"') for q in self.quoted]
        keywords = " ".join(w for w in _WORD.findall(self.text) if stem(normalise(w)) in self.terms)
        planned.append((keywords, "the question's key words"))
        # A dense retriever matches the question's meaning, which its key words alone lose.
        asked = self.text.strip().split("\n", 1)[0]  # its first line: notes after it are no query
        planned.append((asked.rstrip("?").strip(), "the question as written"))
        for entity in self.entities[:2]:
            planned.append((f"{entity} {attributes}".strip(), f"what is asked about {entity}"))
            planned.append((entity, f"background on {entity}"))
        return _distinct(planned)[:MAX_QUERIES]

    def followup(self, claim: str) -> tuple[str, str]:
        """A search that could confirm or refute `claim`: the named things it mentions that
        the question does not, with what the question asks."""
        leads = [
            p for p in phrases(claim, skip_first=False) if not set(key_terms(p)) <= set(self.terms)
        ]
        subject = " ".join(leads[:2]) or " ".join(self.entities[:1])
        query = f"{subject} {' '.join(self.attribute_words[:3])}".strip()
        lead = f"follow the lead {leads[0]}" if leads else "confirm with another source"
        return query or " ".join(self.terms), lead


def _named_only(text: str, wanted: frozenset[str]) -> frozenset[str]:
    """The terms of `wanted` that `text` writes only capitalised inside a sentence."""
    common = set()
    for found in _WORD.finditer(text):
        term = stem(normalise(found.group()))
        if term in wanted and (found.group()[:1].islower() or _opens(text, found.start())):
            common.add(term)
    return wanted - common


def _opens(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:;\"'(\u201c"


def _capitalised(word: str) -> bool:
    return word[0].isupper() or (word[0].isdigit() and any(c.isupper() for c in word))


def _is_stopword(word: str) -> bool:
    term = normalise(word)
    return term in STOPWORDS or term in QUESTION_WORDS or word.lower() in STOPWORDS


def _next_capitalised(words: list[str], index: int) -> bool:
    following = words[index + 1 : index + 3]
    return any(_capitalised(word) for word in following[:1]) or (
        len(following) == 2 and following[0].lower() in CONNECTORS and _capitalised(following[1])
    )


def _close(run: list[str], found: list[str]) -> None:
    while run and run[-1].lower() in CONNECTORS:
        run.pop()
    if run:
        found.append(" ".join(run))


def _distinct(planned: list[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: set[str] = set()
    kept = []
    for query, intent in planned:
        key = " ".join(query.casefold().split())
        if key and key not in seen:
            seen.add(key)
            kept.append((" ".join(query.split()), intent))
    return kept


def ranked_lower(text: str) -> frozenset[str]:
    """Superlatives the text uses only ranked below the first: "the second highest mountain"
    is not what "the highest mountain" asks for; "the largest city of Quebec, the second-largest
    in Canada" still states "largest"."""
    ranked = [match.group(1).casefold() for match in _ORDINAL_SUPERLATIVE.finditer(text)]
    folded = text.casefold()
    return frozenset(
        stem(word)
        for word in ranked
        if len(re.findall(rf"\b{re.escape(word)}\b", folded)) <= ranked.count(word)
    )


def scoped_elsewhere(text: str, places: Sequence[str]) -> frozenset[str]:
    """Superlatives the text uses, unranked, only within a place other than `places` (those the
    question names): "the highest mountain in Kenya" does not state "the highest mountain in
    Africa"; "the highest in Africa" and an unscoped "the highest" do."""
    if not places:
        return frozenset()
    named = [fold(place) for place in places]
    ranked = [match.span(1) for match in _ORDINAL_SUPERLATIVE.finditer(text)]
    scopes: dict[str, set[bool]] = {}
    for match in re.finditer(r"\b(\w{2,}est)\b", text):
        word = match.group(1).casefold()
        if not _SUPERLATIVE.fullmatch(word) or match.span(1) in ranked:
            continue
        scope = _SCOPE.match(text, match.end())
        inside = scope is not None and not any(n in fold(scope.group(1)) for n in named)
        scopes.setdefault(stem(word), set()).add(inside)
    return frozenset(word for word, inside in scopes.items() if inside == {True})


def required(asked: Question) -> list[str]:
    """The named things a sentence or page must name to be about the question: those outside
    the answer's type words ("Italian" in "Which Italian city" says what the answer is)."""
    return [e for e in asked.entities if not _qualifies_type(e, asked.text)]


def _qualifies_type(name: str, question: str) -> bool:
    """Whether the name stands between "which" and the noun of the kind asked for."""
    pattern = rf"\b(?:[Ww]hich|[Ww]hat)\s+{re.escape(name)}\s+[a-z]"
    return re.search(pattern, question) is not None
