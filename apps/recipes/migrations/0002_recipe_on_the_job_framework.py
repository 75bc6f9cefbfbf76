# A recipe becomes a job of the framework (apps.jobs.models.Job, issue 37). Its rows keep their
# meaning: "waiting" (on people, at the gate) is a running recipe that waits (`waiting`), every
# other status is stored as it was; a recipe started when it was made, and its progress counts
# the stages that finished.

from typing import Any

from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from apps.jobs.migration_operations import FIELDS

STAGES = ("synth", "gate", "collect", "sft", "grpo", "evaluate", "report")


def onto_the_framework(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Recipe: Any = apps.get_model("recipes", "Recipe")  # the historical model, built at run time
    Recipe.objects.filter(status="waiting").update(status="running", waiting=True)
    for recipe in Recipe.objects.only("pk", "created_at", "stages"):
        finished = sum("finished_at" in recipe.stages.get(stage, {}) for stage in STAGES)
        Recipe.objects.filter(pk=recipe.pk).update(
            started_at=recipe.created_at, total=len(STAGES), done=finished
        )


def back(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Recipe: Any = apps.get_model("recipes", "Recipe")  # the historical model, built at run time
    Recipe.objects.filter(status="running", waiting=True).update(status="waiting")
    Recipe.objects.filter(status="queued").update(status="running")


class Migration(migrations.Migration):

    dependencies = [
        ('recipes', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(model_name='recipe', name='started_at', field=FIELDS['started_at']()),
        migrations.AddField(model_name='recipe', name='active_at', field=FIELDS['active_at']()),
        migrations.AddField(model_name='recipe', name='done', field=FIELDS['done']()),
        migrations.AddField(model_name='recipe', name='total', field=FIELDS['total']()),
        migrations.AddField(
            model_name='recipe', name='waiting', field=models.BooleanField(default=False)
        ),
        migrations.AlterField(model_name='recipe', name='status', field=FIELDS['status']()),
        migrations.AlterField(model_name='recipe', name='created_by', field=FIELDS['created_by']()),
        migrations.RunPython(onto_the_framework, back),
    ]
