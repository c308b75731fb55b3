"""What every resolver receives: the request and the services opened by the app's lifespan."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from strawberry.types import Info as StrawberryInfo

from hippograph.services import Services


@dataclass
class Context:
    request: Request | None
    services: Services


Info = StrawberryInfo[Context, None]
