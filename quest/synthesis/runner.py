"""Run a synthesis batch: seeds → drafts → the funnel, one Candidate per proposal.

The same function serves the CLI (`python -m quest synth`) and the app's Celery job; both pass
the corpus pages (a DocumentStore), its distractors, the questions already in the task store
and, for the difficulty and baseline stages, a factory for the offline research toolbox.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from quest.agent.loop import run_agent
from quest.agent.scripted import ScriptedPolicy
from quest.llm.types import LLMClient
from quest.rubric.distractors import Distractors
from quest.rubric.documents import DocumentStore
from quest.rubric.errors import RubricError
from quest.rubric.judge import ChatClient
from quest.rubric.model import FORMAT
from quest.rubric.stats import tree_stats
from quest.search.encoder import Encoder
from quest.synthesis import difficulty, funnel, proposer
from quest.synthesis.batch import (
    MAX_TRIES,
    SCOPED_TRIES,
    Batch,
    base_provenance,
    empty_record,
)
from quest.synthesis.categories import categorise
from quest.synthesis.facts import Draft, Fact, max_chars, write_answer
from quest.synthesis.kgsynth import GENERATOR, SUBCATEGORIES, KGSynthesizer, category_of
from quest.synthesis.model import BatchSpec, Candidate, Stage, SynthesisError
from quest.synthesis.narrative import ground, narrative_index, narrative_urls
from quest.synthesis.open_candidates import open_candidate
from quest.synthesis.open_ended import OpenEndedSynthesizer
from quest.synthesis.seeds import SUBCATEGORIES as SUBCATEGORY_LIST
from quest.synthesis.seeds import SeedSampler
from quest.synthesis.worlds import Scope, draft_record
from quest.tools import Toolbox

# Of kg drafts, those offered narrative grounding (quest.synthesis.narrative): a draft with a
# checked fact that a Wikipedia page of the corpus states then cites that page for it. Only
# some drafts have such a fact (country capitals and borders, a few elements and languages),
# so every one is offered to reach a third of accepted tasks.
NARRATIVE_SHARE = 1.0
NARRATIVE_TRIES = 12


def synthesize(
    spec: BatchSpec,
    *,
    pages: DocumentStore,
    distractors: Distractors | None = None,
    existing_questions: Sequence[str] = (),
    used_subcategories: Mapping[str, int] | None = None,
    toolbox_factory: Callable[[], Toolbox] | None = None,
    encoder: Encoder | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    llm: LLMClient | None = None,
    verifier: LLMClient | None = None,
    judge: ChatClient | None = None,
    keywords: Sequence[str] = (),
    keyword_source: Callable[[str], list[str]] | None = None,
    top_hit: bool = True,
    scope: Scope | None = None,
) -> Iterator[Candidate]:
    """One Candidate per proposal. The `llm` generator needs `llm` (the proposer) and
    `toolbox_factory` (its corpus tools); `verifier` defaults to `llm`, and `judge` decides
    judge leaves in the funnel (without one they stay undecided, and the probes reject).
    The proposer's seed keywords come from `keywords` (a CSV's), else from `keyword_source`
    (quest.synthesis.keywords.CorpusKeywords), else the subcategory's name. `top_hit` False
    turns the difficulty stage off; it also needs `toolbox_factory` (its search) to run.
    `scope` (kg only) draws every task from one world (quest.synthesis.worlds)."""
    problems = spec.problems()
    if problems:
        raise SynthesisError("; ".join(problems))
    batch = Batch(
        spec, pages, distractors, funnel.DuplicateIndex(encoder, existing_questions), None, judge
    )
    batch.scope = scope
    if spec.generator == "llm":
        subcategories = _setup_llm(batch, llm, verifier, toolbox_factory, keywords)
        batch.keyword_source = keyword_source
    else:
        subcategories = _setup_kg(batch)
        if spec.open_ended and llm is not None:
            batch.llm = llm  # it writes the criteria (QUEST §4); the judge scores them
    sampler = SeedSampler(
        seed=spec.seed,
        subcategories=subcategories,
        used=used_subcategories,
        category_weights=spec.categories,
        class_weights=spec.classes,
    )
    if toolbox_factory and (spec.baseline or top_hit):
        toolbox = batch.toolbox or toolbox_factory()
        batch.run_agent = _agent_runner(toolbox) if spec.baseline else None
        batch.search = difficulty.search_of(toolbox) if top_hit else None
    for index in range(spec.count):
        if should_stop():
            return
        subcategory, target = sampler.next_subcategory(), sampler.next_class()
        rng = random.Random(f"{spec.seed}:{index}")
        if spec.generator == "llm":
            made = _llm_candidate(batch, index, subcategory, target, rng)
        elif spec.open_ended:
            made = open_candidate(batch, index, subcategory, rng)
        else:
            made = _kg_candidate(batch, index, subcategory, target, rng)
        if made.accepted:
            sampler.landed(subcategory, str(made.record.get("subcategory") or subcategory))
        yield made


def _setup_llm(
    batch: Batch,
    llm: LLMClient | None,
    verifier: LLMClient | None,
    toolbox_factory: Callable[[], Toolbox] | None,
    keywords: Sequence[str],
) -> list[str]:
    if llm is None:
        raise SynthesisError(
            "the llm generator needs an LLM endpoint (QUESTWEB_LLM_ENDPOINTS "
            "or --llm); the kg generator runs offline"
        )
    if toolbox_factory is None:
        raise SynthesisError("the llm generator needs the corpus search index for its tools")
    batch.llm, batch.verifier, batch.toolbox = llm, verifier or llm, toolbox_factory()
    batch.keywords = keywords
    spec = batch.spec
    return list(spec.categories) if spec.categories else list(SUBCATEGORY_LIST)


def _setup_kg(batch: Batch) -> list[str]:
    spec, pages = batch.spec, batch.pages
    subcategories = [s for s in SUBCATEGORIES if not spec.categories or s in spec.categories]
    if not subcategories:
        raise SynthesisError(
            "the kg generator writes geography tasks for these subcategories only: "
            + ", ".join(SUBCATEGORIES)
        )

    def has_page(url: str) -> bool:
        return pages.get(url) is not None

    scope = batch.scope
    batch.synthesizer = KGSynthesizer(
        has_page=scope.worlds.has_page(scope.side, has_page) if scope else has_page
    )
    if not batch.synthesizer.countries:
        raise SynthesisError("the corpus has no GeoNames country pages: load it with geonames")
    batch.open_ended = OpenEndedSynthesizer(
        batch.synthesizer.kg, has_page=batch.synthesizer.has_page
    )
    return subcategories


def _kg_candidate(
    batch: Batch, index: int, subcategory: str, target: str, rng: random.Random
) -> Candidate:
    assert batch.synthesizer is not None
    reasons: list[str] = []
    draft = _kg_draft(batch, subcategory, target, rng, reasons)
    if draft is not None and rng.random() < NARRATIVE_SHARE:
        grounded = _narrative_draft(batch, draft, subcategory, target, rng)
        draft = grounded if _refusal(batch, grounded) is None else draft
    provenance = base_provenance(batch, index, target, GENERATOR)
    if draft is None:
        stage = Stage(
            "schema",
            False,
            "no draft could be built: " + "; ".join(reasons[-3:]),
            {"tries": reasons},
        )
        return Candidate(index, empty_record(subcategory, provenance), (stage,), target)
    batch.proposed.add(draft.entities)
    wiki = narrative_urls(draft)
    if wiki:
        provenance = {**provenance, "narrative": True, "narrative_urls": wiki}
    record = task_record(draft, subcategory, provenance)
    alternatives = [
        (_alternative_label(draft), alternative_answer(draft, alt)) for alt in draft.alternatives
    ]
    stages = _funnel(batch, record, target, alternatives, draft.entities, draft.subjects)
    return Candidate(index, record, tuple(stages), target)


def _kg_draft(
    batch: Batch,
    subcategory: str,
    target: str,
    rng: random.Random,
    reasons: list[str],
    tries: int = MAX_TRIES,
) -> Draft | None:
    """A new draft for the seed within `tries` (SCOPED_TRIES in a world), or None (`reasons`
    says why)."""
    assert batch.synthesizer is not None
    if batch.scope is not None and tries == MAX_TRIES:
        tries = SCOPED_TRIES
    synthesizer = batch.synthesizer
    repeat = "the same entities and facts as a task proposed earlier in the batch"
    for made in batch.new_drafts(
        lambda: synthesizer.draft(subcategory, target, rng), tries, reasons, repeat
    ):
        refused = _refusal(batch, made)
        if refused:
            reasons.append(refused)
            continue
        return made
    return None


def _refusal(batch: Batch, draft: Draft) -> str | None:
    """Why a draft is not of the batch's world (quest.synthesis.worlds), or None."""
    return batch.scope.refusal(draft_record(draft)) if batch.scope is not None else None


