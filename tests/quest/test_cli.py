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


def test_pyproject_declares_a_quest_console_command_for_the_cli_main() -> None:
    import importlib
    import tomllib

    from quest.cli import main

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("scripts", {})
    module, _, attr = scripts["quest"].partition(":")
    assert getattr(importlib.import_module(module), attr) is main


def test_the_installed_quest_command_prints_its_subcommands() -> None:
    from importlib.metadata import entry_points

    (entry,) = entry_points(group="console_scripts", name="quest")
    assert entry.value == "quest.cli:main"
    command = Path(sys.executable).parent / "quest"
    result = subprocess.run(
        [str(command), "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "usage: quest" in result.stdout
    assert "rubric" in result.stdout
