"""The ``hippograph`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from hippograph import local_neo4j
from hippograph.config import ConfigError, Settings
from hippograph.embedding import EmbeddingError
from hippograph.graph.driver import Neo4jUnavailable
from hippograph.graph.migrations import MigrationError

# Errors whose message is the whole story: printed as one line, exit 1.
USER_ERRORS = (ConfigError, Neo4jUnavailable, MigrationError, EmbeddingError, local_neo4j.LocalNeo4jError)


def cmd_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "start":
        local_neo4j.start(settings)
    elif args.action == "stop":
        local_neo4j.stop(settings)
    else:
        current = local_neo4j.status(settings)
        print(current.describe())
        return 0 if current.running else 3
    return 0


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.graph import migrations
    from hippograph.services import migration_parameters, open_services

    with open_services(settings) as services:
        applied = migrations.migrate(
            services.driver, services.database, settings.migrations_dir, migration_parameters(services.embedder)
        )
        services.embedder.check_dimension(_index_dimension(services))
    print(f"{len(applied)} migration(s) applied" if applied else "schema is up to date, nothing to apply")
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from hippograph.api.app import create_app
    from hippograph.graph.driver import connect

    # Fail in one clear line before uvicorn starts, rather than inside its lifespan.
    connect(settings).close()
    uvicorn.run(create_app(settings), host=args.host or settings.host, port=args.port or settings.port, log_level="info")
    return 0


def _index_dimension(services) -> int | None:
    from hippograph.graph import server

    return server.vector_index_dimension(services.driver, services.database)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hippograph", description="Memory service for AI assistants, on Neo4j.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="serve the GraphQL API with uvicorn")
    serve.add_argument("--host", help="bind address (default HIPPOGRAPH_HOST)")
    serve.add_argument("--port", type=int, help="port (default HIPPOGRAPH_PORT)")
    serve.set_defaults(run=cmd_serve)

    neo4j = sub.add_parser("neo4j", help="the local Neo4j server (from Maven Central, no Docker)")
    neo4j.add_argument("action", choices=["start", "stop", "status"])
    neo4j.set_defaults(run=cmd_neo4j)

    migrate = sub.add_parser("migrate", help="apply pending migrations from migrations/")
    migrate.set_defaults(run=cmd_migrate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace, Settings], int] = args.run
    try:
        return run(args, Settings.from_env())
    except USER_ERRORS as exc:
        print(f"hippograph: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
