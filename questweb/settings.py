"""questweb settings: one module, driven by environment variables, working with none.

With no environment at all questweb runs embedded: SQLite (WAL) and a valkey server started by
`make run` on a unix socket in the data directory. DATABASE_URL and REDIS_URL switch to a cluster.
"""

from __future__ import annotations

import os
import warnings

from questweb import config

ENV = os.environ
BASE_DIR = config.BASE_DIR
DATA_DIR = config.data_dir(ENV)

DEBUG = config.env_bool(ENV, "DEBUG", default=False)
DEFAULT_EXCEPTION_REPORTER_FILTER = "questweb.reporting.SettingsFilter"
SECRET_KEY = config.secret_key(ENV, DATA_DIR)
ALLOWED_HOSTS = config.allowed_hosts(ENV)
CSRF_TRUSTED_ORIGINS = [o for o in ENV.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "ninja",  # /api/docs then serves Swagger UI from static files instead of a CDN
    "channels",
    "django_htmx",
    "template_partials",
    "axes",
    "apps.accounts",
    "apps.jobs",
    "apps.rubrics",
    "apps.corpus",
    "apps.live",
    "apps.audit",
    "apps.synthesis",
    "apps.training",
    "apps.recipes",
    "apps.benchmarks",
]

MIDDLEWARE = [
    # REMOTE_ADDR becomes the client's address (X-Forwarded-For from trusted proxies only).
    "questweb.client_address.ClientAddressMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before CSRF: a body over DATA_UPLOAD_MAX_MEMORY_SIZE is a 413, not the 400 Django makes of it.
    "questweb.middleware.RequestSizeMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "questweb.middleware.Utf8InputMiddleware",
    "questweb.middleware.StorableInputMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "questweb.middleware.MessagesShownOnceMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "questweb.middleware.DomainErrorMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "questweb.urls"
WSGI_APPLICATION = "questweb.wsgi.application"
ASGI_APPLICATION = "questweb.asgi.application"
CSRF_FAILURE_VIEW = "questweb.views.csrf_failure"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "questweb.context_processors.navigation",
                "questweb.context_processors.judge",
            ],
        },
    },
]

