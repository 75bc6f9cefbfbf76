from __future__ import annotations

from dataclasses import replace

import pytest
from rubric_helpers import FIXTURES, leaf, node, tree
from rubric_judges import GullibleJudgeStandIn, KeywordJudgeStandIn

from quest.rubric import Check, Document, InMemoryDocumentStore, load_tree_file, probe_tree
from quest.rubric.adversaries import gibberish
from quest.rubric.distractors import NoDistractors, TitleDistractors, page_kind, title_name
from quest.rubric.probes import ADVERSARIAL_MAX, UNRELATED_MAX

WIKI = "https://en.wikipedia.org/wiki/Eiffel_Tower"
ALGEBRA = "https://en.wikipedia.org/wiki/Algebra"
PAGES = [
    Document(
        WIKI,
        "Eiffel Tower",
        "The Eiffel Tower is a wrought-iron tower in Paris. It is 330 metres tall. "
        "It opened on 31 March 1889.",
    ),
    Document("https://en.wikipedia.org/wiki/Big_Ben", "Big Ben", "Big Ben is a tower in London."),
    Document(
        "https://en.wikipedia.org/wiki/Space_Needle",
        "Space Needle",
        "The Space Needle is an observation tower in Seattle.",
    ),
    Document(
        "https://en.wikipedia.org/wiki/CN_Tower",
        "CN Tower",
        "The CN Tower is a concrete tower in Toronto.",
    ),
    Document("https://en.wikipedia.org/wiki/Lyon", "Lyon", "Lyon is a city in France."),
    Document(
        "https://en.wikipedia.org/wiki/Marseille", "Marseille", "Marseille is a city in France."
    ),
    Document("https://en.wikipedia.org/wiki/Nice", "Nice", "Nice is a city in France."),
    Document("https://en.wikipedia.org/wiki/Paris", "Paris", "Paris is a city in France."),
    Document(ALGEBRA, "Algebra", "Algebra is a branch of mathematics."),
]
STORE = InMemoryDocumentStore(PAGES)
DISTRACTORS = TitleDistractors((d.url, d.title, d.text) for d in PAGES)
SOLUTION = (
    "The Eiffel Tower in Paris is 330 metres tall [1]. It opened on 31 March 1889 [1].\n\n"
    f"References\n[1] {WIKI}"
)
TASK = "Where is the Eiffel Tower, how tall is it and when did it open?"
SOUND = tree(
    node(
        "root",
        leaf("city", critical=True, check=Check("mentions", {"value": "Paris"})),
        leaf("height", check=Check("number", {"value": 330})),
        leaf("opened", check=Check("date", {"value": "1889-03-31"})),
        leaf("sourced", check=Check("source_supports", {"value": 330})),
    )
)
SOUND = replace(SOUND, task_description=TASK)


def probe(t=SOUND, solution=SOLUTION, **options):  # type: ignore[no-untyped-def]
    options.setdefault("distractors", DISTRACTORS)
    return probe_tree(t, solution, STORE, **options)


def test_a_sound_tree_rewards_its_solution_and_no_adversarial_answer() -> None:
    report = probe()
    assert report.verdict == "sound", report.reasons
    assert report.probe("solution").reward == 1.0
    assert report.untested == ()
    assert report.hacks == ()
    adversarial = [p for p in report.probes if p.role == "adversarial"]
    assert {p.name for p in adversarial} == {
        "empty",
        "negated",
        "hedged",
        "wrong_entity",
        "url_only",
        "echo",
        "unrelated_citation",
        "cited_gibberish",
        "master_key_colon",
        "master_key_thought",
        "master_key_steps",
    }
    assert all(p.reward <= p.limit for p in adversarial)
    assert report.probe("unrelated_citation").limit == UNRELATED_MAX
    assert report.probe("negated").limit == ADVERSARIAL_MAX


@pytest.mark.parametrize(
    ("name", "must_contain"),
    [
        ("negated", "It is not true that the Eiffel Tower in Paris is 330 metres tall"),
        ("negated", "The answer is not Paris."),
        ("hedged", " or "),
        ("wrong_entity", "Other candidates include Paris"),
        ("url_only", WIKI),
        ("echo", TASK),
        ("unrelated_citation", "https://en.wikipedia.org/wiki/"),
    ],
)
def test_each_adversarial_answer_is_built_from_the_solution(name: str, must_contain: str) -> None:
    answer = probe().probe(name).answer
    assert must_contain in answer


def test_hedged_and_wrong_answers_use_distractors_of_the_same_kind() -> None:
    report = probe()
    hedged = report.probe("hedged").answer
    assert any(city in hedged for city in ("Lyon", "Marseille", "Nice"))
    assert "Algebra" not in hedged
    assert "330 or" in hedged or ", 330," in hedged
    wrong = report.probe("wrong_entity").answer
    assert "Paris is" not in wrong.split("Other candidates")[0]


def test_the_unrelated_citation_keeps_the_text_and_loses_the_citation_credit() -> None:
    unrelated = probe().probe("unrelated_citation")
    assert WIKI not in unrelated.answer
    assert "The Eiffel Tower in Paris is 330 metres tall [1]." in unrelated.answer
    # height and date still pass, the source leaf fails, and no citation is supported
    assert unrelated.reward == pytest.approx(0.75 * 2 / 3)


