"""hippograph.integrations.langchain with langchain-core alone, against a real server: the retriever's documents are
the delivered items with their scores and components; the chat history is a session's transcript."""

from __future__ import annotations

import asyncio
import uuid

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed (pip install -e '.[langchain]')")

from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage  # noqa: E402

from hippograph_bench.server import Server  # noqa: E402
from hippograph.client import Client, ErrorCode, HippographError, Priority, Tier, recall, remember  # noqa: E402
from hippograph.integrations.langchain import HippographChatMessageHistory, HippographRetriever  # noqa: E402
from hippograph.memory import keys  # noqa: E402
from hippograph.memory.services import Services  # noqa: E402
from api_client import new_user  # noqa: E402

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def key(services: Services) -> str:
    return keys.create_key(services.driver, services.database, new_user("langchain")).secret


def test_the_retrievers_documents_are_the_delivered_items(api_server: Server, key: str, services: Services) -> None:
    shop = f"shop-{uuid.uuid4().hex[:8]}"
    with Client(api_server.base, key) as hg:
        for text in ("The shop deploys with Docker Compose", "The shop's invoices are PDFs", "The shop sells tea"):
            hg.send(remember(text, tier=Tier.PROJECT, project=shop))
        expected = hg.send(recall("how does the shop deploy?", priority=Priority.CRITICAL, project=shop)).items

    retriever = HippographRetriever(url=api_server.base, key=key, priority=Priority.CRITICAL, project=shop)
    docs = retriever.invoke("how does the shop deploy?")
    assert [(d.page_content, d.metadata["id"]) for d in docs] == [(i.content, i.id) for i in expected]
    assert docs[0].page_content == "The shop deploys with Docker Compose"
    top = docs[0].metadata
    assert top["tier"] == "PROJECT" and top["mode"] in ("FULL", "SUMMARY") and top["tokens"] > 0
    assert top["score"] == pytest.approx(expected[0].score)
    assert set(top["components"]) == {"vector", "keyword", "recency", "relation", "time", "period", "carried"}
    assert top["components"]["vector"] > 0

    again = asyncio.run(retriever.ainvoke("how does the shop deploy?"))
    assert [d.metadata["id"] for d in again] == [d.metadata["id"] for d in docs]

    # Another user's key finds none of it; a key that is none is refused with its code.
    other = keys.create_key(services.driver, services.database, new_user("langchain-other")).secret
    assert HippographRetriever(url=api_server.base, key=other, project=shop).invoke("how does the shop deploy?") == []
    with pytest.raises(HippographError) as refused:
        HippographRetriever(url=api_server.base, key="hg_not-a-key", project=shop).invoke("deploy")
    assert refused.value.code == ErrorCode.UNAUTHENTICATED


def test_the_chat_history_is_a_sessions_transcript(api_server: Server, key: str) -> None:
    chat = f"chat-{uuid.uuid4().hex[:8]}"
    history = HippographChatMessageHistory(api_server.base, key, chat)
    assert history.messages == []
    history.add_messages([SystemMessage("Answer briefly."), HumanMessage("Where do we deploy?")])
    history.add_message(AIMessage("On the staging host, then production."))
    history.add_message(ChatMessage(role="tool", content="deploy.sh exited 0"))

    shown = HippographChatMessageHistory(api_server.base, key, chat).messages
    assert [(type(m).__name__, m.text) for m in shown] == [
        ("SystemMessage", "Answer briefly."), ("HumanMessage", "Where do we deploy?"),
        ("AIMessage", "On the staging host, then production."), ("ChatMessage", "deploy.sh exited 0")]
    assert all(m.id for m in shown)

    history.clear()
    assert history.messages == []
    history.add_message(HumanMessage("A fresh start"))
    assert [m.text for m in history.messages] == ["A fresh start"]
    history.clear()
    history.close()
