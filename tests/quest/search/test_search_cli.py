from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from quest.cli import corpus as corpus_cli
from quest.cli import search as search_cli


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The two subcommands as `python -m quest` will wire them, run in-process."""
    parser = argparse.ArgumentParser(prog="python -m quest")
    subparsers = parser.add_subparsers(dest="command")
    corpus_cli.register(subparsers)
    search_cli.register(subparsers)
    parsed = parser.parse_args(args)
    code = parsed.func(parsed)
    out, err = capsys.readouterr()
    return code, out, err


def pages(path: Path, *extra: str) -> str:
    lines = [
        {"url": "https://example.org/tea", "title": "Tea", "text": "Tea is a brewed drink."},
        {"url": "https://example.org/rain", "title": "Rain", "text": "Rain falls from clouds."},
    ]
    path.write_text("\n".join([*(json.dumps(line) for line in lines), *extra]) + "\n")
    return str(path)


def test_a_user_loads_a_jsonl_corpus_indexes_it_and_searches_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = str(tmp_path / "corpus")
    code, out, _ = run(
        ["corpus", "load", "--source", "jsonl", pages(tmp_path / "p.jsonl"), "--out", corpus],
        capsys,
    )
    assert code == 0
    assert json.loads(out)["corpus"]["documents"] == 2
    code, out, _ = run(["corpus", "index", corpus, "--only", "bm25"], capsys)
    assert (code, json.loads(out)["modes"]) == (0, ["bm25"])
    code, out, _ = run(["search", "brewed tea", "--index", corpus], capsys)
    assert code == 0
    assert out.startswith("A search for 'brewed tea' found 1 results:\n\n## Web Results\n")
    assert "1. [Tea](https://example.org/tea)\nTea is a brewed drink." in out
    code, out, _ = run(["search", "clouds", "--index", corpus, "--json", "--k", "3"], capsys)
    answer = json.loads(out)
    assert (answer["mode"], answer["modes"]) == ("bm25", ["bm25"])
    assert [r["url"] for r in answer["results"]] == ["https://example.org/rain"]
    assert answer["results"][0]["highlights"] == [[16, 22]]


def test_a_jsonl_file_with_bad_lines_loads_the_good_ones_and_names_the_bad_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = json.dumps({"url": "ftp://x.org/a", "title": "A", "text": "B"})
    path = pages(tmp_path / "p.jsonl", "{oops", bad)
    code, out, err = run(
        ["corpus", "load", "--source", "jsonl", path, "--out", str(tmp_path / "c")], capsys
    )
    assert code == 2
    assert json.loads(out)["skipped"] == 2
    assert err.splitlines() == [
        f"error: {path}: line 3: not valid JSON",
        f"error: {path}: line 4: url must be http(s) with a host, got 'ftp://x.org/a'",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["corpus", "load", "--source", "jsonl", "--out", "{tmp}/c"], "needs the PATH"),
        (["corpus", "load", "--source", "geo", "x.json", "--out", "{tmp}/c"], "takes no PATH"),
        (["corpus", "load", "--source", "jsonl", "{tmp}/absent", "--out", "{tmp}/c"], "No such"),
        (["corpus", "index", "{tmp}"], "not a corpus directory"),
        (["search", "tea", "--index", "{tmp}"], "not a corpus directory"),
    ],
)
def test_bad_input_is_one_error_line_and_a_failing_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run([arg.format(tmp=tmp_path) for arg in args], capsys)
    assert code == 1
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("error: ") and message in err


def test_search_errors_say_what_to_do_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = str(tmp_path / "corpus")
    run(
        ["corpus", "load", "--source", "jsonl", pages(tmp_path / "p.jsonl"), "--out", corpus],
        capsys,
    )
    code, _, err = run(["search", "tea", "--index", corpus], capsys)
    assert (code, err.strip()) == (
        1,
        "error: bm25 search is not available (index not built or out of date); "
        "build it with `python -m quest corpus index DIR`",
    )
    run(["corpus", "index", corpus, "--only", "bm25"], capsys)
    code, _, err = run(["search", "tea", "--index", corpus, "--mode", "dense"], capsys)
    assert code == 1 and "dense search is not available" in err
    code, _, err = run(["search", " ", "--index", corpus], capsys)
    assert (code, err) == (1, "error: the query is empty\n")


def test_the_geographic_sources_load_with_a_city_population_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = str(tmp_path / "corpus")
    args = ["corpus", "load", "--source", "geo", "--min-population", "5000000", "--out", corpus]
    code, out, _ = run(args, capsys)
    sources = json.loads(out)["corpus"]["sources"]
    assert code == 0
    assert sources["countryinfo"] == {"documents": 251, "licences": ["MIT"]}
    assert sources["geonames"]["licences"] == ["CC BY 4.0"]
    assert 252 < sources["geonames"]["documents"] < 352
    code, _, err = run([*args[:5], "100", *args[6:]], capsys)
    assert (code, err) == (
        1,
        "error: --min-population must be at least 15,000 (GeoNames' cities15000)\n",
    )