def _narrative_draft(
    batch: Batch, draft: Draft, subcategory: str, target: str, rng: random.Random
) -> Draft:
    """The draft grounded on Wikipedia pages (quest.synthesis.narrative); where it has no fact
    a page states, up to NARRATIVE_TRIES other drafts for the same seed are tried, so that
    families with narrative facts come first. The first draft when none grounds; a chain across
    domains is grounded where it can be but never traded for another draft (few of its facts
    have a narrative page, and the chains across domains are what the mix is short of)."""
    index, tried = narrative_index(), draft
    if not index.in_store(batch.pages):
        return draft
    for _ in range(NARRATIVE_TRIES + 1):
        grounded = ground(tried, index, rng, pages=batch.pages)
        if narrative_urls(grounded) or cross_domain_chain(tried):
            return grounded
        made = _kg_draft(batch, subcategory, target, rng, [], tries=1)
        if made is None:
            break
        tried = made
    return draft


def cross_domain_chain(draft: Draft) -> bool:
    """A chain whose facts come from two or more data domains (synth_bench's measure)."""
    family = draft.family
    return family == "domain_chain" or (family.startswith("chain") and len(draft.domains) >= 2)


def _llm_candidate(
    batch: Batch, index: int, subcategory: str, target: str, rng: random.Random
) -> Candidate:
    assert batch.llm is not None and batch.toolbox is not None and batch.verifier is not None
    provenance = base_provenance(batch, index, target, proposer.GENERATOR)
    pool, source = list(batch.keywords), "csv"
    if not pool and batch.keyword_source is not None:
        pool, source = batch.keyword_source(subcategory), "corpus"
    keywords = rng.sample(pool, min(10, len(pool))) if pool else [subcategory]
    provenance["keywords"] = keywords
    provenance["keywords_from"] = source if pool else "subcategory"
    made = proposer.propose(
        batch.llm,
        batch.toolbox,
        subcategory=subcategory,
        target=target,
        keywords=keywords,
        max_turns=batch.spec.proposer_turns,
    )
    provenance["proposer"] = {
        "turns": made.turns,
        "visited": made.visited[:50],
        "answer": made.answer[:4000],
    }
    empty = empty_record(subcategory, provenance)
    if made.data is None:
        stage = Stage(
            "proposal",
            False,
            "; ".join(made.problems) or "no proposal",
            {"answer": made.answer[:2000]},
        )
        return Candidate(index, empty, (stage,), target)
    stages = [
        Stage(
            "proposal",
            True,
            f"a proposal after {made.turns} turns, {len(made.visited)} pages visited",
        )
    ]
    refined, review = proposer.refine(batch.llm, made.data)
    stages.append(review)
    if refined is None:
        return Candidate(index, empty, tuple(stages), target)
    stages.append(proposer.verify(batch.verifier, refined))
    try:
        record = proposer.proposal_record(refined, provenance)
    except RubricError as exc:
        stages.append(Stage("schema", False, f"the tree cannot be read: {exc.summary()}"))
        return Candidate(index, empty, tuple(stages), target)
    record["category"], record["subcategory"] = category_of(subcategory), subcategory
    record["complexity"] = tree_stats(record["rubric"])["complexity"]
    if not stages[-1].passed:
        record["provenance"]["funnel"] = [s.to_dict() for s in stages]
        return Candidate(index, record, tuple(stages), target)
    names = tuple(sorted(str(n).casefold() for n in refined["solution"]))
    stages += _funnel(batch, record, target, None, ("llm", *names), names)
    return Candidate(index, record, tuple(stages), target)


