"""Read a `quest synth` run's files and print what the multi-domain synthesis bar asks of them.

    .venv/bin/python benchmarks/synth_bar.py --report candidates.jsonl [--json OUT]

The report (`quest synth ... --report FILE`) holds every candidate with its funnel stages; the
accepted ones are those whose stages all passed. Printed: accepted of proposed; distinct accepted
tasks (distinct questions, and distinct entity keys); the records carrying category, subcategory
and provenance.domains; the domains and QUEST categories (shares, entropy); the share citing a
Wikipedia page in the reference answer for a checked fact (provenance.narrative, and a wikipedia
URL in the reference); the share of chains over two or more domains; the top-hit share (the
difficulty stage's reward >= 0.5) among accepted tasks and among the tasks the funnel would accept
without the difficulty stage; the lowest reference-answer reward (the solvability stage); the
red-team's largest excess over the oracle's credit; the scripted agent's mean reward by family.
Nothing here runs the engine: it reads what a run wrote, so it measures any seed or count.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

CATEGORIES = (
    "Misc.",
    "Science & Research",
    "Travel & Transportation",
    "Lifestyle & Leisure",
    "Entertainment",
    "Career & Education",
)
TOP_HIT_MAX = 0.5


def entropy(counts: Counter[str]) -> float:
    total = sum(counts.values())
    return max(0.0, -sum(n / total * math.log2(n / total) for n in counts.values() if n))


def stages_of(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in row.get("stages", [])}


def bar(rows: list[dict[str, Any]]) -> dict[str, Any]:
    accepted = [r for r in rows if r.get("accepted")]
    records = [r["record"] for r in accepted]
    provenances = [rec.get("provenance") or {} for rec in records]
    n = len(records) or 1
    domains = Counter(str(d) for p in provenances for d in p.get("domains") or ())
    categories = Counter(str(rec.get("category")) for rec in records)
    cross = sum(
        p.get("family") == "domain_chain"
        or (str(p.get("family", "")).startswith("chain") and len(p.get("domains") or ()) >= 2)
        for p in provenances
    )
    wiki = sum(
        p.get("narrative") is True
        and any(u in str(rec.get("reference_answer", "")) for u in p.get("narrative_urls") or ())
        for p, rec in zip(provenances, records, strict=True)
    )
    would = [r for r in rows if r.get("accepted") or r.get("rejected_at") == "difficulty"]

    def top_hit(pool: list[dict[str, Any]]) -> float:
        rewards = [
            float(s["detail"]["reward"])
            for r in pool
            if (s := stages_of(r).get("difficulty")) and s["detail"].get("reward") is not None
        ]
        return sum(x >= TOP_HIT_MAX for x in rewards) / len(rewards) if rewards else float("nan")

    references = [float(stages_of(r)["solvability"]["detail"].get("reward", 0.0)) for r in accepted]
    excess = [
        float(stages_of(r)["redteam"]["detail"].get("excess", 0.0))
        for r in accepted
        if "redteam" in stages_of(r)
    ]
    by_family: dict[str, list[float]] = defaultdict(list)
    for r in accepted:
        detail = stages_of(r).get("baseline", {}).get("detail", {})
        if detail.get("reward") is not None:
            by_family[str(r["record"]["provenance"].get("family"))].append(detail["reward"])
    return {
        "proposed": len(rows),
        "accepted": len(accepted),
        "distinct_questions": len({rec.get("question") for rec in records}),
        "distinct_entity_keys": len({tuple(p.get("entities") or ()) for p in provenances}),
        "with_category_subcategory_domains": sum(
            bool(rec.get("category")) and bool(rec.get("subcategory")) and bool(p.get("domains"))
            for rec, p in zip(records, provenances, strict=True)
        ),
        "domains": dict(domains.most_common()),
        "domain_entropy": entropy(domains),
        "categories": {c: categories.get(c, 0) / n for c in CATEGORIES},
        "category_entropy": entropy(categories),
        "wikipedia_cited_share": wiki / n,
        "cross_domain_chain_share": cross / n,
        "top_hit_share_accepted": top_hit(accepted),
        "top_hit_share_without_stage": top_hit(would),
        "lowest_reference_reward": min(references, default=float("nan")),
        "largest_redteam_excess": max(excess, default=float("nan")),
        "baseline_by_family": {k: statistics.fmean(v) for k, v in sorted(by_family.items())},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--report", required=True, help="a `quest synth --report` file")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()
    path = Path(args.report)
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    except (OSError, ValueError) as exc:
        print(f"synth_bar: {path}: {exc}", file=sys.stderr)
        return 1
    found = bar(rows)
    for key, value in found.items():
        shown = value
        if isinstance(value, float):
            shown = f"{value:.3f}"
        elif isinstance(value, dict):
            shown = ", ".join(
                f"{k} {v:.1%}" if key == "categories" else f"{k} {v:.3g}" if isinstance(v, float)
                else f"{k} {v}"
                for k, v in value.items()
            )  # fmt: skip
        print(f"{key}: {shown}")
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
