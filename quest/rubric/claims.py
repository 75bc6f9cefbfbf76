"""Does a claim *commit* to a value? The rule set behind every deterministic check.

A check is satisfied only by an affirmative claim that commits to one value for its slot. For an
occurrence of the value in a claim (a sentence of the answer's prose), these readings do not
count, and each is reported with the words that caused it:

question    the claim asks rather than states ("Is it Kilimanjaro?").
negated     an odd number of negations govern it: "not X", "never X", "no X", "neither X nor Y",
            "it is false that X …", or "X is not / isn't / does not …" right after it. Two
            negations cancel ("it is not true that X is not the highest" affirms X).
contrasted  it stands right after "unlike", "rather than", "instead of", "other than", "except",
            "than", "as opposed to", "compared with" … ("higher than X" says nothing of X).
            Contrasts count as negations for the parity, so "no peak is higher than X" affirms X.
hedged      its clause hedges ("could", "might", "may be", "possibly", "perhaps", "probably",
            "likely", "I think", "either", "whether", "if" …), it follows "one of" / "among",
            or it is one of several alternatives joined by "or" ("X, Y or Z", "X/Y").
listed      it is one item of a list joined by "and" or commas ("cities include X, Y and Z"):
            a list names things, it does not say which one fills the slot. Checks whose slot is
            an item of a list (the k-th item of "find k items") opt in with `list: true`.
range       (numbers, dates) it is an end of a range: "between A and B", "from A to B", "A-B".
bound       (numbers) it follows "more than", "over", "at least", "under", "up to" ….

Clauses end at ; : — ( ) and at "but", "whereas", "while", "although", "yet", and at a comma
or "and" that starts a new clause ("…, it is …", "…, not Y", "…, which …"). Negation reaches to
the end of its clause; a contrast only to the next comma.

It stays a small rule set on purpose: it reads word order, not syntax, so it can miss a
commitment written in an unusual way (a false negative the benchmark counts), and it must never
accept a negated, hedged or listed mention (a hack the probes and tests try).
"""

from __future__ import annotations

from collections.abc import Sequence

from quest.rubric.coordination import list_reading, numeric_reading
from quest.rubric.cues import (
    AFTER_REACH,
    AMONG,
    APPOSITIVE,
    CLAUSE_STARTERS,
    CLAUSE_WORDS,
    CLOSE,
    CONTRACTED,
    CONTRAST_REACH,
    CONTRASTIVE,
    CONTRASTS,
    COPULAS,
    DASHES,
    HARD,
    HEDGE_PHRASES,
    HEDGES,
    NEGATORS,
    NOT_NEGATION,
    OPEN,
    Judgement,
    Token,
    phrase_at,
    tokens,
)
from quest.text.words import stem


def judge_occurrence(
    text: str,
    start: int,
    end: int,
    *,
    numeric: bool = False,
    allow_list: bool = False,
    context: Sequence[tuple[str, ...]] = (),
    stated: bool = False,
) -> Judgement:
    """How the claim `text` treats the value written at text[start:end]. With `context` (folded
    word sequences), the value's clause must also contain one of them. `stated`: whether the
    value is said at all, as a rival is: hedged, listed or a range's end still say it."""
    if text.rstrip().endswith("?"):
        return Judgement("question", "?")
    view, first, last = _view(tokens(text), start, end)
    if first < 0:
        return Judgement("affirmed")
    low, high = _clause(view, first, last)
    found = numeric_reading(view, low, high, first, last) if numeric else None
    if stated and found is not None and found.reading == "range":
        found = None
    found = found or _polarity(view, low, high, first, last)
    if found is None and not stated:
        found = _hedge(view, low, high, first, last)
    if found is None and not stated:
        listed = list_reading(view, low, high, first, last, numeric=numeric)
        if listed is not None and not (allow_list and listed == "listed"):
            found = Judgement(listed, _clause_text(text, view, low, high))
    if found is None and context and not _has_context(view, first, last, context):
        found = Judgement("off_topic", _clause_text(text, view, low, high))
    return found or Judgement("affirmed")


