"""Scoring a report's direct answer against a natural question's gold (natural_questions_bench).

Only the report's direct-answer line counts (the line that starts with "**Answer:**"), with its
citation marks ("[2]") removed. The rules, meant to be hard to game:

- A line longer than MAX_LINE_CHARS is wrong whatever it says: a dump of everything read would
  otherwise name the answer somewhere.
- A *mention* of a name is the name as whole words (case and accents folded, a plural "s"
  allowed) that no negation ("not", "no", "never", "neither", "nor", "isn't", "unlike", ...)
  stands before within NEGATION_WINDOW words: "not Paris" does not name Paris.
- The answer is the line's first sentence (its *head*): a report writes "Seine. Located on
  the river Seine, ..." or a claim that opens on the answer. A name or number that only the
  supporting claim after the head states does not count: "Earth. The inner planets are
  Mercury, Venus, Earth and Mars." does not answer "Mercury".
- Named answers (who/what/where, paraphrase, two-hop): right when the head mentions one of the
  gold's names.
- Comparisons: right when the first option the line mentions is the gold option, and the line
  picks it: it states a comparison after naming it ("than", the question's own comparative such
  as "taller", or one of COMPARATIVES; a word the question names a kind or a thing by is none,
  so "Danube: second-longest river in Europe" does not answer "Which river is longer, the Danube
  or the Rhine?"), it does not hedge (HEDGES: "either", "both", "unclear", "not established",
  "not settled", ...), and it does not list the options side by side ("Kenya or Peru", "Kenya
  and Peru", "Kenya, Peru", "Kenya/Peru", "Kenya vs Peru"). So the winner must be named first:
  "Peru has fewer people than Kenya" is counted wrong although it is true.
- Numbers: right when a number in the head (with "thousand", "million" or "billion" applied,
  and the words one to twenty read as numbers) is within the tolerance of an accepted value
  (relative: 0.25 means within 25 %; 0 means exactly), and the line states at most MAX_NUMBERS
  numbers in all (more is a list of guesses). A negated number ("not 1945") does not count.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

MAX_LINE_CHARS = 600
MAX_NUMBERS = 5
NEGATION_WINDOW = 3
ANSWER_PREFIX = "**Answer:**"
NEGATIONS = frozenset(
    {"not", "no", "never", "neither", "nor", "isn't", "wasn't", "aren't", "weren't", "unlike"}
    | {"without", "except", "excluding", "instead"}
)
HEDGES = (
    "either",
    "both",
    "unclear",
    "uncertain",
    "unknown",
    "not established",
    "cannot",
    "can't",
    "no confirmed answer",
    "not settled",
    "undetermined",
)
KIND_OPENERS = frozenset({"which", "what", "the", "a", "an"})  # "which river": a kind, not a choice
COMPARATIVES = frozenset(
    {"than", "more", "most", "less", "fewer", "first", "earlier", "later", "before", "after"}
    | {"larger", "largest", "bigger", "biggest", "greater", "higher", "highest", "taller"}
    | {"longer", "older", "farther", "further", "closer", "nearer", "hotter", "populous"}
)
LIST_JOINERS = frozenset({"or", "and", "vs", "versus", "/", ",", "&", "the"})
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
NUMBER_WORDS = {
    word: index + 1
    for index, word in enumerate(
        (
            *("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
            *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
            *("eighteen", "nineteen", "twenty"),
        )
    )
}
_CITATION = re.compile(r"\s*\[\d+\]")
_SENTENCE_END = re.compile(
    r"(?<!\b[A-Z])(?<!\bSt)(?<!\bMt)(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bJr)(?<!\bSr)(?<!\bNo)"
    r"(?<!\bvs)(?<!\bc)[.!?]\s+(?=[\"'(\w])"
)
_TOKEN = re.compile(r"[\w'\u2019]+|[/,&]")
_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s+(thousand|million|billion))?"
    r"|\b(" + "|".join(NUMBER_WORDS) + r")\b"
)


@dataclass(frozen=True)
class Gold:
    kind: str  # "wh", "paraphrase", "two-hop", "comparison" or "numeric"
    names: tuple[str, ...] = ()  # the answer's names (for a comparison: the winning option's)
    options: tuple[tuple[str, ...], ...] = ()  # comparison: every option's names, gold included
    values: tuple[float, ...] = ()  # numeric: the accepted values
    tolerance: float = 0.0  # numeric: relative


def answer_line(report: str) -> str:
    """The direct-answer line without its prefix and citation marks, or ""."""
    for line in report.splitlines():
        if line.startswith(ANSWER_PREFIX):
            return _CITATION.sub("", line[len(ANSWER_PREFIX) :]).strip()
    return ""


def is_correct(gold: Gold, line: str, question: str = "") -> bool:
    """Whether `line` (see answer_line) answers; `question` lends a comparison its own
    comparative words ("taller", "born first")."""
    if not line or len(line) > MAX_LINE_CHARS:
        return False
    if gold.kind == "numeric":
        return _number_right(gold, answer_head(line))
    if gold.kind == "comparison":
        return _comparison_right(gold, line, question_words=_comparatives(question))
    return bool(mentions(answer_head(line), gold.names))


def _comparatives(question: str) -> tuple[str, ...]:
    """The question's own comparative words ("taller", "hotter", "first"): its words ending in
    -er or -est, but not a noun it names a kind or a thing by ("Which river is longer", "the
    Mississippi River"), which a line about one option says without choosing."""
    words = re.findall(r"[\w'-]+", question)
    return tuple(
        fold(word)
        for index, word in enumerate(words)
        if (word.casefold().endswith(("er", "est")) or word.casefold() == "first")
        and (index == 0 or (word[:1].islower() and words[index - 1].casefold() not in KIND_OPENERS))
    )


def answer_head(line: str) -> str:
    """The line's first sentence: "Seine" of "Seine. Located on the river Seine, ...". A
    period after an initial or a usual abbreviation ("D.C.", "St.") ends no sentence."""
    return _SENTENCE_END.split(line, maxsplit=1)[0]


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().replace("\u2019", "'").split())


