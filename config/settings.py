"""GEC Arena settings: one file, every value from the environment.

Embedded defaults run the product on one machine with nothing installed:
SQLite and eager Celery when DATABASE_URL / CELERY_BROKER_URL are unset.
docker-compose.yml and CI set them to PostgreSQL and Redis. Every variable is
listed in .env.example. A bad value stops start-up with ImproperlyConfigured.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true/false)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)  # production (compose) sets DEBUG=false
_DEV_SECRET = "insecure-dev-key-only-for-local-runs-never-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false (see .env.example)")
    SECRET_KEY = _DEV_SECRET
elif not DEBUG:
    # Django flags a weak key only under `check --deploy` (security.W009); production refuses it at start-up.
    from django.core.checks.security.base import SECRET_KEY_WARNING_MSG, _check_secret_key

    if not _check_secret_key(SECRET_KEY):
        raise ImproperlyConfigured(
            (SECRET_KEY_WARNING_MSG % "SECRET_KEY")
            + ' Generate one: python -c "import secrets; print(secrets.token_urlsafe(50))"'
        )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "annotate",
    "ranking",
    "crowd",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.security.DatabaseUnavailableMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # a worker's 404 is a plain page, and an upload past its bound the 413 page, DEBUG or not
    "config.not_found.PlainNotFoundMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "annotate.context.roles",
                "annotate.projects.context.nav",
            ],
        },
    },
]

# Database: SQLite next to the code unless DATABASE_URL says otherwise.
_DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if _DATABASE_URL:
    try:
        # Persistent connections, checked before each request reuses one: after a database restart
        # the first request must not inherit a connection that died with the old server.
        DATABASES = {
            "default": dj_database_url.parse(_DATABASE_URL, conn_max_age=60, conn_health_checks=True)
        }
    except Exception as exc:  # dj-database-url raises several types for bad URLs
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from None
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
# Every password check is counted by the login limiter (config/security.py).
AUTHENTICATION_BACKENDS = ["config.security.RateLimitedModelBackend"]
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# Uploads kept between two requests (the judgment import's preview): file storage, never the session.
# Not served: nothing under it is public. docker-compose.yml mounts a volume here.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", "").strip() or BASE_DIR / "media")
# geceval's content-addressed cache of spaCy parses, ERRANT edits and ensemble features (issue 43):
# one folder per deployment, shared by web and worker processes (its entries are written atomically).
GECEVAL_CACHE = os.environ.get("GECEVAL_CACHE", "").strip() or str(Path.home() / ".cache" / "geceval")
# Its cap in megabytes (0: none): past it, the least recently used entries are deleted (geceval.cache).
GECEVAL_CACHE_MAX_MB = env_int("GECEVAL_CACHE_MAX_MB", 1024)
if GECEVAL_CACHE_MAX_MB < 0:
    raise ImproperlyConfigured(
        f"GECEVAL_CACHE_MAX_MB={GECEVAL_CACHE_MAX_MB}: 0 (no cap) or a positive size in MB"
    )
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Uploads: corpora and system outputs are read in memory and validated whole. UPLOAD_MAX_BYTES also
# bounds a gzip-compressed input after decompression (geceval.formats.inputs), uploaded or read by a command.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 50 * 1024 * 1024)
# Judgment files (the import of past results, crowd/import/) have their own bound: a WMT CSV or PRWS
# CSV over IMPORT_COMPACT_BYTES is streamed, never held whole (crowd.importing.compact), so its size
# costs time and disk, not memory (a million pairwise judgments: 51 MB, just under UPLOAD_MAX_BYTES).
# It bounds that upload while it streams (413) and the file's decompressed size when the background
# job or import_judgments streams it. Files read whole (MTurk CSV, Appraise XML, small files) keep
# UPLOAD_MAX_BYTES.
JUDGMENT_UPLOAD_MAX_BYTES = env_int("JUDGMENT_UPLOAD_MAX_BYTES", 1024 * 1024 * 1024)
# WMT CSV and PRWS CSV judgment files larger than this import in the compact form (streamed, COPY;
# crowd.importing.compact); smaller ones keep one screen per judgment.
IMPORT_COMPACT_BYTES = env_int("IMPORT_COMPACT_BYTES", 5 * 1024 * 1024)
# Web uploads larger than this (all files of one upload together) are imported by a Celery task with
# a progress page (annotate.jobs); smaller ones inline, as the request waits. A running import holds
# a lease its worker renews (about once a second); past IMPORT_JOB_LEASE_SECONDS without renewal its
# worker is presumed dead (its transaction died with it: nothing was saved) and beat sends the job
# again, up to 3 starts, then fails it (annotate.jobs.services).
IMPORT_INLINE_MAX_BYTES = env_int("IMPORT_INLINE_MAX_BYTES", 2 * 1024 * 1024)
IMPORT_JOB_LEASE_SECONDS = env_int("IMPORT_JOB_LEASE_SECONDS", 120)
# A typed M2 export (ERRANT annotates every reference; issue 40 saw a corpus's take 13 s) of a
# corpus with more sentences than this runs as a background job whose page shows its progress per
# (sentence, reference) and offers the file when done (issue 40); a smaller one is written inline.
EXPORT_INLINE_MAX_SENTENCES = env_int("EXPORT_INLINE_MAX_SENTENCES", 500)
# Such a background export's file (MEDIA_ROOT/exports/jobs/) is kept this many days after the job
# ended; then beat deletes it and the job's page says when (annotate.jobs.retention). 0 keeps them all.
EXPORT_JOB_FILES_KEEP_DAYS = env_int("EXPORT_JOB_FILES_KEEP_DAYS", 7)
if EXPORT_JOB_FILES_KEEP_DAYS < 0:
    raise ImproperlyConfigured("EXPORT_JOB_FILES_KEEP_DAYS must be 0 (keep them all) or more")
# What one upload may cost in memory above the process's baseline (web process and Celery worker
# alike), in bytes: every import streams its file (annotate.streaming) and tests/hardening/
# test_upload_memory.py measures the peak against this bound.
UPLOAD_MEMORY_MAX_BYTES = env_int("UPLOAD_MEMORY_MAX_BYTES", 200 * 1024 * 1024)
# Imported metric scores (ranking.analysis.imported_scores): a CSV or TSV streams, at most
# IMPORTED_SCORES_MAX scores a file (500,000 kept scores are ~70 MB as Python objects and ~10 MB of
# JSON for the database; CoNLL-14 x 15 systems is 19,680); a JSON file is parsed whole, so it is bounded
# after decompression by IMPORTED_SCORES_JSON_MAX_BYTES (2 MB of the worst JSON costs ~50 MB parsed).
IMPORTED_SCORES_MAX = env_int("IMPORTED_SCORES_MAX", 500_000)
IMPORTED_SCORES_JSON_MAX_BYTES = env_int("IMPORTED_SCORES_JSON_MAX_BYTES", 2 * 1024 * 1024)
# A corpus is saved as one Output row per system per sentence, in one transaction: its sentences x
# systems ("cells") are bounded while the file is checked, since a few KB of gzip could otherwise name
# 200 systems for a million sentences (200M rows). 20,000,000 admits a full-size corpus (1,000,000
# sentences, the limit) with up to 19 systems and references, and every public one with room to
# spare (JFLEG: 747 x 4 references; CoNLL-14: 1,312 x 13 systems), at a cost of a few GB of
# database rows; a corpus past it is refused with a message naming the setting.
CORPUS_MAX_CELLS = env_int("CORPUS_MAX_CELLS", 20_000_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
# Every file part is counted while it streams; past UPLOAD_MAX_BYTES (JUDGMENT_UPLOAD_MAX_BYTES for a
# view marked with annotate.decorators.upload_bound) the request answers 413 (config/uploads.py:
# those thresholds alone do not bound file parts).
FILE_UPLOAD_HANDLERS = [
    "config.uploads.BoundedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# Celery: eager (in-process, synchronous) when no broker is configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "").strip()
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "gec-arena")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
# A worker child whose resident size passed this many MB when a task ended is replaced by a fresh
# one (Celery's worker_max_memory_per_child, prefork pool; never in the middle of a task). The
# scorers' in-process memos are capped by entries, not bytes, and a long-lived child scoring many
# test sets could hold over 2 GB of them (docs/benchmarks.md, "Memory of the in-process memos");
# freed heap also hides growth from the upload MemoryGuard. 0: never replaced for memory.
CELERY_WORKER_MAX_MEMORY_MB = env_int("CELERY_WORKER_MAX_MEMORY_MB", 1024)
if CELERY_WORKER_MAX_MEMORY_MB < 0:
    raise ImproperlyConfigured("CELERY_WORKER_MAX_MEMORY_MB must be 0 (no limit) or more")
CELERY_WORKER_MAX_MEMORY_PER_CHILD = CELERY_WORKER_MAX_MEMORY_MB * 1024 or None  # KiB
# Repairs run by `celery beat` (docker-compose's beat service). Postgres is the record: each task
# redoes from the database what a message lost while the broker was down would have done, so
# queued work resumes by itself once Redis is back. Overdue HITs return to the pool every minute.
CELERY_REPAIR_SECONDS = env_int("CELERY_REPAIR_SECONDS", 300)
# A running analysis chunk holds a lease its progress renews (about twice a second); past this
# many seconds without a sign of life its worker is presumed dead and beat sends the chunk again.
ANALYSIS_CHUNK_LEASE_SECONDS = env_int("ANALYSIS_CHUNK_LEASE_SECONDS", 120)
# A ranking run or PRWS summary of a compact imported campaign of more entries (one system's rank
# or score in a judgment) than this is frozen in parts (a share of the sentences each), one task per
# part, so no worker process reads them all.
ANALYSIS_FREEZE_ENTRIES_PER_PART = env_int("ANALYSIS_FREEZE_ENTRIES_PER_PART", 400_000)
if ANALYSIS_FREEZE_ENTRIES_PER_PART < 1:
    raise ImproperlyConfigured("ANALYSIS_FREEZE_ENTRIES_PER_PART must be at least 1")
if CELERY_REPAIR_SECONDS < 1:
    raise ImproperlyConfigured("CELERY_REPAIR_SECONDS must be at least 1")
CELERY_BEAT_SCHEDULE = {
    "expire-assignments": {
        "task": "ranking.tasks.task_expire_assignments",
        "schedule": float(min(60, CELERY_REPAIR_SECONDS)),
    },
    # issue 35: finished MTurk and Prolific HITs are held until the platform confirms the submission
    "confirm-held-work": {
        "task": "crowd.tasks.task_confirm_held",
        "schedule": float(CELERY_REPAIR_SECONDS),
    },
    "recompute-active-campaigns": {
        "task": "ranking.tasks.task_recompute_active_campaigns",
        "schedule": float(CELERY_REPAIR_SECONDS),
    },
    "grade-pending-qualifications": {
        "task": "annotate.rewrites.tasks.task_grade_pending_qualifications",
        "schedule": float(CELERY_REPAIR_SECONDS),
    },
    # a chunk whose worker gave no sign of life for ANALYSIS_CHUNK_LEASE_SECONDS is sent again
    "reclaim-analysis-chunks": {
        "task": "ranking.analysis.tasks.task_reclaim_chunks",
        "schedule": float(min(60, CELERY_REPAIR_SECONDS)),
    },
    # a lost message, or a job whose worker gave no sign of life for IMPORT_JOB_LEASE_SECONDS
    "repair-import-jobs": {
        "task": "annotate.jobs.tasks.task_import_repair",
        "schedule": float(min(60, CELERY_REPAIR_SECONDS)),
    },
    # issue 40: a background export's file past EXPORT_JOB_FILES_KEEP_DAYS is deleted
    "expire-export-files": {
        "task": "annotate.jobs.tasks.task_export_files_expire",
        "schedule": 3600.0,
    },
    "resume-stalled-analysis-runs": {
        "task": "ranking.analysis.tasks.task_resume_stale_runs",
        "schedule": float(CELERY_REPAIR_SECONDS),
        # a run still pending after one repair interval lost its start message (broker down)
        "kwargs": {"pending_after_seconds": CELERY_REPAIR_SECONDS},
    },
}
if CELERY_BROKER_URL and not CELERY_BROKER_URL.startswith(("redis://", "rediss://", "amqp://", "memory://")):
    raise ImproperlyConfigured(f"CELERY_BROKER_URL={CELERY_BROKER_URL!r}: expected a redis:// or amqp:// URL")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # bounded page size and a JSON parser that answers 400 to absurd nesting (config/rest.py)
    "DEFAULT_PAGINATION_CLASS": "config.rest.BoundedLimitOffsetPagination",
    "DEFAULT_PARSER_CLASSES": [
        "config.rest.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GEC Arena API",
    "DESCRIPTION": "Corpora, systems, judgment campaigns and results of GEC Arena.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Production hardening follows DEBUG; each can be overridden.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", False) else None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp through config/security.py): on in production; every asset is
# local, no inline script. The policy is header text here (one variable replaces it), not django-csp's
# dict, and "csp" stays out of INSTALLED_APPS: its system check would take CSP_REPORT_ONLY for a 3.x setting.
CSP_ENABLED = env_bool("CSP_ENABLED", not DEBUG)
CSP_REPORT_ONLY = env_bool("CSP_REPORT_ONLY", False)
CONTENT_SECURITY_POLICY = os.environ.get("CONTENT_SECURITY_POLICY", "").strip() or (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
)

# Login rate limit (config/security.py): failures per client IP + username, and per IP, in a window.
LOGIN_FAILURES_MAX = env_int("LOGIN_FAILURES_MAX", 5)
LOGIN_FAILURES_MAX_PER_IP = env_int("LOGIN_FAILURES_MAX_PER_IP", 50)
LOGIN_FAILURES_WINDOW_SECONDS = env_int("LOGIN_FAILURES_WINDOW_SECONDS", 900)
LOGIN_CLIENT_IP_HEADER = os.environ.get("LOGIN_CLIENT_IP_HEADER", "").strip()
# Proxies in front of gunicorn that append to X-Forwarded-For: the client is the entry the outermost wrote.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# Per account, over every address (annotate/accounts/logins.py): delays after 10 failures, a lock after 50.
LOGIN_ACCOUNT_DELAY_AFTER = env_int("LOGIN_ACCOUNT_DELAY_AFTER", 10)
LOGIN_ACCOUNT_DELAY_MAX_SECONDS = env_int("LOGIN_ACCOUNT_DELAY_MAX_SECONDS", 300)
LOGIN_ACCOUNT_LOCK_AFTER = env_int("LOGIN_ACCOUNT_LOCK_AFTER", 50)
# The account's failures decay over this window (LOCK_AFTER of them a window), apart from the
# per-address one, so a patient guesser is slowed and locked (annotate.accounts.logins).
LOGIN_ACCOUNT_WINDOW_SECONDS = env_int("LOGIN_ACCOUNT_WINDOW_SECONDS", 24 * 3600)
# 0 (the default, issue 36): only the owner's mailed link or an administrator lifts a lock. A number of
# seconds ends a lock by itself after that long, which bounds a targeted lockout; docs/hardening.md
# weighs the two.
LOGIN_ACCOUNT_LOCK_SECONDS = env_int("LOGIN_ACCOUNT_LOCK_SECONDS", 0)
# The counts live in the default cache: Redis (CACHE_URL) so that every web process shares them.
_CACHE_URL = os.environ.get("CACHE_URL", "").strip()
if _CACHE_URL:
    if not _CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(f"CACHE_URL={_CACHE_URL!r}: expected a redis:// URL")
    CACHES = {
        "default": {
            "BACKEND": "config.cache.RedisCache",  # Django's, keeping its client (config/cache.py)
            "LOCATION": _CACHE_URL,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    # Sessions: the database, with a short-lived copy in this shared cache (config/sessions.py).
    SESSION_ENGINE = "config.sessions"
SESSION_CACHE_SECONDS = env_int("SESSION_CACHE_SECONDS", 300)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.server": {"level": "WARNING"}},
}

# E-mail (project invitations): the console backend prints mails unless an SMTP server is set.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "").strip() or (
    "django.core.mail.backends.smtp.EmailBackend"
    if os.environ.get("EMAIL_HOST", "").strip()
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "").strip() or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "").strip() or "GEC Arena <arena@localhost>"
# Days an e-mail invitation into a project stays valid (single use).
INVITATION_DAYS = env_int("INVITATION_DAYS", 14)

# Work assignment (judgment campaigns).
ASSIGNMENT_TIMEOUT_MINUTES = env_int("ASSIGNMENT_TIMEOUT_MINUTES", 60)
# Fair leases (ranking/work/leases.py): a claim holds its HIT this long, renewed by each submit
# and by the open page's heartbeat up to the campaign's assignment minutes (0: the whole of them).
ASSIGNMENT_LEASE_MINUTES = env_int("ASSIGNMENT_LEASE_MINUTES", 15)
# Live (active, not overdue) assignments of one campaign held at once from one client address
# through the crowd pages (invite links, Prolific, MTurk); 0 disables the limit.
LIVE_ASSIGNMENTS_PER_ADDRESS = env_int("LIVE_ASSIGNMENTS_PER_ADDRESS", 2)
# A HIT held for its platform's confirmation (MTurk, Prolific) that the platform still does not report
# as submitted this many hours after it was finished is dropped: its slot returns to the pool.
CROWD_CONFIRM_WAIT_HOURS = env_int("CROWD_CONFIRM_WAIT_HOURS", 24)
# MTurk answers "no such assignment" (RequestError) this long after a HIT was finished: dropped at once
CROWD_CONFIRM_GRACE_MINUTES = env_int("CROWD_CONFIRM_GRACE_MINUTES", 10)
# New identities a reusable invite link admits per client address per day (crowd/services/entry.py).
INVITE_IDENTITIES_PER_ADDRESS_PER_DAY = env_int("INVITE_IDENTITIES_PER_ADDRESS_PER_DAY", 3)
# Seconds between two heartbeats of an open work page.
ASSIGNMENT_HEARTBEAT_SECONDS = env_int("ASSIGNMENT_HEARTBEAT_SECONDS", 60)
# Crowd platforms. Credentials (PROLIFIC_API_TOKEN, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) are read
# from the environment only when a requester operation runs, never stored in settings.
CROWD_MTURK_SANDBOX = env_bool("MTURK_SANDBOX", True)
CROWD_MTURK_FRAME_ANCESTORS = env_list(
    "MTURK_FRAME_ANCESTORS",
    ["https://worker.mturk.com", "https://www.mturk.com", "https://workersandbox.mturk.com"],
)
CROWD_MTURK_SUBMIT_ORIGINS = env_list(
    "MTURK_SUBMIT_ORIGINS", ["https://www.mturk.com", "https://workersandbox.mturk.com"]
)
CROWD_PROLIFIC_COMPLETION_URL = os.environ.get(
    "PROLIFIC_COMPLETION_URL", "https://app.prolific.com/submissions/complete"
)
CROWD_MIN_HOURLY_WAGE = os.environ.get("MIN_HOURLY_WAGE", "7.25")
CROWD_TOKEN_MAX_AGE_DAYS = env_int("CROWD_TOKEN_MAX_AGE_DAYS", 14)

# TrueSkill runs for the live ranking shown on a campaign page (analysis runs use 1000).
RANKING_LIVE_RUNS = env_int("RANKING_LIVE_RUNS", 200)