def _view(toks: Sequence[Token], start: int, end: int) -> tuple[list[Token], int, int]:
    """The tokens of the value's own bracket group, brackets and nested groups left out: the
    clause around "Kilimanjaro (5,895 m) is the highest" runs across the parenthesis, and a
    parenthesis is a clause of its own."""
    groups: list[int] = []
    stack = [0]
    next_id = 1
    for token in toks:
        if token.word in OPEN:
            stack.append(next_id)
            next_id += 1
            groups.append(-1)
        elif token.word in CLOSE:
            if len(stack) > 1:
                stack.pop()
            groups.append(-1)
        else:
            groups.append(stack[-1])
    span = [i for i, t in enumerate(toks) if t.start < end and t.end > start and groups[i] >= 0]
    if not span:
        return [], -1, -1
    group = groups[span[0]]
    view = [t for i, t in enumerate(toks) if groups[i] == group]
    first = view.index(toks[span[0]])
    last = view.index(toks[span[-1]]) if groups[span[-1]] == group else first
    return view, first, last


def _has_context(
    view: Sequence[Token], first: int, last: int, context: Sequence[tuple[str, ...]]
) -> bool:
    """A context phrase stands, affirmed, in the value's clause, or across a dash or a table
    cell ("Kilimanjaro - the highest peak", "Capital | Canberra"); not in another clause
    ("Sydney is the capital, not Canberra; 367,752 people live in Canberra"), and not across a
    contrast ("Mount Kenya is the highest, whereas Kilimanjaro is older")."""
    low, high = _clause(view, first, last, through_dashes=True)
    # A word of the phrase in any inflection: "bordered by" says what "borders" does.
    words = [stem(t.word) for t in view]
    for phrase in context:
        wanted = [stem(word) for word in phrase]
        for i in range(low, high - len(phrase) + 1):
            if not phrase or words[i : i + len(phrase)] != wanted:
                continue
            end = i + len(phrase) - 1
            between = words[min(end, last) + 1 : max(i, first)]
            if any(word in CONTRASTIVE for word in between):
                continue
            clow, chigh = _clause(view, i, end)
            if _polarity(view, clow, chigh, i, end) is None:
                return True
    return False


def _clause_text(text: str, view: Sequence[Token], low: int, high: int) -> str:
    return " ".join(text[view[low].start : view[high - 1].end].split())


# -- clauses ---------------------------------------------------------------------------------


def _clause(
    toks: Sequence[Token], first: int, last: int, *, through_dashes: bool = False
) -> tuple[int, int]:
    def ends(i: int) -> bool:
        return _ends_clause(toks, i) and not (through_dashes and toks[i].word in APPOSITIVE)

    low = first
    while low > 0 and not ends(low - 1):
        low -= 1
    high = last + 1
    while high < len(toks) and not ends(high):
        high += 1
    return low, high


def _ends_clause(toks: Sequence[Token], i: int) -> bool:
    """Token i separates two clauses (it belongs to neither)."""
    word = toks[i].word
    following = toks[i + 1].word if i + 1 < len(toks) else ""
    if word in HARD or (word in CLAUSE_WORDS and (word, following) != ("instead", "of")):
        return True
    if word in DASHES:
        return toks[i].raw != "-" and not _between_numbers(toks, i)
    if word in (",", "and") and i + 1 < len(toks):
        after = toks[i + 1].word
        return after in CLAUSE_STARTERS or (after == "and" and word == ",")
    return False


def _between_numbers(toks: Sequence[Token], i: int) -> bool:
    return 0 < i < len(toks) - 1 and toks[i - 1].is_number and toks[i + 1].is_number


# -- negation and contrast -------------------------------------------------------------------


