"""FactCrowd settings, read from the environment (django-environ) with embedded defaults.

Defaults run everything on one machine with no server: an SQLite file, a filesystem Celery broker,
and the embedded parser. Production sets DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis).
"""
from pathlib import Path

import environ
from django.core.checks.security.base import SECRET_KEY_INSECURE_PREFIX as _SECRET_KEY_INSECURE_PREFIX
from django.core.checks.security.base import SECRET_KEY_MIN_LENGTH as _SECRET_KEY_MIN_LENGTH
from django.core.checks.security.base import SECRET_KEY_MIN_UNIQUE_CHARACTERS as _SECRET_KEY_MIN_UNIQUE
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("FACTCROWD_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env(
    DEBUG=(bool, False),
    ALLOWED_HOSTS=(list, ["localhost", "127.0.0.1", "[::1]", "testserver"]),
)
environ.Env.read_env(BASE_DIR / ".env", overwrite=False) if (BASE_DIR / ".env").exists() else None

DEBUG = env("DEBUG")
# The signing key of assignment tokens, invites and sessions. The public development key below is used with DEBUG
# on only: outside DEBUG a real key is required, from SECRET_KEY or from the file SECRET_KEY_FILE (default
# var/secret_key in the checkout, written with a random key by scripts/setup.sh), or nothing starts.
DEV_SECRET_KEY = "dev-only-insecure-key-change-me-in-production"
SECRET_KEY = env.str("SECRET_KEY", default="")
_SECRET_KEY_FILE = Path(env.str("SECRET_KEY_FILE", default=str(BASE_DIR / "var" / "secret_key")))
if not SECRET_KEY and _SECRET_KEY_FILE.is_file():
    SECRET_KEY = _SECRET_KEY_FILE.read_text().strip()
if not SECRET_KEY and DEBUG:
    SECRET_KEY = DEV_SECRET_KEY
if not SECRET_KEY or (SECRET_KEY == DEV_SECRET_KEY and not DEBUG):
    raise ImproperlyConfigured(
        "SECRET_KEY is not set: set the SECRET_KEY environment variable to a long random value (or SECRET_KEY_FILE "
        f"to a file holding one; scripts/setup.sh writes {_SECRET_KEY_FILE}). The public development key is "
        "accepted only with DEBUG=true."
    )
# A guessable key forges sessions, invites and assignment tokens: outside DEBUG a key Django's security.W009 would
# call weak (under 50 characters, under 5 different ones, or "django-insecure-...") stops the start, not a warning.
if not DEBUG and (len(SECRET_KEY) < _SECRET_KEY_MIN_LENGTH or len(set(SECRET_KEY)) < _SECRET_KEY_MIN_UNIQUE
                  or SECRET_KEY.startswith(_SECRET_KEY_INSECURE_PREFIX)):
    raise ImproperlyConfigured(
        f"SECRET_KEY is too weak: {len(SECRET_KEY)} characters, {len(set(SECRET_KEY))} different; outside DEBUG it "
        f"needs at least {_SECRET_KEY_MIN_LENGTH} characters with at least {_SECRET_KEY_MIN_UNIQUE} different ones "
        f"and no {_SECRET_KEY_INSECURE_PREFIX!r} prefix (Django's security.W009). Make one with: python -c "
        "'import secrets; print(secrets.token_urlsafe(50))'"
    )
