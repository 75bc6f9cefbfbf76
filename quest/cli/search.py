"""`python -m quest search "QUERY" --index DIR [--mode bm25|dense|hybrid] [--k 10] [--json]`.

DIR is a corpus directory (`python -m quest corpus load`) whose indexes were built with
`python -m quest corpus index DIR`. Without --mode, hybrid is used when the dense index is
ready and BM25 otherwise. Prints results as QUEST's search tool does, or JSON with --json.
Bad input exits 1 with one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from quest.cli.common import emit, guarded
from quest.search.format import format_results
from quest.search.searcher import MAX_K, MODES, Searcher


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("search", help="search a corpus: BM25, dense or hybrid")
    parser.add_argument("query")
    parser.add_argument("--index", required=True, metavar="DIR", help="the corpus directory")
    parser.add_argument("--mode", choices=MODES, help="default: hybrid when ready, else bm25")
    parser.add_argument("--k", type=int, default=10, help=f"results, 1 to {MAX_K} (default 10)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=guarded(_search))


def _search(args: argparse.Namespace) -> int:
    searcher = Searcher.open(args.index)
    mode = args.mode or searcher.default_mode
    results = searcher.search(args.query, mode=mode, k=args.k)
    if args.json:
        emit(
            {
                "query": args.query,
                "mode": mode,
                "modes": list(searcher.modes),
                "results": [result.to_json() for result in results],
            }
        )
    else:
        sys.stdout.write(format_results(args.query, results) + "\n")
    return 0
