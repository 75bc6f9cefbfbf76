"""Running a benchmark: each question through the research agent (or a saved response),
scored, judged when a judge is given, and appended to `<out>/rows.jsonl` as it finishes, so a
re-run skips the questions already done. At the end: `results.json` and the plots.

The agent searches only the benchmark's corpus (quest.bench.corpus). A model policy is asked
for the benchmark's answer format (quest.bench.answers); the scripted policy, which follows no
instructions, gets the bare question and its report is read by the same parser. No policy ever
sees the gold answers or documents.

`responses` scores another system's saved outputs instead of running a model: a JSONL of
`{"id", "response"}` rows, optionally with `search_calls` and `retrieved_docs`. Nothing is
searched or indexed then; a BrowseComp-Plus corpus, when given, is read for its docids alone,
and only when a response cites by bracketed docid. What a response does not say (its search
calls, its retrieved documents) is unknown, not 0, and counts in no metric.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from quest.agent.budgets import Budgets
from quest.agent.loop import run_agent
from quest.bench.answers import ParsedAnswer, answer_prompt, parse_response
from quest.bench.config import (
    BenchConfig,
    bench_corpus,
    bench_judge,
    bench_policy,
    bench_setup,
    check_responses,
    check_resume,
    read_responses,
)
from quest.bench.corpus import (
    BenchCorpus,
    DocSearchTool,
    GetDocumentTool,
    ProgressFn,
    SearchLog,
    corpus_docids,
    docid_from_url,
)
from quest.bench.formats import BROWSECOMP_PLUS, FRAMES, BenchQuestion, load_questions
from quest.bench.judge import Judge, JudgeCase, Verdict
from quest.bench.plots import write_plots
from quest.bench.results import MISSING, ROWS, BenchResults, BenchRow, read_rows
from quest.bench.scoring import exact_match, f1_score
from quest.llm.streaming import Watch
from quest.rubric.documents import normalise_url
from quest.tools.toolbox import Tool, Toolbox
from quest.tools.visit import VisitTool
from quest.training.evaluate import CondenserFactory, PolicyFactory


@dataclass
class _Run:
    config: BenchConfig
    questions: list[BenchQuestion]
    corpus: BenchCorpus | None
    judge: Judge | None
    setup: dict[str, Any]
    policy: tuple[PolicyFactory, CondenserFactory] | None = None
    responses: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # questions the responses leave out
    on_corpus: ProgressFn | None = None

    @cached_property
    def responses_docids(self) -> frozenset[str] | None:
        """The docids a responses run's bracketed citations are kept against: those of the
        BrowseComp-Plus corpus given with it (read on first need), else None (any)."""
        source = self.config.corpus
        if source is None or self.config.benchmark != BROWSECOMP_PLUS:
            return None
        return corpus_docids(source, on_progress=self.on_corpus)


def run_benchmark(
    config: BenchConfig,
    *,
    on_progress: Callable[[str], None] | None = None,
    on_corpus: ProgressFn | None = None,
    on_row: Callable[[int, int, BenchRow], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_tokens: Callable[[int], None] | None = None,
) -> BenchResults:
    """Run (or resume) the benchmark; returns the results of every question done so far, which
    are also written to `config.out`. A stop ends the question it interrupted, unsaved, within
    a fraction of a second, also in the middle of a model's generation.

    `on_progress(line)`: a line for a person, also as each question starts; `on_corpus(stage,
    done, total)`: the corpus being read and indexed; `on_row(done, total, row)`: each question
    as it is saved; `on_tokens(n)`: the tokens of the model's reply generated so far."""
    stop = should_stop or (lambda: False)
    watch = Watch(on_tokens=on_tokens, cancelled=stop) if should_stop or on_tokens else None
    run = _prepare(config.checked(), on_corpus, watch)
    say = on_progress or (lambda line: None)
    rows_path = config.out / ROWS
    done = {row.id for row in read_rows(rows_path)}
    todo = [q for q in run.questions if q.id not in done]
    say(f"{config.benchmark}: {len(run.questions)} questions, {len(done)} already done")
    if run.missing:
        say(_missing_line(run))
    # Without a judge each question is saved as it ends; a judge grades `batch` at a time.
    for batch in _batches(todo, config.batch if run.judge is not None else 1):
        rows: list[BenchRow] = []
        for question in batch:
            if run.policy is not None and not stop():
                say(f"question {question.id} ({len(done) + len(rows) + 1} of "
                    f"{len(run.questions)}): researching")  # fmt: skip
            row = None if stop() else _answer(run, question, stop)
            if row is None:
                break
            rows.append(row)
        for row in _judged(run, rows):
            _append(rows_path, row)
            done.add(row.id)
            if on_row is not None:
                on_row(len(done), len(run.questions), row)
            say(
                f"{len(done)}/{len(run.questions)} {row.id}: {row.verdict} "
                f"({row.search_calls} searches, {row.status})"
            )
        if len(rows) < len(batch):
            break
    return finish(config.out, run.setup, [q.id for q in run.questions])


def finish(out: Path, setup: dict[str, Any], ids: Sequence[str] | None = None) -> BenchResults:
    """The results of the rows in `out` (those of `ids`, in that order), with results.json and
    the plots written."""
    rows = {row.id: row for row in read_rows(out / ROWS)}
    order = [i for i in ids if i in rows] if ids is not None else list(rows)
    results = BenchResults(setup, [rows[i] for i in order])
    results.write(out)
    write_plots(out, results)
    return results