def _funnel(
    batch: Batch,
    record: dict[str, Any],
    target: str,
    alternatives: list[tuple[str, str]] | None,
    entities: tuple[str, ...],
    subjects: tuple[str, ...],
) -> list[Stage]:
    """schema → complexity → solvability → soundness → red-team → non-exclusive → duplicate →
    difficulty → baseline; `alternatives` None: no other valid answer can be written (recorded as
    untested)."""
    stages: list[Stage] = []
    schema, compiled = funnel.schema_stage(record)
    stages.append(schema)
    if compiled is not None:
        stages.append(funnel.complexity_stage(record, target))
    if compiled is not None and stages[-1].passed:
        stages += batch.probe_stages(record, compiled)
    if compiled is not None and stages[-1].passed:
        kg = batch.synthesizer.kg if batch.synthesizer else None
        stages.append(funnel.redteam_stage(record, compiled, batch.pages, batch.judge, kg=kg))
    if compiled is not None and stages[-1].passed:
        if alternatives is None:
            stages.append(
                Stage(
                    "non_exclusive",
                    True,
                    "not tested: no knowledge graph to write "
                    "other valid answers from (left to the audit)",
                    {"tested": False},
                )
            )
        else:
            stages.append(
                funnel.non_exclusive_stage(compiled, alternatives, batch.pages, batch.judge)
            )
    if compiled is not None and stages[-1].passed:
        stages.append(batch.duplicates.stage(record["question"], entities, subjects))
    if compiled is not None and stages[-1].passed:
        stages.append(
            difficulty.difficulty_stage(
                record["question"], compiled, batch.pages, batch.search, batch.judge
            )
        )
    if compiled is not None and stages[-1].passed:
        stages.append(
            funnel.baseline_stage(
                record["question"], compiled, batch.pages, batch.run_agent, batch.judge
            )
        )
        batch.duplicates.add(record["question"], entities, subjects)
    record["provenance"]["funnel"] = [
        *record["provenance"].get("funnel", []),
        *(s.to_dict() for s in stages),
    ]
    return stages


