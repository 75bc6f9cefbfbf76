"""The benchmark files are read in their published formats, and a file that breaks its format
is refused with an error naming the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quest.bench.corpus import corpus_document, corpus_rows
from quest.bench.crypto import decrypt, encrypt, key_stream
from quest.bench.formats import (
    FormatError,
    load_browsecomp_plus,
    load_flashrag,
    load_frames,
    load_questions,
)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_it_reads_browsecomp_plus_queries_with_their_evidence_and_gold_documents(
    data: Path,
) -> None:
    questions = load_browsecomp_plus(data / "browsecomp_plus_queries.jsonl")
    assert [q.id for q in questions] == ["q1", "q2", "q3", "q4"]
    first = questions[0]
    assert first.answers == ("Marie Curie",)
    assert first.evidence_ids == ("101", "102")
    assert [doc.docid for doc in first.gold] == ["101"]
    assert first.gold[0].url == "https://example.org/curie"
    assert questions[3].metadata == {"negative_docs": 1}


def test_it_accepts_lists_of_docids_in_place_of_document_objects(tmp_path: Path) -> None:
    row = {"query_id": 7, "query": "Q?", "answer": "A", "evidence_docs": ["1", 2], "gold_docs": []}
    path = write_lines(tmp_path / "q.jsonl", [json.dumps(row)])
    (question,) = load_browsecomp_plus(path)
    assert (question.id, question.evidence_ids, question.gold) == ("7", ("1", "2"), ())


def test_browsecomp_encryption_is_sha256_of_the_password_repeated_and_xored() -> None:
    # The key stream is the 32-byte digest, repeated and cut to the text's length.
    assert len(key_stream("canary", 70)) == 70
    assert key_stream("canary", 70)[32:64] == key_stream("canary", 32)
    secret = encrypt("Which element? Polonium — named after Poland.", "BENCHMARK DATA canary")
    assert secret != "Which element?"
    assert decrypt(secret, "BENCHMARK DATA canary") == (
        "Which element? Polonium — named after Poland."
    )


def test_it_decrypts_an_encrypted_file_with_each_rows_canary_or_a_given_one(
    data: Path, tmp_path: Path
) -> None:
    plain = [json.loads(line) for line in (data / "browsecomp_plus_queries.jsonl").open()]
    rows, bare = [], []
    for row in plain:
        canary = f"canary-{row['query_id']}"

        def lock(docs: list[dict[str, str]], canary: str = canary) -> list[dict[str, str]]:
            return [
                {**d, "text": encrypt(d["text"], canary), "url": encrypt(d["url"], canary)}
                for d in docs
            ]

        locked = {
            **row,
            "query": encrypt(row["query"], canary),
            "answer": encrypt(row["answer"], canary),
            **{name: lock(row[name]) for name in ("evidence_docs", "gold_docs", "negative_docs")},
        }
        rows.append(json.dumps({**locked, "canary": canary}))
        ids = {name: [d["docid"] for d in row[name]] for name in ("evidence_docs", "gold_docs")}
        one = {"query": encrypt(row["query"], "one"), "answer": encrypt(row["answer"], "one")}
        bare.append(json.dumps({**row, **ids, **one, "negative_docs": []}))
    decrypted = load_browsecomp_plus(write_lines(tmp_path / "enc.jsonl", rows))
    expected = load_browsecomp_plus(data / "browsecomp_plus_queries.jsonl")
    assert [(q.question, q.answers, q.evidence) for q in decrypted] == [
        (q.question, q.answers, q.evidence) for q in expected
    ]
    given = load_browsecomp_plus(write_lines(tmp_path / "bare.jsonl", bare), canary="one")
    assert [q.answers for q in given] == [q.answers for q in expected]


def test_a_wrong_canary_is_refused_naming_the_line_and_field(tmp_path: Path) -> None:
    row = {
        "query_id": "1",
        "query": encrypt("Q?", "right"),
        "answer": encrypt("A", "right"),
        "evidence_docs": [],
        "gold_docs": [],
        "canary": "right",
    }
    wrong = {**row, "query": encrypt("Qué pasó? " * 3, "right")}
    path = write_lines(tmp_path / "q.jsonl", [json.dumps(row), json.dumps(row | {"query_id": "2"})])
    assert len(load_browsecomp_plus(path)) == 2
    path = write_lines(tmp_path / "w.jsonl", [json.dumps(wrong | {"canary": "wrong"})])
    with pytest.raises(FormatError, match=r"w\.jsonl line 1, field 'query': cannot be decrypted"):
        load_browsecomp_plus(path)


def test_it_reads_a_flashrag_set_and_names_it_by_its_folder(data: Path) -> None:
    name, questions = load_flashrag(data / "nq" / "test.jsonl")
    assert name == "nq"
    assert questions[0].answers == ("William Shakespeare", "Shakespeare")
    assert questions[2].metadata == {"type": "yes-no", "dataset": "nq"}
    assert load_flashrag(data / "nq" / "test.jsonl", dataset="popqa")[0] == "popqa"


def test_it_reads_the_frames_tsv_with_its_unnamed_index_and_wiki_links(data: Path) -> None:
    questions = load_frames(data / "frames.tsv")
    assert [q.id for q in questions] == ["0", "1", "2"]
    assert questions[0].answers == ("1898",)
    assert [doc.url for doc in questions[2].gold] == [
        "https://en.wikipedia.org/wiki/Canberra",
        "https://en.wikipedia.org/wiki/Sydney",
        "https://en.wikipedia.org/wiki/Melbourne",
    ]
    assert questions[1].metadata["reasoning_types"] == "Numerical reasoning | Temporal reasoning"


GOOD = {"id": "a", "question": "who?", "golden_answers": ["x"]}


@pytest.mark.parametrize(
    ("third_line", "message"),
    [
        ('{"id": "c", "question": ', r"test\.jsonl line 3: not valid JSON"),
        ('{"id": "c", "golden_answers": ["x"]}', r"line 3, field 'question': is missing"),
        (
            '{"id": "c", "question": "q", "golden_answers": "x"}',
            r"line 3, field 'golden_answers': must be a non-empty list of strings",
        ),
        (
            '{"id": "c", "question": 5, "golden_answers": ["x"]}',
            r"line 3, field 'question': must be a non-empty string",
        ),
        (
            '{"id": "c", "question": "q", "golden_answers": ["x"], "metadata": []}',
            r"line 3, field 'metadata': must be a JSON object",
        ),
        ('["not", "an", "object"]', r"line 3: expected a JSON object"),
        ('{"id": "a", "question": "q", "golden_answers": ["x"]}', r"id 'a' appears twice"),
    ],
)
def test_a_malformed_flashrag_file_is_refused_naming_line_and_field(
    tmp_path: Path, third_line: str, message: str
) -> None:
    second = {**GOOD, "id": "b"}
    path = write_lines(tmp_path / "test.jsonl", [json.dumps(GOOD), json.dumps(second), third_line])
    with pytest.raises(FormatError, match=message):
        load_questions("flashrag", path)


def test_a_browsecomp_plus_row_with_a_bad_document_list_names_the_field(tmp_path: Path) -> None:
    row = {
        "query_id": "1",
        "query": "Q",
        "answer": "A",
        "evidence_docs": [{"text": "t"}],
        "gold_docs": [],
    }
    path = write_lines(tmp_path / "q.jsonl", [json.dumps(row)])
    with pytest.raises(FormatError, match=r"line 1, field 'evidence_docs': .*docid"):
        load_browsecomp_plus(path)
    del row["evidence_docs"]
    path = write_lines(tmp_path / "q.jsonl", [json.dumps(row)])
    with pytest.raises(FormatError, match=r"line 1, field 'evidence_docs': is missing"):
        load_browsecomp_plus(path)


def test_a_frames_file_with_a_wrong_header_or_row_is_refused(data: Path, tmp_path: Path) -> None:
    lines = (data / "frames.tsv").read_text(encoding="utf-8").splitlines()
    renamed = write_lines(
        tmp_path / "h.tsv", [lines[0].replace("\tAnswer\t", "\tanswer\t"), *lines[1:]]
    )
    with pytest.raises(FormatError, match=r"h\.tsv line 1, field 'Answer': column 3 .*'answer'"):
        load_frames(renamed)
    cells = lines[2].split("\t")
    cells[-1] = "['https://en.wikipedia.org/wiki/Apollo_11'"
    broken = write_lines(tmp_path / "r.tsv", [lines[0], lines[1], "\t".join(cells)])
    with pytest.raises(FormatError, match=r"r\.tsv line 3, field 'wiki_links': is not a list"):
        load_frames(broken)
    short = write_lines(tmp_path / "s.tsv", [lines[0], lines[1], "\t".join(cells[:5])])
    with pytest.raises(FormatError, match=r"s\.tsv line 3: 5 columns, the header has 16"):
        load_frames(short)
    cells = lines[1].split("\t")
    cells[2] = " "
    empty = write_lines(tmp_path / "e.tsv", [lines[0], "\t".join(cells)])
    with pytest.raises(FormatError, match=r"e\.tsv line 2, field 'Answer': is empty"):
        load_frames(empty)


def test_corpus_rows_are_read_in_either_published_shape_and_bad_ones_named(
    data: Path, tmp_path: Path
) -> None:
    browse = [
        corpus_document(w, r, "t") for w, r in corpus_rows(data / "browsecomp_plus_corpus.jsonl")
    ]
    assert (browse[0].url, browse[0].title) == ("https://bench.invalid/doc/101", "Marie Curie")
    wiki = [corpus_document(w, r, "t") for w, r in corpus_rows(data / "flashrag_wiki.jsonl")]
    assert (wiki[1].title, wiki[1].text) == (
        "Pacific Ocean",
        "The Pacific Ocean is the largest ocean and lies west of the Americas.",
    )
    bad = write_lines(
        tmp_path / "c.jsonl",
        [json.dumps({"docid": "1", "text": "t"}), json.dumps({"docid": "2", "text": 3})],
    )
    with pytest.raises(FormatError, match=r"c\.jsonl line 2, field 'text': must be a string"):
        [corpus_document(w, r, "t") for w, r in corpus_rows(bad)]
    odd = write_lines(tmp_path / "o.jsonl", [json.dumps({"title": "t"})])
    with pytest.raises(FormatError, match=r"o\.jsonl line 1, field 'docid': is missing"):
        [corpus_document(w, r, "t") for w, r in corpus_rows(odd)]


def test_a_corpus_of_parquet_shards_names_the_row_of_a_bad_document(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    shards = tmp_path / "shards"
    shards.mkdir()
    pq.write_table(
        pa.table({"docid": ["1", "2"], "text": ["a", "b"], "url": ["u", "v"]}),
        shards / "part-0.parquet",
    )
    pq.write_table(
        pa.table({"docid": ["3", ""], "text": ["c", "d"], "url": ["w", "x"]}),
        shards / "part-1.parquet",
    )
    rows = corpus_rows(shards)
    assert [corpus_document(w, r, "t").text for w, r in [next(rows), next(rows), next(rows)]] == [
        "a",
        "b",
        "c",
    ]
    with pytest.raises(FormatError, match=r"part-1\.parquet row 2, field 'docid'"):
        corpus_document(*next(rows), "t")
