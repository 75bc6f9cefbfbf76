"""The benchmarks' question files, read in the formats their authors publish.

- BrowseComp-Plus: JSONL, one query per line: `query_id`, `query`, `answer`, `evidence_docs`
  and `gold_docs` (lists of `{docid, text, url}` objects, or of docids), optional
  `negative_docs`. The published file is encrypted (quest.bench.crypto): a row with a `canary`,
  or any row when a canary is given, has its `query`, `answer` and each listed document's
  `text` and `url` decrypted; docids are read as given.
- FlashRAG / Search-R1 QA sets: JSONL rows of `id`, `question`, `golden_answers` (the list of
  accepted answers) and an optional `metadata` object; the set is named by the file's folder
  (FlashRAG ships `nq/test.jsonl`), by a word of its name (`nq_test.jsonl`, `test-nq.jsonl`,
  an upload's `20261129-132908-nq_test.jsonl`) or given.
- FRAMES (google/frames-benchmark): a TSV whose header is an unnamed index column, `Prompt`,
  `Answer`, `wikipedia_link_1` … `wikipedia_link_10`, `wikipedia_link_11+`,
  `reasoning_types` and `wiki_links` (a Python list of URLs, written as text).

A file that breaks its format is refused whole with a FormatError naming the file, the line
(the row's first line, for the TSV) and the field: a benchmark with a silently dropped question
is a different benchmark. Files are UTF-8 (a byte-order mark is allowed); a line that is not
(a binary or compressed file) is named too (`text_lines`).
"""

from __future__ import annotations

import ast
import csv
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.bench.crypto import CryptoError, decrypt

BROWSECOMP_PLUS = "browsecomp-plus"
FLASHRAG = "flashrag"
FRAMES = "frames"
BENCHMARKS = (BROWSECOMP_PLUS, FLASHRAG, FRAMES)
FLASHRAG_DATASETS = (
    "nq",
    "triviaqa",
    "popqa",
    "hotpotqa",
    "2wikimultihopqa",
    "musique",
    "bamboogle",
)
# Other names a set goes by in file names.
FLASHRAG_ALIASES = {"2wiki": "2wikimultihopqa"}
FRAMES_LINKS = (*(f"wikipedia_link_{n}" for n in range(1, 11)), "wikipedia_link_11+")
FRAMES_HEADER = ("", "Prompt", "Answer", *FRAMES_LINKS, "reasoning_types", "wiki_links")
DOC_LISTS = ("evidence_docs", "gold_docs", "negative_docs")


class FormatError(ValueError):
    """A benchmark file that breaks its format; the message names the file, line and field."""

    def __init__(
        self,
        path: str | Path,
        line: int | None,
        field: str | None,
        reason: str,
        *,
        unit: str = "line",
    ) -> None:
        where = str(path) + (f" {unit} {line}" if line is not None else "")
        what = f", field {field!r}" if field else ""
        super().__init__(f"{where}{what}: {reason}")
        self.path, self.line, self.field, self.reason = str(path), line, field, reason


@dataclass(frozen=True)
class BenchDoc:
    docid: str
    text: str = ""
    url: str = ""


@dataclass(frozen=True)
class BenchQuestion:
    """One question of a benchmark. `answers`: the accepted answers (the alias list; one for
    BrowseComp-Plus and FRAMES). `evidence`/`gold`: the documents the authors list."""

    id: str
    question: str
    answers: tuple[str, ...]
    evidence: tuple[BenchDoc, ...] = ()
    gold: tuple[BenchDoc, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def evidence_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(doc.docid for doc in self.evidence))


def load_questions(
    benchmark: str, path: str | Path, *, canary: str | None = None, dataset: str | None = None
) -> list[BenchQuestion]:
    if benchmark == BROWSECOMP_PLUS:
        return load_browsecomp_plus(path, canary=canary)
    if benchmark == FLASHRAG:
        return load_flashrag(path, dataset=dataset)[1]
    if benchmark == FRAMES:
        return load_frames(path)
    raise ValueError(f"unknown benchmark {benchmark!r}; choose one of {', '.join(BENCHMARKS)}")


