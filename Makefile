# GEC Arena: `make run` runs the product, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export DEBUG ?= true

.PHONY: run test venv lint fmt bench clean chromium worker

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

test: venv chromium
	$(PY) -m ruff check .
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

fmt: venv
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

bench: venv
	for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
