"""Hostile requests made from the schema (``hippograph.bench.fuzz``), a few hundred of them, against
the real server: no 5xx, no INTERNAL_SERVER_ERROR, no state change by a refused request, /healthz
answering throughout. ``hippograph bench fuzz`` sends thousands of the same kind."""

from __future__ import annotations

from typing import Any

import pytest

from hippograph.bench import fuzz
from hippograph.memory.services import Services
from hippograph.bench.server import Server

pytestmark = pytest.mark.neo4j

REQUESTS = 350
SEED = 7
# Short of the bench's 30 s: a request that hangs this long has found a bug already.
TIMEOUT_S = 20.0


@pytest.fixture(scope="module")
def fuzzed(api_server: Server, make_client, services: Services) -> dict[str, Any]:
    fuzzer, other = make_client("fuzz"), make_client("fuzz-other")
    target = fuzz.prepare(services, api_server.base, fuzzer.key, fuzzer.user_id, other.key, other.user_id)
    return fuzz.run(services, target, REQUESTS, seed=SEED, timeout_s=TIMEOUT_S, log=api_server.log)


def failures(result: dict[str, Any], *checks: str) -> str:
    """The distinct failures of these checks, one paragraph each, for the assertion message."""
    shown = {**result, "failures": [f for f in result["failures"] if f["check"] in checks]}
    return fuzz.failed(shown)


def test_the_run_finished_and_asked_every_field_inline_and_as_variables(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["aborted"] is None, fuzzed["aborted"]
    assert fuzzed["requests"] == REQUESTS
    missing = [name for name, ways in fuzzed["fields"].items() if not (ways["inline"] and ways["variables"])]
    assert not missing, missing


def test_no_answer_is_a_5xx(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["http_5xx"] == 0, failures(fuzzed, "http_5xx")


def test_every_error_has_a_code_and_none_is_internal(fuzzed: dict[str, Any]) -> None:
    checks = fuzzed["checks"]
    assert checks["internal_server_error"] + checks["missing_code"] == 0, \
        failures(fuzzed, "internal_server_error", "missing_code")


def test_a_refused_request_changes_nothing(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["state_change"] == 0, failures(fuzzed, "state_change")


def test_what_must_be_refused_is(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["unmet_expectation"] == 0, failures(fuzzed, "unmet_expectation")


def test_every_request_is_answered_and_healthz_answers_throughout(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["unanswered"] == 0, failures(fuzzed, "unanswered")
    health = fuzzed["healthz"]
    assert health["samples"] > 0
    assert health["failures"] == 0, f"/healthz failed {health['failures']} times: {health['failure_examples']}"
    assert health["max_ms"] <= fuzz.HEALTHZ_BOUND_S * 1000
