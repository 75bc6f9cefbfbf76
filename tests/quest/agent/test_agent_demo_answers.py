"""The scripted researcher answers every part of a question that a page it read states (issue
29): on the whole offline corpus, searched with BM25, for the demo questions and for questions
of the same shapes about other places."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quest.agent.loop import run_agent
from quest.agent.research.figures import figures
from quest.agent.scripted import ScriptedPolicy
from quest.corpus import Document, corpus_write, load_offline
from quest.rubric import Document as Page
from quest.rubric import InMemoryDocumentStore, answer_reward, import_tree
from quest.search.indexing import bm25_build
from quest.tools.offline import offline_toolbox

DEMO = Path(__file__).resolve().parents[3] / "fixtures" / "demo" / "tasks.jsonl"
# The demo tasks added so that the demo campaign has tasks in the train split too.
NEW_DEMO_TASKS = ("tokyo", "ottawa", "cairo", "nairobi")


@pytest.fixture(scope="module")
def documents() -> list[Document]:
    return list(load_offline())


@pytest.fixture(scope="module")
def corpus(documents: list[Document], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("offline_corpus")
    corpus_write(folder, documents)
    bm25_build(folder)
    return folder


def answer_of(corpus: Path, question: str) -> str:
    return run_agent(question, policy=ScriptedPolicy(), toolbox=offline_toolbox(corpus)).answer


def answer_line(corpus: Path, question: str) -> str:
    return answer_of(corpus, question).split("\n\n")[0]


@pytest.mark.parametrize(
    ("question", "population"),
    [
        (
            "Which city is the capital of Australia, how many people live there according to "
            "GeoNames, and which is Australia's largest city? Cite your sources.",
            "367,752",
        ),
        (
            "Which city is the capital of Canada, how many people live there according to "
            "GeoNames, and which is Canada's largest city?",
            "1,017,449",
        ),
        (
            "Which city is the capital of Japan, and how many people live there according to "
            "GeoNames?",
            "9,733,276",
        ),
    ],
)
def test_how_many_people_live_there_is_the_capitals_population(
    corpus: Path, question: str, population: str
) -> None:
    line = answer_line(corpus, question)
    assert population in line
    assert "Not established" not in line


@pytest.mark.parametrize(
    ("question", "plainly"),
    [
        (
            "Which city is the capital of Australia, how many people live there according to "
            "GeoNames, and which is Australia's largest city? Cite your sources.",
            "Australia's largest city is Sydney",
        ),
    ],
)
def test_the_largest_city_is_named_plainly_from_a_ranked_list(
    corpus: Path, question: str, plainly: str
) -> None:
    assert plainly in answer_line(corpus, question)


@pytest.mark.parametrize(
    ("question", "stated"),
    [
        (
            "What is the capital of France, on which river does it lie, and what is its "
            "estimated city population? Cite your sources.",
            "Seine",
        ),
        ("What is the capital of Austria, on which river does it lie, and what is its "
         "population?", "Danube"),
        ("What is the capital of the United Kingdom, and on which river does it lie?", "Thames"),
        ("What is the capital of Hungary, and on which river does it lie?", "Danube"),
        # Its capital, read from the country's page once Brazil is the answer.
        ("Which country in South America has the largest population, and what is its capital?",
         "Brasília"),
    ],
)  # fmt: skip
def test_the_part_a_page_it_read_states_is_answered(
    corpus: Path, question: str, stated: str
) -> None:
    line = answer_line(corpus, question)
    assert stated in line
    assert "Not established" not in line


def test_the_population_asked_of_paris_is_not_an_arrondissements(corpus: Path) -> None:
    line = answer_line(
        corpus,
        "What is the capital of France, on which river does it lie, and what is its estimated "
        "city population? Cite your sources.",
    )
    assert "2.04 million" in line
    assert "Gobelins" not in line and "Arrondissement" not in line


def test_the_country_a_mountain_stands_in_is_the_one_its_page_places_it_in(corpus: Path) -> None:
    line = answer_line(
        corpus,
        "Name the highest mountain in Africa, give its height in metres and the country it "
        "stands in.",
    )
    assert "Tanzania" in line and "5,895 m" in line
    assert "Not established" not in line


def test_a_burn_is_the_injury_not_the_poet(corpus: Path) -> None:
    question = "What is a burn, what kind of burn is most common, and where do burns mainly happen?"
    line = answer_line(corpus, question)
    assert "Robert Burns" not in line and "Sprat" not in line
    assert "injury" in line and "thermal" in line and "home or the workplace" in line


def test_record_numbers_are_no_figures() -> None:
    assert figures("Source: GeoNames country record 2077456.") == ()
    assert figures("See https://www.geonames.org/2077456 for it.") == ()
    assert [f.text for f in figures("Its population is 367,752 (record 2172517).")] == ["367,752"]


def test_no_lead_names_a_record_id_as_a_disputed_value(corpus: Path) -> None:
    policy = ScriptedPolicy()
    question = (
        "Which city is the capital of Australia, how many people live there according to "
        "GeoNames, and which is Australia's largest city? Cite your sources."
    )
    run_agent(question, policy=policy, toolbox=offline_toolbox(corpus))
    assert policy._notebook is not None
    state = policy._notebook.to_state()
    facts = (*state.trusted, *state.untrusted, *state.uncertain)
    reasons = " ".join(f.reason for f in facts)
    assert "2077456" not in reasons and "2172517" not in reasons
    # A page's provenance line is where it came from, not a fact or a lead.
    assert not [f.claim for f in facts if f.claim.startswith("Source:")]


def demo_task(demo_id: str) -> dict[str, object]:
    for line in DEMO.read_text().splitlines():
        record = json.loads(line)
        if record["provenance"].get("demo_id") == demo_id:
            return dict(record)
    raise LookupError(demo_id)


def test_every_offline_demo_task_is_one_with_no_judge_leaves() -> None:
    """The eight the corpus answers have only deterministic checks; the other two need the web."""
    offline = {
        json.loads(line)["provenance"]["demo_id"]
        for line in DEMO.read_text().splitlines()
        if "question" in json.loads(line)
    }
    assert offline == {"canberra", "kilimanjaro", "paris", "burn-criteria", *NEW_DEMO_TASKS}
    for demo_id in offline:
        tree = import_tree(demo_task(demo_id)["rubric"]).tree
        assert all(leaf.check and leaf.check.kind != "judge" for leaf in tree.leaves()), demo_id


@pytest.mark.parametrize("demo_id", ["canberra", "kilimanjaro", "paris", "burn-criteria"])
def test_the_demo_answer_earns_the_real_reward(
    corpus: Path, documents: list[Document], demo_id: str
) -> None:
    task = demo_task(demo_id)
    store = InMemoryDocumentStore([Page(d.url, d.title, d.text) for d in documents])
    answer = answer_of(corpus, str(task["question"]))
    assert "Not established" not in answer
    reward = answer_reward(import_tree(task["rubric"]).tree, answer, store).value
    assert reward is not None and reward >= 0.9


def test_the_scripted_researcher_earns_half_the_reward_on_two_of_the_new_demo_tasks(
    corpus: Path, documents: list[Document]
) -> None:
    """An SFT set is collected from the scripted researcher by rejection sampling on the demo
    tasks' train split, so at least two of them must be within its reach. It answers Ottawa and
    Nairobi (about 0.96 and 0.97 now); it names Osaka as Japan's capital and leaves Cairo's
    river unestablished (the only page placing Cairo on the Nile is Giza's)."""
    store = InMemoryDocumentStore([Page(d.url, d.title, d.text) for d in documents])
    rewards = {}
    for demo_id in NEW_DEMO_TASKS:
        task = demo_task(demo_id)
        answer = answer_of(corpus, str(task["question"]))
        rewards[demo_id] = answer_reward(import_tree(task["rubric"]).tree, answer, store).value
    assert sum(1 for r in rewards.values() if r is not None and r >= 0.5) >= 2, rewards
