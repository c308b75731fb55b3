"""DataLoaders: one batched read per kind of node and level of a query, never one per row.

A fresh set is built for each request (``Context.loaders``), bound to the
caller, so nothing is cached across requests or shared between users.
A WebSocket's context lives as long as its connection, so its loaders batch but
do not cache: each operation on it reads what is stored now.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from strawberry.dataloader import DataLoader

from hippograph.operations import browse
from hippograph.operations.call import Call

V = TypeVar("V")
Row = dict[str, Any]


@dataclass
class Loaders:
    memory: DataLoader[str, Row | None]
    entity: DataLoader[str, Row | None]
    edges: DataLoader[str, list[Row]]
    entity_memories: DataLoader[str, list[Row]]
    memory_entities: DataLoader[str, list[Row]]


def build_loaders(call: Call, cache: bool = True) -> Loaders:
    def loader(
        read: Callable[[Call, Sequence[str]], Awaitable[Mapping[str, V]]], missing: Callable[[], V]
    ) -> DataLoader[str, V]:
        async def load(keys: list[str]) -> list[V]:
            found = await read(call, keys)
            return [found.get(key, missing()) for key in keys]

        return DataLoader(load_fn=load, cache=cache)

    return Loaders(
        memory=loader(browse.memories_by_id, lambda: None),
        entity=loader(browse.entities_by_id, lambda: None),
        edges=loader(browse.edges_of, list),
        entity_memories=loader(browse.memories_of_entities, list),
        memory_entities=loader(browse.entities_of_memories, list),
    )
