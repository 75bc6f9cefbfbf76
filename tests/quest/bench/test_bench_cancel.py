"""A benchmark run is stopped in the middle of a model's turn, not after it: a local model's
turn on a CPU can take minutes (10,240 tokens at most), and a person who cancels a run must get
the worker back. The model is the tiny random one, saved as a checkpoint directory, which
never ends a turn on its own."""

from __future__ import annotations

from pathlib import Path

from quest.agent.budgets import Budgets
from quest.bench import BenchConfig, run_benchmark
from quest.training.models import load_model


def test_a_stop_gives_up_the_generation_it_interrupts_and_saves_nothing(
    data: Path, tmp_path: Path
) -> None:
    model, tokenizer = load_model("tiny")
    model.save_pretrained(str(tmp_path / "tiny"))
    tokenizer.save_pretrained(str(tmp_path / "tiny"))
    config = BenchConfig(
        benchmark="browsecomp-plus",
        data=data / "browsecomp_plus_queries.jsonl",
        corpus=data / "browsecomp_plus_corpus.jsonl",
        out=tmp_path / "run",
        model=str(tmp_path / "tiny"),
        limit=1,
    )
    heard: list[int] = []
    lines: list[str] = []

    def stop() -> bool:
        return bool(heard) and heard[-1] >= 8  # once the model has written a few tokens

    results = run_benchmark(config, on_progress=lines.append, should_stop=stop,
                            on_tokens=heard.append)  # fmt: skip
    assert results.rows == [] and not (tmp_path / "run" / "rows.jsonl").exists()
    assert "question q1 (1 of 1): researching" in lines
    # The turn was given up a few tokens in, far before its limit.
    assert 8 <= heard[-1] < Budgets().max_turn_tokens // 10, heard


def test_without_a_judge_each_question_is_saved_as_it_ends(data: Path, tmp_path: Path) -> None:
    """A worker that dies loses at most the question it was on (the judge, when there is one,
    grades a batch at a time, so then a batch is saved at once)."""
    config = BenchConfig(
        benchmark="browsecomp-plus",
        data=data / "browsecomp_plus_queries.jsonl",
        corpus=data / "browsecomp_plus_corpus.jsonl",
        out=tmp_path / "run",
        model="scripted",
        get_document=True,
        limit=3,
    )
    rows = tmp_path / "run" / "rows.jsonl"
    saved: list[tuple[int, int]] = []

    def on_row(done: int, total: int, row: object) -> None:
        saved.append((done, len(rows.read_text().splitlines())))

    run_benchmark(config, on_row=on_row)
    assert saved == [(1, 1), (2, 2), (3, 3)]
