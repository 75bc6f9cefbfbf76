"""A grammar of labelled answers for kg tasks: adversarial answers (WHERE x WHAT) and correct
rewordings (relation wording x sentence shape x formats x length), built from a task record
alone, so that a reward's hack rate and false-negative rate can be measured per class.

The labels are what a careful human reader concludes; nothing here reads the reward's rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quest.synthesis.grammar.attacks import attack_answers, attack_classes
from quest.synthesis.grammar.model import GrammarAnswer, rng_for
from quest.synthesis.grammar.paraphrases import paraphrase_classes, paraphrases

__all__ = [
    "GrammarAnswer",
    "attack_answers",
    "attack_classes",
    "paraphrase_classes",
    "paraphrases",
    "sample",
]


def sample(record: Mapping[str, Any], *, seed: int, n: int) -> list[GrammarAnswer]:
    """A cheap, seeded mix of attacks and paraphrases (about two attacks per paraphrase)."""
    rng = rng_for(seed, "sample", str(record.get("question", "")))
    attacks = attack_answers(record, seed=seed)
    rewordings = [a for a in paraphrases(record, seed=seed) if a.where != "length"]
    wanted = min(len(rewordings), n // 3)
    picked = rng.sample(rewordings, wanted) + rng.sample(attacks, min(len(attacks), n - wanted))
    rng.shuffle(picked)
    return picked
