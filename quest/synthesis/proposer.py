"""The QUEST-style LLM proposer (QUEST-SPEC §3), for when an LLM endpoint is configured.

An agent with the corpus tools follows QUEST's six steps (brainstorm keywords → gather
information, visiting only URLs seen in search results → extract objective constraints → build
the tree from the constraints only → one question reflecting every constraint → a grounded
solution) and answers with `{proposed_question, constraints, rubric_tree, solution}`. Then:

- **refine**: the model reviews its proposal against the tree rules and says valid, fixable
  (with the fixed proposal) or unfixable; at most MAX_FIXES fixes, then it is rejected;
- **verify**: an independent verifier, a different model when one is configured, answers YES or
  NO: does the solution meet every constraint, and does the tree check exactly the question?

A proposal that survives becomes a task record and goes through the same funnel as the
knowledge graph's tasks. Leaves may carry a questweb `check` (deterministic, decided offline);
leaves without one are judge leaves, decided only when a judge model is configured.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.agent.budgets import Budgets
from quest.agent.loop import run_agent
from quest.agent.policies import LLMPolicy
from quest.llm.types import LLMClient, LLMError
from quest.protocol.results import ToolError, ToolResult
from quest.rubric.errors import RubricError
from quest.rubric.importers import export_canonical, import_tree
from quest.rubric.judge import json_object
from quest.synthesis.model import Stage
from quest.synthesis.seeds import class_shape
from quest.tools import Toolbox

GENERATOR = "questweb llm proposer"
MAX_FIXES = 3
MAX_ITEMS = 5
MAX_PROPOSAL_CHARS = 60_000
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
BREADTH = {
    1: "1-3 nodes in every layer",
    2: "4-11 nodes in its widest layer",
    3: "12 or more nodes in its widest layer",
}
DEPTH = {1: "2 layers (the root and its leaves)", 2: "3-4 layers", 3: "5-6 layers"}

TASK = """You are writing one research task for training deep-research agents. Topic area: \
{subcategory}. Keywords to start from: {keywords}.
Follow these six steps with the tools:
1. Brainstorm search queries from the keywords.
2. Gather information: search, then visit only URLs that appeared in your search results.
3. Extract objective, verifiable constraints from what the pages state.
4. Build a rubric tree from the constraints only: atomic true/false leaves, grouped per entity; \
never hard-code one answer where several could be valid (check properties, not names); no \
duplicate or extra nodes; at most 5 items; for "find k items" use non-critical "k-th item" \
slots; prefer siblings over long sequential chains. The tree must have {breadth} and {depth} \
(the root counts as a layer).
5. Write one natural-language question that reflects every constraint.
6. Write a grounded solution: for each item, a description and the URLs that support it.
Answer with <answer> holding only this JSON object:
{{"proposed_question": str, "constraints": [str], "rubric_tree": {{"node_name": "root", \
"description": str, "critical": false, "aggregation_strategy": "parallel" or "sequential", \
"children": [...]}}, "solution": {{"<item>": {{"description": str, "reference_urls": [url]}}}}}}
A leaf may add "check": {{"kind": "mentions", "value": str, "context": [str]}} or \
{{"kind": "number", "value": number, "tolerance_rel": 0.01, "context": [str]}} or \
{{"kind": "source_supports", "value": str or number}} so it can be decided without a judge."""

REFINE = """Review this proposed research task against the rules: every leaf is one atomic \
true/false check; leaves are grouped per entity; a critical parent has only critical children; \
the tree checks properties, not one hard-coded answer, where several answers could be valid; no \
duplicate or extra nodes; at most 5 items; the question states every constraint the tree \
checks and nothing else; the solution meets every constraint, with supporting URLs.
Proposal:
{proposal}
Reply with only JSON: {{"verdict": "valid" | "fixable" | "unfixable", "reason": str, \
"fixed": <the whole corrected proposal, only when fixable>}}"""

VERIFY = """You verify research tasks independently. Question: {question}
Constraints: {constraints}
Solution: {solution}
Rubric tree: {tree}
Does the solution satisfy every constraint, and does the tree check exactly what the question \
asks? Reply with YES or NO on the first line, then one sentence of reasons."""


@dataclass
class Proposal:
    data: dict[str, Any] | None
    answer: str
    problems: list[str]
    turns: int = 0
    visited: list[str] = field(default_factory=list)


class SeenURLsOnly:
    """The corpus tools with QUEST's rule enforced: visit opens only URLs that a search (or
    scholar) result showed."""

    def __init__(self, toolbox: Toolbox) -> None:
        self.inner = toolbox
        self.seen: set[str] = set()
        self.visited: list[str] = []
        self.tools = {name: _Guarded(self, name) for name in toolbox.names()}


class _Guarded:
    def __init__(self, owner: SeenURLsOnly, name: str) -> None:
        self.owner, self.name = owner, name

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        if self.name == "visit":
            urls = arguments.get("url")
            listed = [urls] if isinstance(urls, str) else list(urls or [])  # type: ignore[call-overload]
            unseen = [str(u) for u in listed if str(u).rstrip(".,;") not in self.owner.seen]
            if unseen:
                raise ToolError(
                    "visit only URLs that appeared in your search results; not seen: "
                    + ", ".join(unseen[:5])
                )
            self.owner.visited += [str(u) for u in listed]
        result = self.owner.inner.tools[self.name].run(arguments)
        if self.name in ("search", "google_scholar"):
            self.owner.seen.update(u.rstrip(".,;") for u in _URL.findall(result.text))
        return result


def propose(
    client: LLMClient,
    toolbox: Toolbox,
    *,
    subcategory: str,
    target: str,
    keywords: Sequence[str],
    max_turns: int = 30,
) -> Proposal:
    breadth, depth = class_shape(target)
    task = TASK.format(
        subcategory=subcategory,
        keywords=", ".join(keywords) or subcategory,
        breadth=BREADTH[breadth],
        depth=DEPTH[depth],
    )
    guarded = SeenURLsOnly(toolbox)
    budgets = dataclasses.replace(Budgets.rl(), max_turns=max_turns, max_turn_tokens=2048)
    result = run_agent(
        task,
        policy=LLMPolicy(client, max_turn_tokens=budgets.max_turn_tokens),
        toolbox=Toolbox(guarded.tools),
        budgets=budgets,
    )
    data, problems = parse_proposal(result.answer)
    if result.status == "failed":
        problems.insert(0, "the proposer's run failed")
    return Proposal(data, result.answer, problems, result.turns, guarded.visited)


def parse_proposal(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The proposal object from the proposer's answer, and what is wrong with it."""
    if len(text) > MAX_PROPOSAL_CHARS:
        return None, [f"the proposal is longer than {MAX_PROPOSAL_CHARS:,} characters"]
    data = _json_object(text)
    if data is None:
        return None, ["the answer holds no JSON object"]
    problems = []
    question = data.get("proposed_question")
    if not isinstance(question, str) or not question.strip():
        problems.append("proposed_question must be a non-empty string")
    constraints = data.get("constraints")
    if (
        not isinstance(constraints, list)
        or not constraints
        or not all(isinstance(c, str) and c.strip() for c in constraints)
    ):
        problems.append("constraints must be a non-empty list of strings")
    if not isinstance(data.get("rubric_tree"), dict):
        problems.append("rubric_tree must be an object")
    solution = data.get("solution")
    if not isinstance(solution, dict) or not solution:
        problems.append("solution must be a non-empty object of items")
    else:
        if len(solution) > MAX_ITEMS:
            problems.append(f"the solution has {len(solution)} items (at most {MAX_ITEMS})")
        for name, item in solution.items():
            urls = item.get("reference_urls") if isinstance(item, dict) else None
            if not isinstance(item, dict) or not isinstance(item.get("description"), str):
                problems.append(f"solution item {str(name)[:60]!r} needs a description")
            elif not isinstance(urls, list) or not urls:
                problems.append(f"solution item {str(name)[:60]!r} cites no reference_urls")
    return (data if not problems else None), problems


