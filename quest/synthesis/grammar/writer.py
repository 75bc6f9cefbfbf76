"""Writing a correct answer from material in a given style (sentence shape, formats, length)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from quest.synthesis.grammar.canonical import CANONICAL_SAY
from quest.synthesis.grammar.lexicon import ANSWER_UNITS, PADDING_NOTES, WORDINGS, Wording
from quest.synthesis.grammar.material import Claim, Material
from quest.synthesis.grammar.render import (
    DEFAULT,
    Citer,
    Doc,
    Style,
    answer_line,
    line_name,
    name_text,
    number_text,
)

_NO_SUBJECT = frozenset({"identity", "raw"})
# Lays out one run of claims that share a wording: bullets, a table, dashes.
Listing = Callable[[Wording, Sequence[Claim], Style, Citer], str]
# Writes the claims about one subject: with pronouns, in appositions.
About = Callable[[Sequence[Claim], Style, Citer], str]


def write(material: Material, style: Style = DEFAULT, claims: Sequence[Claim] | None = None) -> Doc:
    """The answer `material` calls for, in `style`; `claims` overrides the facts stated."""
    citer = Citer(style.url)
    facts = list(material.claims if claims is None else claims)
    blocks = list(body_blocks(facts, style, citer))
    if style.pad:
        blocks += padding(facts, style, citer, style.pad - sum(len(b) for b in blocks))
    line = answer_line(committed(material, style.name), style.line, answer_unit(material))
    return Doc(tuple(blocks), line, citer.references())


def committed(material: Material, how: str) -> str:
    if material.numeric:
        return material.answers[0]
    return "; ".join(line_name(a, how) for a in material.answers)


def answer_unit(material: Material) -> str:
    if not material.numeric:
        return ""
    if material.difference:
        return ANSWER_UNITS["difference"]
    for claim in reversed(material.claims):
        if claim.value == material.answers[0] and claim.relation in ANSWER_UNITS:
            return ANSWER_UNITS[claim.relation]
    if "official languages" in material.question:
        return ANSWER_UNITS["official_languages"]
    return ""


def value_text(claim: Claim, style: Style) -> str:
    if claim.items:
        names = [name_text(i, style.name) for i in claim.items]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if claim.is_number:
        return number_text(claim.value, claim.relation, style.number)
    return name_text(claim.value, style.name)


def subject_text(claim: Claim, style: Style) -> str:
    name = name_text(claim.subject, style.name)
    return f"{name} ({claim.code})" if claim.code else name


def sentence(claim: Claim, style: Style, citer: Citer, template: int | None = None) -> str:
    """One claim as a full sentence, with its citations."""
    if claim.relation == "raw":
        return claim.value + citer.mark(claim.urls) + "."
    wording = WORDINGS[claim.relation]
    index = style.template if template is None else template
    pattern = wording.sentences[index % len(wording.sentences)]
    if index < 0:
        pattern = CANONICAL_SAY[claim.relation]
    text = pattern.format(s=subject_text(claim, style), v=value_text(claim, style))
    return _capital(text) + citer.mark(claim.urls) + "."


def body_blocks(claims: Sequence[Claim], style: Style, citer: Citer) -> Iterable[str]:
    listings: dict[str, Listing] = {"bullets": _bullets, "table": _table, "dash": _dashes}
    if style.shape in listings:
        return _listing_blocks(claims, style, citer, listings[style.shape])
    abouts: dict[str, About] = {"pronoun": _pronouns, "apposition": _appositions}
    if style.shape in abouts:
        return _subject_blocks(claims, style, citer, abouts[style.shape])
    return [" ".join(sentence(c, style, citer) for c in claims)]


def _by_subject(claims: Sequence[Claim]) -> list[list[Claim]]:
    order: dict[str, list[Claim]] = {}
    for claim in claims:
        order.setdefault(claim.subject, []).append(claim)
    return list(order.values())


def _subject_blocks(claims: Sequence[Claim], style: Style, citer: Citer, about: About) -> list[str]:
    """A block for each subject's claims, written by `about`; claims without a subject read as
    sentences."""
    out = []
    for group in _by_subject(claims):
        if not group[0].subject or group[0].relation in _NO_SUBJECT:
            out.append(" ".join(sentence(c, style, citer) for c in group))
        else:
            out.append(about(group, style, citer))
    return out


def _pronouns(group: Sequence[Claim], style: Style, citer: Citer) -> str:
    lead = f"Then there is {subject_text(group[0], style)}."
    return " ".join([lead, *(_pronoun_sentence(c, style, citer) for c in group)])


def _pronoun_sentence(claim: Claim, style: Style, citer: Citer) -> str:
    wording = WORDINGS[claim.relation]
    if not wording.pronoun_ok:
        return sentence(claim, style, citer)
    pattern = wording.sentences[wording.pronoun_ok[style.template % len(wording.pronoun_ok)]]
    pattern = pattern.replace("{s}'s", "Its", 1).replace("{s}", "It", 1)
    return pattern.format(v=value_text(claim, style)) + citer.mark(claim.urls) + "."


def _appositions(group: Sequence[Claim], style: Style, citer: Citer) -> str:
    parts = [_appositive(c, style) + citer.mark(c.urls) for c in group]
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"I looked up {subject_text(group[0], style)}, {joined}."


def _appositive(claim: Claim, style: Style) -> str:
    return WORDINGS[claim.relation].appositive.format(v=value_text(claim, style))


def _runs(claims: Sequence[Claim]) -> list[tuple[Wording | None, list[Claim]]]:
    """Claims grouped by relation (first appearance first), the unit of a list or table."""
    order: dict[str, list[Claim]] = {}
    for claim in claims:
        order.setdefault(claim.relation, []).append(claim)
    return [
        (WORDINGS.get(relation) if relation not in _NO_SUBJECT else None, group)
        for relation, group in order.items()
    ]


def _listed(claim: Claim, wording: Wording, style: Style) -> str:
    value = value_text(claim, style)
    return f"{value} {wording.unit}" if wording.unit and claim.is_number else value


def _listing_blocks(
    claims: Sequence[Claim], style: Style, citer: Citer, listing: Listing
) -> list[str]:
    """A block for each run of claims of one relation, laid out by `listing`; claims of a
    relation without a wording read as sentences."""
    out = []
    for wording, group in _runs(claims):
        if wording is None:
            out.append(" ".join(sentence(c, style, citer) for c in group))
        else:
            out.append(listing(wording, group, style, citer))
    return out


def _bullets(wording: Wording, group: Sequence[Claim], style: Style, citer: Citer) -> str:
    rows = [
        f"- {subject_text(c, style)}: {_listed(c, wording, style)}{citer.mark(c.urls)}"
        for c in group
    ]
    return f"{wording.label}:\n" + "\n".join(rows)


def _table(wording: Wording, group: Sequence[Claim], style: Style, citer: Citer) -> str:
    head = f"| {wording.kind} | {wording.label} | Source |\n|---|---|---|"
    rows = [
        f"| {subject_text(c, style)} | {_listed(c, wording, style)} |{citer.mark(c.urls) or ' -'} |"
        for c in group
    ]
    return "\n".join([head, *rows])


def _dashes(wording: Wording, group: Sequence[Claim], style: Style, citer: Citer) -> str:
    rows = [
        f"{subject_text(c, style)} — {_listed(c, wording, style)}{citer.mark(c.urls)}"
        for c in group
    ]
    return f"{wording.label}:\n\n" + "\n\n".join(rows)


def padding(claims: Sequence[Claim], style: Style, citer: Citer, size: int) -> list[str]:
    """Relevant, correct restatements and method notes until about `size` characters."""
    out: list[str] = []
    total, turn = 0, 1
    while total < size and claims:
        note = PADDING_NOTES[turn % len(PADDING_NOTES)]
        said = " ".join(sentence(c, style, citer, style.template + turn) for c in claims)
        block = f"Restating the findings ({turn}). {note} {said}"
        out.append(block)
        total += len(block) + 2
        turn += 1
    return out


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
