"""Exact match and F1 as the QA benchmarks' authors compute them.

The answer normalisation is SQuAD's, which FlashRAG and Search-R1 use unchanged: lower case,
punctuation removed, the articles a/an/the dropped, whitespace collapsed. A prediction is
scored against each accepted answer (the alias list) and keeps its best score. F1 is the token
overlap of the normalised texts; following FlashRAG, a prediction or an answer that is "yes",
"no" or "noanswer" only ever matches itself (F1 0 otherwise, never partial credit).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)
EXCLUSIVE = frozenset({"yes", "no", "noanswer"})


def normalize_answer(text: str) -> str:
    lowered = text.lower()
    unpunctuated = "".join(char for char in lowered if char not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", unpunctuated).split())


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    predicted = normalize_answer(prediction)
    return float(any(predicted == normalize_answer(answer) for answer in answers))


def f1_score(prediction: str, answers: Sequence[str]) -> float:
    return max((_f1(prediction, answer) for answer in answers), default=0.0)


def _f1(prediction: str, answer: str) -> float:
    predicted, gold = normalize_answer(prediction), normalize_answer(answer)
    if (predicted in EXCLUSIVE or gold in EXCLUSIVE) and predicted != gold:
        return 0.0
    predicted_tokens, gold_tokens = predicted.split(), gold.split()
    common = Counter(predicted_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)
