from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from questweb import config

ROOT = Path(__file__).resolve().parent.parent


def test_it_uses_sqlite_in_wal_mode_when_no_database_url_is_set(tmp_path: Path) -> None:
    db = config.database({}, tmp_path)
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert db["NAME"] == str(tmp_path / "questweb.sqlite3")
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]


def test_it_switches_to_postgresql_with_a_database_url(tmp_path: Path) -> None:
    db = config.database({"DATABASE_URL": "postgresql://qw:pw@db.internal:5433/quest"}, tmp_path)
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["HOST"], db["PORT"], db["NAME"], db["USER"]) == ("db.internal", 5433, "quest", "qw")
    assert db["CONN_HEALTH_CHECKS"] is True


def test_it_names_the_problem_when_the_database_url_is_garbage(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match="DATABASE_URL"):
        config.database({"DATABASE_URL": "nonsense://x"}, tmp_path)


def test_it_points_at_the_embedded_valkey_socket_without_redis_url(tmp_path: Path) -> None:
    url = config.redis_url({}, tmp_path)
    assert url == f"unix://{tmp_path}/valkey/valkey.sock?db=0"
    assert (
        config.celery_broker_url(url)
        == f"redis+socket://{tmp_path}/valkey/valkey.sock?virtual_host=0"
    )
    assert config.is_embedded({})


def test_it_uses_redis_url_for_the_broker_and_the_channel_layer(tmp_path: Path) -> None:
    url = config.redis_url({"REDIS_URL": "redis://cache:6379/3"}, tmp_path)
    assert config.celery_broker_url(url) == "redis://cache:6379/3"
    assert not config.is_embedded({"REDIS_URL": url})


def test_it_rejects_a_redis_url_that_is_not_redis(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match="REDIS_URL"):
        config.redis_url({"REDIS_URL": "amqp://guest@localhost//"}, tmp_path)


@pytest.mark.parametrize(
    "env",
    [{"CELERY_BROKER_URL": "memory://"}, {"CELERY_TASK_ALWAYS_EAGER": "true"}],
)
def test_it_refuses_configurations_that_would_run_tasks_in_the_web_process(
    env: dict[str, str],
) -> None:
    with pytest.raises(config.ConfigError):
        config.refuse_unsafe_celery(env)


def test_it_rejects_a_boolean_it_cannot_read() -> None:
    with pytest.raises(config.ConfigError, match="DEBUG='maybe'"):
        config.env_bool({"DEBUG": "maybe"}, "DEBUG", default=False)


def test_it_generates_the_secret_key_once_and_keeps_it_private(tmp_path: Path) -> None:
    first = config.secret_key({}, tmp_path)
    second = config.secret_key({}, tmp_path)
    assert first == second and len(first) > 40
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600
    assert config.secret_key({"SECRET_KEY": "from-env"}, tmp_path) == "from-env"


def _settings_in_subprocess(env: dict[str, str]) -> dict[str, object]:
    code = (
        "import json, django; from django.conf import settings; django.setup();"
        "print(json.dumps({'engine': settings.DATABASES['default']['ENGINE'],"
        "'debug': settings.DEBUG, 'broker': settings.CELERY_BROKER_URL,"
        "'embedded': settings.EMBEDDED}))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"}}
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**clean, "DJANGO_SETTINGS_MODULE": "questweb.settings", **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    loaded: dict[str, object] = json.loads(result.stdout)
    return loaded


def test_the_settings_module_works_with_zero_environment_variables(tmp_path: Path) -> None:
    loaded = _settings_in_subprocess({"QUESTWEB_DATA_DIR": str(tmp_path)})
    assert loaded == {
        "engine": "django.db.backends.sqlite3",
        "debug": False,
        "broker": f"redis+socket://{tmp_path}/valkey/valkey.sock?virtual_host=0",
        "embedded": True,
    }


def test_the_settings_module_switches_to_the_cluster_with_urls(tmp_path: Path) -> None:
    loaded = _settings_in_subprocess(
        {
            "QUESTWEB_DATA_DIR": str(tmp_path),
            "DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/1",
            "DEBUG": "1",
        }
    )
    assert loaded["engine"] == "django.db.backends.postgresql"
    assert loaded["broker"] == "redis://127.0.0.1:6379/1"
    assert loaded["debug"] is True and loaded["embedded"] is False
