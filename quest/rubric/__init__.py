"""Rubric trees: one canonical model for QUEST, PaperBench and HealthBench-style rubrics, with
importers for every QUEST shape, validation, fast scoring, leaf checks, an LLM judge, the RL
reward with its citation term, and probes that test whether a tree rewards the right answers.

Framework-free: nothing here imports Django or any web or queue library.
"""

from __future__ import annotations

from quest.rubric.checks import run_check
from quest.rubric.citations import Citation, CitedAnswer, parse_citations, strip_citations
from quest.rubric.distractors import Distractors, NoDistractors, TitleDistractors
from quest.rubric.documents import Document, DocumentStore, InMemoryDocumentStore, load_docs_jsonl
from quest.rubric.errors import RubricError
from quest.rubric.evaluate import evaluate
from quest.rubric.importers import (
    ImportedTree,
    detect_shape,
    export_canonical,
    export_quest,
    import_canonical,
    import_tree,
    load_tree_file,
    loads_tree,
)
from quest.rubric.judge import ChatClient, ClaimJudge, majority, parse_reply
from quest.rubric.model import FORMAT, Check, Node, RubricTree
from quest.rubric.preconditions import Preconditions, evaluation_order, should_skip
from quest.rubric.probes import Probe, ProbeReport, probe_tree
from quest.rubric.reading import CheckContext
from quest.rubric.relative import (
    Criterion,
    CriterionScore,
    RelativeScore,
    discretise,
    relative_score,
)
from quest.rubric.report import NodeResult, ScoreReport
from quest.rubric.reward import (
    LabelledCitation,
    Reward,
    answer_reward,
    combine,
    extract_answer,
    label_citations,
    reward_from_report,
    valid_rate,
)
from quest.rubric.score import CompiledTree, compile_tree, score_tree
from quest.rubric.validate import check_tree, validate_tree
from quest.rubric.verdict import Evidence, LeafVerdict

__all__ = [
    "FORMAT",
    "ChatClient",
    "Check",
    "CheckContext",
    "Citation",
    "CitedAnswer",
    "ClaimJudge",
    "CompiledTree",
    "Criterion",
    "CriterionScore",
    "Distractors",
    "Document",
    "DocumentStore",
    "Evidence",
    "ImportedTree",
    "InMemoryDocumentStore",
    "LabelledCitation",
    "LeafVerdict",
    "NoDistractors",
    "Node",
    "NodeResult",
    "Preconditions",
    "Probe",
    "ProbeReport",
    "RelativeScore",
    "Reward",
    "RubricError",
    "RubricTree",
    "ScoreReport",
    "TitleDistractors",
    "answer_reward",
    "check_tree",
    "combine",
    "compile_tree",
    "detect_shape",
    "discretise",
    "evaluate",
    "evaluation_order",
    "export_canonical",
    "export_quest",
    "extract_answer",
    "import_canonical",
    "import_tree",
    "label_citations",
    "load_docs_jsonl",
    "load_tree_file",
    "loads_tree",
    "majority",
    "parse_citations",
    "parse_reply",
    "probe_tree",
    "relative_score",
    "reward_from_report",
    "run_check",
    "score_tree",
    "should_skip",
    "strip_citations",
    "valid_rate",
    "validate_tree",
]
