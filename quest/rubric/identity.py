"""Identity leaves: the committed value (quest.rubric.commitment) read as the value a check
asks for. A number must be that number with its sign (and a unit the question uses); a name must
be the name under its aliases (a country's ISO names, a generic head noun left out) and no rival's;
a committed list is counted item by item, each wrong item costing what a right one earns."""

from __future__ import annotations

from collections.abc import Sequence

from quest.rubric.commitment import same_name
from quest.rubric.lexicon import GENERIC_HEADS, UNIT_WORDS
from quest.rubric.model import Check
from quest.rubric.reading import CheckContext, verdict_of
from quest.rubric.verdict import Evidence, LeafVerdict
from quest.text.aliases import aliases
from quest.text.fold import fold
from quest.text.values import name_key, parse_number, plain_number


def committed_check(check: Check, ctx: CheckContext) -> LeafVerdict:
    """Identity: the answer's committed value (quest.rubric.commitment) is, as a whole, the
    value: the same number (sign and all, with a unit the question uses) or the same name under
    its aliases. A long answer keeps its commitment: `max_chars` is read by no check now."""
    value = str(check.params["value"])
    aliases = check.params.get("aliases")
    names = (value, *(str(a) for a in aliases)) if isinstance(aliases, tuple) else (value,)
    others = check.params.get("others")
    rivals = tuple(str(o) for o in others) if isinstance(others, tuple) else ()
    commitment = ctx.commitment(as_list=False, candidates=(*names, *rivals))
    if not commitment.committed:
        return verdict_of(check, False, f"nothing is committed: {commitment.problem}")
    written = commitment.items[0]
    if _is_value(written, names, rivals, ctx.task):
        return verdict_of(check, True, f"commits to {written!r}", Evidence("", commitment.line))
    return verdict_of(check, False, f"commits to {written!r}, not {value!r}")


def _is_value(written: str, names: Sequence[str], rivals: Sequence[str], question: str) -> bool:
    expected = plain_number(names[0])
    if expected is not None:
        found = parse_number(written)
        return (
            found is not None
            and found.exact
            and found.value == expected
            and _units_ok(found.unit, question)
        )
    taken = {name_key(alias) for rival in rivals for alias in aliases(rival)}
    known = [a for name in names for a in sorted(aliases(name)) if name_key(a) not in taken]
    return any(same_name(written, name) for name in _with_heads(known, rivals))


def _units_ok(unit: Sequence[str], question: str) -> bool:
    """A committed number's unit words are units, or the question's own words ("11 public
    holidays"); any other word ("57 or so", "57 maybe") is more than the number."""
    asked = set(fold(question).split())
    return all(word in UNIT_WORDS or fold(word) in asked for word in unit)


def _with_heads(names: Sequence[str], rivals: Sequence[str]) -> list[str]:
    """The names, and each without its generic head noun ("Matsumoto Airport" -> "Matsumoto")
    when that shorter name is no rival's."""
    taken = {fold(r) for r in rivals}
    out = list(names)
    for name in names:
        folded = fold(name)
        for head in GENERIC_HEADS:
            short = folded.removesuffix(f" {head}")
            if short != folded and short and short not in taken:
                out.append(short)
                break
    return out


def _names_item(item: str, value: str) -> bool:
    """A committed list item names `value`, under its aliases and without a generic head."""
    return any(same_name(item, name) for name in _with_heads(sorted(aliases(value)), ()))


def committed_items(check: Check, ctx: CheckContext) -> tuple[list[str], int, str]:
    """The allowed values the committed list names (each once), how many of its items are not
    allowed, or why there is none. A list longer than the tree asks for commits to nothing."""
    values = check.params["values"]
    assert isinstance(values, tuple)
    commitment = ctx.commitment(as_list=True, candidates=tuple(str(v) for v in values))
    if not commitment.committed:
        return [], 0, f"nothing is committed: {commitment.problem}"
    if ctx.list_most and len(commitment.items) > ctx.list_most:
        return (
            [],
            0,
            (
                f"the committed list has {len(commitment.items)} items where {ctx.list_most} are "
                "asked: it commits to nothing"
            ),
        )
    hits: list[str] = []
    wrong = 0
    for item in commitment.items:
        match = next((str(v) for v in values if _names_item(item, str(v))), None)
        if match is None:
            wrong += 1
        elif match not in hits:
            hits.append(match)
    return hits, wrong, ""