def load_browsecomp_plus(path: str | Path, *, canary: str | None = None) -> list[BenchQuestion]:
    rows = []
    for number, row in _json_lines(path):
        reader = _Row(path, number, row)
        password = canary or reader.optional_string("canary")
        rows.append(
            BenchQuestion(
                id=reader.identifier("query_id"),
                question=reader.text("query", password),
                answers=(reader.text("answer", password),),
                evidence=reader.documents("evidence_docs", password, required=True),
                gold=reader.documents("gold_docs", password, required=True),
                metadata={"negative_docs": len(reader.documents("negative_docs", password))},
            )
        )
    return _unique(path, rows)


def load_flashrag(
    path: str | Path, *, dataset: str | None = None
) -> tuple[str, list[BenchQuestion]]:
    """The dataset's name and its questions."""
    name = dataset or flashrag_dataset(path)
    rows = []
    for number, row in _json_lines(path):
        reader = _Row(path, number, row)
        metadata = row.get("metadata", {})
        if not isinstance(metadata, dict):
            raise reader.error("metadata", "must be a JSON object")
        rows.append(
            BenchQuestion(
                id=reader.identifier("id"),
                question=reader.text("question"),
                answers=reader.strings("golden_answers"),
                metadata={**metadata, "dataset": name},
            )
        )
    return name, _unique(path, rows)


def flashrag_dataset(path: str | Path) -> str:
    """FlashRAG's layout names the set by its folder (`nq/test.jsonl`); a file whose name holds
    the set's name as a whole word (`nq.jsonl`, `hotpotqa_dev.jsonl`, `test-nq.jsonl`, an
    upload's `20261129-132908-nq_test.jsonl`; any case; 2WikiMultihopQA also as `2wiki`) also
    says it. A name that holds none, or two different sets, is the set's name as it is."""
    file = Path(path)
    folder = _dataset_named(_words(file.parent.name), whole=True)
    return folder or _dataset_named(_words(file.stem)) or file.stem


def _words(name: str) -> list[str]:
    return [word for word in re.split(r"[^a-z0-9]+", name.lower()) if word]


def _dataset_named(words: list[str], *, whole: bool = False) -> str | None:
    """The one set that `words` name (all of them, when `whole`), else None."""
    if whole and len(words) != 1:
        return None
    found = {FLASHRAG_ALIASES.get(word, word) for word in words}
    named = [name for name in FLASHRAG_DATASETS if name in found]
    return named[0] if len(named) == 1 else None


def load_frames(path: str | Path) -> list[BenchQuestion]:
    reader = csv.reader((line for _, line in text_lines(path)), delimiter="\t")
    _frames_header(path, next(reader, None))
    rows, start = [], reader.line_num + 1
    for values in reader:
        if any(value.strip() for value in values):
            rows.append(_frames_row(path, start, values))
        start = reader.line_num + 1
    return _unique(path, rows)


def _frames_header(path: str | Path, header: list[str] | None) -> None:
    if header is None:
        raise FormatError(path, 1, None, "the file is empty; expected the FRAMES header")
    names = tuple(name.strip() for name in header)
    for position, expected in enumerate(FRAMES_HEADER):
        found = names[position] if position < len(names) else None
        if found != expected:
            shown = "(nothing)" if found is None else repr(found)
            raise FormatError(
                path, 1, expected or "(index)", f"column {position + 1} of the header is {shown}"
            )


def _frames_row(path: str | Path, line: int, values: list[str]) -> BenchQuestion:
    if len(values) != len(FRAMES_HEADER):
        raise FormatError(
            path, line, None, f"{len(values)} columns, the header has {len(FRAMES_HEADER)}"
        )
    cells = dict(zip(FRAMES_HEADER, values, strict=True))
    for name in ("", "Prompt", "Answer"):
        if not cells[name].strip():
            raise FormatError(path, line, name or "(index)", "is empty")
    links = _frames_links(path, line, cells)
    return BenchQuestion(
        id=cells[""].strip(),
        question=cells["Prompt"].strip(),
        answers=(cells["Answer"].strip(),),
        gold=tuple(BenchDoc(docid=url, url=url) for url in links),
        metadata={"reasoning_types": cells["reasoning_types"].strip()},
    )


def _frames_links(path: str | Path, line: int, cells: dict[str, str]) -> list[str]:
    """`wiki_links`, read as the Python literal it is written as; the numbered link columns
    when it is empty."""
    text = cells["wiki_links"].strip()
    if not text:
        return [cells[name].strip() for name in FRAMES_LINKS if cells[name].strip()]
    try:
        links = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise FormatError(path, line, "wiki_links", "is not a list of URLs") from None
    if not isinstance(links, list) or not all(isinstance(url, str) for url in links):
        raise FormatError(path, line, "wiki_links", "is not a list of URLs")
    return list(dict.fromkeys(url.strip() for url in links if url.strip()))


