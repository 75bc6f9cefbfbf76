"""What a benchmark run is given (BenchConfig) and what it is set up from: the corpus it
searches, the judge, the policy, the saved responses, and the setup recorded with its results
(a re-run into the same --out must share it).

A run of saved responses searches nothing: no corpus is indexed for it, and its setup records
that the corpus and retriever were another system's (published.FROM_RESPONSES). A responses
file none of whose ids is a question of the data file is refused; one that answers only some
questions is scored with the others as missing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quest.agent.budgets import Budgets
from quest.bench.corpus import BenchCorpus, ProgressFn, build_corpus
from quest.bench.formats import (
    BROWSECOMP_PLUS,
    FLASHRAG,
    BenchQuestion,
    FormatError,
    flashrag_dataset,
    text_lines,
)
from quest.bench.judge import DEFAULT_MAX_TOKENS, Judge, JudgeCache, load_grader_prompt
from quest.bench.published import FROM_RESPONSES
from quest.bench.results import ROWS
from quest.corpus.store import MANIFEST
from quest.llm.config import client_from_option, parse_endpoints
from quest.llm.streaming import Watch
from quest.training.evaluate import CondenserFactory, PolicyFactory, policy_for

SETUP = "setup.json"
# Fields of the setup a resumed run must share with the rows already written.
SAME_RUN = ("benchmark", "data", "model", "responses", "judge_model", "prompt_hash")


class BenchError(ValueError):
    """A run that cannot start: a missing corpus, a bad option, an --out of another run."""


@dataclass(frozen=True)
class BenchConfig:
    benchmark: str
    data: Path
    out: Path
    model: str | None = None  # a checkpoint directory, "scripted", or an LLM backend spec
    responses: Path | None = None  # or: saved responses to score
    corpus: Path | None = None  # a corpus file or shard directory, or a questweb corpus
    judge: str | None = None  # an OpenAI-compatible endpoint (URL|MODEL) or backend spec
    grader_prompt: Path | None = None
    judge_cache: Path | None = None  # default <out>/judge-cache.jsonl
    judge_max_tokens: int = DEFAULT_MAX_TOKENS
    limit: int | None = None
    canary: str | None = None
    dataset: str | None = None
    get_document: bool = False
    search_k: int = 5
    beta: int = 100
    budgets: str = "inference"
    temperature: float | None = None
    batch: int = 8
    default_corpus: Path | None = None  # a questweb corpus used when `corpus` is not given

    def checked(self) -> BenchConfig:
        if (self.model is None) == (self.responses is None):
            raise BenchError("give either a model to run or saved responses to score")
        for name in ("limit", "search_k", "beta", "batch", "judge_max_tokens"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise BenchError(f"{name.replace('_', '-')} must be at least 1")
        return self


def bench_corpus(config: BenchConfig, on_corpus: ProgressFn | None) -> BenchCorpus | None:
    """The corpus the agent searches, indexed when it is not yet; None for saved responses,
    which searched elsewhere."""
    source = config.corpus
    if config.responses is not None:
        return None
    if source is not None and (source / MANIFEST).is_file():
        corpus = BenchCorpus(source)
    elif source is not None:
        corpus = build_corpus(source, config.out / "corpus", on_progress=on_corpus)
    elif config.default_corpus is not None and config.benchmark != BROWSECOMP_PLUS:
        corpus = BenchCorpus(config.default_corpus)
    else:
        raise BenchError(f"{config.benchmark} needs a corpus to search: give --corpus")
    if "bm25" not in corpus.searcher.modes:
        raise BenchError(f"{corpus.directory}: no BM25 index; build it with `quest corpus index`")
    return corpus


def bench_judge(config: BenchConfig) -> Judge | None:
    if config.judge is None:
        return None
    try:
        client = client_from_option(config.judge)
    except (ValueError, ImportError) as error:
        raise BenchError(f"--judge: {error}") from None
    return Judge(
        client,
        model=judge_model(config.judge),
        cache=JudgeCache(config.judge_cache or config.out / "judge-cache.jsonl"),
        template=load_grader_prompt(config.grader_prompt),
        max_tokens=config.judge_max_tokens,
    )


def judge_model(spec: str) -> str:
    """The judge's model name, which keys the cache: an endpoint list's models (not its
    addresses, which change from one server start to the next), else the spec."""
    if spec.strip().startswith(("http://", "https://", "[")):
        return ",".join(sorted({endpoint.model for endpoint in parse_endpoints(spec)}))
    return spec.strip()


def bench_policy(
    config: BenchConfig, watch: Watch | None = None
) -> tuple[PolicyFactory, CondenserFactory]:
    spec = str(config.model)
    if Path(spec).is_dir():  # a checkpoint directory: run it in-process
        spec = f"transformers:{spec}"
    budgets = Budgets.rl() if config.budgets == "rl" else Budgets.inference()
    try:
        return policy_for(spec, budgets=budgets, temperature=config.temperature, watch=watch)
    except ValueError as error:
        raise BenchError(str(error)) from None


def bench_setup(
    config: BenchConfig, corpus: BenchCorpus | None, judge: Judge | None
) -> dict[str, Any]:
    dataset = flashrag_dataset(config.data) if config.benchmark == FLASHRAG else None
    ran = config.responses is None  # else saved responses, which searched elsewhere
    searched: dict[str, Any] = {"corpus": FROM_RESPONSES, "retriever": FROM_RESPONSES}
    if ran:
        searched = corpus.setup() if corpus else {"corpus": "none", "retriever": "none"}
    # A BrowseComp-Plus corpus given with saved responses: its docids read their citations.
    citations = config.corpus if not ran and config.benchmark == BROWSECOMP_PLUS else None
    return {
        "benchmark": config.benchmark,
        "dataset": config.dataset or dataset,
        "data": str(config.data),
        "model": config.model,
        "responses": str(config.responses) if config.responses else None,
        **searched,
        "citations_read_with": str(citations) if citations else None,
        "search_top_k": config.search_k if ran else None,
        "get_document": config.get_document if ran else None,
        "judge": f"{judge.model} (grader prompt {judge.prompt_hash})" if judge else "none",
        "judge_model": judge.model if judge else None,
        "prompt_hash": judge.prompt_hash if judge else None,
        "budgets": config.budgets,
        "beta": config.beta,
    }


def check_resume(out: Path, setup: dict[str, Any]) -> None:
    path = out / SETUP
    if path.is_file():
        before = json.loads(path.read_text())
        changed = [name for name in SAME_RUN if before.get(name) != setup.get(name)]
        if changed and (out / ROWS).is_file():
            raise BenchError(
                f"{out} holds a run with another {', '.join(changed)}; use another --out"
            )
    path.write_text(json.dumps(setup, indent=2) + "\n")


def read_responses(path: Path) -> dict[str, dict[str, Any]]:
    """The saved responses by question id: JSONL rows of `id` (or `query_id`) and `response`,
    optionally `search_calls` (an integer) and `retrieved_docs` (a list of docids)."""
    found: dict[str, dict[str, Any]] = {}
    for number, line in text_lines(path):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            raise FormatError(path, number, None, "not valid JSON") from None
        key = data.get("id", data.get("query_id")) if isinstance(data, dict) else None
        if key is None or not isinstance(data.get("response"), str):
            raise FormatError(path, number, "response", "rows need an id and a response")
        calls = data.get("search_calls")
        if calls is not None and (isinstance(calls, bool) or not isinstance(calls, int | float)):
            raise FormatError(path, number, "search_calls", "must be a number")
        docs = data.get("retrieved_docs")
        if docs is not None and not isinstance(docs, list):
            raise FormatError(path, number, "retrieved_docs", "must be a list of docids")
        found[str(key)] = data
    if not found:
        raise FormatError(path, None, None, "holds no responses")
    return found


def check_responses(
    path: Path, responses: dict[str, Any], questions: list[BenchQuestion], data: Path
) -> list[str]:
    """The question ids the responses leave unanswered; a BenchError when they answer none (a
    responses file of another data file, or of other ids)."""
    ids = [question.id for question in questions]
    missing = [i for i in ids if i not in responses]
    if len(missing) == len(ids):
        theirs, ours = list(responses), ids
        raise BenchError(
            f"{path}: none of its {len(theirs):,} response ids is a question id of {data} "
            f"(responses: {_some(theirs)}; questions: {_some(ours)})"
        )
    return missing


def _some(ids: list[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:2])
    return shown + (f" … ({len(ids):,} in all)" if len(ids) > 2 else "")