ALLOWED_HOSTS = env("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "django_celery_results",
    "annotation_tasks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves the built element and dashboard in production (gunicorn serves no static files).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Sees FrameAncestors' policy and adds the script policy (per-request nonce) to every HTML page.
    "annotation_tasks.middleware.ContentSecurityPolicyMiddleware",
    # After XFrameOptions: unit pages get CSP frame-ancestors for the crowd platforms instead of DENY.
    "annotation_tasks.middleware.FrameAncestorsMiddleware",
    # A body over the limits under /api/ gets a JSON 413 before anything reads it.
    "annotation_tasks.middleware.ApiBodyLimitMiddleware",
    # A database outage raised by a view is a 503 with Retry-After (JSON under /api/), not a 500.
    "annotation_tasks.db_outage.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "backend.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = "backend.wsgi.application"

VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'factcrowd.sqlite3'}")}
if not DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Persistent connections (one per gunicorn thread): opening a PostgreSQL connection per request cost the web
    # and the database a backend start each time (bench/bench_load.py). The health check at a request's start
    # drops a connection the server closed (a PostgreSQL restart) instead of failing the request with it.
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=300))
    DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", env.bool("CONN_HEALTH_CHECKS", default=True))
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # the same backend, with a health check that polls the socket instead of sending SELECT 1 each request
        DATABASES["default"]["ENGINE"] = "backend.postgresql"
        # Server-side binding with prepared statements: a query run 5 times on a connection is prepared, so
        # PostgreSQL stops parsing and planning it on each request. On the annotator's hot path planning cost
        # more than running (EXPLAIN ANALYZE: `next`'s queries ~2.5 ms planning, ~0.9 ms executing); the server's
        # CPU per request fell by about a quarter (bench/bench_load.py). Set DB_SERVER_SIDE_BINDING=false behind a
        # pooler in transaction mode (pgbouncer < 1.21), which cannot keep a connection's prepared statements.
        if env.bool("DB_SERVER_SIDE_BINDING", default=True):
            DATABASES["default"].setdefault("OPTIONS", {}).update(
                server_side_binding=True, prepare_threshold=env.int("DB_PREPARE_THRESHOLD", default=5))
# How long an SQLite writer waits for the database-wide write lock before "database is locked".
SQLITE_BUSY_TIMEOUT_SECONDS = env.int("SQLITE_BUSY_TIMEOUT_SECONDS", default=30)
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # One write discipline for every SQLite writer (web, worker, beat), instead of retries at call sites:
    # - IMMEDIATE: every transaction.atomic() takes the write lock when it begins, so a transaction that reads
    #   and then writes never has to upgrade a read lock, which SQLite refuses at once (no busy wait) when
    #   another connection wrote meanwhile: that is the "database is locked" a long parse met under beat.
    # - WAL: readers never block the writer nor the writer readers; synchronous=NORMAL is safe in WAL mode.
    # - busy_timeout (and the driver's timeout): a writer waits its turn instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE",
        timeout=SQLITE_BUSY_TIMEOUT_SECONDS,
        init_command=(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
            f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_SECONDS * 1000}"
        ),
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing folder
# Serve app static files (the built element and dashboard) without collectstatic, also with DEBUG off: `make run`
# uses runserver, which serves nothing itself when DEBUG is off. Production runs collectstatic as well.
WHITENOISE_USE_FINDERS = True

# Crowd platforms frame the unit page: only their origins may (CSP frame-ancestors).
X_FRAME_OPTIONS = "DENY"
FRAME_ANCESTORS = env.list(
    "FRAME_ANCESTORS",
    default=[
        "'self'",
        "https://workersandbox.mturk.com",
        "https://worker.mturk.com",
        "https://www.mturk.com",
        "https://app.prolific.com",
        "https://app.prolific.co",
    ],
)

# HTTPS (production behind a TLS proxy): on by default outside DEBUG when PUBLIC_BASE_URL is https://, as in docker/;
# `make run` (http://127.0.0.1) keeps plain cookies. Each setting can be overridden on its own.
SECURE_HTTPS = env.bool(
    "SECURE_HTTPS", default=not DEBUG and env.str("PUBLIC_BASE_URL", default="").startswith("https://")
)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=SECURE_HTTPS)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=SECURE_HTTPS)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=SECURE_HTTPS)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=SECURE_HTTPS)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=SECURE_HTTPS)
# The proxy terminates TLS and says so in X-Forwarded-Proto (it must overwrite a client's own header).
if env.bool("SECURE_PROXY_SSL_HEADER", default=SECURE_HTTPS):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Script CSP on every HTML page (annotation_tasks.middleware.ContentSecurityPolicyMiddleware): scripts from this
# origin and nonce-carrying inline scripts only. The paths listed keep their own scripts (Swagger UI, the admin).
CSP_ENABLED = env.bool("CSP_ENABLED", default=True)
CSP_EXEMPT_PATHS = env.list("CSP_EXEMPT_PATHS", default=["/api/docs/", "/admin/"])

