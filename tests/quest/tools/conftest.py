"""Shared by the PythonInterpreter tests: the tool, and a secret file outside its sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.tools import PythonInterpreter

SECRET = "secret-key-that-must-not-leak-5b1e"


@pytest.fixture(scope="module")
def python() -> PythonInterpreter:
    return PythonInterpreter()


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the sandbox that stands for var/secret_key."""
    path = tmp_path / "secret_key"
    path.write_text(SECRET)
    return path