DATABASES = {"default": config.database(ENV, DATA_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
# Failed logins are counted per user name and address (django-axes): 5 in a row lock that pair
# out for 15 minutes, with a styled page that says so; a success clears the count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = config.env_int(ENV, "QUESTWEB_LOGIN_FAILURES", default=5)
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "questweb.views.login_locked"
AXES_VERBOSE = False
# The reverse proxies in front of the app, whose X-Forwarded-For is believed (addresses or
# networks). None by default: the address is the socket's peer, whatever a client's header says.
TRUSTED_PROXIES = config.trusted_proxies(ENV)
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request when it is missing
# Serve straight from static/ so `make run` needs no collectstatic step.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# A rubric tree may be up to 5 MB of JSON; task files go through uploads (FILE_UPLOAD_*).
DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads it to send X-CSRFToken
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Everything a page loads comes from the app itself; no inline scripts, no plugins, no framing.
# Inline style attributes stay allowed (templates and plotly set them); scripts never.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
if config.env_bool(ENV, "HTTPS", default=False):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Redis (cluster) or the embedded valkey server: one code path for Celery and Channels.
REDIS_URL = config.redis_url(ENV, DATA_DIR)
EMBEDDED = config.is_embedded(ENV)

config.refuse_unsafe_celery(ENV)
CELERY_BROKER_URL = config.celery_broker_url(REDIS_URL)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 6 * 3600}
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")

CHANNEL_LAYERS = {
    "default": {
        # Redis pub/sub: a group message is published once and each web process fans it out to
        # its own viewers in memory. The list-based core layer pops one message per viewer from
        # Redis, which took p50 from 6 ms to 50-110 ms at 200 viewers of one session
        # (benchmarks/live_bench.py). Pub/sub drops what nobody listens to; live viewers recover
        # anything they miss by seq from the database (apps/live/consumers.py).
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {
            # socket_timeout None: with redis-py 8 a finite timeout kills idle consumers (see
            # channels_redis #422 and shared/notes/embedded-mode.md).
            "hosts": [{"address": REDIS_URL, "socket_timeout": None}],
            "prefix": "questweb",
        },
    }
}

API_TOKEN_PREFIX = "qw_"

# The offline web: documents, passages and search indexes (quest.corpus / quest.search format).
CORPUS_DIR = config.path_setting(ENV, "QUESTWEB_CORPUS_DIR", DATA_DIR / "corpus")
# Sources google_scholar searches (comma-separated source names of the corpus).
SCHOLAR_SOURCES = [s for s in ENV.get("QUESTWEB_SCHOLAR_SOURCES", "wikipedia").split(",") if s]
# The QUEST-compatible tool service (/tools/…) answers loopback callers, or callers sending
# this token as a bearer token when it is set.
TOOLS_TOKEN = ENV.get("QUESTWEB_TOOLS_TOKEN", "")
TOOLS_OPEN = config.env_bool(ENV, "QUESTWEB_TOOLS_OPEN", default=False)

# LLM endpoints for the llm policy besides those admins add in the database: a JSON list of
# {"url", "model", "api_key"} objects or `url|model` pairs separated by commas.
LLM_ENDPOINTS = ENV.get("QUESTWEB_LLM_ENDPOINTS", "")
# Models a gpu worker loads in-process with vLLM, offered as `vllm:<model>` (comma-separated).
LLM_VLLM_MODELS = [f"vllm:{m}" for m in ENV.get("QUESTWEB_VLLM_MODELS", "").split(",") if m]
# The model that judges rubric leaves: of sessions (never an llm session running this same
# model: a policy does not grade itself), of probes and of reference solutions. Empty: judge
# leaves stay undecided and the pages say so.
LLM_JUDGE_MODEL = ENV.get("QUESTWEB_JUDGE_MODEL", "")
# A running session with no event for this long is marked stalled by the watchdog.
LIVE_STALL_AFTER_SECONDS = int(ENV.get("QUESTWEB_LIVE_STALL_AFTER_SECONDS", "300"))
# A task import running for longer than this is ended, failed, by the watchdog.
IMPORT_TIMEOUT_MINUTES = config.env_int(ENV, "QUESTWEB_IMPORT_TIMEOUT_MINUTES", default=30)
# A running synthesis batch that writes no candidate for this long is ended, failed (its worker
# probably died); one candidate, its probes and its baseline run take seconds.
SYNTHESIS_STALL_MINUTES = config.env_int(ENV, "QUESTWEB_SYNTHESIS_STALL_MINUTES", default=30)

# Training datasets (datasets/<id>/) and runs (runs/<id>/: checkpoints, metrics, logs).
TRAINING_DIR = config.path_setting(ENV, "QUESTWEB_TRAINING_DIR", DATA_DIR / "training")
# A running training job, dataset build or evaluation whose worker has not reported for this
# long is ended, failed: its worker died (the supervisor reports every few seconds, whatever
# the length of a step).
TRAINING_STALL_SECONDS = config.env_int(ENV, "QUESTWEB_TRAINING_STALL_SECONDS", default=180)

# Public benchmark files (question files, corpora, saved responses, uploads/) and runs
# (runs/<id>/: rows, results.json, the corpus index). A run reads files only from here.
BENCHMARKS_DIR = config.path_setting(ENV, "QUESTWEB_BENCHMARKS_DIR", DATA_DIR / "benchmarks")
# A running benchmark run whose worker has not reported for this long is ended, failed (a
# question reports every few seconds, however long it takes; loading a model does not).
BENCHMARK_STALL_SECONDS = config.env_int(ENV, "QUESTWEB_BENCHMARK_STALL_SECONDS", default=900)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_tokens": {"()": "questweb.logging.RedactTokensFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_tokens"],
        }
    },
    "root": {"handlers": ["console"], "level": ENV.get("LOG_LEVEL", "INFO")},
}

# WhiteNoise hands Django's ASGI handler a file iterator that is synchronous; Django serves it
# correctly and warns on every static file. Behind a proxy in a cluster, /static never gets here.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)
