from __future__ import annotations

import json
from pathlib import Path

import pytest

from quest.corpus import CorpusError, JsonlImport


def good(n: int, **extra: str) -> str:
    return json.dumps(
        {"url": f"https://example.org/{n}", "title": f"Page {n}", "text": f"Text {n}.", **extra}
    )


def write_lines(path: Path, lines: list[str | bytes]) -> Path:
    encoded = [line if isinstance(line, bytes) else line.encode() for line in lines]
    path.write_bytes(b"".join(line + b"\n" for line in encoded))
    return path


def test_it_keeps_good_lines_and_names_each_bad_line_with_its_reason(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "pages.jsonl",
        [
            good(1),
            "{not json",
            json.dumps({"url": "https://example.org/x", "title": "No text"}),
            json.dumps({"url": "file:///etc/passwd", "title": "t", "text": "x"}),
            json.dumps({"url": "javascript:alert(1)", "title": "t", "text": "x"}),
            "",
            '["a list"]',
            json.dumps({"url": "https://example.org/y", "title": 7, "text": "x"}),
            good(1),
            b'{"url": "https://example.org/\xff", "title": "t", "text": "x"}',
            good(2, source="handbook", licence="CC0", topic="Tools"),
        ],
    )
    importer = JsonlImport(path)
    documents = list(importer)
    assert [d.url for d in documents] == ["https://example.org/1", "https://example.org/2"]
    assert [str(e) for e in importer.errors] == [
        "line 2: not valid JSON",
        'line 3: missing field "text"',
        "line 4: url must be http(s) with a host, got 'file:///etc/passwd'",
        "line 5: url must be http(s) with a host, got 'javascript:alert(1)'",
        "line 7: expected a JSON object, got list",
        'line 8: field "title" must be a non-empty string',
        "line 9: duplicate url 'https://example.org/1' (first on line 1)",
        "line 10: not valid UTF-8",
    ]
    assert importer.error_count == 8


def test_optional_fields_are_kept_and_missing_ones_get_defaults(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "p.jsonl", [good(1), good(2, source="handbook", licence="CC0")])
    first, second = JsonlImport(path, fetched_at="2026-01-01T00:00:00+00:00")
    assert (first.source, first.licence, first.topic) == ("user", "unspecified", "")
    assert first.fetched_at == "2026-01-01T00:00:00+00:00"
    assert (second.source, second.licence) == ("handbook", "CC0")


def test_a_huge_line_is_skipped_without_losing_the_lines_after_it(tmp_path: Path) -> None:
    huge = good(9, text="word " * 5_000)
    path = write_lines(tmp_path / "p.jsonl", [good(1), huge, good(2)])
    importer = JsonlImport(path, max_line_bytes=1_000)
    assert [d.url for d in importer] == ["https://example.org/1", "https://example.org/2"]
    assert [str(e) for e in importer.errors] == ["line 2: line is longer than 1,000 bytes"]


def test_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="No such file"):
        list(JsonlImport(tmp_path / "absent.jsonl"))
