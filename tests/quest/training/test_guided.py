"""The path-guided teacher (quest.training.guided) on real synthesized tasks over the real
offline corpus: the GeoNames, countryinfo and data-domain pages the kg synthesizer reads, at the
recipe loop's CPU budgets (four turns, tool outputs cut to 2,000 characters)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from training_helpers import AUSTRALIA, TASKS

from quest.agent.prompts import unwrap_tool_response
from quest.agent.scripted import ScriptedPolicy
from quest.corpus import CorpusStore, corpus_write, load_countryinfo, load_geonames
from quest.corpus.domains import load_domains
from quest.loop.config import LoopConfig, parse_loop_config
from quest.loop.data_stages import collect_stage, paths
from quest.protocol.turns import parse_turn
from quest.rubric.distractors import TitleDistractors
from quest.rubric.numbers import number_from_param, numbers_in
from quest.search.indexing import bm25_build
from quest.synthesis.facts import EXACT_LABEL
from quest.synthesis.model import BatchSpec
from quest.synthesis.runner import synthesize
from quest.text.fold import fold
from quest.tools import Toolbox
from quest.tools.offline import offline_toolbox
from quest.training import (
    CollectReport,
    SFTBuilder,
    collect,
    read_jsonl,
    read_rollouts,
    task_from_record,
    write_jsonl,
)
from quest.training.guided import guided_teachers
from quest.training.guided_path import DERIVED, committed, read_path

PROPOSALS = 40
SEED = 11
BUDGETS = LoopConfig().budgets()  # the recipe loop's: 4 turns, 2,000-character tool outputs
MIN_REWARD = LoopConfig().collect.min_reward
_LISTED = re.compile(r"^\d+\. \[.*\]\((\S+)\)\s*$", re.MULTILINE)
_VISITED = re.compile(r"^The useful information in (\S+) for user goal", re.MULTILINE)


def write_corpus(folder: Path, *, leave_out: frozenset[str] = frozenset()) -> Path:
    documents = [*load_geonames(), *load_countryinfo(), *load_domains()]
    corpus_write(folder, [d for d in documents if d.url not in leave_out])
    bm25_build(folder)
    return folder


@pytest.fixture(scope="module")
def kg_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The GeoNames, countryinfo and data-domain pages (10,500 documents), BM25-indexed."""
    return write_corpus(tmp_path_factory.mktemp("guided") / "corpus")


@pytest.fixture(scope="module")
def records(kg_corpus: Path) -> dict[str, dict[str, Any]]:
    """The tasks the synthesis funnel accepts from 40 kg proposals of seed 11, as the loop's
    tasks/accepted.jsonl keeps them."""
    store = CorpusStore(kg_corpus)
    distractors = TitleDistractors((d.url, d.title, d.text) for d in store.documents())
    spec = BatchSpec(generator="kg", count=PROPOSALS, seed=SEED, baseline=False)
    accepted = {}
    for candidate in synthesize(spec, pages=store, distractors=distractors):
        if candidate.accepted:
            task_id = f"s{SEED}-{candidate.index:04d}"
            accepted[task_id] = {**candidate.record, "task_id": task_id}
    return accepted


def family(record: dict[str, Any]) -> str:
    return str(record["provenance"]["family"])


class Run:
    """collect's rollouts of the guided teacher on every task, each as its records."""

    def __init__(self) -> None:
        self.rollouts: list[list[dict[str, Any]]] = []
        self.report = CollectReport()

    def __call__(self, rollout: list[dict[str, Any]], kept: bool) -> None:
        self.rollouts.append(rollout)

    def kept_tasks(self) -> set[str]:
        return {r[0]["task_id"] for r in self.rollouts if r[0]["kept"]}


def run_teacher(
    records: dict[str, dict[str, Any]], corpus: Path, task_ids: list[str] | None = None
) -> Run:
    toolbox = offline_toolbox(corpus)
    tasks = [task_from_record(records[t]) for t in task_ids or list(records)]
    run = Run()
    run.report = collect(
        tasks,
        task_policy_factory=guided_teachers(records, toolbox, BUDGETS),
        toolbox=toolbox,
        budgets=BUDGETS,
        store=CorpusStore(corpus),
        min_reward=MIN_REWARD,
        hint_retry=False,
        on_rollout=run,
    )
    return run