def test_a_tree_that_only_asks_for_citations_rewards_cited_gibberish_and_is_unsound() -> None:
    loose = tree(
        node(
            "root",
            leaf("cites", check=Check("cites_url", {})),
            leaf("any", check=Check("regex", {"pattern": r"\w", "raw": True})),
        )
    )
    report = probe(loose)
    assert report.verdict == "unsound"
    assert any(reason.startswith("cited_gibberish earns") for reason in report.reasons)
    assert "cited_gibberish" in {p.name for p in report.hacks}


def test_a_tree_that_a_wrong_value_does_not_hurt_is_unsound() -> None:
    lenient = Check("number", {"value": 330, "tolerance_rel": 10})
    blind = tree(
        node(
            "root",
            leaf("height", check=lenient),
            leaf("tower", check=Check("regex", {"pattern": "Tower"})),
        )
    )
    report = probe(blind)
    assert report.verdict == "unsound"
    assert any("does not lower the rubric score" in reason for reason in report.reasons)


def test_a_solution_that_does_not_earn_its_tree_makes_it_unsound() -> None:
    report = probe(solution=f"The Eiffel Tower is in Paris [1].\n\n[1] {WIKI}")
    assert report.verdict == "unsound"
    assert report.reasons[0].startswith("the solution earns")


def test_a_solution_citing_a_page_the_corpus_lacks_makes_the_tree_unsound() -> None:
    missing = SOLUTION.replace(WIKI, "https://en.wikipedia.org/wiki/Not_In_The_Corpus")
    report = probe(solution=missing)
    assert report.verdict == "unsound"
    assert report.probe("solution").reward < 0.95


def test_without_distractors_or_pages_the_probes_invent_names_and_say_what_is_untested() -> None:
    report = probe_tree(SOUND, SOLUTION, None, distractors=NoDistractors())
    assert any(name in report.probe("hedged").answer for name in ("Zorblax", "Dovrenka"))
    assert report.untested == ("unrelated_citation: no unrelated page to cite",)


def test_judge_only_trees_without_a_judge_are_reported_as_undecided() -> None:
    quest_tree = load_tree_file(FIXTURES / "yu_lineage.json").tree
    report = probe_tree(quest_tree, "Xifeng Yan advised Yu Su.")
    assert report.verdict == "undecided"
    assert not report.sound
    assert report.reasons[0].startswith("undecided leaves in")
    assert "violated: no checked value is stated in the solution" in report.untested


def test_master_keys_earn_nothing_even_from_a_judge_that_says_yes_to_everything() -> None:
    judged = tree(
        node(
            "root",
            leaf("advisor", critical=True, check=Check.judge("The answer names the advisor")),
            leaf("source", check=Check.judge("The advice is supported by cited sources")),
        )
    )
    judge = GullibleJudgeStandIn()
    report = probe(judged, judge=judge)
    for name in ("master_key_colon", "master_key_thought", "master_key_steps", "url_only", "echo"):
        assert report.probe(name).reward == 0.0, name
    assert report.judge == "gullible-judge-stand-in"


def test_a_judged_tree_is_sound_with_a_judge_that_reads_the_cited_pages() -> None:
    judged = tree(
        node(
            "root",
            leaf("city", critical=True, check=Check("mentions", {"value": "Paris"})),
            leaf("height", check=Check.judge("330 metres tall", (WIKI,))),
        )
    )
    page = Document(WIKI, "Eiffel Tower", "The Eiffel Tower in Paris is 330 metres tall.")
    store = InMemoryDocumentStore([page, *PAGES[1:]])
    report = probe_tree(
        replace(judged, task_description=TASK),
        f"The Eiffel Tower in Paris is 330 metres tall [1].\n\n[1] {WIKI}",
        store,
        KeywordJudgeStandIn(),
        distractors=DISTRACTORS,
    )
    assert report.verdict == "sound", report.reasons
    assert report.judge == "keyword-judge-stand-in"


def test_gibberish_keeps_every_citation_and_no_word() -> None:
    scrambled = gibberish(SOLUTION)
    assert WIKI in scrambled and "[1]" in scrambled
    prose = scrambled.split("https://")[0]
    assert "Eiffel" not in prose and "330" not in prose
    assert gibberish(SOLUTION) == scrambled


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Canberra, Australia (GeoNames)", "Canberra"),
        ("Andorra (countryinfo)", "Andorra"),
        ("Mount Kilimanjaro", "Mount Kilimanjaro"),
    ],
)
def test_distractor_names_come_from_titles(title: str, name: str) -> None:
    assert title_name(title) == name


def test_a_pages_kind_is_the_noun_its_first_sentence_defines_it_by() -> None:
    assert page_kind("Mount Kilimanjaro is a large dormant volcano in Tanzania.") == "volcano"
    assert page_kind("Canberra is a city in Australia, as recorded by GeoNames.") == "city"
    assert page_kind("Australia is a country or territory in Oceania.") == "country"
