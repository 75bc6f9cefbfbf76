"""`python -m quest corpus …`: load sources into a corpus directory, build its search indexes.

    python -m quest corpus load --source wiki --out var/corpus
    python -m quest corpus load --source geo --out var/corpus [--min-population 100000]
    python -m quest corpus load --source jsonl my-pages.jsonl --out var/corpus
    python -m quest corpus load --source domains --out var/corpus    (or one: elements, airports…)
    python -m quest corpus load --source all --out var/corpus        (wiki + geo + domains)
    python -m quest corpus index var/corpus [--only bm25|dense]

Loading adds to the directory (a page with the same URL is replaced). Results are JSON on
stdout; progress and errors go to stderr. Exit status: 0 done, 1 failed (one line on stderr,
never a traceback), 2 loaded with some JSONL lines skipped (each named on stderr).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from quest.cli.common import UsageError, emit, guarded
from quest.cli.progress import Fraction, counted, say
from quest.corpus.domains import DOMAINS, DomainData, load_domains
from quest.corpus.geo import load_geo
from quest.corpus.geonames import MIN_CITY_POPULATION
from quest.corpus.jsonl import JsonlImport
from quest.corpus.model import Document
from quest.corpus.store import corpus_write
from quest.corpus.wiki import load_wikipedia
from quest.search.dense import APPROXIMATE_ABOVE
from quest.search.indexing import bm25_build, dense_build, index_status

ERRORS_SHOWN = 20
PARTIAL = 2
# Domains with pages of their own (the countries domain's pages are GeoNames' and countryinfo's).
PAGE_DOMAINS = tuple(name for name in DOMAINS if name != "countries")
SOURCES = ("wiki", "geo", "jsonl", "domains", "all", *PAGE_DOMAINS)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("corpus", help="the offline corpus: load sources, build indexes")
    actions = parser.add_subparsers(dest="corpus_action", metavar="ACTION", required=True)

    load = actions.add_parser("load", help="add a source's documents to a corpus directory")
    load.add_argument("--source", choices=SOURCES, required=True)
    load.add_argument("path", nargs="?", help="jsonl: the file; wiki: another summaries file")
    load.add_argument("--out", required=True, help="corpus directory (created if missing)")
    load.add_argument(
        "--min-population",
        type=int,
        default=MIN_CITY_POPULATION,
        help=f"geo: smallest city loaded (default {MIN_CITY_POPULATION:,}; at least 15,000)",
    )
    load.set_defaults(func=guarded(_load))

    index = actions.add_parser("index", help="build the BM25 and dense indexes of a corpus")
    index.add_argument("directory")
    index.add_argument("--only", choices=("bm25", "dense"), help="build one index only")
    index.add_argument(
        "--approximate-above",
        type=int,
        default=None,
        help="passages above which the dense index is approximate (HNSW); default 50,000",
    )
    index.set_defaults(func=guarded(_index))


def _load(args: argparse.Namespace) -> int:
    importer: JsonlImport | None = None
    if args.source == "jsonl":
        if not args.path:
            raise UsageError("--source jsonl needs the PATH of a JSONL file")
        importer = JsonlImport(args.path)
    report = corpus_write(args.out, importer if importer is not None else _documents(args))
    output: dict[str, Any] = {
        "source": args.source,
        "added": report.added,
        "replaced": report.replaced,
        "corpus": report.summary.to_json(),
    }
    if importer is None:
        emit(output)
        return 0
    return _report_lines(importer, output, args.path)


def _documents(args: argparse.Namespace) -> Iterator[Document]:
    if args.source == "wiki":
        return load_wikipedia(args.path)
    if args.path:
        raise UsageError(f"--source {args.source} reads the installed packages and takes no PATH")
    if args.min_population < 15_000:
        raise UsageError("--min-population must be at least 15,000 (GeoNames' cities15000)")
    if args.source == "geo":
        return load_geo(min_city_population=args.min_population)
    if args.source == "all":
        return _all(args.min_population)
    names = PAGE_DOMAINS if args.source == "domains" else (args.source,)
    return load_domains(names, on_progress=_domain_progress)


def _all(min_population: int) -> Iterator[Document]:
    """Everything the generators need: the Wikipedia summaries, the geographic pages, then
    every domain's pages, with a line on stderr as each part is read."""
    yield from counted(load_wikipedia(), "wiki", "pages")
    yield from counted(load_geo(min_city_population=min_population), "geo", "pages")
    yield from load_domains(PAGE_DOMAINS, on_progress=_domain_progress)


def _domain_progress(data: DomainData) -> None:
    say(
        f"{data.name}: {len(data.documents):,} pages, {len(data.facts):,} facts, "
        f"{len(data.dropped):,} left out"
    )


def _report_lines(importer: JsonlImport, output: dict[str, Any], path: str) -> int:
    output["skipped"] = importer.error_count
    output["errors"] = [str(error) for error in importer.errors[:100]]
    emit(output)
    for error in importer.errors[:ERRORS_SHOWN]:
        print(f"error: {path}: {error}", file=sys.stderr)
    if importer.error_count > ERRORS_SHOWN:
        print(f"error: {path}: … and {importer.error_count - ERRORS_SHOWN} more", file=sys.stderr)
    if importer.documents == 0 and importer.error_count:
        return 1
    return PARTIAL if importer.error_count else 0


def _index(args: argparse.Namespace) -> int:
    output: dict[str, Any] = {}
    if args.only in (None, "bm25"):
        bm25 = bm25_build(args.directory)
        output["bm25"] = {"passages": bm25.passages, "seconds": round(bm25.seconds, 2)}
    if args.only in (None, "dense"):
        above = args.approximate_above if args.approximate_above is not None else APPROXIMATE_ABOVE
        dense = dense_build(
            args.directory,
            on_progress=Fraction("dense", "passages embedded"),
            approximate_above=above,
        )
        output["dense"] = {
            "passages": dense.passages,
            "embedded": dense.embedded,
            "reused": dense.reused,
            "kind": dense.kind,
            "seconds": round(dense.seconds, 2),
        }
    output["modes"] = list(index_status(args.directory).modes)
    emit(output)
    return 0
