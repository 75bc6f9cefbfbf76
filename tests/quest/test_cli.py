from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_python_m_quest_prints_its_subcommands() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "quest"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "subcommands" in result.stdout
    assert "rubric" in result.stdout
