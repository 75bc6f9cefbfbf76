from __future__ import annotations

from collections import Counter

import pytest

from quest.rubric.stats import complexity_class
from quest.synthesis.model import BatchSpec
from quest.synthesis.seeds import (
    CLASS_TARGETS,
    CLASSES,
    SUBCATEGORIES,
    TAXONOMY,
    SeedSampler,
    class_shape,
)


def test_the_taxonomy_is_quests_six_categories_and_24_subcategories() -> None:
    assert len(TAXONOMY) == 6
    assert len(SUBCATEGORIES) == len(set(SUBCATEGORIES)) == 24
    assert "Finance & Investment" in TAXONOMY["Misc."]


def test_class_targets_follow_the_paper_and_sum_to_one() -> None:
    assert sum(CLASS_TARGETS.values()) == pytest.approx(1.0)
    assert sum(CLASS_TARGETS[c] for c in ("C1", "C4", "C7")) == pytest.approx(0.5)
    assert sum(CLASS_TARGETS[c] for c in ("C3", "C6", "C9")) == pytest.approx(0.1)


@pytest.mark.parametrize("name", CLASSES)
def test_class_shape_inverts_the_measured_class(name: str) -> None:
    breadth, depth = class_shape(name)
    widest = {1: 2, 2: 6, 3: 12}[breadth]
    layers = {1: 2, 2: 3, 3: 5}[depth]
    assert complexity_class(breadth=widest, depth=layers) == name


def test_a_batch_of_200_lands_within_one_task_of_every_class_target() -> None:
    sampler = SeedSampler(seed=5, subcategories=SUBCATEGORIES)
    drawn = Counter(sampler.next_class() for _ in range(200))
    for name, share in CLASS_TARGETS.items():
        assert abs(drawn[name] - share * 200) <= 1, (name, drawn)


def test_subcategories_are_taken_least_used_first() -> None:
    used = {s: 5 for s in SUBCATEGORIES}
    used["Music"] = 0
    used["News"] = 1
    sampler = SeedSampler(seed=1, subcategories=SUBCATEGORIES, used=used)
    first = [sampler.next_subcategory() for _ in range(3)]
    assert first[0] == "Music"
    assert sorted(first[1:]) == ["Music", "News"]  # Music at 1 ties News, then both at 2


def test_a_task_filed_elsewhere_counts_where_it_landed() -> None:
    subcategories = ["Music", "News", "Shopping"]
    sampler = SeedSampler(seed=1, subcategories=subcategories)
    drawn = []
    for _ in range(40):
        drawn.append(sampler.next_subcategory())
        if drawn[-1] == "Music":
            sampler.landed("Music", "News")  # every Music draft is filed under News
    # Music is drawn twice as often as Shopping; News, filled by Music's drafts, seldom.
    counts = Counter(drawn)
    assert (
        abs(counts["Music"] - 2 * counts["Shopping"]) <= 1 and counts["News"] < counts["Shopping"]
    )
    weighted = SeedSampler(seed=1, subcategories=subcategories, category_weights={"Music": 1})
    weighted.next_subcategory()
    weighted.landed("Music", "News")
    assert weighted.next_subcategory() == "Music", "weights are what was asked for: unchanged"


def test_category_weights_replace_least_used_first() -> None:
    sampler = SeedSampler(
        seed=1, subcategories=SUBCATEGORIES, category_weights={"News": 3, "Music": 1}
    )
    drawn = Counter(sampler.next_subcategory() for _ in range(40))
    assert drawn == {"News": 30, "Music": 10}


def test_the_same_seed_draws_the_same_sequence() -> None:
    def draws(seed: int) -> list[tuple[str, str]]:
        s = SeedSampler(seed=seed, subcategories=SUBCATEGORIES)
        return [(s.next_subcategory(), s.next_class()) for _ in range(30)]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        (BatchSpec(count=0), "count must be from 1"),
        (BatchSpec(count=2001), "count must be from 1"),
        (BatchSpec(generator="gpt"), "generator must be one of"),
        (BatchSpec(seed=-1), "seed must be"),
        (BatchSpec(classes={"C10": 1}), "unknown C10"),
        (BatchSpec(classes={"C1": -1}), "at least 0"),
        (BatchSpec(classes={"C1": 0}), "at least one weight"),
        (BatchSpec(categories={"Cooking": 1}), "unknown Cooking"),
        (BatchSpec(proposer_turns=1), "proposer_turns must be"),
    ],
)
def test_bad_specs_name_their_problem(spec: BatchSpec, problem: str) -> None:
    assert any(problem in p for p in spec.problems()), spec.problems()


def test_a_good_spec_has_no_problems() -> None:
    assert BatchSpec(count=5, classes={"C3": 1}, categories={"Music": 2}).problems() == []