def refine(
    client: LLMClient, data: dict[str, Any], max_fixes: int = MAX_FIXES
) -> tuple[dict[str, Any] | None, Stage]:
    """The refine loop: valid → the proposal; fixable → its fix, reviewed again (at most
    `max_fixes` times); unfixable, unreadable or still fixable after the last fix → None."""
    history: list[dict[str, Any]] = []
    current = data
    for _ in range(max_fixes + 1):
        reply = _chat(client, REFINE.format(proposal=json.dumps(current, ensure_ascii=False)))
        review = _json_object(reply) or {}
        verdict = str(review.get("verdict", "")).strip().lower()
        reason = str(review.get("reason", ""))[:500]
        history.append({"verdict": verdict or "unreadable", "reason": reason})
        if verdict == "valid":
            fixes = len(history) - 1
            return current, Stage(
                "refine", True, f"valid after {fixes} fix(es)", {"reviews": history}
            )
        if verdict == "fixable" and isinstance(review.get("fixed"), dict):
            fixed, problems = parse_proposal(json.dumps(review["fixed"]))
            if fixed is None:
                return None, Stage(
                    "refine",
                    False,
                    "the fix is not a valid proposal: " + "; ".join(problems),
                    {"reviews": history},
                )
            current = fixed
            continue
        why = {"unfixable": f"unfixable: {reason}", "fixable": "fixable, but no fix was given"}
        return None, Stage(
            "refine", False, why.get(verdict, "the review could not be read"), {"reviews": history}
        )
    return None, Stage(
        "refine", False, f"still not valid after {max_fixes} fixes", {"reviews": history}
    )


