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

setup: $(if $(filter .tools/bin/uv,$(UV)),.tools/bin/uv)
	$(UV) sync --locked

demo: setup
	$(RUN) lectern ingest docs --collection demo
	$(RUN) lectern ask --collection demo "How do I keep the index up to date when files change?"
	$(RUN) lectern ask --collection demo "How do I bake sourdough bread?"

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