def _prepare(config: BenchConfig, on_corpus: ProgressFn | None, watch: Watch | None) -> _Run:
    every = load_questions(
        config.benchmark, config.data, canary=config.canary, dataset=config.dataset
    )
    questions = every[: config.limit]
    responses: dict[str, dict[str, Any]] = {}
    if config.responses is not None:  # refused before anything is written
        responses = read_responses(config.responses)
        check_responses(config.responses, responses, every, config.data)
    config.out.mkdir(parents=True, exist_ok=True)
    corpus = bench_corpus(config, on_corpus)
    judge = bench_judge(config)
    setup = bench_setup(config, corpus, judge)
    check_resume(config.out, setup)
    run = _Run(config, questions, corpus, judge, setup, responses=responses, on_corpus=on_corpus)
    if config.responses is not None:
        run.missing = [q.id for q in questions if q.id not in responses]
    else:
        run.policy = bench_policy(config, watch)
    return run


def _missing_line(run: _Run) -> str:
    shown = ", ".join(run.missing[:3]) + (" …" if len(run.missing) > 3 else "")
    return (
        f"{len(run.missing)} of the questions have no response in {run.config.responses} "
        f"(scored as missing): {shown}"
    )


def _batches(items: list[BenchQuestion], size: int) -> Iterator[list[BenchQuestion]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _answer(run: _Run, question: BenchQuestion, stop: Callable[[], bool]) -> BenchRow | None:
    if run.policy is None:
        saved = run.responses.get(question.id)
        if saved is None:
            return _row(run, question, "", None, None, MISSING, 0.0)
        calls = saved.get("search_calls")
        retrieved = saved.get("retrieved_docs")
        return _row(
            run,
            question,
            saved["response"],
            None if calls is None else int(calls),
            None if retrieved is None else [str(d) for d in retrieved],
            "scored",
            0.0,
        )
    log = SearchLog([], [])
    policy_factory, condenser_factory = run.policy
    policy = policy_factory()
    scripted = getattr(policy, "name", "") == "scripted"
    prompt = question.question
    if not scripted:
        prompt = answer_prompt(question.question, get_document=run.config.get_document)
    budgets = Budgets.rl() if run.config.budgets == "rl" else Budgets.inference()
    result = run_agent(
        prompt,
        policy=policy,
        toolbox=_toolbox(run, log),
        condenser=condenser_factory(),
        budgets=budgets,
        should_stop=stop,
    )
    if result.status == "stopped":
        return None
    return _row(
        run,
        question,
        result.answer,
        len(log.queries),
        log.retrieved,
        result.status,
        result.elapsed_s,
    )


def _toolbox(run: _Run, log: SearchLog) -> Toolbox:
    assert run.corpus is not None
    tools: dict[str, Tool] = {"search": DocSearchTool(run.corpus, log, k=run.config.search_k)}
    if run.config.get_document:
        tools["get_document"] = GetDocumentTool(run.corpus)
        tools["visit"] = VisitTool(run.corpus.store)
    return Toolbox(tools)


def _row(
    run: _Run,
    question: BenchQuestion,
    response: str,
    searches: int | None,
    retrieved: Sequence[str] | None,
    status: str,
    elapsed: float,
) -> BenchRow:
    """`searches`, `retrieved`: None when unknown (saved responses that do not say)."""
    parsed = _parse(run, response)
    em = exact_match(parsed.exact_answer, question.answers)
    return BenchRow(
        id=question.id,
        question=question.question,
        gold=question.answers,
        response=response,
        answer=parsed.exact_answer,
        confidence=parsed.confidence,
        confidence_stated=parsed.confidence_stated,
        exact_match=em,
        f1=f1_score(parsed.exact_answer, question.answers),
        verdict="correct" if em == 1 else "incorrect",
        judged=False,
        search_calls=searches or 0,
        cited_docs=parsed.cited,
        retrieved_docs=tuple(dict.fromkeys(retrieved or ())),
        evidence_docs=_evidence(run.config.benchmark, question),
        status=status,
        elapsed_s=elapsed,
        search_calls_known=searches is not None,
        retrieved_known=retrieved is not None,
    )


def _parse(run: _Run, response: str) -> ParsedAnswer:
    if run.corpus is None:  # FRAMES knows its documents by URL, the others by docid
        by_url = normalise_url if run.config.benchmark == FRAMES else docid_from_url
        docids = run.responses_docids if "[" in response else None
        return parse_response(response, docids=docids, docid_of_url=by_url)
    return parse_response(response, docids=run.corpus.docids, docid_of_url=run.corpus.docid)


def _evidence(benchmark: str, question: BenchQuestion) -> tuple[str, ...]:
    ids = question.evidence_ids or tuple(dict.fromkeys(doc.docid for doc in question.gold))
    return tuple(normalise_url(i) for i in ids) if benchmark == FRAMES else ids


def _judged(run: _Run, rows: list[BenchRow]) -> list[BenchRow]:
    if run.judge is None or not rows:
        return rows
    questions = {q.id: q for q in run.questions}
    cases = [
        JudgeCase(row.question, row.response, _correct_answer(questions[row.id])) for row in rows
    ]
    verdicts = run.judge.grade(cases)
    return [_with_verdict(row, verdict) for row, verdict in zip(rows, verdicts, strict=True)]


def _correct_answer(question: BenchQuestion) -> str:
    if len(question.answers) == 1:
        return question.answers[0]
    return "any of: " + "; ".join(question.answers)


def _with_verdict(row: BenchRow, verdict: Verdict) -> BenchRow:
    data = asdict(row)
    data.update(
        verdict="correct" if verdict.correct else "incorrect", judged=True, judge=verdict.to_dict()
    )
    return BenchRow(**data)


def _append(path: Path, row: BenchRow) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row.to_dict(), ensure_ascii=False) + "\n")
