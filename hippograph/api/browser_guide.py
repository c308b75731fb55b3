"""Neo4j Browser for analysts: the guide ``:play`` opens, and a style that tells the nodes apart.

``:play http://127.0.0.1:8000/browser/guide`` (the local server's config allows this host)
shows the analysts' queries (``hippograph.graph.analyst_queries``), each runnable with one
click; its first slide sets the parameters and loads ``/browser/style.grass``, which gives
memories, the six entity types, sessions, projects, turns and users each a colour and a
caption. Both are public — they hold no one's data — and answer any origin, since Browser
fetches them from its own page.
"""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import Response

from hippograph.graph.analyst_queries import GUIDE
from hippograph.graph.vocabulary import EntityType

# label: (colour, border, caption property)
STYLE = {
    "Memory": ("#68BDF6", "#5CA8DB", "content"),
    "Session": ("#FFD86E", "#EDBA39", "id"),
    "Project": ("#FB95AF", "#E0849B", "id"),
    "User": ("#A5ABB6", "#9AA1AC", "id"),
    "Turn": ("#DE9BF9", "#BF85D6", "role"),
    EntityType.DECISION.value: ("#57C7E3", "#23B3D7", "name"),
    EntityType.ERROR.value: ("#F16667", "#EB2728", "name"),
    EntityType.PATTERN.value: ("#8DCC93", "#5DB665", "name"),
    EntityType.TECHNOLOGY.value: ("#F79767", "#F36924", "name"),
    EntityType.CONCEPT.value: ("#C990C0", "#B261A5", "name"),
    EntityType.USER_PREFERENCE.value: ("#ECB5C9", "#DA7298", "name"),
}
PUBLIC = {"access-control-allow-origin": "*", "cache-control": "no-cache"}


def style() -> str:
    """The GraSS: one rule per label; the entity types after Memory, so a memory's own colour gives way
    to the entity type it records."""
    rules = [
        "node {\n  diameter: 55px;\n  color: #A5ABB6;\n  border-color: #9AA1AC;\n  border-width: 2px;\n"
        "  text-color-internal: #FFFFFF;\n  font-size: 10px;\n}",
        "relationship {\n  color: #A5ABB6;\n  shaft-width: 2px;\n  font-size: 9px;\n  padding: 3px;\n"
        "  text-color-external: #000000;\n  text-color-internal: #FFFFFF;\n  caption: '<type>';\n}",
    ]
    for label, (colour, border, caption) in STYLE.items():
        rules.append(f"node.{label} {{\n  color: {colour};\n  border-color: {border};\n  caption: '{{{caption}}}';\n}}")
    return "\n\n".join(rules) + "\n"


def guide(base: str, capacities: dict[str, int]) -> str:
    """The guide's slides: parameters and style first, then one slide per query."""
    setup = "\n".join(
        [
            ":param user => 'alice'",
            ":param project => 'web'",
            ":param memory => 'a memory id'",
            ":param entity => 'Redis'",
            ":param asOf => datetime() - duration('P7D')",
            ":param capacities => {" + ", ".join(f"{k}: {v}" for k, v in capacities.items()) + "}",
        ]
    )
    slides = [
        _slide(
            "hippograph for analysts",
            "Every query below runs on the caller's own graph: set the user (and project, memory, entity) "
            "first, then click a query to put it in the editor and run it. The style gives each kind of node "
            "its colour: memories blue, decisions teal, errors red, patterns green, technologies orange.",
            [setup, f":style {base}/browser/style.grass"],
        )
    ]
    slides += [_slide(q.title, q.why, [q.cypher]) for q in GUIDE]
    return (
        '<article class="guide">\n  <carousel class="deck container-fluid">\n'
        + "\n".join(slides)
        + "\n  </carousel>\n</article>\n"
    )


def _slide(title: str, why: str, blocks: list[str]) -> str:
    code = "\n".join(
        f'        <pre mode="cypher" class="pre-scrollable code runnable">{escape(b)}</pre>' for b in blocks
    )
    return (
        f'    <slide class="row-fluid">\n      <div class="col-sm-12">\n        <h3>{escape(title)}</h3>\n'
        f"        <p>{escape(why)}</p>\n{code}\n      </div>\n    </slide>"
    )


def _preflight(request: Request) -> Response:
    """Browser asks before it fetches (its request carries headers of its own): any origin may GET these."""
    asked = request.headers.get("access-control-request-headers", "")
    return Response(
        status_code=204,
        headers={
            **PUBLIC,
            "access-control-allow-methods": "GET",
            "access-control-allow-headers": asked,
            "access-control-max-age": "600",
        },
    )


async def guide_endpoint(request: Request) -> Response:
    if request.method == "OPTIONS":
        return _preflight(request)
    settings = request.app.state.services.settings
    capacities = {
        "session": settings.session_capacity,
        "project": settings.project_capacity,
        "longTerm": settings.long_term_capacity,
    }
    base = str(request.base_url).rstrip("/")
    return Response(guide(base, capacities), media_type="text/html", headers=PUBLIC)


async def style_endpoint(request: Request) -> Response:
    if request.method == "OPTIONS":
        return _preflight(request)
    return Response(style(), media_type="text/plain", headers=PUBLIC)