@pytest.fixture(scope="module")
def guided(records: dict[str, dict[str, Any]], kg_corpus: Path) -> Run:
    return run_teacher(records, kg_corpus)


def conversation(rollout: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The messages of a rollout's sessions, prompt first: what the policy was shown and wrote."""
    for record in rollout:
        if record["kind"] == "segment":
            yield from record["prompt_messages"]
            yield from record["completion_turns"]


def tool_calls(rollout: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any], str]]:
    """Each tool call with the text of every tool output before it."""
    earlier = ""
    for message in conversation(rollout):
        output = unwrap_tool_response(message["content"])
        if output is not None:
            earlier += "\n" + output
        elif message["role"] == "assistant":
            turn = parse_turn(message["content"])
            if turn.kind == "tool_call":
                yield turn.name, dict(turn.arguments), earlier


def visited_text(rollout: list[dict[str, Any]]) -> str:
    outputs = [unwrap_tool_response(m["content"]) or "" for m in conversation(rollout)]
    return "\n".join(o for o in outputs if _VISITED.search(o))


def exact_lines(answer: str) -> list[str]:
    return re.findall(rf"^{EXACT_LABEL} (.+)$", answer, re.MULTILINE)


def states(text: str, value: object) -> bool:
    """Whether `text` states `value`: a figure by its value (1,960,582 is 1960582.0), a name by
    its folded words."""
    figure = number_from_param(value)
    if figure is not None:
        return any(found.value == figure.value for found in numbers_in(text))
    return f" {fold(str(value))} " in f" {fold(text)} "


def test_the_teacher_never_searches_a_word_it_has_not_seen(guided: Run) -> None:
    searches = 0
    for rollout in guided.rollouts:
        question = rollout[0]["question"]
        for name, arguments, earlier in tool_calls(rollout):
            if name != "search":
                continue
            seen = set(fold(question).split()) | set(fold(earlier).split())
            for query in arguments["query"]:
                searches += 1
                assert set(fold(query).split()) <= seen, (rollout[0]["task_id"], query)
    assert searches >= len(guided.rollouts)


def test_it_visits_only_pages_an_earlier_search_listed(guided: Run) -> None:
    visits = 0
    for rollout in guided.rollouts:
        for name, arguments, earlier in tool_calls(rollout):
            if name == "visit":
                listed = set(_LISTED.findall(earlier))
                visits += len(arguments["url"])
                assert set(arguments["url"]) <= listed, rollout[0]["task_id"]
    assert visits >= len(guided.rollouts)


def test_every_value_its_answer_states_is_on_a_page_it_visited(
    guided: Run, records: dict[str, dict[str, Any]]
) -> None:
    stated = 0
    for rollout in guided.rollouts:
        record, answer = records[rollout[0]["task_id"]], rollout[0]["answer"]
        read = visited_text(rollout)
        values = [fact["value"] for fact in record["oracle"]["facts"]]
        if family(record) not in DERIVED:  # a ranking's winner or a sum is worked out
            values += [item for line in exact_lines(answer) for item in line.split("; ")]
        for value in values:
            if states(answer, value):
                stated += 1
                assert states(read, value), (rollout[0]["task_id"], value)
        cited = set(re.findall(r"^\[\d+\] (\S+)$", answer, re.MULTILINE))
        assert cited <= set(_VISITED.findall(read)), rollout[0]["task_id"]
    assert stated >= 2 * len(guided.rollouts)


