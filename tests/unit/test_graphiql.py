"""GraphiQL's page served from here: every CDN address becomes a local one, versions taken from the page."""

from __future__ import annotations

from hippograph.api import graphiql


def test_the_page_names_the_packages_it_loads_with_their_versions() -> None:
    packages = {package: version for package, version, _ in graphiql.wanted()}
    assert {"react", "react-dom", "graphiql"} <= set(packages)
    assert all(version[0].isdigit() for version in packages.values())


def test_every_script_and_style_of_the_page_is_served_from_here() -> None:
    page = graphiql.page()
    assert "unpkg.com" not in page
    for package, _, file in graphiql.wanted():
        assert f'"{graphiql.PREFIX}/{package}/{file}"' in page
    # The browser still checks each file against the hash the page was written with.
    assert page.count("integrity=") == len(graphiql.wanted())


def test_the_page_opens_on_this_services_examples_and_says_where_the_key_goes() -> None:
    page = graphiql.page()
    assert "Welcome to GraphiQL" not in page
    for operation in ("mutation Remember", "query Recall", "query Chains", "components {"):
        assert operation in page
    assert "Authorization" in page and "hippograph keys create" in page


def test_the_examples_are_valid_operations_of_the_schema() -> None:
    from pathlib import Path

    from graphql import build_schema, parse, validate

    schema = build_schema((Path(__file__).resolve().parents[2] / "schema.graphql").read_text())
    document = parse(graphiql.EXAMPLES.read_text())
    assert validate(schema, document) == []
    assert {d.name.value for d in document.definitions} == {"Remember", "Recall", "RecordError", "Chains"}