# Rate limits (DRF throttling; a cache shared by all web processes in production: CACHE_URL, e.g. redis://...).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# Redis down must not mean 500s on the login page, the token endpoint or a crowd entry: a redis:// cache falls back
# to a local in-process cache with a logged warning while Redis cannot be reached (annotation_tasks.resilient_cache).
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "annotation_tasks.resilient_cache.FallbackRedisCache"
# What a large project's queue table, label counts and report are kept in (services/derived.py): built by the Celery
# worker, read by every web worker, so a cache they share: the default cache when it is one (redis), else files in
# VAR_DIR (Django's FileBasedCache: pickled and zlib-compressed; the embedded default runs its web and Celery
# workers on one machine). DERIVED_CACHE_URL overrides it (e.g. redis:// for workers on several machines).
if env.str("DERIVED_CACHE_URL", default=""):
    CACHES["derived"] = env.cache("DERIVED_CACHE_URL")
elif "locmem" in CACHES["default"]["BACKEND"].lower() or "dummy" in CACHES["default"]["BACKEND"].lower():
    CACHES["derived"] = {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                         "LOCATION": str(VAR_DIR / "derived-cache"), "TIMEOUT": 24 * 3600,
                         "OPTIONS": {"MAX_ENTRIES": 1000}}
else:
    CACHES["derived"] = CACHES["default"]
LOGIN_RATE = env.str("LOGIN_RATE", default="10/min")  # failed logins per client address (pages and token)
# Platform workers the platform cannot vouch for yet (MTurk before a submit) one client address may bring into one
# project per hour; more get 429 (annotation_tasks.pages._unverified_flood). A worker seen before is not counted.
UNVERIFIED_ENTRIES_PER_CLIENT = env.int("UNVERIFIED_ENTRIES_PER_CLIENT", default=5)
# Whose X-Forwarded-For the rate limits above believe (annotation_tasks.client_address): TRUSTED_PROXIES lists the
# proxies' addresses or networks ("127.0.0.1,10.0.0.0/8"), or NUM_PROXIES says how many stand in front. Default
# neither: the connection's own address (REMOTE_ADDR), so a made-up header never makes a new client.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
NUM_PROXIES = env.int("NUM_PROXIES", default=0)
try:
    import ipaddress as _ipaddress

    [_ipaddress.ip_network(_p, strict=False) for _p in TRUSTED_PROXIES]
except ValueError as _exc:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES: {_exc} (give addresses or networks, comma-separated)") from None
# API tokens (POST /api/auth/token/) expire this many hours after they were issued; a new POST issues a new one.
API_TOKEN_MAX_AGE_HOURS = env.float("API_TOKEN_MAX_AGE_HOURS", default=24.0 * 7)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "annotation_tasks.api.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # JSON errors everywhere under /api/ (annotation_tasks.api.errors), never an HTML page or a 500 for bad input.
    "EXCEPTION_HANDLER": "annotation_tasks.api.errors.exception_handler",
    "DEFAULT_PARSER_CLASSES": [
        "annotation_tasks.api.parsers.JSONParser",  # too deep a nesting is a 400, not a RecursionError
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_RATES": {"login": LOGIN_RATE},
    "NUM_PROXIES": NUM_PROXIES,  # DRF's own get_ident; ours (client_address) also reads TRUSTED_PROXIES
}
SPECTACULAR_SETTINGS = {
    "TITLE": "FactCrowd API",
    "DESCRIPTION": "Human evaluation of factual consistency: projects, units, assignments, labels, reports.",
    "VERSION": "0.1.0",
    # The schema is for signed-in researchers and their scripts (token or session), not for the world.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Several models have a `status` (and `kind`) with their own TextChoices: one enum name per choice set.
    "ENUM_NAME_OVERRIDES": {
        "JobStatusEnum": "annotation_tasks.models.projects.Job.Status",
        "JobKindEnum": "annotation_tasks.models.projects.Job.Kind",
        "WorkerStatusEnum": "annotation_tasks.models.work.Worker.Status",
        "BatchStatusEnum": "annotation_tasks.models.work.Batch.Status",
        "UnitStatusEnum": "annotation_tasks.models.work.Unit.Status",
        "AssignmentStatusEnum": "annotation_tasks.models.work.Assignment.Status",
        "QualityDecisionStatusEnum": "annotation_tasks.models.work.QualityDecision.Status",
        "QualityDecisionActionEnum": "annotation_tasks.models.work.QualityDecision.Action",
    },
}

