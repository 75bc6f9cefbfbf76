"""Where a value stands among others: an end of a range ("between A and B"), after a bound
("more than A"), or one item of a list ("X, Y or Z" hedges, "X, Y and Z" only lists). Part of
the commitment rules of quest.rubric.claims."""

from __future__ import annotations

from collections.abc import Sequence

from quest.rubric.cues import (
    APPOSITIVE_OPENERS,
    BOUNDS,
    CLAUSE_STARTERS,
    CONTRACTED,
    COPULAS,
    DASHES,
    DETERMINERS,
    ITEM_STARTS,
    JOINS,
    LIST_ITEM_MAX_WORDS,
    MEMBERSHIP,
    PREPOSITIONS,
    RANGE_JOIN,
    RANGE_OPEN,
    Judgement,
    Reading,
    Token,
    phrase_at,
)

# -- numbers: ranges and bounds --------------------------------------------------------------


def numeric_reading(
    toks: Sequence[Token], low: int, high: int, first: int, last: int
) -> Judgement | None:
    before = toks[first - 1].word if first > low else ""
    after = toks[last + 1].word if last + 1 < high else ""
    # "A-B", "A to B", "between A and B": the value is either end of a range.
    opened = _range_opened(toks, low, first)
    if _joins_range(before, opened) and _number_before(toks, low, first - 1):
        return Judgement("range", toks[first - 1].raw)
    if _joins_range(after, opened) and _number_after(toks, high, last + 1):
        return Judgement("range", toks[last + 1].raw)
    if _range_opened(toks, low, first) and before in RANGE_OPEN:
        return Judgement("range", before)
    for width in (3, 2, 1):
        start = first - width
        if start >= low:
            bound = phrase_at(toks, start, BOUNDS, first)
            if bound and len(bound) == width:
                return Judgement("bound", " ".join(bound))
    return None


def _joins_range(word: str, opened: bool) -> bool:
    return word in DASHES or (word in RANGE_JOIN and (word != "and" or opened))


def _number_before(toks: Sequence[Token], low: int, join: int) -> bool:
    i = join - 1
    while i >= low and not toks[i].is_number and join - i <= 3:
        i -= 1
    return i >= low and toks[i].is_number


def _number_after(toks: Sequence[Token], high: int, join: int) -> bool:
    i = join + 1
    while i < high and not toks[i].is_number and i - join <= 3:
        i += 1
    return i < high and toks[i].is_number


def _range_opened(toks: Sequence[Token], low: int, first: int) -> bool:
    """ "between …" or "from …" shortly before the value, with no clause break."""
    return any(toks[i].word in RANGE_OPEN for i in range(max(low, first - 5), first))


# -- lists -----------------------------------------------------------------------------------


def list_reading(
    toks: Sequence[Token], low: int, high: int, first: int, last: int, *, numeric: bool
) -> Reading | None:
    """The value as one item of a coordinated list: "or" makes it a hedge, "and" a list."""
    sides = (
        _neighbour_left(toks, low, first, numeric=numeric),
        _neighbour_right(toks, high, last, numeric=numeric),
    )
    joins = [join for join in sides if join is not None]
    if not joins:
        return "listed" if _after_membership(toks, low, first) else None
    if any(join in ("or", "nor", "/") for join in joins):
        return "hedged"
    if any(join in ("and", "&") for join in joins) or _comma_run(toks, low, high, first, last):
        return "listed"
    return "listed" if _after_membership(toks, low, first) else None


def _after_membership(toks: Sequence[Token], low: int, first: int) -> bool:
    """ "cities include X", "such as X": X is named as a member, not as the answer."""
    return any(phrase_at(toks, i, MEMBERSHIP, first) for i in range(max(low, first - 3), first))


def _neighbour_left(toks: Sequence[Token], low: int, first: int, *, numeric: bool) -> str | None:
    i = first - 1
    while i >= low and toks[i].word in DETERMINERS:
        i -= 1
    if i < low:
        return None
    join = toks[i].word
    if join not in JOINS:
        return None
    item = _item_before(toks, low, i, numeric=numeric)
    if not _is_item(item, numeric=numeric):
        return None
    if join == ",":
        return _join_beyond(toks, low, i - len(item), backwards=True) or ","
    return join


