"""The world split: the graph's entities divided before synthesis, each side's tasks drawn
from its own world, and tasks/split.json proving that no entity of one world reaches the other
side's tasks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from quest.loop.config import parse_loop_config
from quest.loop.data_stages import paths, synth_stage
from quest.synthesis.entities import entity_key, task_family
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.kg_domains import DomainGraph
from quest.synthesis.worlds import Scope, Worlds, partition
from quest.training.records import read_jsonl

SEED = 11


@pytest.fixture(scope="module")
def worlds() -> Worlds:
    return partition(SEED, 0.35)


def test_the_worlds_are_seeded_and_hold_their_share(worlds: Worlds) -> None:
    again = partition(SEED, 0.35)
    other = partition(SEED + 1, 0.35)
    assert again.sides == worlds.sides and again.countries == worlds.countries
    assert other.countries != worlds.countries
    held = [iso for iso, side in worlds.countries.items() if side == "heldout"]
    assert abs(len(held) - 0.35 * len(worlds.countries)) <= 6  # a region may overshoot


def test_what_hangs_off_a_country_follows_it(worlds: Worlds) -> None:
    kg, graph = KnowledgeGraph.load(), DomainGraph.load()
    for iso, side in worlds.countries.items():
        country = kg.get(iso)
        key = entity_key(country.name)
        assert worlds.sides.get(key) == side, country.name
        for city in country.largest_cities:
            assert worlds.sides.get(entity_key(city.name), side) == side or (
                entity_key(city.name) in worlds.shared
            )
    # An airport's world is its country's, unless its name is contested.
    checked = 0
    for fact in graph.facts:
        if fact.relation == "located_in" and fact.subject.startswith("airport:"):
            airport = graph.entity(fact.subject)
            country = str(fact.value).split(":", 1)[1]
            if entity_key(airport.name) in worlds.shared or country not in worlds.countries:
                continue
            assert worlds.side_of(airport.name) == worlds.countries[country]
            checked += 1
    assert checked > 1000


def test_held_out_countries_come_in_regions(worlds: Worlds) -> None:
    """Regions keep neighbours together, so chains across borders stay in one world."""
    kg = KnowledgeGraph.load()
    held = {iso for iso, side in worlds.countries.items() if side == "heldout"}
    bordered = [iso for iso in held if kg.get(iso).neighbours]
    with_a_held_neighbour = [iso for iso in bordered if set(kg.get(iso).neighbours) & held]
    assert len(with_a_held_neighbour) >= 0.6 * len(bordered)


def test_shared_values_are_declared(worlds: Worlds) -> None:
    assert worlds.shared[entity_key("Europe")] == "continent"
    assert worlds.side_of("Europe") is None
    assert worlds.shared[entity_key("English")] == "spoken in both worlds"
    assert worlds.shared[entity_key("New Year's Day")] == "contested"
    assert not set(worlds.shared) & set(worlds.sides)


def _record(question: str, answers: list[str], family: str = "lookup") -> dict[str, Any]:
    return {
        "question": question,
        "oracle": {"family": family, "answers": answers, "facts": []},
        "provenance": {"family": family},
        "rubric": {"root": {"children": []}},
    }


def _country(worlds: Worlds, side: str) -> str:
    kg = KnowledgeGraph.load()
    return next(
        kg.get(iso).name
        for iso, s in sorted(worlds.countries.items())
        if s == side and worlds.side_of(kg.get(iso).name) == side
    )


def test_a_scope_refuses_the_other_world_however_it_is_named(worlds: Worlds) -> None:
    train, held = _country(worlds, "train"), _country(worlds, "heldout")
    scope = Scope(worlds, "train")
    assert scope.refusal(_record(f"What is the capital of {train}?", [train])) is None
    # the other world's country as the answer, or only as a clue in the question
    assert "other world" in str(scope.refusal(_record("Which country?", [held])))
    clue = _record(f"Which country borders {held}?", [train])
    clue["oracle"]["distractors"] = [held]
    assert "other world" in str(scope.refusal(clue))
    # shared values alone name no entity of the world: such a task could land on both sides
    assert "no entity" in str(scope.refusal(_record("Which continent?", ["Europe"])))


def test_a_scope_refuses_an_other_spelling_of_the_other_world(worlds: Worlds) -> None:
    kg = KnowledgeGraph.load()
    ivory = kg.get("CI")
    side = worlds.countries["CI"]
    other = "train" if side == "heldout" else "heldout"
    assert worlds.side_of("Ivory Coast") == side == worlds.side_of(ivory.name)
    mine = _country(worlds, other)
    sneaky = _record(f"Does {mine} trade with Ivory Coast?", [mine, "Ivory Coast"])
    assert "other world" in str(Scope(worlds, other).refusal(sneaky))  # type: ignore[arg-type]


def test_a_slice_scope_takes_only_its_family(worlds: Worlds) -> None:
    train = _country(worlds, "train")
    chain = _record(f"Start from {train}.", [train], family="chain")
    lookup = _record(f"Start from {train}.", [train], family="lookup")
    only = Scope(worlds, "train", "chain", slice_only=True)
    without = Scope(worlds, "train", "chain", slice_only=False)
    assert only.refusal(chain) is None and "not of the slice" in str(only.refusal(lookup))
    assert without.refusal(lookup) is None and "of the slice" in str(without.refusal(chain))


@pytest.fixture(scope="module")
def synthesized(loop_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("worlds-loop")
    config = parse_loop_config(
        {
            "seed": SEED,
            "synth": {"tasks": 40, "heldout_tasks": 24, "family_tasks": 12},
        }
    )
    synth_stage(directory, config, loop_corpus, print)
    return directory


def test_the_synth_stage_draws_each_side_from_its_world(synthesized: Path) -> None:
    where = paths(synthesized)
    document = json.loads(where["split"].read_text(encoding="utf-8"))
    records = {r["task_id"]: r for _, r in read_jsonl(where["accepted"])}
    counts, sides = document["counts"], document["split"]
    assert counts["method"] == "worlds" and counts["dropped_mixed"] == 0
    assert counts["train"] >= 25 and counts["heldout"] >= 12 and counts["out_of_family"] >= 6
    assert set(sides) == set(records)
    # the slice is one family, and no other side holds it
    for task_id, side in sides.items():
        assert (task_family(records[task_id]) == "chain") == (side == "out_of_family")
    proof = document["proof"]
    assert proof["crossing"] == []
    worlds = partition(SEED, 0.35)
    assert all(name not in worlds.sides for name in proof["shared"])


def test_no_held_out_answer_is_written_in_a_train_task(synthesized: Path) -> None:
    """Read independently of the split's own entity list: every answer and fact subject of a
    held-out or out-of-family task, as text, against every train task's question, reference
    answer and solution, shared values aside."""
    where = paths(synthesized)
    document = json.loads(where["split"].read_text(encoding="utf-8"))
    records = [r for _, r in read_jsonl(where["accepted"])]
    worlds = partition(SEED, 0.35)
    train_text = " ".join(
        " ".join([r["question"], r["reference_answer"], json.dumps(r["solution"])])
        for r in records
        if document["split"][r["task_id"]] == "train"
    ).casefold()
    names: dict[str, set[str]] = {"train": set(), "other": set()}
    for record in records:
        side = "train" if document["split"][record["task_id"]] == "train" else "other"
        oracle = record["oracle"]
        names[side].update(oracle["answers"])
        names[side].update(fact["subject"] for fact in oracle["facts"])
    held = {n.casefold() for n in names["other"] if entity_key(n) not in worlds.shared}
    assert len(held) >= 15
    # Longest first: "Serbia and Montenegro" (a train country) does not name Serbia.
    every = sorted({n.casefold() for n in names["train"] | names["other"]}, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, every)) + r")\b")
    assert set(pattern.findall(train_text)) & held == set()
