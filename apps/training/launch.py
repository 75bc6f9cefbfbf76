"""The launch form's fields, read off quest.training.config's models so a default changed there
is the form's default too: each tunable field with its default and type, a POST parsed into
job_create's params (numbers by the default's type, an empty field left to the default), and a
preset's config turned back into form values."""

from __future__ import annotations

import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from apps.common.errors import Invalid
from quest.training.config import (
    MODEL_SFT,
    GRPOParams,
    LoraParams,
    RolloutBudgets,
    SFTParams,
    TrainConfig,
)

# `resumable` too: a job page resumes a stopped job only from a checkpoint that kept its
# optimiser state, which a job launched resumable: false never writes.
TOP = ("max_steps", "save_steps", "seed", "resumable")
# Each group of hyperparameters and the job kinds that read it.
GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "grpo": ("GRPO", ("grpo",)),
    "rollout": ("Rollout budgets", ("grpo",)),
    "sft": ("SFT", ("sft", "mid")),
    "lora": ("LoRA adapters (r 0: full fine-tuning)", ("grpo", "sft", "mid")),
}
KINDS = ("grpo", "sft", "mid")
CHOICE, BOOL = "choice", "bool"


@dataclass(frozen=True)
class Field:
    name: str  # as the form posts it: "max_steps", "grpo.epsilon"
    label: str
    default: Any
    type: str  # "int", "float", "choice" (a Literal), "bool" or "text"
    choices: tuple[str, ...] = ()
    by_model: str = ""  # "tiny 2048, smollm2 4096": left empty, the engine sizes it per model

    @property
    def placeholder(self) -> str:
        return (
            f"by model ({self.by_model}; else {self.default})"
            if self.by_model
            else str(self.default)
        )


# The SFT fields the engine sizes for the model a config names (quest.training.config
# MODEL_SFT) when the config leaves them out: the form leaves them empty unless a value is
# typed, so picking SmolLM2 trains 2 x 4,096 tokens a step, not the paper's 8 x 16,384.
def _by_model(name: str) -> str:
    return ", ".join(
        f"{model} {sizes[name]}" for model, sizes in MODEL_SFT.items() if name in sizes
    )


def _models() -> dict[str, Any]:
    return {"": TrainConfig, "grpo": GRPOParams, "rollout": RolloutBudgets, "sft": SFTParams,
            "lora": LoraParams}  # fmt: skip


def _field(prefix: str, name: str, info: Any) -> Field:
    annotation = info.annotation
    dotted = f"{prefix}.{name}" if prefix else name
    if typing.get_origin(annotation) is typing.Literal:
        choices = tuple(str(c) for c in typing.get_args(annotation))
        return Field(dotted, name, info.default, CHOICE, choices)
    if annotation is bool:
        return Field(dotted, name, info.default, BOOL, ("false", "true"))
    kinds = {int: "int", float: "float"}
    by_model = _by_model(name) if prefix == "sft" else ""
    return Field(dotted, name, info.default, kinds.get(annotation, "text"), by_model=by_model)


def fields() -> dict[str, list[Field]]:
    """The form's fields by group ("" for the top-level ones)."""
    models = _models()
    top = models[""].model_fields
    found = {"": [_field("", name, top[name]) for name in TOP]}
    for group in GROUPS:
        found[group] = [_field(group, n, i) for n, i in models[group].model_fields.items()]
    return found


def _value(field: Field, raw: str) -> Any:
    if field.type in (CHOICE, BOOL):
        if raw not in field.choices:
            raise Invalid(f"{field.name} must be one of {', '.join(field.choices)}")
        return raw == "true" if field.type == BOOL else raw
    if field.type == "text":
        return raw
    try:
        value = int(raw) if field.type == "int" else float(raw)
    except ValueError:
        noun = "a whole number" if field.type == "int" else "a number"
        raise Invalid(f"{field.name} must be {noun}, not {raw[:40]!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise Invalid(f"{field.name} must be a finite number")
    return value


def groups_for(kind: str) -> tuple[str, ...]:
    return tuple(group for group, (_, kinds) in GROUPS.items() if kind in kinds)


def params(data: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The tunable fields a POST sets for a job kind (the groups another kind reads are left
    out); an empty field takes the config's default. Invalid names the field."""
    found = fields()
    out: dict[str, Any] = {}
    for group in ("", *groups_for(kind)):
        values = {}
        for field in found[group]:
            raw = str(data.get(field.name) or "").strip()
            if raw:
                values[field.name.rpartition(".")[2]] = _value(field, raw)
        if group:
            if values:
                out[group] = values
        else:
            out.update(values)
    return out


def model(data: Mapping[str, Any]) -> str:
    """The base model: the free-text path when given, else the select's choice."""
    return str(data.get("model_path") or "").strip() or str(data.get("model") or "tiny")


def shown(value: Any) -> str:
    """A value as the form holds it: true/false for a bool, the text of anything else."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def defaults() -> dict[str, str]:
    """The form's values before anything is chosen: every field at its default."""
    values = {"kind": "grpo", "model": "tiny"}
    for group in fields().values():
        values.update({f.name: "" if f.by_model else shown(f.default) for f in group})
    return values


def preset_values(config: Mapping[str, Any]) -> dict[str, str]:
    """A preset's config ({kind, model, max_steps, grpo: {...}, ...}) as form values over the
    defaults."""
    values = defaults()
    for key, value in config.items():
        if isinstance(value, Mapping):
            values.update({f"{key}.{k}": shown(v) for k, v in value.items()})
        else:
            values[key] = shown(value)
    return values


def form_groups(values: Mapping[str, str]) -> list[dict[str, Any]]:
    """The hyperparameter groups as the template draws them, each field with its value."""
    found = fields()
    return [
        {
            "name": group,
            "title": title,
            "kinds": " ".join(kinds),
            "fields": [(f, values.get(f.name, _initial(f))) for f in found[group]],
        }
        for group, (title, kinds) in GROUPS.items()
    ]


def sft_by_model() -> str:
    """How the engine sizes an SFT step per model, for the form's note."""
    sizes = [
        f"{model} {_rows(s['gradient_accumulation_steps'], s['max_length'])}"
        for model, s in MODEL_SFT.items()
    ]
    base = SFTParams.model_fields
    other = _rows(base["gradient_accumulation_steps"].default, base["max_length"].default)
    return f"{', '.join(sizes)}; any other model {other}, a step"


def _rows(accumulated: int, tokens: int) -> str:
    return f"{accumulated} row{'s' if accumulated != 1 else ''} of up to {tokens:,} tokens"


def _initial(field: Field) -> str:
    return "" if field.by_model else shown(field.default)


def top_fields(values: Mapping[str, str]) -> list[tuple[Field, str]]:
    return [(f, values.get(f.name, _initial(f))) for f in fields()[""]]
