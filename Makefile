# Two commands do everything on a fresh machine:
#   make run    virtual environment, dependencies, Neo4j from Maven, migrations, then serve
#   make test   the same set-up against a separate test Neo4j, then pytest; stops what it started
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
HG := $(VENV)/bin/hippograph
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)
PYTEST_ARGS ?=

# The test server lives apart from the one `make run` uses, so tests never touch your data.
TEST_ENV := HIPPOGRAPH_STATE_DIR=$(CURDIR)/.hippograph/test \
	HIPPOGRAPH_NEO4J_BOLT_PORT=7688 HIPPOGRAPH_NEO4J_HTTP_PORT=7475 \
	NEO4J_URI=bolt://127.0.0.1:7688 NEO4J_PASSWORD=hippograph-test \
	HIPPOGRAPH_NEO4J_HEAP=1g HIPPOGRAPH_NEO4J_PAGECACHE=1g

.PHONY: setup run test neo4j-start neo4j-stop bench clean

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev,bench,langchain]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

setup: $(STAMP)
	$(HG) graphiql-assets

run: setup
	$(HG) neo4j start
	$(HG) migrate
	$(HG) serve

test: setup
	@was_running=0; env $(TEST_ENV) $(HG) neo4j status >/dev/null && was_running=1; \
	env $(TEST_ENV) $(HG) neo4j start && env $(TEST_ENV) $(VENV)/bin/python -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$was_running = 0 ]; then env $(TEST_ENV) $(HG) neo4j stop; fi; exit $$rc

neo4j-start: setup
	$(HG) neo4j start

neo4j-stop: setup
	$(HG) neo4j stop

clean:
	-$(HG) neo4j stop
	-env $(TEST_ENV) $(HG) neo4j stop
	rm -rf $(VENV) .hippograph
