"""REST shapes of benchmark runs. Paths in and out are relative to the benchmarks directory
(`<benchmarks>/uploads/…`); a request's file, model or judge that cannot be used is a 422
whose detail starts with the field's name."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from ninja import Field, Schema

from apps.benchmarks.models import Benchmark
from apps.benchmarks.services import MAX_LIMIT
from apps.common.pagination import Page
from apps.common.schemas import Text
from apps.jobs.models import JobStatus

if TYPE_CHECKING:
    # The models' choices, read at run time, which a type checker cannot: it sees their strings.
    BenchmarkName = str
    StatusName = str
else:
    BenchmarkName = Literal[tuple(Benchmark.values)]
    StatusName = Literal[tuple(JobStatus.values)]
PathText = Annotated[Text, Field(max_length=500)]


class BenchmarkRunIn(Schema):
    benchmark: BenchmarkName
    data: PathText = Field(description="The question file, in the benchmarks directory")
    model: Text = Field(
        default="",
        max_length=1000,
        description="scripted, smollm2, a vllm: model, a checkpoint (runs/3/final) or "
        "endpoints URL|MODEL[|KEY_ENV]; or give responses instead",
    )
    endpoint: Text = Field(
        default="",
        max_length=1000,
        description="OpenAI-compatible endpoints URL|MODEL[|KEY_ENV]; or give model or responses",
    )
    responses: PathText = Field(default="", description="Saved {id, response} rows to score")
    corpus: PathText = Field(default="", description="The benchmark's corpus file or folder")
    judge: Text = Field(default="", max_length=1000, description="An endpoint URL|MODEL")
    limit: int | None = Field(default=None, ge=1, le=MAX_LIMIT, description="First N questions")
    dataset: Text = Field(default="", max_length=64, description="flashrag: the set's name")
    canary: Text = Field(default="", max_length=200, description="An encrypted file's password")
    get_document: bool = Field(default=False, description="Add the get_document tool")


class BenchmarkRunOut(Schema):
    id: int
    benchmark: str
    status: StatusName
    data: str
    corpus: str
    model: str
    responses: str
    judge: str
    limit: int | None
    dataset: str
    get_document: bool
    queue: str
    done: int
    total: int
    stage: str = Field(description="What the worker is doing now")
    error: str
    setup: dict[str, Any] = Field(description="benchmark, dataset, model, corpus, retriever…")
    metrics: dict[str, Any] = Field(description="Each metric with its value, ci95 and n")
    headline: dict[str, Any] | None = Field(
        description="Judged accuracy when a judge graded every question, else exact match, "
        "labelled as not comparable to judged accuracy"
    )
    published: dict[str, Any] = Field(
        description="Published results of the same protocol: value, source and setup_differs"
    )
    created_by: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str


class BenchmarkRunPageOut(Page[BenchmarkRunOut]):
    """A page of benchmark runs, newest first."""


class BenchmarkRowOut(Schema):
    id: str
    question: str
    gold: list[str]
    response: str
    answer: str
    confidence: float
    confidence_stated: bool
    exact_match: float
    f1: float
    verdict: str
    judged: bool
    search_calls: int
    cited_docs: list[str]
    retrieved_docs: list[str]
    evidence_docs: list[str]
    status: str
    judge: dict[str, Any] | None
    elapsed_s: float


class BenchmarkCompareOut(Schema):
    a: BenchmarkRunOut
    b: BenchmarkRunOut
    difference: dict[str, Any] = Field(
        description="a - b per shared question: mean, ci95, n, wins, losses, ties, metric and "
        "metric_reason (why judged accuracy or exact match is compared)"
    )


class BenchmarkFileOut(Schema):
    path: str = Field(description="Where it is kept, as a run's data, responses or corpus")
    size_bytes: int
