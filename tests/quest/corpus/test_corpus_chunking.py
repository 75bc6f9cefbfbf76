from __future__ import annotations

import itertools

from quest.corpus import Document, chunk_document, chunk_text, load_wikipedia

STAMP = "2026-01-01T00:00:00+00:00"


def doc(text: str) -> Document:
    return Document(
        url="https://example.org/a",
        title="A",
        text=text,
        source="user",
        licence="x",
        fetched_at=STAMP,
    )


def test_long_texts_become_balanced_passages_of_whole_sentences() -> None:
    sentence = "This sentence has exactly eight words in it."
    text = " ".join([sentence] * 40)  # 320 words
    chunks = chunk_text(text, max_words=200)
    assert [len(c.split()) for c in chunks] == [160, 160]
    assert all(c.startswith("This") and c.endswith("it.") for c in chunks)


def test_a_sentence_longer_than_the_limit_is_cut_at_word_boundaries() -> None:
    chunks = chunk_text(" ".join(f"w{i}" for i in range(450)), max_words=200)
    assert [len(c.split()) for c in chunks] == [200, 200, 50]


def test_chunking_real_articles_is_deterministic_and_bounded() -> None:
    docs = list(itertools.islice(load_wikipedia(fetched_at=STAMP), 300))
    first = [chunk_document(d) for d in docs]
    assert first == [chunk_document(d) for d in docs]
    passages = [p for ps in first for p in ps]
    assert all(len(p.text.split()) <= 200 for p in passages)
    assert all([p.index for p in ps] == list(range(len(ps))) for ps in first)
    long = next(ps for ps in first if len(ps) > 1)
    assert " ".join(p.text for p in long) == " ".join(docs[first.index(long)].text.split())


def test_a_document_without_text_still_gets_one_passage_for_its_title() -> None:
    (passage,) = chunk_document(doc("   "))
    assert (passage.doc_url, passage.index, passage.text, passage.title) == (
        "https://example.org/a",
        0,
        "",
        "A",
    )
