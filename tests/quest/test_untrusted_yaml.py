"""YAML from outside is read with bounds (issue 29): nesting deep enough to exhaust the stack, or
aliases that stand for more values than anything could walk, are a YAML error saying which."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from quest.loop.config import LoopError, read_loop_config
from quest.training.config import ConfigError, load_config
from quest.untrusted_yaml import MAX_DEPTH, YamlTooBig, load_yaml

ROOT = Path(__file__).resolve().parent.parent.parent
DEEP_LIST = "[" * 5000 + "]" * 5000
DEEP_MAPPING = "{a: " * 3000 + "1" + "}" * 3000
DEEP_BLOCK = "".join(" " * n + "a:\n" for n in range(200)) + " " * 200 + "b: 1\n"
LAUGHS = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 10)}]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize("text", [DEEP_LIST, DEEP_MAPPING, DEEP_BLOCK])
def test_a_document_nested_past_the_bound_is_refused_not_a_recursion_error(text: str) -> None:
    with pytest.raises(YamlTooBig, match=f"nested deeper than {MAX_DEPTH} levels"):
        load_yaml(text)


def test_nesting_up_to_the_bound_reads_as_safe_load_reads_it() -> None:
    text = "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH
    assert load_yaml(text) == yaml.safe_load(text)
    ordinary = (
        "model: tiny\nsynth: {tasks: 4, keywords: [a, b]}\nsft: &s {max_steps: 2}\ngrpo: *s\n"
    )
    assert load_yaml(ordinary) == yaml.safe_load(ordinary)


def test_an_alias_that_nests_its_anchor_past_the_bound_is_refused() -> None:
    inner = "[" * 40 + "1" + "]" * 40
    with pytest.raises(YamlTooBig, match="nested deeper"):
        load_yaml(f"a: &a {inner}\nb: &b {'[' * 30}*a{']' * 30}\n")


def test_aliases_that_stand_for_too_many_values_are_refused_by_line() -> None:
    with pytest.raises(YamlTooBig, match=r"more than 100,000 values \(aliases expanded\) \(line"):
        load_yaml(LAUGHS)


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(YamlTooBig, match=r"the alias \*a is inside its own anchor"):
        load_yaml("a: &a [1, *a]\n")


def test_the_engines_config_files_are_read_with_the_bounds(tmp_path: Path) -> None:
    (tmp_path / "loop.yaml").write_text(DEEP_LIST, encoding="utf-8")
    with pytest.raises(LoopError, match="nested deeper"):
        read_loop_config(tmp_path)
    with pytest.raises(ConfigError, match="nested deeper"):
        load_config(tmp_path / "loop.yaml")


def test_the_loop_command_says_its_config_is_too_deep_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text(DEEP_LIST, encoding="utf-8")
    argv = [sys.executable, "-m", "quest", "loop", "--out", str(tmp_path / "run"),
            "--corpus", str(tmp_path), "--config", str(tmp_path / "deep.yaml")]  # fmt: skip
    done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("error: --config") and "nested deeper" in done.stderr
    assert "Traceback" not in done.stderr
