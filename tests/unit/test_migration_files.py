from pathlib import Path

import pytest

from hippograph.config import RESOURCES
from hippograph.graph.migrations import Migration, MigrationError, discover, split_statements


def test_split_respects_strings_backticks_and_comments() -> None:
    text = """
    // a comment; with a semicolon
    CREATE (n {a: 'x;y', b: "it's; fine"});
    /* block; comment */ MATCH (`we;ird`) RETURN 1;
    RETURN 'escaped \\' quote;'
    """
    assert split_statements(text) == [
        "CREATE (n {a: 'x;y', b: \"it's; fine\"})",
        "MATCH (`we;ird`) RETURN 1",
        "RETURN 'escaped \\' quote;'",
    ]


def test_split_drops_empty_statements() -> None:
    assert split_statements(";;  \n;") == []


def test_unterminated_block_comment_is_an_error() -> None:
    with pytest.raises(MigrationError, match="unterminated"):
        split_statements("RETURN 1; /* never closed")


def test_project_migrations_are_discovered_in_order() -> None:
    found = discover(RESOURCES / "migrations")
    assert [m.version for m in found][:2] == ["0001", "0002"]
    assert found[0].description == "constraints"


def test_badly_named_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "V1_missing_double_underscore.cypher").write_text("RETURN 1")
    with pytest.raises(MigrationError, match="V<number>__<description>"):
        discover(tmp_path)


def test_duplicate_versions_are_refused(tmp_path: Path) -> None:
    (tmp_path / "V1__a.cypher").write_text("RETURN 1")
    (tmp_path / "V0001__b.cypher").write_text("RETURN 2")
    with pytest.raises(MigrationError, match="same version"):
        discover(tmp_path)


def test_placeholders_fill_numbers_and_refuse_anything_else(tmp_path: Path) -> None:
    migration = Migration("0001", "x", tmp_path / "V0001__x.cypher", "RETURN ${size} AS n")
    assert migration.statements({"size": 384}) == ["RETURN 384 AS n"]
    with pytest.raises(MigrationError, match="no value"):
        migration.statements({})
    with pytest.raises(MigrationError, match="number or identifier"):
        migration.statements({"size": "1} RETURN 2 //"})


def test_checksum_ignores_line_endings_but_not_content(tmp_path: Path) -> None:
    a = Migration("0001", "x", tmp_path / "a", "RETURN 1;\nRETURN 2;\n")
    b = Migration("0001", "x", tmp_path / "b", "RETURN 1;\r\nRETURN 2;\r\n")
    c = Migration("0001", "x", tmp_path / "c", "RETURN 1;\nRETURN 3;\n")
    assert a.checksum == b.checksum != c.checksum
