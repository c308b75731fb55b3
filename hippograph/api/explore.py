"""The memory explorer at ``/explore``: static files that speak the GraphQL API with the user's key.

The page (``explore_static/``: HTML and CSS) loads scripts that ``make setup`` builds into
``explore_assets/``: the explorer itself, TypeScript in ``clients/typescript/explorer/`` compiled
with the typed documents generated from ``schema.graphql``, and cytoscape.js (with its licence)
from the npm registry. Nothing is built or fetched at run time; without the built files the page
says how to get them. ``/explore/style.json`` gives each node label the colours of the Neo4j
Browser style (``hippograph.api.browser_guide``), keyed as the API names entity types.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hippograph.api.browser_guide import STYLE
from hippograph.graph.vocabulary import EntityType

HERE = Path(__file__).resolve().parent
STATIC = HERE / "explore_static"
ASSETS = HERE / "explore_assets"
# What the page cannot start without, as make setup writes it.
BUILT = ("js/explorer/main.js", "vendor/cytoscape/cytoscape.esm.min.js", "vendor/cytoscape/LICENSE")


def missing() -> list[str]:
    return [name for name in BUILT if not (ASSETS / name).is_file()]


def colours() -> dict[str, dict[str, str]]:
    """The Browser style's colour and border per label; an entity type under its GraphQL name (DECISION …)."""
    api_names = {t.value: t.name for t in EntityType}
    return {
        api_names.get(label, label): {"color": colour, "border": border} for label, (colour, border, _) in STYLE.items()
    }


async def page(request: Request) -> Response:
    if absent := missing():
        return HTMLResponse(
            "<!doctype html><title>hippograph explorer</title><p>The explorer's scripts are not built here "
            f"({', '.join(absent)} missing): run <code>make setup</code>, which builds them. "
            "The API itself works: POST to /graphql.</p>",
            status_code=503,
        )
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})


async def style(request: Request) -> Response:
    return JSONResponse(colours())


routes = Mount(
    "/explore",
    routes=[
        Route("/", page),
        Route("/style.json", style),
        Mount("/static", StaticFiles(directory=STATIC)),
        Mount("/assets", StaticFiles(directory=ASSETS, check_dir=False)),
    ],
)
