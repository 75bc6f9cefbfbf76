"""`python -m quest rubric …`: validate, convert, score, evaluate and probe rubric trees, and
red-team the reward of kg tasks (quest.synthesis.redteam).

Results are JSON on stdout. Bad input exits 1 with one line on stderr, such as
`error: tree.json: root/a: critical parent has non-critical child "b"`, never a traceback.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from quest.cli.common import emit, fail
from quest.cli.progress import say
from quest.llm.config import client_from_option
from quest.rubric.citations import parse_citations
from quest.rubric.distractors import TitleDistractors
from quest.rubric.documents import InMemoryDocumentStore, load_docs_jsonl
from quest.rubric.errors import RubricError
from quest.rubric.evaluate import evaluate
from quest.rubric.importers import ImportedTree, export_quest, load_tree_file, read_capped
from quest.rubric.judge import ChatClient
from quest.rubric.model import MAX_DEPTH, JSONValue, RubricTree
from quest.rubric.probes import probe_tree
from quest.rubric.reward import Reward, extract_answer, label_citations, reward_from_report
from quest.rubric.score import compile_tree
from quest.rubric.verdict import LeafVerdict, verdict_from_json
from quest.synthesis.redteam import RedTeamInputError, red_team_file

Handler = Callable[[argparse.Namespace], JSONValue]
MAX_ANSWER_BYTES = 2_000_000
JUDGE_HELP = (
    "the judge model for judge leaves and citations: OpenAI-compatible endpoints "
    "(URL|MODEL[|KEY_ENV], comma-separated, or JSON), transformers:<dir or smollm2> or "
    "vllm:<model>; without one, judge leaves stay undecided"
)


class CliError(Exception):
    """Bad input named by the file it came from."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rubric", help="rubric trees: validate, convert, score, evaluate, probe, redteam"
    )
    actions = parser.add_subparsers(dest="rubric_action", metavar="ACTION", required=True)

    validate = actions.add_parser("validate", help="check a tree of any supported shape")
    validate.add_argument("file")
    validate.set_defaults(func=_command(_validate, print_errors_as_json=True))

    convert = actions.add_parser("convert", help="print a tree as canonical JSON or QUEST shape C")
    convert.add_argument("file")
    convert.add_argument("--to", choices=("canonical", "quest"), default="canonical")
    convert.set_defaults(func=_command(_convert))

    score = actions.add_parser("score", help="score leaf verdicts")
    score.add_argument("file")
    score.add_argument(
        "--verdicts", required=True, help="JSON: node id -> status or {status, evidence, ...}"
    )
    score.set_defaults(func=_command(_score))

    run = actions.add_parser(
        "evaluate", help="check an answer against a tree (deterministic leaves)"
    )
    run.add_argument("file")
    run.add_argument("--answer", required=True, help="the answer (markdown)")
    run.add_argument("--docs", help="JSONL of {url, title, text}: the pages citations point to")
    run.add_argument("--judge", help=JUDGE_HELP)
    run.set_defaults(func=_command(_evaluate))

    probe = actions.add_parser(
        "probe",
        help="is the tree sound: its solution passes, adversarial answers (negated, hedged, "
        "wrong entity, URL only, echo, unrelated citation, gibberish, master keys) fail",
    )
    probe.add_argument("file")
    probe.add_argument("--solution", required=True, help="the reference solution (markdown)")
    probe.add_argument(
        "--docs", help="JSONL of {url, title, text}: cited pages, and distractors of each kind"
    )
    probe.add_argument("--question", help="the task's question (default: the tree's task)")
    probe.add_argument("--judge", help=JUDGE_HELP)
    probe.set_defaults(func=_command(_probe))

    redteam = actions.add_parser(
        "redteam",
        help="search for answers that kg tasks' oracles call wrong or uncommitted and the "
        "reward pays (beam search over answer edits, seeded with fixed attacks)",
    )
    redteam.add_argument("file", help="JSONL of task records (`python -m quest synth` output)")
    redteam.add_argument("--corpus", required=True, help="the corpus directory of the pages")
    redteam.add_argument("--budget", type=int, default=300, help="reward evaluations per task")
    redteam.add_argument("--seed", type=int, default=0, help="the search's seed")
    redteam.add_argument("--out", help="write the best hack of each task here (JSONL)")
    redteam.set_defaults(func=_command(_redteam))


