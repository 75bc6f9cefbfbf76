"""A dataset build inside a worker (runner.dataset_run): gated tasks read, rows written to a
partial directory that replaces the dataset's only once complete, counts, a token-length
histogram and a preview with the chat template and loss mask.

RL: the RL prompt set (quest.training.build_rl) as TRL JSONL and verl parquet.
SFT: a policy collects trajectories on the tasks (quest.training.collect: rejection sampling,
a retry with the failed leaves as a hint), then each kept rollout is split into sessions
(quest.training.SFTBuilder). MID: condenser pairs and page -> evidence pairs from an SFT
dataset's trajectories.
"""

from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.audit.models import CampaignTask
from apps.common import llm
from apps.corpus.selectors import research_toolbox, store
from apps.jobs.models import JobStatus
from apps.training import selectors
from apps.training.models import DatasetKind, TrainingDataset
from quest.agent import RuleCondenser, ScriptedPolicy
from quest.agent.condenser import LLMCondenser
from quest.agent.policies import LLMPolicy
from quest.training import (
    DatasetError,
    MidBuilder,
    SFTBuilder,
    build_rl,
    read_jsonl,
    read_rollouts,
    task_from_record,
    tokenize_messages,
    write_jsonl,
    write_rl,
)
from quest.training.collect import collect
from quest.training.models import smollm2_tokenizer
from quest.training.tasks import held_out

PREVIEW_ROWS = 5
TRAJECTORIES = "trajectories.jsonl"
TASKS = "tasks.jsonl"
LENGTHS = "lengths.json"
NO_JUDGE = (
    "its tree has leaves only an LLM judge can decide and no judge is configured "
    "(QUESTWEB_JUDGE_MODEL)"
)

Beat = Callable[..., bool]


class Cancelled(Exception):
    """The dataset was cancelled while it was built."""