def mentions(line: str, names: Sequence[str]) -> list[tuple[int, int]]:
    """The token spans where one of `names` is mentioned and not negated, in order."""
    tokens = _tokens(line)
    found = set()
    for name in names:
        wanted = _tokens(name)
        for start in range(len(tokens) - len(wanted) + 1):
            end = start + len(wanted)
            if _same(tokens[start:end], wanted) and not _negated(tokens, start):
                found.add((start, end))
    return sorted(found)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def _same(seen: list[str], wanted: list[str]) -> bool:
    if not wanted:
        return False
    heads = all(a == b for a, b in zip(seen[:-1], wanted[:-1], strict=True))
    last, want = seen[-1], wanted[-1]
    return heads and last in {want, f"{want}s", f"{want}es", f"{want}'s"}


def _negated(tokens: list[str], start: int) -> bool:
    return any(token in NEGATIONS for token in tokens[max(0, start - NEGATION_WINDOW) : start])


def _comparison_right(gold: Gold, line: str, *, question_words: Sequence[str]) -> bool:
    folded = fold(line)
    if any(re.search(rf"(?<!\w){re.escape(hedge)}(?!\w)", folded) for hedge in HEDGES):
        return False
    firsts = []
    for option in gold.options:
        found = mentions(line, option)
        if found:
            firsts.append((found[0], option))
    if not firsts:
        return False
    firsts.sort()
    (start, end), first = firsts[0]
    if set(first) != set(gold.names):
        return False
    tokens = _tokens(line)
    between = tokens[end : firsts[1][0][0]] if len(firsts) > 1 else ["-"]
    if all(token in LIST_JOINERS for token in between):
        return False  # listed side by side: "Kenya or Peru"
    after = set(tokens[start:])
    return bool(after & COMPARATIVES or after & set(question_words))


def numbers_in(line: str) -> list[tuple[float, int]]:
    """Every number in the line with its character offset."""
    found = []
    for match in _NUMBER.finditer(fold(line)):
        digits, scale, word = match.group(1), match.group(2), match.group(3)
        if word:
            found.append((float(NUMBER_WORDS[word]), match.start()))
        else:
            value = float(digits.replace(",", "")) * SCALES.get(scale or "", 1.0)
            found.append((value, match.start()))
    return found


def _number_right(gold: Gold, line: str) -> bool:
    found = numbers_in(line)
    if len({value for value, _ in found}) > MAX_NUMBERS:
        return False
    folded = fold(line)
    for value, offset in found:
        before = _tokens(folded[:offset])
        if any(token in NEGATIONS for token in before[-NEGATION_WINDOW:]):
            continue
        if any(_near(value, accepted, gold.tolerance) for accepted in gold.values):
            return True
    return False


def _near(value: float, accepted: float, tolerance: float) -> bool:
    return abs(value - accepted) <= tolerance * abs(accepted) + 1e-9
