"""A page sentence whose subject is the page's own (quest.rubric.support): a pronoun after an
opening phrase with no subject of its own ("Located on the river Seine …, it is …") and the
page's short description stand for the page's subject; a clause with its own subject does not.
An answer's "Answer:" label is not part of its first claim (quest.rubric.citations)."""

from __future__ import annotations

import pytest

from quest.rubric import Document
from quest.rubric.citations import parse_citations
from quest.rubric.support import page_support

PARIS = Document(
    "https://en.wikipedia.org/wiki/Paris",
    "Paris",
    "Short description: Capital of France. Paris is the capital and largest city of France. "
    "Located on the river Seine in the centre of the Ile-de-France region, it is the largest "
    "metropolitan area of the European Union. When the river floods, it covers the quays. "
    "In 1889, it hosted the World's Fair.",
)
BURN = Document(
    "https://en.wikipedia.org/wiki/Burn",
    "Burn",
    "Short description: Injury to flesh or skin, often caused by excessive heat. "
    "Most burns are thermal burns.",
)


@pytest.mark.parametrize(
    ("claim", "page", "label"),
    [
        ("Paris is located on the river Seine.", PARIS, "supported"),
        (
            "Located on the river Seine in the centre of the Ile-de-France region, Paris is the "
            "largest metropolitan area of the European Union.",
            PARIS,
            "supported",
        ),
        ("In 1889, Paris hosted the World's Fair.", PARIS, "supported"),
        ("Burn: injury to flesh or skin, often caused by excessive heat.", BURN, "supported"),
        ("Paris: capital of France.", PARIS, "supported"),
        # The page's subject, not any name: these stay unsupported.
        ("Lyon is located on the river Seine.", PARIS, "unsupported"),
        ("Paris is located on the river Loire.", PARIS, "unsupported"),
        ("Paris is not located on the river Seine.", PARIS, "unsupported"),
        ("Burn: capital of France.", PARIS, "unsupported"),
        # "it" after a clause with its own subject is that clause's business, not the page's.
        ("Paris covers the quays.", PARIS, "unsupported"),
    ],
)
def test_the_page_subject_stands_where_the_page_means_it(
    claim: str, page: Document, label: str
) -> None:
    assert page_support(claim, page).label == label


def test_the_answer_label_is_not_part_of_the_cited_fact() -> None:
    cited = parse_citations(
        "**Answer:** Paris is the capital of France [1]. Final answer: Seine [1].\n\n"
        "[1]: https://en.wikipedia.org/wiki/Paris"
    )
    assert [c.fact for c in cited.citations] == ["Paris is the capital of France.", "Seine."]
    # The reader still sees the label: it is part of the claim (a rival "Final answer: Y").
    assert cited.claims[1].text == "Final answer: Seine."
    # Only a leading label goes: a claim that is about answers keeps its words.
    cited = parse_citations("The answer: a riddle [1].\n\n[1]: https://example.org/a")
    assert [c.text for c in cited.claims] == ["The answer: a riddle."]
