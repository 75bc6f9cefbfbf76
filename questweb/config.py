"""Turns environment variables into settings values.

Kept free of Django so the embedded launcher (which starts the broker before Django runs) and the
tests can use the same rules as `settings.py`. Every function takes the environment explicitly.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


class ConfigError(ValueError):
    """An environment variable holds a value questweb cannot use."""


def env_bool(env: Mapping[str, str], name: str, *, default: bool) -> bool:
    raw = env.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(env: Mapping[str, str], name: str, *, default: int, minimum: int = 1) -> int:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number") from None
    if value < minimum:
        raise ConfigError(f"{name}={raw!r} must be at least {minimum}")
    return value


def data_dir(env: Mapping[str, str]) -> Path:
    path = Path(env.get("QUESTWEB_DATA_DIR") or BASE_DIR / "var").resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def secret_key(env: Mapping[str, str], directory: Path) -> str:
    """SECRET_KEY from the environment, else one generated once into the data directory."""
    if env.get("SECRET_KEY"):
        return env["SECRET_KEY"]
    path = directory / "secret_key"
    if not path.exists():
        # O_EXCL: two processes starting at once must not write two different keys.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text().strip()
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


def database(env: Mapping[str, str], directory: Path) -> dict[str, Any]:
    """PostgreSQL (or anything dj-database-url knows) from DATABASE_URL, else SQLite in WAL mode."""
    url = env.get("DATABASE_URL")
    if url:
        try:
            config: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=60))
        except ValueError as exc:
            raise ConfigError(f"DATABASE_URL is not a database URL: {exc}") from exc
        if config["ENGINE"].endswith("postgresql"):
            config["CONN_HEALTH_CHECKS"] = True
        return config
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(directory / "questweb.sqlite3"),
        "OPTIONS": {
            # WAL lets the web process read while the worker writes; IMMEDIATE avoids the
            # "database is locked" upgrade deadlock between two writers.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
    }


def embedded_redis_socket(directory: Path) -> Path:
    return directory / "valkey" / "valkey.sock"


def redis_url(env: Mapping[str, str], directory: Path) -> str:
    """REDIS_URL, else the unix socket of the embedded valkey server that `make run` starts."""
    url = env.get("REDIS_URL")
    if not url:
        return f"unix://{embedded_redis_socket(directory)}?db=0"
    scheme = urlsplit(url).scheme
    if scheme not in {"redis", "rediss", "unix"}:
        raise ConfigError(
            f"REDIS_URL must start with redis://, rediss:// or unix:// (got {scheme}://)"
        )
    return url


def is_embedded(env: Mapping[str, str]) -> bool:
    return not env.get("REDIS_URL")


def celery_broker_url(url: str) -> str:
    """kombu spells a redis unix socket `redis+socket://`; redis-py spells it `unix://`."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = f"?virtual_host={_db_from_query(parts.query)}"
        return f"redis+socket://{parts.path}{query}"
    return url


def _db_from_query(query: str) -> str:
    for pair in query.split("&"):
        key, _, value = pair.partition("=")
        if key == "db" and value:
            return value
    return "0"


def refuse_unsafe_celery(env: Mapping[str, str]) -> None:
    """Tasks must run in a worker process: an in-memory broker or eager mode would hide that."""
    broker = env.get("CELERY_BROKER_URL", "")
    if broker.startswith("memory://"):
        raise ConfigError("CELERY_BROKER_URL=memory:// does not cross processes; use REDIS_URL")
    if env_bool(env, "CELERY_TASK_ALWAYS_EAGER", default=False):
        raise ConfigError("CELERY_TASK_ALWAYS_EAGER would run tasks inside the web process")


def allowed_hosts(env: Mapping[str, str]) -> list[str]:
    raw = env.get("ALLOWED_HOSTS")
    if raw:
        return [host.strip() for host in raw.split(",") if host.strip()]
    return ["127.0.0.1", "localhost", "[::1]"]


def path_setting(env: Mapping[str, str], name: str, default: Path) -> Path:
    return Path(env[name]).resolve() if env.get(name) else default


def trusted_proxies(env: Mapping[str, str]) -> list[str]:
    """QUESTWEB_TRUSTED_PROXIES: the addresses or networks of the reverse proxies in front of the
    web server, comma-separated. Empty (the default): no X-Forwarded-For is believed."""
    proxies = []
    for item in env.get("QUESTWEB_TRUSTED_PROXIES", "").split(","):
        if not item.strip():
            continue
        try:
            proxies.append(str(ipaddress.ip_network(item.strip(), strict=False)))
        except ValueError:
            raise ConfigError(
                f"QUESTWEB_TRUSTED_PROXIES: {item.strip()!r} is not an address or a network "
                "(e.g. 127.0.0.1, 10.0.0.0/8, ::1)"
            ) from None
    return proxies
