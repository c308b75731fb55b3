"""A GraphQL request body read strictly: UTF-8 JSON, one object, no key said twice, bounded nesting.

Python's JSON reader takes what a strict reader would refuse — the last of two equal keys
wins, so ``"query"`` twice runs whichever came last; integers of any length; nesting until
the interpreter's recursion gives out — and a body that is ``null`` or a number is not a
request at all. Each is refused here, with the reason, before GraphQL sees the body.
"""

from __future__ import annotations

import json
import re
from typing import Any

from strawberry.http import GraphQLRequestData

MAX_NESTING = 32
# Objects and arrays in one body: a GraphQL request holds a few dozen; a body of a million
# would keep the reader busy for seconds.
MAX_CONTAINERS = 20_000
MAX_DOCUMENT = 65_536

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


class BodyError(ValueError):
    """The body is not a GraphQL request; the message says why."""

    status = 400


class BodyTooLarge(BodyError):
    """The body passes a bound on its size or shape (nesting, containers, the document's length)."""

    status = 413


def decode(data: bytes | str) -> dict[str, Any]:
    """The request object, or ``BodyError``. Up to ``MAX_BODY_BYTES`` of work: run it off the event loop."""
    value = decode_value(data)
    if not isinstance(value, dict):
        raise BodyError("the request body must be a JSON object with a `query`")
    return value


def decode_value(data: bytes | str) -> Any:
    """Any JSON value read strictly (a GET request's ``variables`` and ``extensions``)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark, which JSON lets a reader ignore
    _check_structure(raw)
    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=_object, parse_constant=_constant)
    except UnicodeDecodeError:
        raise BodyError("the request body is not UTF-8") from None
    except json.JSONDecodeError:
        raise BodyError("Unable to parse request body as JSON") from None
    except BodyError:
        raise
    except ValueError as exc:  # an integer longer than Python converts (4,300 digits)
        raise BodyError(f"the request body holds a number that is too long: {str(exc)[:80]}") from None


def request_data(body: dict[str, Any]) -> GraphQLRequestData:
    """The parts of a request, each of the type GraphQL over HTTP gives it."""
    query, variables, extensions = body.get("query"), body.get("variables"), body.get("extensions")
    operation_name = body.get("operationName")
    if not isinstance(query, (str, type(None))):
        raise BodyError("The GraphQL operation's `query` must be a string or null, if provided.")
    if query is not None and len(query) > MAX_DOCUMENT:
        # GraphQL's lexer reads a document a character at a time, on the event loop: long values go in variables.
        raise BodyTooLarge(
            f"the GraphQL document is longer than {MAX_DOCUMENT} characters; send long values as variables"
        )
    if not isinstance(operation_name, (str, type(None))):
        raise BodyError("The GraphQL operation's `operationName` must be a string or null, if provided.")
    for name, part in (("variables", variables), ("extensions", extensions)):
        if not isinstance(part, (dict, type(None))):
            raise BodyError(f"The GraphQL operation's `{name}` must be an object or null, if provided.")
    return GraphQLRequestData(
        query=query, variables=variables, operation_name=operation_name, extensions=extensions, protocol="http"
    )


def charset_error(content_type: str) -> str | None:
    """Why a body of this content type cannot be read, or None: it is read as UTF-8, so another
    declared charset is refused rather than misread."""
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return f"the request body must be UTF-8, not {value.strip()[:40]!r}"
    return None


def _check_structure(raw: bytes) -> None:
    """How many containers the body holds and how deep they nest, read from its brackets outside
    strings (at C speed) before any parser recurses into them."""
    bare = _STRING.sub(b'""', raw)
    if bare.count(b"[") + bare.count(b"{") > MAX_CONTAINERS:
        raise BodyTooLarge(f"the request body holds more than {MAX_CONTAINERS} objects and arrays")
    depth = 0
    for bracket in _BRACKET.findall(bare):
        depth += 1 if bracket in b"[{" else -1
        if depth > MAX_NESTING:
            raise BodyTooLarge(f"the request body nests deeper than {MAX_NESTING} levels")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise BodyError(f"the key {key[:40]!r} appears twice in one object of the request body")
            seen.add(key)
    return value


def _constant(name: str) -> float:
    raise BodyError(f"{name} is not a JSON number")
