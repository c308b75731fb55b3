"""`hippograph keys create` for the user names operators give accounts."""

from __future__ import annotations

import pytest

from hippograph import cli
from hippograph.memory.keys import authenticate
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j


# Account names of the breach lists ("admin1" is among their 10,000 most common passwords): a user id is
# an account's name given by an operator, so it is not held to the password list the other ids are.
@pytest.mark.parametrize("user", ["admin1", "alice", "bob-2", "michael1"])
def test_keys_create_takes_an_ordinary_user_name(clean_db: Services, capsys: pytest.CaptureFixture[str], user: str) -> None:
    assert cli.main(["keys", "create", "--user", user]) == 0
    secret = capsys.readouterr().out.strip()
    caller = authenticate(clean_db.driver, clean_db.database, secret)
    assert caller is not None and caller.user_id == user


def test_keys_create_still_refuses_a_user_id_holding_a_secret(clean_db: Services, capsys: pytest.CaptureFixture[str]) -> None:
    token = "ghp_" + "a1B2c3D4e5" * 4
    assert cli.main(["keys", "create", "--user", token]) == 1
    err = capsys.readouterr().err
    assert "user id looks like a secret (api_key)" in err and token not in err
