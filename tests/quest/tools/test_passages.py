from __future__ import annotations

from tools_doubles import ADA

from quest.tools import WebPage, extract
from quest.tools.passages import passages, terms


def test_it_picks_the_passage_that_answers_the_goal() -> None:
    found = extract(ADA, "Of what cancer did Lovelace die, and when?")

    assert "27 November 1852" in found.evidence
    assert "first algorithm" not in found.evidence
    assert "She died of uterine cancer on 27 November 1852" in found.summary


def test_the_same_page_and_goal_always_give_the_same_extract() -> None:
    goal = "Analytical Engine algorithm notes"

    assert extract(ADA, goal) == extract(ADA, goal)


def test_evidence_keeps_page_order_and_the_rational_names_the_matched_terms() -> None:
    found = extract(ADA, "engine notes algorithm Babbage")

    assert found.evidence.index("Babbage") < found.evidence.index("first algorithm")
    assert found.rational.startswith("2 of the page's 4 passages contain the goal's terms:")
    assert "algorithm" in found.rational
    assert "babbage" in found.rational


def test_a_goal_sharing_no_word_with_the_page_gets_the_opening_and_says_so() -> None:
    found = extract(ADA, "volcanic eruptions in Iceland")

    assert found.evidence.startswith("Augusta Ada King")
    assert found.rational.startswith("No passage of the page shares a word with the goal")


def test_evidence_stays_within_its_budget_on_a_long_page() -> None:
    page = WebPage("https://example.org/long", "Long", "\n\n".join(["lovelace fact."] * 2_000))

    found = extract(page, "lovelace")

    assert 0 < len(found.evidence) <= 2_400 + 2 * len("\n\n") * 200


def test_a_paragraph_longer_than_a_passage_is_cut_at_sentence_ends() -> None:
    text = " ".join(f"Sentence number {n} is here." for n in range(100))

    cut = passages(text, max_chars=100)

    assert all(len(passage) <= 100 for passage in cut)
    assert cut[0].startswith("Sentence number 0 is here. Sentence number 1")
    assert all(passage.endswith("here.") for passage in cut)


def test_goal_terms_drop_filler_words_and_fold_case() -> None:
    assert terms("What is the POPULATION of Paris in 2020?") == ["population", "paris", "2020"]
