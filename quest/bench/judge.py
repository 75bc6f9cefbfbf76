"""Judged accuracy: a model reads the question, the response and the correct answer and says
whether the response's final answer is right, in BrowseComp's grader format:

    extracted_final_answer: <the final answer taken from the response, or None>
    reasoning: <why it matches the correct answer or not>
    correct: yes|no
    confidence: <the confidence the response states, 100 if none>

The default wording below is questweb's own; `--grader-prompt FILE` takes another one (any
text with the `{question}`, `{response}` and `{correct_answer}` fields). A reply with no
`correct:` line counts as not correct and is marked unparsed.

Verdicts are cached in a JSONL file keyed by (judge model, prompt hash, question, response),
so a re-run, or a second run that writes the same responses, asks the judge nothing again.
Requests go out a batch at a time, several at once.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from quest.llm.types import LLMClient

GRADER_PROMPT = """\
You are grading an answer to a research question. Decide whether the final answer in the \
response means the same as the correct answer.

[question]: {question}

[response]: {response}

[correct_answer]: {correct_answer}

Reply in exactly this form, one field per line:

extracted_final_answer: the final answer stated in the response, copied as written; None if \
the response states no final answer.

reasoning: a short comparison of extracted_final_answer with [correct_answer] only. Do not \
solve the question again and do not argue for another answer. Say whether they mean the same \
thing, allowing only small differences in wording or a small margin on numbers.

correct: yes if extracted_final_answer matches [correct_answer] as described above, no \
otherwise (also no when the answer is wrong, vague, a different thing or missing).

confidence: the confidence score between 0% and 100% stated in the response; 100 if the \
response states none."""

FIELDS = ("question", "response", "correct_answer")
_CORRECT = re.compile(r"^[ \t*_]*correct[ \t*_]*:[ \t*_]*(yes|no)\b", re.I | re.M)
_EXTRACTED = re.compile(r"^[ \t*_]*extracted_final_answer[ \t*_]*:[ \t*_]*(.*)$", re.I | re.M)
_CONFIDENCE = re.compile(r"^[ \t*_]*confidence[ \t*_]*:[ \t*_]*(\d+(?:\.\d+)?)", re.I | re.M)
DEFAULT_MAX_TOKENS = 1_024
DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True)
class Verdict:
    correct: bool
    parsed: bool  # the reply had a `correct: yes|no` line
    extracted_final_answer: str
    confidence: float | None
    reply: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_reply(cls, reply: str) -> Verdict:
        correct = _CORRECT.findall(reply)
        extracted = _EXTRACTED.findall(reply)
        confidence = _CONFIDENCE.findall(reply)
        return cls(
            correct=bool(correct) and correct[-1].lower() == "yes",
            parsed=bool(correct),
            extracted_final_answer=extracted[-1].strip() if extracted else "",
            confidence=float(confidence[-1]) if confidence else None,
            reply=reply,
        )


def load_grader_prompt(path: str | Path | None) -> str:
    """The default wording, or a file's, checked to hold every field."""
    if path is None:
        return GRADER_PROMPT
    text = Path(path).read_text(encoding="utf-8")
    missing = [name for name in FIELDS if "{" + name + "}" not in text]
    if missing:
        raise ValueError(f"{path}: the grader prompt lacks the fields {missing}")
    return text


def prompt_hash(template: str) -> str:
    return hashlib.sha256(template.encode("utf-8")).hexdigest()[:16]


class JudgeCache:
    """Verdicts by key, appended to a JSONL file as they come; safe across threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._replies: dict[str, str] = {}
        if self.path.is_file():
            with self.path.open(encoding="utf-8") as handle:
                for line in handle:
                    try:
                        entry = json.loads(line)
                        self._replies[str(entry["key"])] = str(entry["reply"])
                    except (ValueError, KeyError, TypeError):
                        continue  # a line cut short by a crash: that verdict is asked again

    def get(self, key: str) -> str | None:
        return self._replies.get(key)

    def put(self, key: str, reply: str) -> None:
        with self._lock:
            self._replies[key] = reply
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"key": key, "reply": reply}, ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class JudgeCase:
    question: str
    response: str
    correct_answer: str


class Judge:
    def __init__(
        self,
        client: LLMClient,
        *,
        model: str,
        cache: JudgeCache,
        template: str = GRADER_PROMPT,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        self.client, self.model, self.cache = client, model, cache
        self.template, self.max_tokens, self.concurrency = template, max_tokens, concurrency
        self.prompt_hash = prompt_hash(template)
        self.requests = 0  # replies asked of the judge (cache misses) by this instance

    def key(self, case: JudgeCase) -> str:
        parts = [self.model, self.prompt_hash, case.question, case.response]
        return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()

    def grade(self, cases: Sequence[JudgeCase]) -> list[Verdict]:
        """One verdict per case, in order: cached ones at once, the others asked in parallel."""
        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            return list(pool.map(self._grade, cases))

    def _grade(self, case: JudgeCase) -> Verdict:
        key = self.key(case)
        reply = self.cache.get(key)
        if reply is None:
            prompt = self.template.format(**asdict(case))
            completion = self.client.complete(
                [{"role": "user", "content": prompt}], max_tokens=self.max_tokens, temperature=0
            )
            reply = completion.text
            self.requests += 1
            self.cache.put(key, reply)
        return Verdict.from_reply(reply)
