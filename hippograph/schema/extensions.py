"""Schema extensions: the gate between parsing and validation, a cache of valid documents, error
codes with masking, and per-operation timing."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from typing import ClassVar, cast

from graphql import DocumentNode, FieldNode, GraphQLError, OperationDefinitionNode, get_operation_ast
from graphql.language import OperationType as OperationKind
from neo4j.exceptions import Neo4jError
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket
from strawberry.extensions import MaxTokensLimiter, SchemaExtension
from strawberry.schema.schema import validate_document
from strawberry.types import ExecutionContext
from strawberry.types.graphql import OperationType

from hippograph.schema import operation_cost
from hippograph.operations.errors import (
    MASKED_MESSAGE,
    UNAUTHENTICATED_MESSAGE,
    UNAVAILABLE_ERRORS,
    UNAVAILABLE_MESSAGE,
    BadInput,
    ErrorCode,
    RequestError,
    Unauthenticated,
    Unavailable,
    code_of,
)
from hippograph.schema.limits import MAX_TOKENS

# What graphql-core's token limit says when a document passes it.
_LIMIT_MESSAGES = ("Document contains more than",)


def token_limit() -> MaxTokensLimiter:
    """The parser stops at ``MAX_TOKENS``: parsing is the one step every request gets, key or not."""
    return MaxTokensLimiter(max_token_count=MAX_TOKENS)


class OperationGate(SchemaExtension):
    """What happens between parsing and validation, in this order:

    1. a subscription that did not come over a WebSocket is refused, and so is a caller without a
       valid key unless the operation asks only what needs no key (``operation_cost.anonymous``),
       read from the parsed text: nothing more runs for either;
    2. the operation's expanded cost (depth, fields, aliases, fragments, spreads) is measured once
       per fragment and refused past a bound, so that no rule ever walks a fragment bomb;
    3. validation runs in a worker thread: the event loop keeps serving while it does.

    A document ``ValidDocuments`` already knows passed 2 and 3 before and goes straight on.
    """

    async def on_validate(self) -> AsyncIterator[None]:
        context = self.execution_context
        try:
            # The name the caller sent (strawberry's own falls back to the first operation's).
            named = context._provided_operation_name
            document = cast(DocumentNode, context.graphql_document)  # parsed: validation comes after parsing
            operation = get_operation_ast(document, named)
            if operation is None:
                raise BadInput(
                    f"the document has no operation named {named!r}"
                    if named
                    else "the document holds several operations: name the one to run in `operationName`"
                )
            self._admit(operation)
            if context.pre_execution_errors is None:
                operation_cost.check(document, operation)
                context.pre_execution_errors = await run_in_threadpool(
                    validate_document,
                    context.schema._schema,
                    document,
                    context.validation_rules,
                )
        except RequestError as refused:
            # The cause (Neo4j unreachable while the key was checked) goes along, to be counted.
            context.pre_execution_errors = [
                GraphQLError(
                    str(refused),
                    original_error=cast("Exception | None", refused.__cause__),
                    extensions={"code": refused.code.value},
                )
            ]
        except RecursionError:
            context.pre_execution_errors = [
                GraphQLError(
                    "the document is nested too deeply",
                    extensions={"code": ErrorCode.LIMIT_EXCEEDED.value},
                )
            ]
        yield

    def _admit(self, operation: OperationDefinitionNode) -> None:
        request = self.execution_context.context
        if operation.operation is OperationKind.SUBSCRIPTION and not isinstance(request.request, WebSocket):
            raise BadInput("subscriptions are served over WebSocket (graphql-transport-ws) at /graphql")
        if request.caller is not None or operation_cost.anonymous(operation):
            return
        if request.auth_failure is not None:
            raise Unavailable(UNAVAILABLE_MESSAGE) from request.auth_failure
        raise Unauthenticated(UNAUTHENTICATED_MESSAGE)


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
    _valid: ClassVar[OrderedDict[str, DocumentNode]] = OrderedDict()
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
        if (
            not self._known
            and context.pre_execution_errors == []
            and context.graphql_document is not None
            and text is not None
            and len(text) <= self.MAX_TEXT
        ):
            with self._lock:
                self._valid[text] = context.graphql_document
                if len(self._valid) > self.CAPACITY:
                    self._valid.popitem(last=False)


def caller_fault(error: GraphQLError) -> ErrorCode | None:
    """The code of an error graphql-core raised before any resolver ran, or None for any other.

    Nothing was being resolved (no path), so the request itself is at fault: the document did not
    parse or validate (no original error), a value did not fit its type (graphql-core's own error,
    or the scalar's ``ValueError`` / ``TypeError``), or it is nested deeper than the parser recurses.
    """
    original = error.original_error
    if original is None or (not error.path and isinstance(original, (GraphQLError, ValueError, TypeError))):
        limit = any(marker in error.message for marker in _LIMIT_MESSAGES)
        return ErrorCode.LIMIT_EXCEEDED if limit else ErrorCode.BAD_USER_INPUT
    if not error.path and isinstance(original, RecursionError):
        return ErrorCode.LIMIT_EXCEEDED
    return None


def classify(error: GraphQLError) -> tuple[ErrorCode, str]:
    """The code and the message the caller sees for one error."""
    existing = (error.extensions or {}).get("code")
    if existing in ErrorCode.__members__:
        return ErrorCode(existing), error.message
    refused = caller_fault(error)
    if refused is not None:
        return refused, error.message
    code = code_of(error.original_error)
    if code is ErrorCode.UNAVAILABLE:
        return code, UNAVAILABLE_MESSAGE
    if code is not None:
        return code, str(error.original_error)
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
            coded.append(
                GraphQLError(
                    message,
                    nodes=error.nodes,
                    source=error.source,
                    positions=error.positions,
                    path=error.path,
                    original_error=None,
                    extensions={**(error.extensions or {}), "code": code.value},
                )
            )
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
            s.name.value
            for s in definition.selection_set.selections
            if isinstance(s, FieldNode) and root is not None and s.name.value in root.fields
        )
        if names:
            return f"{operation_type.value}:{names[0]}"
        if any(isinstance(s, FieldNode) and s.name.value.startswith("__") for s in definition.selection_set.selections):
            return f"{operation_type.value}:introspection"
    return f"{operation_type.value}:invalid"
