"""Training writes: datasets asked for, jobs launched, cancelled and resumed, presets saved,
evaluations asked for, and the watchdog that ends work whose worker died.

Only admins (the `manage` permission) write here; viewers read through selectors. A job's
config is quest.training.config's TrainConfig, validated here exactly as `python -m quest
train` validates it, so the form, REST and the CLI refuse the same things with the same words.
Work is enqueued after the transaction commits (a worker never looks for a row that is not
there yet).
"""

from apps.training.services.common import MAX_QUEUED_PER_USER
from apps.training.services.datasets import (
    SCRIPTED,
    dataset_cancel,
    dataset_create,
    dataset_file,
    dataset_params,
    policy_choices,
    runs_in_process,
)
from apps.training.services.evaluations import (
    DEFAULT_EVAL_TASKS,
    EVAL_BUDGETS,
    evaluation_cancel,
    evaluation_create,
    held_out_tasks,
)
from apps.training.services.jobs import (
    JOB_DATASET,
    MAX_STEPS,
    TUNABLE,
    config_preview,
    job_cancel,
    job_config,
    job_create,
    job_resume,
    model_check,
    preset_delete,
    preset_save,
)

__all__ = [
    "DEFAULT_EVAL_TASKS",
    "EVAL_BUDGETS",
    "JOB_DATASET",
    "MAX_QUEUED_PER_USER",
    "MAX_STEPS",
    "SCRIPTED",
    "TUNABLE",
    "config_preview",
    "dataset_cancel",
    "dataset_create",
    "dataset_file",
    "dataset_params",
    "evaluation_cancel",
    "evaluation_create",
    "held_out_tasks",
    "job_cancel",
    "job_config",
    "job_create",
    "job_resume",
    "model_check",
    "policy_choices",
    "preset_delete",
    "preset_save",
    "runs_in_process",
]
