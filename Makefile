# GEC Arena: `make run` runs the product, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export DEBUG ?= true

.PHONY: run test venv lint fmt bench clean chromium worker fuzz backup restore load bots

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

run: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo --url http://$(HOST):$(PORT)/
	@if [ -n "$$CELERY_BROKER_URL" ]; then \
		echo "Starting a Celery worker (broker $$CELERY_BROKER_URL)"; \
		$(VENV)/bin/celery -A config worker --loglevel=INFO & \
	fi; \
	echo "Serving GEC Arena on http://$(HOST):$(PORT)/"; \
	exec $(PY) manage.py runserver $(HOST):$(PORT)

worker: venv
	$(VENV)/bin/celery -A config worker --loglevel=INFO

# Debian's Chromium for the browser tests; installed when missing and we may (root or sudo).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=none; fi; \
		if [ "$$SUDO" = none ]; then echo "chromium is missing and cannot be installed here: browser tests will be skipped"; \
		else $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; fi; }

# The suite in TEST_WORKERS processes (pytest-xdist; each its own test database, a file's tests kept
# together, the files with a slow or browser test first: tests/conftest.py); TEST_WORKERS=0 runs it in this one.
TEST_WORKERS ?= 2

test: venv chromium
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

fmt: venv
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

bench: venv
	for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache

# --- hardening (docs/hardening.md) ---------------------------------------------------------------
FUZZ_EXAMPLES ?= 1000

# Every importer fuzzed with FUZZ_EXAMPLES malformed files (random seed: FUZZ_RANDOM=1), then every API
# operation with API_FUZZ_EXAMPLES requests per role (default 200; random seed: API_FUZZ_RANDOM=1).
fuzz: venv
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest tests/hardening/test_fuzz_importers.py -q -p no:cacheprovider
	API_FUZZ_EXAMPLES=$${API_FUZZ_EXAMPLES:-200} $(PY) -m pytest tests/hardening/test_api_fuzz.py -q -p no:cacheprovider

BACKUP_DIR ?= backups
BACKUP_FILE ?= $(BACKUP_DIR)/gec-arena-$(shell date -u +%Y%m%dT%H%M%SZ).dump

# pg_dump of DATABASE_URL in PostgreSQL's custom format (compressed; pg_restore can pick tables).
backup:
	@test -n "$$DATABASE_URL" || { echo "backup: DATABASE_URL is not set (PostgreSQL only)"; exit 2; }
	@mkdir -p $(dir $(BACKUP_FILE))
	pg_dump --format=custom --no-owner --no-privileges --file="$(BACKUP_FILE)" "$$DATABASE_URL"
	@echo "backup written to $(BACKUP_FILE)"

# Restore BACKUP_FILE into DATABASE_URL, replacing what is there (stop the web and worker first).
restore:
	@test -n "$$DATABASE_URL" || { echo "restore: DATABASE_URL is not set (PostgreSQL only)"; exit 2; }
	@test -n "$(RESTORE_FILE)" || { echo "restore: give RESTORE_FILE=backups/....dump"; exit 2; }
	@test -f "$(RESTORE_FILE)" || { echo "restore: $(RESTORE_FILE) does not exist"; exit 2; }
	pg_restore --clean --if-exists --no-owner --no-privileges --single-transaction --exit-on-error \
		--dbname="$$DATABASE_URL" "$(RESTORE_FILE)"
	@echo "restored $(RESTORE_FILE) into the database"

# Load test: simulated workers against gunicorn on Postgres + Redis (bench/load_workers.py --help).
LOAD_ARGS ?= --workers 50 --duration 60
load: venv
	$(PY) bench/load_workers.py $(LOAD_ARGS)

# Bots against the traps: simulated workers on GMEG dev FCE campaigns (bench/bots.py --help).
BOTS_ARGS ?= --per-strategy 20 --sentences 300
bots: venv
	$(PY) bench/bots.py $(BOTS_ARGS)
