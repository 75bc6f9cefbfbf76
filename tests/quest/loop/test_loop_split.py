"""The loop's honest split on real knowledge-graph tasks: a held-out task names no place a
train task names, and the out-of-family slice is one family that no train task belongs to."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quest.corpus.store import CorpusStore
from quest.loop.config import parse_loop_config
from quest.loop.data_stages import gate_stage, paths
from quest.loop.split import split_tasks
from quest.rubric.distractors import TitleDistractors
from quest.synthesis.model import BatchSpec
from quest.synthesis.runner import synthesize
from quest.training.records import read_jsonl, write_jsonl

SEED = 11


@pytest.fixture(scope="module")
def kg_records(loop_corpus: Path) -> list[dict[str, Any]]:
    """What the loop's synth stage accepts from 180 proposals of seed 11, with its task ids:
    enough for the tasks about neighbouring countries to join into one giant component."""
    store = CorpusStore(loop_corpus)
    distractors = TitleDistractors((d.url, d.title, d.text) for d in store.documents())
    spec = BatchSpec(generator="kg", count=180, seed=SEED, baseline=False)
    records = []
    for candidate in synthesize(spec, pages=store, distractors=distractors):
        if candidate.accepted:
            records.append({**candidate.record, "task_id": f"s{SEED}-{candidate.index:04d}"})
    return records


@pytest.fixture(scope="module")
def joined_records(kg_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same tasks and one more, a lookup whose path names every place the others name: one
    giant component, as the generator's neighbours and continents make on larger batches, so
    whole components cannot reach a held-out share and the per-entity fallback runs."""
    hub = copy.deepcopy(next(r for r in kg_records if r["oracle"]["family"] == "lookup"))
    names = {name for r in kg_records for name in _solution_names(r)}
    hub["oracle"]["path"] = sorted(names)
    hub["task_id"] = f"s{SEED}-hub"
    return [*kg_records, hub]


def _solution_names(record: dict[str, Any]) -> Iterator[str]:
    """The places a task's answer must name, read straight from the generator's record."""
    oracle = record["oracle"]
    yield from oracle["answers"]
    yield from oracle.get("path", [])
    for fact in oracle["facts"]:
        yield fact["subject"]
        if isinstance(fact["value"], str) and fact["relation"] != "currency":
            yield fact["value"]
    yield from record["solution"]


def _text(record: dict[str, Any]) -> str:
    """Everything a trainer could read of a task: its question, reference answer, solution."""
    return " ".join(
        [record["question"], record["reference_answer"], json.dumps(record["solution"])]
    )


def _shared(held: list[dict[str, Any]], train: list[dict[str, Any]]) -> set[str]:
    """The held-out tasks' solution names that any train task's text holds as a whole name
    (read longest first: "American Samoa" does not name Samoa)."""
    names = {name.casefold() for r in [*held, *train] for name in _solution_names(r)}
    pattern = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    text = " ".join(_text(record) for record in train).casefold()
    named = set(re.findall(rf"\b(?:{pattern})\b", text))
    return named & {name.casefold() for r in held for name in _solution_names(r)}


@pytest.mark.parametrize(
    ("share", "method", "fixture"),
    [(0.2, "components", "kg_records"), (0.7, "entities", "joined_records")],
)
def test_no_held_out_task_names_a_place_a_train_task_names(
    request: pytest.FixtureRequest, share: float, method: str, fixture: str
) -> None:
    records: list[dict[str, Any]] = request.getfixturevalue(fixture)
    split = split_tasks(records, share=share, seed=SEED, out_of_family="chain")
    counts = split.counts()
    assert counts["method"] == method  # the giant component forces the fallback
    by_side = {
        side: [r for r in records if split.sides[r["task_id"]] == side]
        for side in ("train", "heldout", "dropped")
    }
    assert len(by_side["train"]) >= 20 and len(by_side["heldout"]) >= 10
    assert not _shared(by_side["heldout"], by_side["train"])
    assert not _shared(by_side["train"], by_side["heldout"])
    kept = counts["train"] + counts["heldout"]
    assert counts["heldout"] >= share * kept * 0.8
    assert counts["dropped_mixed"] == len(by_side["dropped"])
    assert sum(counts[k] for k in ("train", "heldout", "dropped_mixed", "out_of_family")) == len(
        records
    )


def test_a_hash_split_would_have_shared_places(kg_records: list[dict[str, Any]]) -> None:
    """What the split is for: by a hash of the task id, the sides share many answers."""
    from quest.training.tasks import held_out

    held = [r for r in kg_records if held_out(r["task_id"])]
    train = [r for r in kg_records if not held_out(r["task_id"])]
    assert len(_shared(held, train)) >= 5


@pytest.mark.parametrize(("slice_name", "field"), [("chain", "family"), ("C1", "complexity")])
def test_the_out_of_family_slice_is_one_family_never_trained_on(
    kg_records: list[dict[str, Any]], slice_name: str, field: str
) -> None:
    split = split_tasks(kg_records, share=0.2, seed=SEED, out_of_family=slice_name)

    def kind(record: dict[str, Any]) -> str:
        return str(record["provenance"]["family"] if field == "family" else record["complexity"])

    members = {r["task_id"] for r in kg_records if kind(r) == slice_name}
    assert members and split.ids("out_of_family") == members
    assert all(kind(r) != slice_name for r in kg_records if r["task_id"] in split.ids("train"))
    assert split.counts()["out_of_family"] == len(members)
    assert split.counts()["out_of_family_slice"] == slice_name


def test_the_split_is_the_same_for_the_same_seed(kg_records: list[dict[str, Any]]) -> None:
    first = split_tasks(kg_records, share=0.5, seed=SEED, out_of_family="chain")
    again = split_tasks(list(kg_records), share=0.5, seed=SEED, out_of_family="chain")
    assert first.sides == again.sides
    none = split_tasks(kg_records, share=0.2, seed=SEED, out_of_family=None)
    assert none.counts()["out_of_family"] == 0 and none.counts()["train"] > 0


def test_the_gate_writes_each_slice_and_no_dropped_task(
    tmp_path: Path, joined_records: list[dict[str, Any]]
) -> None:
    split = split_tasks(joined_records, share=0.7, seed=SEED, out_of_family="chain")
    where = paths(tmp_path)
    for folder in ("tasks", "gate"):
        (tmp_path / folder).mkdir()
    write_jsonl(where["accepted"], joined_records)
    where["split"].write_text(json.dumps({"counts": split.counts(), "split": split.sides}))
    outputs = gate_stage(tmp_path, parse_loop_config({"gate": "auto-accept-sound"}), print)
    for side in ("train", "heldout", "out_of_family"):
        written = {r["task_id"] for _, r in read_jsonl(where[side])}
        assert written == split.ids(side) and outputs[side] == len(written)
    assert split.ids("dropped")  # the fallback dropped some, and no file holds them
    assert outputs["accepted"] == len(joined_records)