def _polarity(
    toks: Sequence[Token], low: int, high: int, first: int, last: int
) -> Judgement | None:
    cues: list[tuple[str, str]] = []  # (reading, cue)
    neither = False
    i = low
    while i < first:
        contrast = phrase_at(toks, i, CONTRASTS, first)
        if contrast and _no_comma(toks, i + len(contrast), first, CONTRAST_REACH):
            cues.append(("contrasted", " ".join(contrast)))
            i += len(contrast)
            continue
        word = toks[i].word
        if _negates(toks, i) and not (word == "nor" and neither):
            neither = neither or word == "neither"
            cues.append(("negated", toks[i].raw))
        i += 1
    after = _negated_after(toks, last, high)
    if after:
        cues.append(("negated", after))
    if len(cues) % 2 == 0:
        return None
    reading, cue = cues[0]
    return Judgement("negated" if reading == "negated" else "contrasted", cue)


def _negates(toks: Sequence[Token], i: int) -> bool:
    word = toks[i].word
    if word in CONTRACTED or word.endswith("n't"):
        return True
    if word not in NEGATORS:
        return False
    following = toks[i + 1].word if i + 1 < len(toks) else ""
    if word == "no" and not following[:1].isalnum():  # "No: it is X" answers, it does not deny
        return False
    return following not in NOT_NEGATION.get(word, frozenset())


def _negated_after(toks: Sequence[Token], last: int, high: int) -> str:
    """ "X is not …", "X, however, isn't …", "X does not …": the copula comes within a few
    words of the value, before any new clause."""
    words = 0
    i = last + 1
    while i < high and words < AFTER_REACH:
        word = toks[i].word
        if word in CONTRACTED or word.endswith("n't"):
            return toks[i].raw
        if word in COPULAS and i + 1 < high and _denies(toks, i + 1, high):
            return f"{toks[i].raw} {toks[i + 1].raw}"
        if toks[i].is_word:
            words += 1
        i += 1
    return ""


def _denies(toks: Sequence[Token], i: int, high: int) -> bool:
    """ "not" or "never" after a copula ("is not", "was never"), or "no longer"; "has no rival"
    says nothing against the subject."""
    word = toks[i].word
    following = toks[i + 1].word if i + 1 < high else ""
    if word == "not":
        return following not in NOT_NEGATION["not"]
    return word == "never" or (word == "no" and following == "longer")


def _no_comma(toks: Sequence[Token], start: int, stop: int, reach: int) -> bool:
    between = toks[start:stop]
    return len(between) <= reach and all(t.word != "," for t in between)


# -- hedges ----------------------------------------------------------------------------------


def _hedge(toks: Sequence[Token], low: int, high: int, first: int, last: int) -> Judgement | None:
    for i in range(low, high):
        if first <= i <= last:
            continue
        word = toks[i].word
        if word in HEDGES:
            return Judgement("hedged", toks[i].raw)
        phrase = phrase_at(toks, i, HEDGE_PHRASES, high)
        if phrase and _modal(toks, i, phrase):
            return Judgement("hedged", " ".join(phrase))
        if i < first:
            among = phrase_at(toks, i, AMONG, first)
            # "Among Greece's neighbours, Turkey has the most": a set the value is picked from,
            # once a comma closes it, is no hedge.
            if among and not any(t.raw == "," for t in toks[i:first]):
                return Judgement("hedged", " ".join(among))
    return None


def _modal(toks: Sequence[Token], i: int, phrase: tuple[str, ...]) -> bool:
    """ "may be" is a hedge; "May" the month is not (it is written with a capital)."""
    return phrase[0] != "may" or toks[i].raw == "may"


def clause_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of a claim, cut where negation scope ends (see above)."""
    toks = tokens(text)
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for i in range(len(toks)):
        if _ends_clause(toks, i):
            if start is not None:
                spans.append((toks[start].start, toks[i - 1].end))
            start = None
        elif start is None:
            start = i
    if start is not None:
        spans.append((toks[start].start, toks[-1].end))
    return spans