def test_it_earns_the_reward_threshold_on_most_tasks_of_several_families(
    guided: Run, records: dict[str, dict[str, Any]]
) -> None:
    tasks = Counter(family(r) for r in records.values())
    kept = Counter(family(records[t]) for t in guided.kept_tasks())
    report = guided.report
    assert report.tasks == len(records) >= 30
    assert report.tasks_with_a_kept_rollout / report.tasks >= 0.6, (kept, tasks)
    assert {f for f in tasks if kept[f]} >= {
        "comparison",
        "temporal_order",
        "domain_chain",
        "aggregation",
        "find_k",
    }
    assert all(kept[f] / tasks[f] >= 0.5 for f in ("comparison", "temporal_order", "domain_chain"))
    assert report.mean_reward is not None and report.mean_reward >= 0.5
    # The reward decided: every kept rollout reached the threshold, none below it was kept.
    for rollout in guided.rollouts:
        reward = rollout[0]["reward"]["reward"]
        assert rollout[0]["kept"] == (reward is not None and reward >= MIN_REWARD)


def test_a_path_page_missing_from_the_corpus_gives_a_demonstration_that_is_not_kept(
    records: dict[str, dict[str, Any]], kg_corpus: Path, guided: Run, tmp_path: Path
) -> None:
    """A comparison whose answer is worked out from every figure, one of whose pages the
    corpus lacks: the teacher cannot read that figure, so it commits to no answer."""
    kept = guided.kept_tasks()
    task_id = next(t for t, r in records.items() if family(r) == "comparison" and t in kept)
    missing = read_path(records[task_id]).steps[-1].url
    corpus = write_corpus(tmp_path / "corpus", leave_out=frozenset({missing}))
    run = run_teacher(records, corpus, [task_id])
    [rollout] = run.rollouts
    header = rollout[0]
    assert header["status"] in ("answered", "forced") and header["kept"] is False
    assert EXACT_LABEL not in header["answer"] and missing not in header["answer"]
    assert all(missing not in earlier for _, _, earlier in tool_calls(rollout))
    assert run.report.tasks == 1 and run.report.kept == 0


def test_the_sft_rows_never_show_the_solution_before_a_page_did(
    guided: Run, records: dict[str, dict[str, Any]], kg_corpus: Path, tmp_path: Path
) -> None:
    """The prompt is the question alone, and no turn names the answer before a tool output
    showed it: only the teacher reads the record."""
    lines = [json.dumps(r) for rollout in guided.rollouts for r in rollout]
    tasks = [task_from_record(r) for r in records.values()]
    builder = SFTBuilder(tasks=tasks, store=CorpusStore(kg_corpus), min_reward=MIN_REWARD)
    rows = list(builder.rows(read_rollouts(enumerate((json.loads(x) for x in lines), 1))))
    assert len(rows) == len(guided.kept_tasks()) > 0
    for row in rows:
        record = records[row["task_id"]]
        exact = read_path(record).exact
        prompt = [m["content"] for m in row["messages"] if not m["loss"]]
        assert prompt[1] == record["question"]
        assert record["reference_answer"] not in "\n".join(prompt)
        shown = record["question"]
        for message in row["messages"][2:]:
            if message["role"] == "assistant" and "<answer>" not in message["content"]:
                assert not states(message["content"], exact) or states(shown, exact)
            shown += "\n" + message["content"]


def test_the_path_commits_to_a_worked_out_answer_only_when_every_figure_was_read(
    records: dict[str, dict[str, Any]],
) -> None:
    record = next(r for r in records.values() if family(r) == "aggregation")
    path = read_path(record)
    everything = {fact: fact.url for fact in path.cited()}
    assert path.exact == record["reference_answer"].split(EXACT_LABEL)[1].split()[0]
    assert path.working.endswith(f"= {path.exact}")
    assert committed(path, everything, []) == path.exact
    assert committed(path, list(everything)[1:], []) == ""


def test_a_found_answer_is_committed_only_when_a_visited_page_shows_it(
    records: dict[str, dict[str, Any]], kg_corpus: Path
) -> None:
    record = next(r for r in records.values() if family(r) == "domain_chain")
    path = read_path(record)
    store = CorpusStore(kg_corpus)
    end = next(fact for fact in path.cited() if path.exact in fact.text)
    shows, start = store.get(end.url), store.get(path.steps[0].url)
    assert shows is not None and start is not None and start.url != end.url
    assert committed(path, [], [shows.text]) == path.exact
    assert committed(path, [], [start.text]) == ""


