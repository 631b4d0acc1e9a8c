# Helena: `make run` starts everything with demo data, `make test` runs the whole suite.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.requirements-installed

.PHONY: run test lint bench install clean-data

$(STAMP): requirements.txt config/system-packages.sh
	bash config/system-packages.sh
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m config.launcher run

test: $(STAMP)
	bash config/system-packages.sh test
	$(PY) -m config.launcher test

# Benchmarks print their figures (bench/); they are not part of the test suite.
bench: $(STAMP)
	$(PY) -m config.launcher exec -- $(PY) bench/knowledge_search.py
	$(PY) -m config.launcher exec -- $(PY) bench/suche.py
	$(PY) -m config.launcher exec -- $(PY) bench/kollision.py
	$(PY) -m config.launcher exec -- $(PY) bench/import_akten.py
	$(PY) -m config.launcher exec -- $(PY) bench/agent_overhead.py
	$(PY) -m config.launcher exec -- $(PY) bench/stream_latency.py
	$(PY) -m config.launcher exec -- $(PY) bench/capacity.py
	$(PY) -m config.launcher exec -- $(PY) bench/resume.py
	@if [ "$$HELENA_BENCH_PEER" = "0" ]; then echo "bench/peer.py übersprungen (HELENA_BENCH_PEER=0)"; \
	else $(PY) -m config.launcher exec -- $(PY) bench/peer.py; fi
	$(PY) bench/dialects.py
	$(PY) bench/dokumente.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# Removes the embedded PostgreSQL/Redis data (demo data is recreated by the next `make run`).
clean-data:
	rm -rf var/pgdata var/redis