def verify(client: LLMClient, data: Mapping[str, Any]) -> Stage:
    prompt = VERIFY.format(
        question=data["proposed_question"],
        constraints=json.dumps(data["constraints"], ensure_ascii=False),
        solution=json.dumps(data["solution"], ensure_ascii=False),
        tree=json.dumps(data["rubric_tree"], ensure_ascii=False)[:20_000],
    )
    reply = _chat(client, prompt).strip()
    first = reply.splitlines()[0].strip().upper() if reply else ""
    detail = {"reply": reply[:1000], "model": getattr(client, "name", "")}
    if first.startswith("YES"):
        return Stage("verifier", True, "the verifier says YES: " + reply[3:200].strip(), detail)
    if first.startswith("NO"):
        return Stage("verifier", False, "the verifier says NO: " + reply[2:200].strip(), detail)
    return Stage("verifier", False, "the verifier's reply is neither YES nor NO", detail)


def proposal_record(data: Mapping[str, Any], provenance: dict[str, Any]) -> dict[str, Any]:
    """The proposal as a task in the import format; RubricError when its tree cannot be read."""
    imported = import_tree(data["rubric_tree"])
    rubric = export_canonical(imported.tree)
    rubric["task_description"] = data["proposed_question"]
    return {
        "question": data["proposed_question"],
        "type": "objective",
        "rubric": rubric,
        "solution": data["solution"],
        "reference_answer": reference_answer(data["solution"]),
        "provenance": {**provenance, "constraints": list(data["constraints"])},
    }


def reference_answer(solution: Mapping[str, Any]) -> str:
    """The solution written as an answer: one line per item, citing its reference URLs."""
    refs: list[str] = []
    lines = []
    for name, item in solution.items():
        marks = []
        for url in item.get("reference_urls", []):
            if url not in refs:
                refs.append(str(url))
            marks.append(f"[{refs.index(url) + 1}]")
        description = str(item.get("description", ""))
        said = (
            description
            if str(name).casefold() in description.casefold()
            else (f"{name}: {description}")
        )
        lines.append(f"{said} {' '.join(marks)}".strip())
    listed = "\n".join(f"[{i}] {url}" for i, url in enumerate(refs, start=1))
    return "\n\n".join(["\n".join(lines), listed]) if refs else "\n".join(lines)


def _chat(client: LLMClient, prompt: str) -> str:
    try:
        return client.complete(
            [{"role": "user", "content": prompt}], max_tokens=2048, temperature=0.0
        ).text
    except LLMError as exc:
        return f"[error] {exc}"


def _json_object(text: str) -> dict[str, Any] | None:
    inner = text
    if "<answer>" in text:
        inner = text.split("<answer>", 1)[1].split("</answer>", 1)[0]
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", inner, re.DOTALL)
    if fenced:
        inner = fenced[1]
    found = json_object(inner)
    return dict(found) if found is not None else None


__all__ = [
    "Proposal",
    "RubricError",
    "parse_proposal",
    "proposal_record",
    "propose",
    "refine",
    "verify",
]