def _command(
    handler: Handler, *, print_errors_as_json: bool = False
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            result = handler(args)
        except CliError as exc:
            return fail(str(exc))
        except RubricError as exc:
            if print_errors_as_json:
                emit({"valid": False, "errors": list(exc.errors)})
            return fail(f"{args.file}: {exc.summary()}")
        except OSError as exc:
            return fail(f"{exc.filename or args.file}: {exc.strerror or exc}")
        except Exception as exc:  # the CLI promises one line, never a traceback
            return fail(f"{args.file}: internal error: {type(exc).__name__}: {exc}")
        emit(result)
        return 0

    return run


def _load(args: argparse.Namespace) -> ImportedTree:
    return load_tree_file(args.file)


def _validate(args: argparse.Namespace) -> JSONValue:
    imported = _load(args)
    tree = imported.tree
    return {
        "valid": True,
        "shape": imported.shape,
        "scoring": tree.scoring,
        "nodes": sum(1 for _ in tree.nodes()),
        "leaves": sum(1 for _ in tree.leaves()),
        "depth": _depth(tree),
        "notes": list(imported.notes),
    }


def _depth(tree: RubricTree) -> int:
    deepest, stack = 0, [(tree.root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth < MAX_DEPTH:
            stack.extend((child, depth + 1) for child in node.children)
    return deepest


def _convert(args: argparse.Namespace) -> JSONValue:
    tree = _load(args).tree
    return tree.to_dict() if args.to == "canonical" else export_quest(tree)


def _score(args: argparse.Namespace) -> JSONValue:
    compiled = compile_tree(_load(args).tree)
    raw = _json_file(args.verdicts)
    if not isinstance(raw, Mapping):
        raise CliError(args.verdicts, "verdicts must be a JSON object mapping node id to a verdict")
    try:
        verdicts: dict[str, str | LeafVerdict] = {
            str(k): verdict_from_json(v, str(k)) for k, v in raw.items()
        }
        return compiled.score(verdicts).to_dict()
    except RubricError as exc:
        raise CliError(args.verdicts, exc.summary()) from None


def _evaluate(args: argparse.Namespace) -> JSONValue:
    compiled = compile_tree(_load(args).tree)
    answer = extract_answer(_text_file(args.answer))
    store = _store(args.docs)
    judge = _judge(args.judge)
    report = evaluate(compiled, answer, store, judge)
    labels = label_citations(
        parse_citations(answer), store, judge, task=compiled.tree.task_description
    )
    reward = (
        reward_from_report(report, labels) if answer else Reward(0.0, 0.0, 0.0, (), "empty answer")
    )
    return {"report": report.to_dict(), "reward": reward.to_dict()}


def _probe(args: argparse.Namespace) -> JSONValue:
    compiled = compile_tree(_load(args).tree)
    store = _store(args.docs)
    distractors = (
        TitleDistractors((d.url, d.title, d.text) for d in store.documents()) if store else None
    )
    return probe_tree(
        compiled,
        _text_file(args.solution),
        store,
        _judge(args.judge),
        distractors=distractors,
        question=args.question,
    ).to_dict()


def _redteam(args: argparse.Namespace) -> JSONValue:
    try:
        summary: JSONValue = red_team_file(
            args.file,
            corpus=args.corpus,
            budget=args.budget,
            seed=args.seed,
            out=args.out,
            progress=say,
        )
    except RedTeamInputError as exc:
        raise CliError(exc.where, exc.message) from None
    return summary


def _judge(spec: str | None) -> ChatClient | None:
    """A chat client from --judge; a bad spec is a CLI error naming the option."""
    if not spec:
        return None
    try:
        return client_from_option(spec)
    except (ValueError, ImportError) as exc:
        raise CliError("--judge", str(exc)) from None


def _store(path: str | None) -> InMemoryDocumentStore | None:
    if path is None:
        return None
    try:
        return load_docs_jsonl(path)
    except RubricError as exc:
        raise CliError(path, exc.summary()) from None


def _text_file(path: str) -> str:
    try:
        data = read_capped(Path(path), MAX_ANSWER_BYTES)
    except RubricError as exc:
        raise CliError(path, exc.summary()) from None
    return data.decode("utf-8", errors="replace")


def _json_file(path: str) -> object:
    try:
        return json.loads(read_capped(Path(path)))
    except (ValueError, RecursionError) as exc:
        raise CliError(path, f"invalid JSON: {exc}") from None
    except RubricError as exc:
        raise CliError(path, exc.summary()) from None
