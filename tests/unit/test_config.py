from pathlib import Path

import pytest

from hippograph.config import ConfigError, Settings


def test_defaults_point_at_the_local_server() -> None:
    settings = Settings.from_env({})
    assert settings.neo4j_uri == "bolt://127.0.0.1:7687"
    assert settings.neo4j_user == "neo4j"
    assert settings.embedding_model == "all-mpnet-base-v2"
    assert (settings.session_capacity, settings.project_capacity, settings.long_term_capacity) == (1024, 4096, 8192)


def test_environment_overrides_and_types() -> None:
    settings = Settings.from_env({
        "NEO4J_URI": "neo4j://db.internal:7687",
        "NEO4J_PASSWORD": "s3cret-pass",
        "HIPPOGRAPH_PORT": " 9000 ",
        "HIPPOGRAPH_STATE_DIR": "/tmp/hg-state",
        "HIPPOGRAPH_SECRET_POLICY": "reject",
    })
    assert settings.neo4j_uri == "neo4j://db.internal:7687"
    assert settings.neo4j_password == "s3cret-pass"
    assert settings.port == 9000
    assert settings.state_dir == Path("/tmp/hg-state")
    assert settings.secret_policy == "reject"


def test_empty_variable_means_default() -> None:
    assert Settings.from_env({"HIPPOGRAPH_PORT": ""}).port == 8000


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HIPPOGRAPH_PORT": "eighty"}, "HIPPOGRAPH_PORT must be a whole number"),
        ({"HIPPOGRAPH_PORT": "70000"}, "HIPPOGRAPH_PORT must be a port number"),
        ({"HIPPOGRAPH_SESSION_CAPACITY": "0"}, "HIPPOGRAPH_SESSION_CAPACITY must be a positive"),
        ({"HIPPOGRAPH_SECRET_POLICY": "ignore"}, "HIPPOGRAPH_SECRET_POLICY must be 'redact' or 'reject'"),
        ({"HIPPOGRAPH_DOCUMENT_VECTORS": "float16"}, "HIPPOGRAPH_DOCUMENT_VECTORS must be one of auto, float32, bfloat16, int8, onnx-int8"),
        ({"NEO4J_URI": "http://localhost:7474"}, "NEO4J_URI must start with bolt:// or neo4j://"),
        ({"HIPPOGRAPH_CORS_ORIGINS": "*, https://app.example.com"}, "either `\\*` alone"),
        ({"HIPPOGRAPH_CORS_ORIGINS": "https://app.example.com/path"}, "is not an origin"),
    ],
)
def test_bad_values_fail_with_a_sentence_naming_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    missing = [env for env, _, _ in Settings.documented() if f"`{env}`" not in readme]
    assert missing == []


def test_cors_origins_are_a_list_without_trailing_slashes() -> None:
    settings = Settings.from_env({"HIPPOGRAPH_CORS_ORIGINS": " http://127.0.0.1:5173 , https://app.example.com/ "})
    assert settings.allowed_origins == ("http://127.0.0.1:5173", "https://app.example.com")
    assert Settings.from_env({}).allowed_origins == ()

