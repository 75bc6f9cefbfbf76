"""The demo's CPU preset (fixtures/demo/training_presets.json): a fresh install's admin trains a
checkpoint to watch in minutes, not the hours the SFT defaults take on two cores. The preset
must stay a config the launch service accepts and must load into the form."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from apps.accounts.models import User
from apps.training import services
from apps.training.models import TrainingPreset
from quest.training.config import MODEL_SFT, SMOLLM2

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "training_presets.json"


def test_the_demo_preset_is_a_valid_one_session_per_step_smollm2_sft(admin: User) -> None:
    call_command("loaddata", str(FIXTURE), verbosity=0)
    preset = TrainingPreset.objects.get(pk=9001)
    config = dict(preset.config)
    assert (config["kind"], config["model"]) == ("sft", "smollm2")
    assert config["sft"]["gradient_accumulation_steps"] == config["sft"]["batch_size"] == 1
    assert config["sft"]["max_length"] <= MODEL_SFT[SMOLLM2]["max_length"]
    assert config["save_steps"] < config["max_steps"] <= 8
    # Saved again through the service, it passes the same validation as a preset a user saves.
    kind, model = config.pop("kind"), config.pop("model")
    again = services.preset_save(user=admin, name="again", kind=kind, model=model, params=config)
    assert again.config == preset.config


def test_the_demo_preset_fills_the_launch_form(client: Client, admin: User) -> None:
    call_command("loaddata", str(FIXTURE), verbosity=0)
    client.force_login(admin)
    page = client.get("/training/jobs/new/?preset=9001").content.decode()
    name = "CPU demo: SmolLM2 SFT, 4 steps of one 4k-token session"
    assert f'<option value="9001" selected>{name}</option>' in page
    assert 'name="sft.gradient_accumulation_steps" value="1"' in page
    assert 'name="max_steps" step="1" value="4"' in page
