"""Reading JSONL inputs line by line and writing datasets atomically (a reader never sees a
half-written file: rows go to a hidden temporary file next to the target, renamed into place
once complete)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

PARQUET_ROW_GROUP = 1_000


class DatasetError(ValueError):
    """Input a dataset cannot be built from; the message names the file and line."""


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; DatasetError on the first line that is
    not a JSON object."""
    source = Path(path)
    with source.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{source}:{number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise DatasetError(f"{where}: not UTF-8 text ({error.reason})") from None
            if line.strip():
                yield number, _object(line, where)


def _object(line: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise DatasetError(f"{where}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write; renamed to `path` when the block ends without an error,
    removed otherwise."""
    target = Path(path)
    if not target.parent.is_dir():
        raise DatasetError(f"{target.parent}: no such directory")
    partial = target.with_name(f".{target.name}.partial")
    try:
        yield partial
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write `rows` as JSON lines, atomically; returns the number written."""
    with atomic_path(path) as partial, partial.open("w", encoding="utf-8") as handle:
        return _dump(handle, rows)


def _dump(handle: IO[str], rows: Iterable[dict[str, Any]]) -> int:
    count = 0
    for row in rows:
        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        count += 1
    return count


def write_parquet(path: str | Path, rows: Iterable[dict[str, Any]], schema: Any) -> int:
    """Write `rows` with the pyarrow `schema`, one row group per PARQUET_ROW_GROUP rows,
    atomically; returns the number written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    count = 0
    with atomic_path(path) as partial, pq.ParquetWriter(partial, schema) as writer:
        for chunk in _chunks(rows, PARQUET_ROW_GROUP):
            writer.write_table(pa.Table.from_pylist(chunk, schema=schema))
            count += len(chunk)
        if count == 0:
            writer.write_table(schema.empty_table())
    return count


def _chunks(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
