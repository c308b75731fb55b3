"""Schema extensions: the document limits, a cache of valid documents, error codes with masking, and
per-operation timing."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator

from graphql import DocumentNode, FieldNode, GraphQLError, OperationDefinitionNode
from neo4j.exceptions import Neo4jError
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter, SchemaExtension
from strawberry.types import ExecutionContext
from strawberry.types.graphql import OperationType

from hippograph.schema.errors import MASKED_MESSAGE, UNAVAILABLE_ERRORS, UNAVAILABLE_MESSAGE, ErrorCode, code_of
from hippograph.schema.limits import MAX_ALIASES, MAX_DEPTH, MAX_TOKENS

# What graphql-core and strawberry's limiters say when a document passes a bound.
_LIMIT_MESSAGES = ("exceeds maximum operation depth", "aliases found. Allowed", "Document contains more than")


def document_limits() -> list[Callable[[], SchemaExtension]]:
    """Factories for the document limiters (a fresh extension per request)."""
    return [
        lambda: QueryDepthLimiter(max_depth=MAX_DEPTH),
        lambda: MaxAliasesLimiter(max_alias_count=MAX_ALIASES),
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
    ]


class ValidDocuments(SchemaExtension):
    """Parse and validate an operation's text once: a text that parsed and passed every rule — the
    document limits included — is taken from here the next time, already parsed and valid.

    A text that failed goes the whole way again each time, so its caller always gets the error
    (strawberry's own ParserCache and ValidationCache would cache failures too, and ParserCache
    lost the token limit's code). Parsing and validating the benchmark's recall took about 2 ms
    a request; agents send the same few operations over and over. The cache holds at most
    ``CAPACITY`` texts of at most ``MAX_TEXT`` characters, so it cannot be grown without bound.
    """

    CAPACITY = 256
    MAX_TEXT = 8192
    _valid: OrderedDict[str, DocumentNode] = OrderedDict()
    _lock = threading.Lock()

    def __init__(self) -> None:
        super().__init__()
        self._known = False

    def on_parse(self) -> Iterator[None]:
        text = self.execution_context.query
        if text is not None and len(text) <= self.MAX_TEXT:
            with self._lock:
                document = self._valid.get(text)
                if document is not None:
                    self._valid.move_to_end(text)
            if document is not None:
                self.execution_context.graphql_document = document
                self._known = True
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if self._known:
            context.pre_execution_errors = []
        yield
        text = context.query
        if (not self._known and context.pre_execution_errors == [] and context.graphql_document is not None
                and text is not None and len(text) <= self.MAX_TEXT):
            with self._lock:
                self._valid[text] = context.graphql_document
                if len(self._valid) > self.CAPACITY:
                    self._valid.popitem(last=False)


def classify(error: GraphQLError) -> tuple[ErrorCode, str]:
    """The code and the message the caller sees for one error."""
    existing = (error.extensions or {}).get("code")
    if existing in ErrorCode.__members__:
        return ErrorCode(existing), error.message
    original = error.original_error
    if original is None:
        # Parse and validation errors: the document itself is at fault.
        if any(marker in error.message for marker in _LIMIT_MESSAGES):
            return ErrorCode.LIMIT_EXCEEDED, error.message
        return ErrorCode.BAD_USER_INPUT, error.message
    code = code_of(original)
    if code is ErrorCode.UNAVAILABLE:
        return code, UNAVAILABLE_MESSAGE
    if code is not None:
        return code, str(original)
    return ErrorCode.INTERNAL_SERVER_ERROR, MASKED_MESSAGE


class ErrorCodes(SchemaExtension):
    """Give every error an ``extensions.code``; mask the message of any error we did not expect."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is None or not errors:
            return
        metrics = getattr(self.execution_context.context, "metrics", None)
        coded = []
        for error in errors:
            code, message = classify(error)
            if metrics is not None and isinstance(error.original_error, (Neo4jError, *UNAVAILABLE_ERRORS)):
                metrics.neo4j_error(type(error.original_error).__name__)
            coded.append(GraphQLError(
                message, nodes=error.nodes, source=error.source, positions=error.positions, path=error.path,
                original_error=None, extensions={**(error.extensions or {}), "code": code.value},
            ))
        result.errors = coded


class OperationTiming(SchemaExtension):
    """Report each query's and mutation's duration under its root field (subscriptions are long-lived: not timed)."""

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        context = self.execution_context
        metrics = getattr(context.context, "metrics", None)
        if metrics is None:
            return
        try:
            operation_type = context.operation_type
        except RuntimeError:  # a document that did not parse has no operation type
            operation_type = None
        if operation_type is OperationType.SUBSCRIPTION:
            return
        failed = bool(getattr(context.result, "errors", None))
        metrics.operation(_operation_name(context, operation_type), time.perf_counter() - started, failed)


def _operation_name(context: ExecutionContext, operation_type: OperationType | None) -> str:
    """``query:recall``, ``mutation:remember`` …: the type and first root field, known fields only
    (a metric label must not take arbitrary text from a request)."""
    document = context.graphql_document
    if document is None or operation_type is None:
        return "invalid"
    graphql_schema = context.schema._schema
    root = graphql_schema.query_type if operation_type is OperationType.QUERY else graphql_schema.mutation_type
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        if context.operation_name and (definition.name is None or definition.name.value != context.operation_name):
            continue
        names = sorted(
            s.name.value for s in definition.selection_set.selections
            if isinstance(s, FieldNode) and root is not None and s.name.value in root.fields
        )
        if names:
            return f"{operation_type.value}:{names[0]}"
        if any(isinstance(s, FieldNode) and s.name.value.startswith("__") for s in definition.selection_set.selections):
            return f"{operation_type.value}:introspection"
    return f"{operation_type.value}:invalid"