def task_record(draft: Draft, subcategory: str, provenance: dict[str, Any]) -> dict[str, Any]:
    """The accepted-task record of a draft. Its category and subcategory follow the domains of
    its facts (quest.synthesis.categories), not the seed it was asked for: a country task drawn
    for "Travel & Accommodation" on a corpus without airports is General Info."""
    reference = write_answer(draft.facts, exact=draft.exact)
    category, subcategory, domains = categorise(draft)
    _limit_length(draft.tree_root, max_chars(reference))
    rubric = {
        "format": FORMAT,
        "scoring": "quest",
        "task_description": draft.question,
        "root": draft.tree_root,
    }
    stats = tree_stats(rubric)
    return {
        "question": draft.question,
        "type": "objective",
        "category": category,
        "subcategory": subcategory,
        "complexity": stats["complexity"],
        "rubric": rubric,
        "solution": draft.solution,
        "reference_answer": reference,
        "oracle": draft.oracle,
        "provenance": {
            **provenance,
            "family": draft.family,
            "domains": domains,
            "entities": list(draft.entities),
            "subjects": list(draft.subjects),  # what the duplicate stage compares alike
            "notes": draft.notes,
        },
    }


def _limit_length(node: dict[str, Any], most: int) -> None:
    """Every committed check of the tree refuses an answer longer than `most` characters."""
    check = node.get("check")
    if isinstance(check, dict) and check.get("committed"):
        check["max_chars"] = most
    for child in node.get("children", ()):
        _limit_length(child, most)


def alternative_answer(draft: Draft, facts: list[Fact]) -> str:
    """Another valid answer, citing countryinfo where it states the same facts; a find-k
    alternative commits to its own countries."""
    exact = "; ".join(f.subject for f in facts) if draft.family == "find_k" else draft.exact
    return write_answer(facts, alt=True, exact=exact)


def _alternative_label(draft: Draft) -> str:
    if draft.family == "find_k":
        return "other valid countries in the slots"
    return "the facts in another order, citing countryinfo where it states them"


def _agent_runner(toolbox: Toolbox) -> Callable[[str], str]:
    def run(question: str) -> str:
        return run_agent(question, policy=ScriptedPolicy(), toolbox=toolbox).answer

    return run
