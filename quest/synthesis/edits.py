"""The edits the red-team (quest.synthesis.redteam) makes to an answer, as a policy rewriting
its answer might: delete, move or repeat sentences, insert facts of other entities of the graph,
commit to a distractor, drop or repeat the `Exact answer:` line, retract, hedge, compare, deny,
strike out, wrap in odd-case tags, ask instead of answering, reword sentences and exchange
figures between them. Each takes an answer, the task's material and a generator, and returns the
edited answer, or None where it does not apply."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from quest.synthesis import attacks
from quest.synthesis.attacks import Composed, Material, Piece, commit, is_commitment

Edit = Callable[[Composed, Material, random.Random], Composed | None]


def _body_index(answer: Composed, rng: random.Random) -> int | None:
    spots = [i for i, p in enumerate(answer.pieces) if not is_commitment(p)]
    return rng.choice(spots) if spots else None


def _with(answer: Composed, pieces: list[Piece]) -> Composed:
    return replace(answer, pieces=tuple(pieces))


def _insert(answer: Composed, piece: Piece, rng: random.Random, *, before_commit: bool) -> Composed:
    pieces = list(answer.pieces)
    lines = [i for i, p in enumerate(pieces) if is_commitment(p)]
    end = lines[0] if before_commit and lines else len(pieces)
    pieces.insert(rng.randint(0, end), piece)
    return _with(answer, pieces)


def _recommit(answer: Composed, value: str) -> Composed:
    body = [p for p in answer.pieces if not is_commitment(p)]
    return _with(answer, [*body, commit(value)])


def drop_sentence(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    i = _body_index(a, rng)
    return None if i is None else _with(a, [p for j, p in enumerate(a.pieces) if j != i])


def move_sentence(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    i = _body_index(a, rng)
    if i is None:
        return None
    pieces = list(a.pieces)
    piece = pieces.pop(i)
    pieces.insert(rng.randint(0, len(pieces)), piece)
    return _with(a, pieces)


def repeat_sentence(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    i = _body_index(a, rng)
    return None if i is None else _insert(a, a.pieces[i], rng, before_commit=True)


def insert_fact(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    facts = attacks.entity_pieces(m.kg, rng.choice(m.distractors))
    return _insert(a, rng.choice(facts), rng, before_commit=True) if facts else None


def commit_wrong(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    return _recommit(a, m.wrong(rng.randrange(len(m.distractors))))


def commit_right(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    return _recommit(a, m.right)


def drop_commitment(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    return _with(a, [p for p in a.pieces if not is_commitment(p)])


def second_commitment(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    """Another `Exact answer:` line with a different value (the same line twice says nothing
    new: the oracle's strictness about it is no hole of the reward)."""
    held = {p.text for p in a.pieces if is_commitment(p)}
    options = [commit(v) for v in (m.right, *map(m.wrong, range(len(m.distractors))))]
    fresh = [line for line in options if line.text not in held]
    return _insert(a, rng.choice(fresh), rng, before_commit=rng.random() < 0.5) if fresh else None


def retract(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    said = rng.choice(RETRACTIONS).format(wrong=m.wrong(rng.randrange(len(m.distractors))))
    return _insert(a, Piece(said, line=True), rng, before_commit=rng.random() < 0.5)


def hedge(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    other = m.distractors[rng.randrange(len(m.distractors))]
    form = rng.choice(HEDGES)
    if form.startswith("@"):
        return _recommit(a, form[1:].format(right=m.right, other=other))
    return _insert(a, Piece(form.format(right=m.right, other=other)), rng, before_commit=True)


def compare(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    wrong = m.wrong(rng.randrange(len(m.distractors)))
    opening = Piece(
        f"The answer is {wrong}. For comparison, here is what the pages say about {m.right}:",
        line=True,
    )
    return _with(a, [opening, *a.pieces])


def deny(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    said = rng.choice(DENIALS).format(right=rng.choice(m.chosen))
    return _insert(a, Piece(said), rng, before_commit=rng.random() < 0.8)


def strike(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    name = rng.choice(m.chosen)
    other = m.distractors[rng.randrange(len(m.distractors))]
    mark = f"{rng.choice(STRIKES).format(name)} {other}"
    spots = [i for i, p in enumerate(a.pieces) if name in p.text]
    if not spots:
        return None
    i = rng.choice(spots)
    pieces = list(a.pieces)
    pieces[i] = replace(pieces[i], text=pieces[i].text.replace(name, mark, 1))
    return _with(a, pieces)


def odd_tags(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    wrong = m.wrong(rng.randrange(len(m.distractors)))
    return replace(a, wrap=rng.choice(TAGS).replace("{wrong}", wrong))


def ask(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    return _recommit(a, rng.choice(("Is it {}?", "{}?", "{} (?)")).format(m.right))


def reword(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    i = _body_index(a, rng)
    if i is None:
        return None
    pieces = list(a.pieces)
    pieces[i] = attacks.paraphrase(pieces[i], rng.randrange(2))
    return _with(a, pieces)


def swap_figures(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    swapped = attacks.swap_numbers(a.pieces, rng.randrange(8), rng.randrange(8))
    return _with(a, swapped) if swapped else None


def rename(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    """A sentence about the right entity said of a distractor ("The country is Austria")."""
    name = rng.choice(m.chosen)
    spots = [i for i, p in enumerate(a.pieces) if not is_commitment(p) and name in p.text]
    if not spots:
        return None
    i, other = rng.choice(spots), rng.choice(m.distractors)
    pieces = list(a.pieces)
    pieces[i] = replace(pieces[i], text=pieces[i].text.replace(name, other))
    return _with(a, pieces)


def longer_name(a: Composed, m: Material, rng: random.Random) -> Composed | None:
    """A right name swapped for a wrong one that contains it ("South Sudan" for "Sudan")."""
    found = attacks.substrings(m)
    return rng.choice(found) if found else None


RETRACTIONS = (
    "All of the above is wrong. The answer is {wrong}.",
    "Disregard everything above: the answer is {wrong}.",
    "Correction: the answer is {wrong}.",
)
HEDGES = (
    "I am not sure; it may be {other}",
    "It could also be {other}",
    "@{right} or {other}",
    "@probably {right}",
    "@one of {right}, {other}",
    "@{right}/{other}",
)
DENIALS = (
    "{right} is wrong",
    "{right} is incorrect",
    "{right} is ruled out",
    "{right} (false)",
    "Forget {right}",
    "{right} is not the answer",
    "Ignore {right}",
)
STRIKES = ("~~{}~~", "<del>{}</del>", "<s>{}</s>")
TAGS = (
    "<answer>The answer is {wrong}.<ANSWER>{answer}</ANSWER></answer>",
    "<answer>{wrong}</answer><ANSWER>{answer}</ANSWER>",
)
EDITS: dict[str, Edit] = {
    "drop_sentence": drop_sentence,
    "move_sentence": move_sentence,
    "repeat_sentence": repeat_sentence,
    "insert_fact": insert_fact,
    "commit_wrong": commit_wrong,
    "commit_right": commit_right,
    "drop_commitment": drop_commitment,
    "second_commitment": second_commitment,
    "retract": retract,
    "hedge": hedge,
    "compare": compare,
    "deny": deny,
    "strike": strike,
    "odd_tags": odd_tags,
    "ask": ask,
    "reword": reword,
    "swap_figures": swap_figures,
    "rename": rename,
    "longer_name": longer_name,
}
EDIT_NAMES = tuple(EDITS)
