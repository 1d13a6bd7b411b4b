# One command sets everything up and runs the demo (`make demo`); one sets up and runs the tests (`make test`).
# uv is used when installed; otherwise it is bootstrapped into .tools/ from PyPI.
UV := $(shell command -v uv 2>/dev/null)
ifeq ($(UV),)
UV := .tools/bin/uv
endif
RUN := $(UV) run --locked

.PHONY: setup demo test lint format bench clean

.tools/bin/uv:
	python3 -m venv .tools
	.tools/bin/python -m pip install --quiet "uv>=0.5,<1"

# Bytecode compiled once here: where Python may not write it (PYTHONDONTWRITEBYTECODE, read-only
# installs) every `lectern` command would otherwise compile its dependencies again (~1.7 s each).
setup: $(if $(filter .tools/bin/uv,$(UV)),.tools/bin/uv)
	$(UV) sync --locked --compile-bytecode

DEMO_PORT ?= 8000

demo: setup
	$(RUN) lectern ingest docs --collection demo --exclude 'images/*' --exclude 'examples/*'
	$(RUN) lectern ask --collection demo "How do I keep the index up to date when files change?"
	$(RUN) lectern ask --collection demo "How do I bake sourdough bread?"
	@echo ""
	@echo "Next: source .venv/bin/activate, then lectern ingest PATH and lectern ask \"...\" (see README.md)."
	@echo "Chat page: http://127.0.0.1:$(DEMO_PORT)/   (API reference: http://127.0.0.1:$(DEMO_PORT)/docs; Ctrl-C stops)"
	$(RUN) lectern serve --collection demo --port $(DEMO_PORT)

test: setup
	$(RUN) pytest

lint: setup
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) mypy

format: setup
	$(RUN) ruff check --fix .
	$(RUN) ruff format .

clean:
	rm -rf .venv .tools .lectern .pytest_cache .mypy_cache .ruff_cache
