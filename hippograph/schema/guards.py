"""How a resolver is entered: its arguments checked, and (for mutations) the caller's
mistakes turned into the error member of the mutation's union."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from hippograph.schema.errors import user_error
from hippograph.operations.limits import check_strings

P = ParamSpec("P")
R = TypeVar("R")


def _check_arguments(kwargs: dict[str, Any]) -> None:
    """Each argument's strings, under the argument's own name (``input.content``, ``id``)."""
    for name, value in kwargs.items():
        if name not in ("info", "self", "root"):
            check_strings(value, name)


def checked(resolver: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A query resolver whose string arguments are checked first (Unicode, control characters)."""

    @functools.wraps(resolver)
    async def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        _check_arguments(kwargs)
        return await resolver(*args, **kwargs)

    return wrapped


def mutation(resolver: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[Any]]:
    """A mutation resolver: arguments checked, and a failure the caller caused returned as its union's
    error member. Anything else (Neo4j unavailable, a bug) still raises, as a top-level error."""

    @functools.wraps(resolver)
    async def wrapped(*args: P.args, **kwargs: P.kwargs) -> Any:
        try:
            _check_arguments(kwargs)
            return await resolver(*args, **kwargs)
        except Exception as exc:
            member = user_error(exc)
            if member is None:
                raise
            return member

    return wrapped