def build(dataset_id: int, beat: Beat) -> None:
    dataset = TrainingDataset.objects.get(pk=dataset_id)
    final = Path(dataset.directory)
    partial = final.with_name(final.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        built = _BUILDERS[DatasetKind(dataset.kind)](dataset, partial, beat)
        rows_file = partial / f"{dataset.kind}.jsonl"
        if not built["rows"]:
            raise ValueError(_why_empty(built["stats"]))
        built["stats"]["tokens"] = _token_stats(rows_file, partial)
    except Cancelled:
        shutil.rmtree(partial, ignore_errors=True)
        return
    except Exception as error:  # the reason is shown on the dataset's page
        shutil.rmtree(partial, ignore_errors=True)
        reason = str(error) if isinstance(error, ValueError) else f"{type(error).__name__}: {error}"
        _end(dataset_id, JobStatus.FAILED, error=reason, stats=dataset.stats)
        return
    shutil.rmtree(final, ignore_errors=True)
    partial.rename(final)
    _end(dataset_id, JobStatus.DONE, **built)


def _end(dataset_id: int, status: str, **fields: Any) -> None:
    with transaction.atomic():
        row = TrainingDataset.objects.select_for_update().get(pk=dataset_id)
        if row.status != JobStatus.RUNNING:
            return
        row.status, row.finished_at = status, timezone.now()
        for name, value in fields.items():
            setattr(row, name, value)
        row.save()


def _tasks(dataset: TrainingDataset, directory: Path, beat: Beat) -> list[Any]:
    """The gated tasks of the dataset's split, written to tasks.jsonl; held-out tasks never."""
    records, tasks, skipped = [], [], []
    limit = int(dataset.params.get("limit") or 0)
    campaign = campaign_tasks(dataset.params.get("campaign"))
    for task, version in selectors.gated_versions(split=dataset.params.get("split", "train")):
        if held_out(task.pk) or (campaign is not None and task.pk not in campaign):
            continue
        record = selectors.task_record(task, version)
        try:
            tasks.append(task_from_record(record))
        except DatasetError as error:
            skipped.append({"task_id": record["task_id"], "reason": str(error)})
            continue
        records.append(record)
        if limit and len(tasks) >= limit:
            break
    if not tasks:
        raise ValueError("no gated task to build from: accept tasks in an audit and probe them")
    write_jsonl(directory / TASKS, records)
    if not beat(total=len(tasks), done=0):
        raise Cancelled
    dataset.stats = {"skipped_tasks": skipped}
    return tasks


def campaign_tasks(campaign_id: int | None) -> set[int] | None:
    """The tasks of an audit campaign (None: no campaign asked, every gated task counts)."""
    if campaign_id is None:
        return None
    return set(CampaignTask.objects.filter(campaign_id=campaign_id).values_list("task", flat=True))


def _rl(dataset: TrainingDataset, directory: Path, beat: Beat) -> dict[str, Any]:
    tasks = _tasks(dataset, directory, beat)
    built = build_rl(tasks, data_source="questweb")
    rows = write_rl(directory / "rl.jsonl", built.rows)
    write_rl(directory / "rl.parquet", built.rows)
    skipped = [{"task_id": t, "reason": why} for t, why in built.skipped]
    stats = {**dataset.stats, "skipped": skipped, "files": ["rl.jsonl", "rl.parquet", TASKS]}
    beat(done=len(tasks))
    return {"rows": rows, "task_ids": [t.task_id for t in tasks], "stats": stats}


def _sft(dataset: TrainingDataset, directory: Path, beat: Beat) -> dict[str, Any]:
    params = dataset.params
    judge = _judge(params["policy"])
    tasks = _tasks(dataset, directory, beat)
    if judge is None:
        tasks = _decidable(tasks, dataset)
    policy_factory, condenser_factory = _policy(params["policy"])
    store = _store()
    trajectories = directory / TRAJECTORIES
    done: set[str] = set()
    with trajectories.open("w", encoding="utf-8") as handle:

        def on_rollout(records: list[dict[str, Any]], kept: bool) -> None:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            done.add(str(records[0].get("task_id")))
            if not beat(done=len(done)):
                raise Cancelled

        report = collect(
            tasks,
            policy_factory=policy_factory,
            condenser_factory=condenser_factory,
            toolbox=research_toolbox(),
            attempts=params["attempts"],
            min_reward=params["min_reward"],
            hint_retry=params["hint_retry"],
            store=store,
            judge=judge,
            on_rollout=on_rollout,
        )
    builder = SFTBuilder(tasks=tasks, store=store, min_reward=params["min_reward"])
    rollouts = read_rollouts(read_jsonl(trajectories), source=TRAJECTORIES)
    rows = write_jsonl(directory / "sft.jsonl", builder.rows(rollouts))
    stats = {**dataset.stats, "collect": report.to_json(), "sessions": builder.report.to_json(),
             "files": ["sft.jsonl", TRAJECTORIES, TASKS]}  # fmt: skip
    return {"rows": rows, "task_ids": [t.task_id for t in tasks], "stats": stats}


def _decidable(tasks: list[Any], dataset: TrainingDataset) -> list[Any]:
    """Without a judge a tree with judge leaves can never be scored: its rollouts would all be
    dropped, so the task is left out up front, with the reason."""
    skipped = dataset.stats.setdefault("skipped", [])
    for task in tasks:
        if task.needs_judge():
            skipped.append({"task_id": task.task_id, "reason": NO_JUDGE})
    return [task for task in tasks if not task.needs_judge()]


def _mid(dataset: TrainingDataset, directory: Path, beat: Beat) -> dict[str, Any]:
    source = TrainingDataset.objects.get(pk=dataset.params["source_dataset"])
    trajectories = Path(source.directory) / TRAJECTORIES
    if not trajectories.is_file():
        raise ValueError(f"dataset {source.pk} has no trajectories file")
    beat(total=1, done=0)
    builder = MidBuilder(store=_store())
    rollouts = read_rollouts(read_jsonl(trajectories), source=TRAJECTORIES)
    rows = write_jsonl(directory / "mid.jsonl", builder.rows(rollouts))
    beat(done=1)
    stats = {"mid": builder.report.to_json(), "files": ["mid.jsonl"], "source": source.pk}
    return {"rows": rows, "task_ids": list(source.task_ids), "stats": stats}


def _why_empty(stats: dict[str, Any]) -> str:
    """What a build that wrote no row can tell a person, from its reports."""
    reasons = [item["reason"] for item in stats.get("skipped", []) + stats.get("skipped_tasks", [])]
    parts = []
    if reasons:
        common = max(set(reasons), key=reasons.count)
        parts.append(f"{len(reasons)} task(s) left out, e.g. {common}")
    collected = stats.get("collect") or {}
    if collected.get("rollouts"):
        parts.append(
            f"of {collected['rollouts']} rollouts {collected.get('kept', 0)} kept, "
            f"{collected.get('below_threshold', 0)} below the reward threshold, "
            f"{collected.get('dropped', 0)} dropped (the verifier could not decide them)"
        )
    return "no row to train on: " + ("; ".join(parts) or "the builder wrote none")


_BUILDERS = {DatasetKind.RL: _rl, DatasetKind.SFT: _sft, DatasetKind.MID: _mid}


def _policy(spec: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """(policy factory, condenser factory): the scripted researcher, or a model as live
    sessions reach it (one client shared by every rollout)."""
    if spec == "scripted":
        return ScriptedPolicy, RuleCondenser

    client = llm.client_for(spec)
    return (lambda: LLMPolicy(client)), (lambda: LLMCondenser(client))


def _judge(policy: str) -> Any:
    """The configured judge for judge leaves, never the policy being sampled."""
    model = settings.LLM_JUDGE_MODEL
    if not model or model == policy:
        return None

    return llm.client_for(model)


def _store() -> Any:
    """The corpus's pages (the corpus app keeps one store per corpus version)."""
    return store()


# ---- token statistics -------------------------------------------------------------------------


def _token_stats(rows_file: Path, directory: Path) -> dict[str, Any]:
    """Token lengths of every row under SmolLM2's chat template (the tokenizer of both
    built-in models), written to lengths.json; the first rows' text split into trained and
    untrained spans, written to preview.json."""
    tokenizer = _tokenizer()
    lengths, trained, preview = [], 0, []
    for number, row in read_jsonl(rows_file):
        ids, mask = _tokenized(tokenizer, row)
        lengths.append(len(ids))
        trained += sum(mask)
        if number <= PREVIEW_ROWS:
            preview.append(
                {"row": number, "meta": _meta(row), "segments": _segments(tokenizer, ids, mask)}
            )
    (directory / LENGTHS).write_text(json.dumps(lengths), encoding="utf-8")
    (directory / selectors.PREVIEW_FILE).write_text(json.dumps(preview), encoding="utf-8")
    ordered = sorted(lengths)
    return {
        "tokenizer": "SmolLM2-135M-Instruct",
        "rows": len(lengths),
        "total": sum(lengths),
        "trained": trained,
        "min": ordered[0] if ordered else 0,
        "median": ordered[len(ordered) // 2] if ordered else 0,
        "p95": ordered[int(len(ordered) * 0.95)] if ordered else 0,
        "max": ordered[-1] if ordered else 0,
    }


@functools.cache
def _tokenizer() -> Any:
    return smollm2_tokenizer()


def _tokenized(tokenizer: Any, row: dict[str, Any]) -> tuple[list[int], list[int]]:
    if "messages" in row:
        tokenized = tokenize_messages(tokenizer, row["messages"])
        return tokenized.input_ids, tokenized.loss_mask
    prompt = [{"role": m["role"], "content": m["content"]} for m in row.get("prompt", [])]
    tokenized = tokenize_messages(tokenizer, prompt)
    return tokenized.input_ids, tokenized.loss_mask


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    keys = ("task_id", "rollout_id", "session", "sessions", "reward", "kind")
    return {key: row[key] for key in keys if key in row and not isinstance(row[key], dict | list)}


def _segments(tokenizer: Any, ids: list[int], mask: list[int]) -> list[list[Any]]:
    """Consecutive tokens with the same mask, decoded: [[text, trained], ...]."""
    runs: list[list[Any]] = []
    for start, trained in _runs(mask):
        end = next((i for i in range(start, len(mask)) if mask[i] != trained), len(mask))
        runs.append([tokenizer.decode(ids[start:end]), bool(trained)])
    return runs


def _runs(mask: list[int]) -> Iterator[tuple[int, int]]:
    for index, value in enumerate(mask):
        if index == 0 or mask[index - 1] != value:
            yield index, value


def lengths(dataset: TrainingDataset) -> list[int]:
    try:
        return list(json.loads((Path(dataset.directory) / LENGTHS).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return []