def _neighbour_right(toks: Sequence[Token], high: int, last: int, *, numeric: bool) -> str | None:
    i = last + 1
    if numeric:  # "5,895 m or 5,199 m": the unit stands between the number and the join
        while i < min(high, last + 3) and toks[i].is_word and not toks[i].is_number:
            if toks[i].word in JOINS:
                break
            i += 1
    if i >= high:
        return None
    join = toks[i].word
    if join not in JOINS:
        return None
    if join == "," and i + 1 < high and toks[i + 1].word in APPOSITIVE_OPENERS:
        return None  # "Kumasi, a neighbour of Togo": an appositive, not the next item
    item = _item_after(toks, high, i, numeric=numeric)
    if not _is_item(item, numeric=numeric):
        return None
    if join == ",":
        return _join_beyond(toks, high, i + len(item) + 1, backwards=False) or ","
    return join


def _join_beyond(toks: Sequence[Token], limit: int, i: int, *, backwards: bool) -> str | None:
    """The conjunction further along a comma run ("X, Y and Z"): "or" if the run holds one
    anywhere (an item may hold "and" itself: "Saint Vincent and the Grenadines or Tonga"),
    else the first conjunction, if any."""
    step = -1 if backwards else 1
    found: str | None = None
    while (i >= limit) if backwards else (i < limit):
        word = toks[i].word
        if word in ("or", "nor", "/"):
            return word
        if word in JOINS and word != ",":
            found = found or word
        elif not (toks[i].is_word or word == ","):
            break
        i += step
    return found


def _item_before(
    toks: Sequence[Token], low: int, join: int, *, numeric: bool = False
) -> list[Token]:
    if numeric:  # a number and at most two unit words right before the join: "5,199 m or"
        i = join - 1
        while i >= max(low, join - 3) and not toks[i].is_number:
            i -= 1
        return list(toks[i:join]) if i >= low and toks[i].is_number else []
    # Back to the previous join, or to the verb the list is the object of; a run of more words
    # than an item has is cut there (it is no item either way), so the walk stays short.
    start, words = join, 0
    while start > low and words <= LIST_ITEM_MAX_WORDS:
        if toks[start - 1].word in JOINS or toks[start - 1].word in ITEM_STARTS:
            break
        start -= 1
        words += toks[start].is_word
    return list(toks[start:join])


def _item_after(
    toks: Sequence[Token], high: int, join: int, *, numeric: bool = False
) -> list[Token]:
    if numeric:  # the next item starts with its number: "or 5,199 m", not "and named in 1927"
        return [toks[join + 1]] if join + 1 < high and toks[join + 1].is_number else []
    end, words = join + 1, 0
    while end < high and toks[end].word not in JOINS and words <= LIST_ITEM_MAX_WORDS:
        words += toks[end].is_word
        end += 1
    return list(toks[join + 1 : end])


def _is_item(item: list[Token], *, numeric: bool) -> bool:
    """A short noun phrase (or, for numbers, a number with at most a unit): not a clause."""
    words = [t for t in item if t.is_word]
    if not words or len(words) > LIST_ITEM_MAX_WORDS:
        return False
    if numeric:
        return any(t.is_number for t in words) and len(words) <= 3
    if words[0].word in PREPOSITIONS or words[0].word in CLAUSE_STARTERS:
        return False
    return not any(t.word in COPULAS or t.word in CONTRACTED for t in words)


def _comma_run(toks: Sequence[Token], low: int, high: int, first: int, last: int) -> bool:
    """Three or more short items separated by commas alone: "X, Y, Z" (an appositive such as
    "the capital, Paris, is …" has only two). Counting stops at the third item, so a long run
    of commas is not walked again for each of its values."""
    items = 1
    i = first - 1
    while i >= low and toks[i].word == "," and items < 3:
        item = _item_before(toks, low, i)
        if not _is_item(item, numeric=False):
            break
        items += 1
        i -= len(item) + 1
    i = last + 1
    while i < high and toks[i].word == "," and items < 3:
        item = _item_after(toks, high, i)
        if not _is_item(item, numeric=False):
            break
        items += 1
        i += len(item) + 1
    return items >= 3