def _json_lines(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in text_lines(path):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except (ValueError, RecursionError) as error:
            raise FormatError(path, number, None, f"not valid JSON ({error})") from None
        if not isinstance(data, dict):
            raise FormatError(path, number, None, "expected a JSON object")
        yield number, data


def text_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """A UTF-8 text file's lines (a byte-order mark dropped, line ends kept), numbered from 1.
    A file that cannot be opened, or a line that is not UTF-8, is a FormatError naming it."""
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 (closed below; its error is named here)
    except OSError as error:
        raise FormatError(path, None, None, error.strerror or str(error)) from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            data = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
            try:
                yield number, data.decode("utf-8")
            except UnicodeDecodeError as error:
                byte = data[error.start]
                raise FormatError(
                    path,
                    number,
                    None,
                    f"is not UTF-8 text (byte 0x{byte:02x} at position {error.start + 1} of "
                    "the line): is it a binary or compressed file? Save it as UTF-8",
                ) from None


def _unique(path: str | Path, rows: list[BenchQuestion]) -> list[BenchQuestion]:
    if not rows:
        raise FormatError(path, None, None, "holds no questions")
    seen: set[str] = set()
    for row in rows:
        if row.id in seen:
            raise FormatError(path, None, None, f"question id {row.id!r} appears twice")
        seen.add(row.id)
    return rows


class _Row:
    """One JSON row's fields, each checked and named in the error when wrong."""

    def __init__(self, path: str | Path, line: int, data: dict[str, Any]) -> None:
        self.path, self.line, self.data = path, line, data

    def error(self, name: str, reason: str) -> FormatError:
        return FormatError(self.path, self.line, name, reason)

    def value(self, name: str) -> Any:
        if name not in self.data:
            raise self.error(name, "is missing")
        return self.data[name]

    def identifier(self, name: str) -> str:
        value = self.value(name)
        if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
            raise self.error(name, "must be a non-empty string or an integer")
        return str(value).strip()

    def text(self, name: str, password: str | None = None) -> str:
        value = self.value(name)
        if not isinstance(value, str) or not value.strip():
            raise self.error(name, "must be a non-empty string")
        return self.decrypted(name, value, password).strip()

    def optional_string(self, name: str) -> str | None:
        value = self.data.get(name)
        if value is not None and not isinstance(value, str):
            raise self.error(name, "must be a string")
        return value or None

    def strings(self, name: str) -> tuple[str, ...]:
        value = self.value(name)
        if not isinstance(value, list) or not value:
            raise self.error(name, "must be a non-empty list of strings")
        if not all(isinstance(item, str | int | float) for item in value):
            raise self.error(name, "must be a non-empty list of strings")
        return tuple(str(item) for item in value)

    def documents(
        self, name: str, password: str | None, *, required: bool = False
    ) -> tuple[BenchDoc, ...]:
        if name not in self.data and not required:
            return ()
        value = self.value(name)
        if not isinstance(value, list):
            raise self.error(name, "must be a list of documents or docids")
        return tuple(self.document(name, item, password) for item in value)

    def document(self, name: str, item: Any, password: str | None) -> BenchDoc:
        if isinstance(item, str | int) and not isinstance(item, bool):
            return BenchDoc(docid=str(item))
        if not isinstance(item, dict) or "docid" not in item:
            raise self.error(name, "each document must be an object with a docid, or a docid")
        fields = {key: item.get(key, "") for key in ("text", "url")}
        if not all(isinstance(v, str) for v in fields.values()):
            raise self.error(name, "a document's text and url must be strings")
        docid = item["docid"]
        if isinstance(docid, bool) or not isinstance(docid, str | int):
            raise self.error(name, "a document's docid must be a string or an integer")
        return BenchDoc(
            docid=str(docid),
            text=self.decrypted(name, fields["text"], password),
            url=self.decrypted(name, fields["url"], password),
        )

    def decrypted(self, name: str, value: str, password: str | None) -> str:
        if password is None or not value:
            return value
        try:
            return decrypt(value, password)
        except CryptoError as error:
            raise self.error(name, f"cannot be decrypted with the canary: {error}") from None
