"""Root query fields."""

from __future__ import annotations

import strawberry

from hippograph import __version__
from hippograph.graph import server
from hippograph.schema.context import Info


@strawberry.type(description="The running service and the database behind it.")
class ServerInfo:
    version: str
    neo4j_version: str
    neo4j_edition: str
    embedding_model: str
    embedding_dimension: int


@strawberry.type
class Query:
    @strawberry.field(description="Versions of hippograph, Neo4j and the embedding model in use.")
    def server_info(self, info: Info) -> ServerInfo:
        services = info.context.services
        version, edition = server.neo4j_version(services.driver, services.database)
        return ServerInfo(
            version=__version__,
            neo4j_version=version,
            neo4j_edition=edition,
            embedding_model=services.embedder.name,
            embedding_dimension=services.embedder.dimension,
        )
