"""Inputs and results of forgetting a whole scope: ``forgetSession``, ``forgetProject``, ``forgetUser``."""

from __future__ import annotations

from typing import Annotated, Union

import strawberry

from hippograph.memory.writing.forget import ScopeForgotten
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError


@strawberry.input
class ForgetSessionInput:
    id: strawberry.ID


@strawberry.input
class ForgetProjectInput:
    id: strawberry.ID


@strawberry.input(description="Leave `user` out (or give your own id) to erase yourself; only an admin key may name another user.")
class ForgetUserInput:
    user: strawberry.ID | None = None


@strawberry.type(name="ScopeForgotten", description="How much went: nothing of it stays in any property, index or search. "
                 "The audit log keeps a tombstone with these counts and the scope, never the content.")
class ScopeErased:
    memories: int = strawberry.field(description="Memories, with the facts and promoted memories derived from the scope "
                                                 "and the summaries only they supported.")
    entities: int = strawberry.field(description="Entities nothing else mentions any more.")
    turns: int
    sessions: int
    projects: int
    api_keys: int = strawberry.field(description="Keys erased with their user (forgetUser only).")

    @classmethod
    def from_result(cls, forgotten: ScopeForgotten) -> ScopeErased:
        return cls(
            memories=forgotten.memories, entities=forgotten.entities, turns=forgotten.turns,
            sessions=forgotten.sessions, projects=forgotten.projects, api_keys=forgotten.api_keys,
        )


ForgetSessionPayload = Annotated[
    Union[ScopeErased, BadUserInputError, NotFoundError, LimitExceededError], strawberry.union("ForgetSessionPayload")
]
ForgetProjectPayload = Annotated[
    Union[ScopeErased, BadUserInputError, NotFoundError, LimitExceededError], strawberry.union("ForgetProjectPayload")
]
ForgetUserPayload = Annotated[
    Union[ScopeErased, BadUserInputError, NotFoundError, LimitExceededError], strawberry.union("ForgetUserPayload")
]
