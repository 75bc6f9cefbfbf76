"""bf16 autocast where the hardware computes bf16, chosen by a parity check on the model."""

from __future__ import annotations

import math
from typing import Any

import pytest

from quest.training import precision
from quest.training.models import load_model

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def tiny() -> tuple[Any, Any]:
    return load_model("tiny")


def test_the_two_losses_of_the_sample_are_measured_not_assumed(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    fp32, bf16 = precision.parity_losses(model, tokenizer, "cpu")
    assert math.isfinite(fp32) and math.isfinite(bf16) and fp32 > 0
    assert fp32 != bf16  # bf16 rounds: equal losses would mean autocast did nothing
    assert abs(bf16 - fp32) / fp32 < 0.05


def test_auto_follows_the_hardware_and_the_measured_drift(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    chosen = precision.choose("auto", model, tokenizer)
    if precision.bf16_hardware() is None:
        assert chosen.use == "fp32" and chosen.loss_fp32 is None
        return
    assert chosen.loss_fp32 is not None and chosen.loss_bf16 is not None
    drift = abs(chosen.loss_bf16 - chosen.loss_fp32) / chosen.loss_fp32
    assert chosen.use == ("bf16" if drift <= precision.PARITY else "fp32")
    assert f"{drift:.2%}" in chosen.why


def test_fp32_is_fp32_and_bf16_is_forced(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    assert precision.choose("fp32", model, tokenizer).use == "fp32"
    forced = precision.choose("bf16", model, tokenizer)
    assert forced.use == "bf16" and forced.loss_bf16 is not None


def test_a_model_that_drifts_in_bf16_stays_in_fp32(
    tiny: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decision when parity fails: the measurement is replaced by one 25 % apart (no real
    model of the suite drifts that far), on hardware said to have bf16."""
    model, tokenizer = tiny
    monkeypatch.setattr(precision, "bf16_hardware", lambda: "cpu")
    monkeypatch.setattr(precision, "parity_losses", lambda *_: (2.0, 2.5))
    chosen = precision.choose("auto", model, tokenizer)
    assert chosen.use == "fp32" and "25.00%" in chosen.why
