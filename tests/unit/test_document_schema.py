"""The shapes of the three Izanagi documents: what validates, and the JSON path of the first error."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from hippograph.memory.documents.engine import Scrubber
from hippograph.memory.documents.schema import DocumentError, child, load, validate
from shared_data import SHARED

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "izanagi"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def error_of(kind: str, document: Any) -> str:
    with pytest.raises(DocumentError) as caught:
        validate(kind, document)
    return str(caught.value)


@pytest.mark.parametrize(
    "kind, name", [("session", "session.json"), ("project", "project-memory.json"), ("long-term", "long-term-memory.json")]
)
def test_the_seed_examples_validate(kind: str, name: str) -> None:
    validate(kind, fixture(name))


def test_the_fixtures_are_the_seed_examples_verbatim() -> None:
    seed = SHARED / "seeds" / "izanagi-memory-manager.md"
    if not seed.exists():
        pytest.skip(f"the seed document is not at {seed}")
    blocks = seed.read_text().split("```json\n")[1:4]
    for block, name in zip(blocks, ["session.json", "project-memory.json", "long-term-memory.json"]):
        assert (FIXTURES / name).read_text() == block.split("```")[0]


def test_the_path_of_a_wrong_type_deep_in_a_list() -> None:
    document = fixture("project-memory.json")
    document["architecture"]["decisions"][0]["date"] = 20260715
    assert error_of("project", document) == "$.architecture.decisions[0].date: expected a string"


@pytest.mark.parametrize(
    "kind, name, change, expected",
    [
        ("project", "project-memory.json", lambda d: d.pop("type"), "$.type: is required but missing"),
        ("project", "project-memory.json", lambda d: d.update(owner="me"), "$.owner: unexpected key"),
        ("project", "project-memory.json", lambda d: d["tech_stack"].update(queue=7), "$.tech_stack.queue: expected a string"),
        ("project", "project-memory.json", lambda d: d["tech_stack"].update({"message queue": ""}),
         '$.tech_stack["message queue"]: must not be empty'),
        ("project", "project-memory.json", lambda d: d["error_history"][0].update(count=-1),
         "$.error_history[0].count: must be between 0"),
        ("project", "project-memory.json", lambda d: d["error_history"][0].update(count=True),
         "$.error_history[0].count: expected a whole number"),
        ("project", "project-memory.json", lambda d: d["error_history"][0].update(count=2.5),
         "$.error_history[0].count: expected a whole number"),
        ("project", "project-memory.json", lambda d: d.update(last_updated="yesterday"),
         "$.last_updated: expected an ISO 8601 date"),
        ("project", "project-memory.json", lambda d: d.update(project_id="has space"), "$.project_id: must be 1-128"),
        ("project", "project-memory.json", lambda d: d["architecture"].update(decisions={}),
         "$.architecture.decisions: expected a list"),
        ("project", "project-memory.json", lambda d: d["architecture"].update(pattern="(...)"),
         "$.architecture.pattern: must contain more than spaces and punctuation"),
        ("project", "project-memory.json", lambda d: d.update(tech_stack=[]), "$.tech_stack: expected an object"),
        ("session", "session.json", lambda d: d["tasks"].append(copy.deepcopy(d["tasks"][0])),
         '$.tasks[1].task_id: "task-001" is already used at $.tasks[0].task_id'),
        ("session", "session.json", lambda d: d["tasks"][0]["decisions"].append(None), "$.tasks[0].decisions[2]: expected a string"),
        ("session", "session.json", lambda d: d["active_context"].update(token_used="many"),
         "$.active_context.token_used: expected a whole number"),
        ("session", "session.json", lambda d: d["active_context"].update(nested={"a": 1}),
         "$.active_context.nested: expected a string, number, boolean or null"),
        ("session", "session.json", lambda d: d["active_context"].update(ratio=float("nan")),
         "$.active_context.ratio: expected a finite number"),
        ("long-term", "long-term-memory.json", lambda d: d["preferences"].update({"tone of voice": "dry"}),
         '$.preferences["tone of voice"]: key must be 1-64 letters'),
        ("long-term", "long-term-memory.json", lambda d: d["recurring_patterns"]["token_waste"].update(resolved="no"),
         "$.recurring_patterns.token_waste.resolved: expected true or false"),
        ("long-term", "long-term-memory.json", lambda d: d["skill_evolution"][0]["changes"].append(3),
         "$.skill_evolution[0].changes[1]: expected a string"),
        ("long-term", "long-term-memory.json", lambda d: d["learning_progress"].pop("current_lesson"),
         "$.learning_progress.current_lesson: is required but missing"),
        ("long-term", "long-term-memory.json", lambda d: d.update(user_id=None), "$.user_id: expected a string"),
    ],
)
def test_the_first_error_is_named_by_its_json_path(kind: str, name: str, change: Any, expected: str) -> None:
    document = fixture(name)
    change(document)
    assert error_of(kind, document).startswith(expected)


def test_a_document_that_is_not_an_object() -> None:
    assert error_of("session", []) == "$: expected an object"


def test_the_first_error_in_document_order_wins() -> None:
    document = fixture("project-memory.json")
    document["type"] = 1
    document["last_updated"] = 2
    assert error_of("project", document) == "$.type: expected a string"


def test_key_order_does_not_matter_to_validation() -> None:
    document = fixture("project-memory.json")
    validate("project", dict(reversed(list(document.items()))))


def test_empty_sections_are_fine() -> None:
    document = fixture("long-term-memory.json")
    document.update(preferences={}, recurring_patterns={}, skill_evolution=[])
    document["learning_progress"].update(completed_lessons=[], struggling_topics=[])
    validate("long-term", document)


def test_long_text_is_refused_with_its_length() -> None:
    document = fixture("project-memory.json")
    document["conventions"]["naming"] = "x" * 2001
    assert error_of("project", document) == "$.conventions.naming: has at most 2000 characters, got 2001"


def test_paths_quote_keys_that_are_not_identifiers() -> None:
    assert child("$", "a") == "$.a"
    assert child("$.a", 3) == "$.a[3]"
    assert child("$", "my key") == '$["my key"]'
    assert child("$", 'say "hi"') == '$["say \\"hi\\""]'


def test_load_reports_syntax_errors_at_the_root() -> None:
    with pytest.raises(DocumentError, match=r"^\$: not valid JSON: .* line 1"):
        load('{"session_id": ')
    with pytest.raises(DocumentError, match=r"^\$: NaN is not valid JSON"):
        load('{"x": NaN}')
    assert load('{"a": [1]}') == {"a": [1]}


def test_document_errors_are_bad_user_input() -> None:
    with pytest.raises(DocumentError) as caught:
        validate("session", {})
    assert caught.value.code == "BAD_USER_INPUT"
    assert caught.value.path == "$.session_id"


class TestScrubber:
    def test_a_value_is_scrubbed_in_the_sentence_it_forms(self) -> None:
        # "hunter2abc!" alone is not recognisably a secret; after "password:" it is.
        scrub = Scrubber("redact")
        assert scrub.key("$.conventions.password", "password", "hunter2abc!") == "[REDACTED:password]"
        assert scrub.kinds == {"password"}

    def test_each_field_gets_its_own_redaction(self) -> None:
        scrub = Scrubber("redact")
        fields = scrub.fields(
            "{decision} — because {reason}",
            decision=("$.d", "Connect with postgres://app:Sup3rSecret@db.internal/app"),
            reason=("$.r", "it is simple"),
        )
        assert fields == {"decision": "Connect with postgres://app:[REDACTED:connection_string]@db.internal/app",
                          "reason": "it is simple"}

    def test_clean_text_is_untouched(self) -> None:
        scrub = Scrubber("redact")
        assert scrub.value("$.x", "type", "web_app") == "web_app"
        assert scrub.kinds == set()

    def test_reject_names_the_path_and_never_the_secret(self) -> None:
        scrub = Scrubber("reject")
        token = "ghp_" + "a1B2c3D4e5" * 4
        with pytest.raises(DocumentError) as caught:
            scrub.fields("{a}: {b}", a=("$.a", "note"), b=("$.b", f"token {token}"))
        assert caught.value.path == "$.b"
        assert token not in str(caught.value)

    def test_a_key_holding_a_secret_is_refused_not_redacted(self) -> None:
        scrub = Scrubber("redact")
        with pytest.raises(DocumentError, match="keys are not redacted"):
            scrub.key("$.tech_stack.x", "sk-proj-a1B2c3D4e5f6g7h8i9j0k1l2", "value")