# Celery: a broker that needs no server by default (filesystem), Redis in production.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
_BROKER_DIR = VAR_DIR / "celery-broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    for _sub in ("queue", "processed", "control"):
        (_BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "processed_folder": str(_BROKER_DIR / "processed"),
        "store_processed": False,
        "control_folder": str(_BROKER_DIR / "control"),
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # acks_late on Redis: a delivered message stays "unacked" until the task ends; one whose worker was killed
    # is delivered again after the visibility timeout (swept every CELERY_UNACKED_RESTORE_SECONDS). A second
    # delivery of a Job that is still alive is refused by services.jobs.claim, so the timeout need not exceed
    # the longest Job; it should exceed JOB_STALL_SECONDS, so the dead worker's Job has stalled by then.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.float("CELERY_VISIBILITY_TIMEOUT_SECONDS", default=600.0),
        "unacked_restore_interval": env.float("CELERY_UNACKED_RESTORE_SECONDS", default=30.0),
        "unacked_restore_throttle": 1,
    }
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="django-db")
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # a worker holds one message at a time: a killed one gives back one Job
# A prefork child whose resident memory is past this many KiB after a task is replaced by a fresh one: a large
# project's report build leaves ~280 MB behind in the child (pandas' and Arrow's freed pages), and the next export's
# peak stacked on it (an HF dataset job 246 -> 338 MB at 10^6 labels). Celery's own setting; 0 turns it off.
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env.int("CELERY_WORKER_MAX_MEMORY_PER_CHILD", default=250_000)
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # a prefork child killed mid-task: its message goes back to the queue
# Background Jobs (services/jobs.py): a running Job writes its heartbeat at least every JOB_HEARTBEAT_SECONDS;
# one without a heartbeat for JOB_STALL_SECONDS has lost its worker and is shown "stalled" with a Resume action,
# and beat resumes it every JOB_RESUME_SECONDS where that is safe (parse, import, sync; not publish).
JOB_HEARTBEAT_SECONDS = env.float("JOB_HEARTBEAT_SECONDS", default=10.0)
JOB_STALL_SECONDS = env.float("JOB_STALL_SECONDS", default=120.0)
# A queued Job no worker has claimed for this long has lost its broker message (or waits behind a long queue): it is
# shown "stalled" with Resume, and beat sends it again (a claim is conditional: a Job sent twice runs once).
JOB_QUEUE_STALL_SECONDS = env.float("JOB_QUEUE_STALL_SECONDS", default=600.0)
CELERY_BEAT_SCHEDULE = {
    "sync-crowd-submissions": {
        "task": "annotation_tasks.sync_open_batches",
        "schedule": env.float("CROWD_SYNC_SECONDS", default=300.0),
    },
    "expire-abandoned-assignments": {
        "task": "annotation_tasks.expire_abandoned_assignments",
        "schedule": env.float("ASSIGNMENT_EXPIRY_SECONDS", default=60.0),
    },
    "resume-stalled-jobs": {
        "task": "annotation_tasks.resume_stalled_jobs",
        "schedule": env.float("JOB_RESUME_SECONDS", default=60.0),
    },
}

# Parsing. Models never download at run time: T5_MODEL_DIR is a local directory.
PARSER_BACKEND = env.str("PARSER_BACKEND", default="embedded")
T5_MODEL_DIR = env.str("T5_MODEL_DIR", default="")
NOMINALIZATION_MODEL_DIR = env.str("NOMINALIZATION_MODEL_DIR", default="")
ATOMIC_FACTS_BACKEND = env.str("ATOMIC_FACTS_BACKEND", default="embedded")
LLM_BASE_URL = env.str("LLM_BASE_URL", default="")
LLM_API_KEY = env.str("LLM_API_KEY", default="")
LLM_MODEL = env.str("LLM_MODEL", default="")
# The llm atomic-facts backend's demonstration set and instruction template (files; empty: parser/data/ defaults)
ATOMIC_FACTS_DEMOS = env.str("ATOMIC_FACTS_DEMOS", default="")
ATOMIC_FACTS_PROMPT = env.str("ATOMIC_FACTS_PROMPT", default="")
# Automatic scorers (docs/scoring.md): nli loads a local directory; llm uses SCORER_LLM_* else the LLM_* above.
SCORER_NLI_MODEL_DIR = env.str("SCORER_NLI_MODEL_DIR", default="")
SCORER_DEVICE = env.str("SCORER_DEVICE", default="")  # "" = cuda when present, else cpu
SCORER_BATCH_SIZE = env.int("SCORER_BATCH_SIZE", default=16)
SCORER_DTYPE = env.str("SCORER_DTYPE", default="auto")  # auto = bfloat16 on a GPU with it, else float32
SCORER_NLI_BACKEND = env.str("SCORER_NLI_BACKEND", default="auto")  # auto | torch | onnx (docs/scoring.md)
SCORER_NLI_ONNX_FILE = env.str("SCORER_NLI_ONNX_FILE", default="")  # "" = model_quantized.onnx, else model.onnx
SCORER_LLM_BASE_URL = env.str("SCORER_LLM_BASE_URL", default="")
SCORER_LLM_MODEL = env.str("SCORER_LLM_MODEL", default="")
SCORER_LLM_TEMPLATE = env.str("SCORER_LLM_TEMPLATE", default="")  # a prompt file replacing the default