def test_collect_takes_one_kind_of_policy_factory(toolbox: Toolbox) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        collect([], toolbox=toolbox)
    with pytest.raises(ValueError, match="exactly one"):
        collect(
            [],
            toolbox=toolbox,
            policy_factory=ScriptedPolicy,
            task_policy_factory=guided_teachers({}, toolbox),
        )


def test_the_fallback_runs_where_the_task_policy_was_not_kept(
    toolbox: Toolbox, corpus: Path
) -> None:
    """A task with no record gets a teacher with no path, whose answer earns nothing; the
    scripted researcher then solves it, and its rollout says it was the fallback."""
    task = task_from_record(next(t for t in TASKS if t["task_id"] == "australia"))
    rollouts: list[dict[str, Any]] = []
    report = collect(
        [task],
        task_policy_factory=guided_teachers({}, toolbox),
        fallback_factory=ScriptedPolicy,
        toolbox=toolbox,
        store=CorpusStore(corpus),
        min_reward=0.5,
        hint_retry=False,
        on_rollout=lambda records, kept: rollouts.append(records[0]),
    )
    assert [(h["policy"], h["fallback"], h["kept"]) for h in rollouts] == [
        ("guided", False, False),
        ("scripted", True, True),
    ]
    assert rollouts[0]["question"] == AUSTRALIA
    assert (report.fallback, report.fallback_kept, report.tasks_with_a_kept_rollout) == (1, 1, 1)


def loop_directory(directory: Path, records: dict[str, dict[str, Any]]) -> Path:
    where = paths(directory)
    where["accepted"].parent.mkdir(parents=True)
    write_jsonl(where["accepted"], list(records.values()))
    keep = ("task_id", "question", "rubric", "type", "category")
    write_jsonl(where["train"], [{k: r[k] for k in keep if k in r} for r in records.values()])
    return directory


def test_the_loops_collect_stage_reports_the_kept_share_of_each_family(
    records: dict[str, dict[str, Any]], kg_corpus: Path, guided: Run, tmp_path: Path
) -> None:
    said: list[str] = []
    directory = loop_directory(tmp_path / "loop", records)
    out = collect_stage(directory, LoopConfig(), kg_corpus, said.append)
    families = Counter(family(r) for r in records.values())
    assert out["teacher"] == "guided"
    assert {f: c["tasks"] for f, c in out["by_family"].items()} == dict(families)
    for found in out["by_family"].values():
        assert found["share"] == found["kept"] / found["tasks"]
    # The guided rollouts are those of the teacher alone; the fallback only adds.
    assert sum(c["kept"] for c in out["by_family"].values()) >= len(guided.kept_tasks())
    assert out["tasks_with_a_kept_rollout"] == sum(c["kept"] for c in out["by_family"].values())
    assert out["sft_rows"] >= out["kept"] > 0
    assert f"of {len(records)} train tasks kept" in said[-1]
    headers = [r for _, r in read_jsonl(paths(directory)["trajectories"])]
    assert {h["policy"] for h in headers if h["kind"] == "rollout"} <= {"guided", "scripted"}


def test_collect_teacher_scripted_keeps_the_scripted_researcher(
    records: dict[str, dict[str, Any]], kg_corpus: Path, tmp_path: Path
) -> None:
    config = parse_loop_config({"collect": {"teacher": "scripted", "min_reward": 0.0}})
    directory = loop_directory(tmp_path / "loop", records)
    out = collect_stage(directory, config, kg_corpus, lambda line: None)
    headers = [r for _, r in read_jsonl(paths(directory)["trajectories"])]
    policies = {h["policy"] for h in headers if h["kind"] == "rollout"}
    assert out["teacher"] == "scripted" and policies == {"scripted"}
    assert out["fallback"] == 0 and out["rollouts"] == len(records)
