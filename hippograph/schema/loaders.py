"""DataLoaders: one batched read per kind of node and level of a query, never one per row.

A fresh set is built for each request (``Context.loaders``), bound to the
caller's user id, so nothing is cached across requests or shared between users.
A WebSocket's context lives as long as its connection, so its loaders batch but
do not cache: each operation on it reads what is stored now.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from strawberry.dataloader import DataLoader

from hippograph.memory import browse
from hippograph.memory.services import Services

# The memories listed under one entity; more are reached through `memories(filter)`.
MEMORIES_PER_ENTITY = 100

V = TypeVar("V")
Row = dict[str, Any]


@dataclass
class Loaders:
    memory: DataLoader[str, Row | None]
    entity: DataLoader[str, Row | None]
    edges: DataLoader[str, list[Row]]
    entity_memories: DataLoader[str, list[Row]]
    memory_entities: DataLoader[str, list[Row]]


def build_loaders(services: Services, user_id: str, cache: bool = True) -> Loaders:
    def loader(read: Callable[[Services, str, Sequence[str]], dict[str, V]], missing: Callable[[], V]) -> DataLoader[str, V]:
        async def load(keys: list[str]) -> list[V]:
            found = await run_in_threadpool(read, services, user_id, keys)
            return [found.get(key, missing()) for key in keys]

        return DataLoader(load_fn=load, cache=cache)

    return Loaders(
        memory=loader(browse.get_memories, lambda: None),
        entity=loader(browse.get_entities, lambda: None),
        edges=loader(browse.edges_of, list),
        entity_memories=loader(
            lambda s, u, ids: browse.memories_of_entities(s, u, ids, MEMORIES_PER_ENTITY), list
        ),
        memory_entities=loader(browse.entities_of_memories, list),
    )