# Crowd platforms. MTurk uses the sandbox unless MTURK_PRODUCTION is set explicitly.
CROWD_DEFAULT_PROVIDER = env.str("CROWD_DEFAULT_PROVIDER", default="local")
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000")
MTURK_PRODUCTION = env.bool("MTURK_PRODUCTION", default=False)
MTURK_ENDPOINT_URL = env.str("MTURK_ENDPOINT_URL", default="")
# turkSubmitTo must be MTurk's worker site (production or sandbox); this adds one origin (a loopback fake in tests)
MTURK_SUBMIT_TEST_ORIGIN = env.str("MTURK_SUBMIT_TEST_ORIGIN", default="")
AWS_ACCESS_KEY_ID = env.str("AWS_ACCESS_KEY_ID", default="")
AWS_SECRET_ACCESS_KEY = env.str("AWS_SECRET_ACCESS_KEY", default="")
PROLIFIC_API_URL = env.str("PROLIFIC_API_URL", default="https://api.prolific.com/api/v1")
PROLIFIC_API_TOKEN = env.str("PROLIFIC_API_TOKEN", default="")
PROLIFIC_WORKSPACE_ID = env.str("PROLIFIC_WORKSPACE_ID", default="")  # balance check and participant groups
PROLIFIC_APP_URL = env.str("PROLIFIC_APP_URL", default="")  # completion redirect origin (default app.prolific.com)
PROLIFIC_FEE_RATE = env.str("PROLIFIC_FEE_RATE", default="0.3333")
PROLIFIC_CURRENCY = env.str("PROLIFIC_CURRENCY", default="GBP")
# Platform calls per second while publishing many units (MTurk throttles bursts).
CROWD_PUBLISH_RATE = env.float("CROWD_PUBLISH_RATE", default=5.0)
# Overrides of annotation_tasks.services.quality.DEFAULT_POLICY (JSON), e.g. {"min_gold_accuracy": 0.8}.
QUALITY_POLICY = env.json("QUALITY_POLICY", default={})

# Imports (docs/import-export.md): a JSONL line longer than IMPORT_MAX_LINE_BYTES, or any one text field (or CSV
# cell) longer than IMPORT_MAX_TEXT_CHARS characters, stops the import with a located error before it is parsed
# further: one huge line cannot take the worker's memory, and no worker is sent a novel to read.
IMPORT_MAX_LINE_BYTES = env.int("IMPORT_MAX_LINE_BYTES", default=8 * 1024 * 1024)
IMPORT_MAX_TEXT_CHARS = env.int("IMPORT_MAX_TEXT_CHARS", default=200_000)

# The element's drafts (PUT /api/work/<token>/draft): at most this deep (JSON nesting) and this large (bytes).
WORK_DRAFT_MAX_DEPTH = env.int("WORK_DRAFT_MAX_DEPTH", default=20)
WORK_DRAFT_MAX_BYTES = env.int("WORK_DRAFT_MAX_BYTES", default=512 * 1024)

# Work units: how long a local annotator may hold an assignment before it returns to the queue.
ASSIGNMENT_TIMEOUT_MINUTES = env.int("ASSIGNMENT_TIMEOUT_MINUTES", default=60)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
