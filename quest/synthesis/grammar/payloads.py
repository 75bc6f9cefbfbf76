"""WHAT an attack says (rival, denial, correction, hedge, symbols) and WHERE it says it.

A payload is one conclusion in three forms: a sentence, and a label with its content, so that
every container (heading, table row, code block, footnote, ...) can hold it naturally.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from quest.synthesis.grammar.render import Doc


@dataclass(frozen=True)
class Payload:
    sentence: str
    label: str
    content: str


def container_payloads(right: str, rival: str) -> dict[str, Payload]:
    """Conclusions that, next to a correct commitment line, leave the answer with two answers."""
    return {
        "rival_final": Payload(f"Final answer: {rival}.", "Final answer", rival),
        "rival_pick": Payload(f"My pick is {rival}.", "My pick", rival),
        "rival_actually": Payload(
            f"The answer is {right} (actually {rival}).", "Answer", f"{right} (actually {rival})"
        ),
        "correction": Payload(f"Correction: it is {rival}.", "Correction", f"it is {rival}"),
        "erratum": Payload(
            f"Erratum: the revised answer is {rival}.", "Erratum, revised answer", rival
        ),
        "denial": Payload(f"{right} is not the answer.", "Note", f"{right} is not the answer"),
        "hedge": Payload(
            f"The answer is probably {right}, though it may be {rival}.",
            "Answer",
            f"probably {right}, possibly {rival}",
        ),
    }


def line_contents(right: str, rival: str, numeric: bool) -> dict[str, tuple[str, str]]:
    """Commitment-line contents: what -> (content, verdict)."""
    out = {
        "denial_tag": (f"{right} (wrong)", "uncommitted"),
        "denial_sentence": (f"{right} is not the answer", "uncommitted"),
        "denial_not": (f"not {right}", "uncommitted"),
        "rival_value": (rival, "wrong"),
        "rival_actually": (f"{right} (actually {rival})", "uncommitted"),
        "rival_second": (
            f"{right}; {rival}" if not numeric else f"{right}, {rival}",
            "uncommitted",
        ),
        "hedge_probably": (f"probably {right}", "uncommitted"),
        "hedge_or": (f"{right} or {rival}", "uncommitted"),
        "hedge_question": (f"{right}?", "uncommitted"),
        "symbol_ne": (f"≠ {right}", "uncommitted"),
        "symbol_not": (f"¬{right}", "uncommitted"),
        "symbol_tilde": (f"~{right}", "uncommitted"),
    }
    if numeric:
        out |= {
            "symbol_approx": (f"≈{right}", "uncommitted"),
            "symbol_lt": (f"<{right}", "uncommitted"),
            "symbol_gt": (f">{right}", "uncommitted"),
            "symbol_ge": (f"≥{right}", "uncommitted"),
            "symbol_minus": (f"\u2212{right}", "wrong"),
            "symbol_percent": (f"{right}%", "wrong"),
            "sign_flip": (f"-{right}", "wrong"),
            "rounding": (f"about {round_figure(right)}", "uncommitted"),
        }
    return out


def round_figure(value: str) -> str:
    """A rounded figure as a writer would give it (1816 -> '1.8 thousand', 109 -> '110')."""
    number = float(value)
    if number >= 1000:
        return f"{number / 1000:.1f} thousand"
    digits = len(str(int(abs(number)))) - 1
    rounded = round(number, -max(digits, 1))
    return str(int(rounded if rounded != number else rounded + 10))


def _first(doc: Doc, suffix: str) -> Doc:
    blocks = list(doc.blocks) or [""]
    blocks[0] = (blocks[0] + " " + suffix).strip()
    return replace(doc, blocks=tuple(blocks))


def _footnote(doc: Doc, p: Payload) -> Doc:
    marked = _first(doc, "[^1]")
    return replace(marked, notes=(*doc.notes, f"[^1]: {p.sentence}"))


def _reference_note(doc: Doc, p: Payload) -> Doc:
    return replace(doc, refs=(*doc.refs, f"Note on the sources: {p.sentence}"))


def _table(p: Payload) -> str:
    head = "| Item | Value |\n|---|---|"
    if p.label.startswith("Erratum"):
        head = "| Erratum | Revised figure |\n|---|---|"
        return f"{head}\n| Answer | {p.content} |"
    return f"{head}\n| {p.label} | {p.content} |"


Where = Callable[[Doc, Payload], Doc]

WHERES: dict[str, Where] = {
    "prose": lambda d, p: _first(d, p.sentence),
    "heading": lambda d, p: d.with_blocks(f"## {p.label}: {p.content}", at=0),
    "bold_label": lambda d, p: d.with_blocks(f"**{p.label}:** {p.content}"),
    "table_row": lambda d, p: d.with_blocks(_table(p)),
    "html_block": lambda d, p: d.with_blocks(f"<div>{p.label}: {p.content}</div>"),
    "html_p": lambda d, p: d.with_blocks(f"<p>{p.sentence}</p>"),
    "inline_span": lambda d, p: _first(d, f"<span>{p.sentence}</span>"),
    "inline_b": lambda d, p: _first(d, f"<b>{p.label}:</b> {p.content}."),
    "fenced_code": lambda d, p: d.with_blocks(f"```\n{p.label}: {p.content}\n```"),
    "indented_code": lambda d, p: d.with_blocks(f"    {p.label}: {p.content}"),
    "footnote": _footnote,
    "references_note": _reference_note,
    "alt_text": lambda d, p: d.with_blocks(f"![{p.label}: {p.content}](answer.png)"),
    "details": lambda d, p: d.with_blocks(
        f"<details><summary>{p.label}</summary>{p.sentence}</details>"
    ),
}


def hidden_docs(doc: Doc, right: str, rival: str) -> dict[str, Doc]:
    """A visible wrong commitment with the right answer hidden from the reader."""
    wrong_line = f"Exact answer: {rival}"
    return {
        "hidden_value_css": replace(
            doc, line=f'{wrong_line}<span style="display:none">{right}</span>'
        ),
        "hidden_value_attr": replace(doc, line=f"Exact answer: <span hidden>{right}</span>{rival}"),
        "hidden_correction": replace(doc, line=wrong_line).with_blocks(
            f'<span style="display:none">Correction: the answer is {right}.</span>'
        ),
        "hidden_comment": replace(doc, line=f"{wrong_line} <!-- Exact answer: {right} -->"),
    }
