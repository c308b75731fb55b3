"""LangChain on hippograph: a retriever of recalled memories and a chat history kept in a session.

Install the extra (``pip install 'hippograph[langchain]'``: ``langchain-core`` alone)::

    from hippograph.integrations.langchain import HippographChatMessageHistory, HippographRetriever

    retriever = HippographRetriever(url="http://127.0.0.1:8000", key=key, project="shop")
    docs = retriever.invoke("how do we deploy?")     # page_content, metadata: score, components …
    history = HippographChatMessageHistory("http://127.0.0.1:8000", key, session_id="chat-1")

Both talk to the server through ``hippograph.client``, so they see what the key's owner sees.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever
from pydantic import SecretStr

from hippograph.client import (
    AsyncClient,
    Client,
    ErrorCode,
    HippographError,
    Operation,
    Priority,
    RecallProfile,
    RecallResult,
    Tier,
    TranscriptEntry,
    append_turn,
    forget_session,
    recall,
    start_session,
    transcript,
)

# Message types as a session's transcript names their speakers, and back.
_ROLES = {HumanMessage: "user", AIMessage: "assistant", SystemMessage: "system", ToolMessage: "tool"}
_MESSAGES: dict[str, type[BaseMessage]] = {
    "user": HumanMessage,
    "human": HumanMessage,
    "assistant": AIMessage,
    "ai": AIMessage,
    "system": SystemMessage,
}


class HippographRetriever(BaseRetriever):
    """The memories hippograph recalls for a query, within the priority's budget, as documents.

    Each document is one delivered item: ``page_content`` is the text shown (the full entry or its
    summary), ``metadata`` holds ``id``, ``tier``, ``mode``, ``score``, ``tokens`` and ``components``
    (``vector``, ``keyword``, ``recency``, ``relation``, ``time``, ``period``).
    """

    url: str
    key: SecretStr
    priority: Priority = Priority.HIGH
    profile: RecallProfile = RecallProfile.HYBRID
    tiers: list[Tier] | None = None
    project: str | None = None
    session: str | None = None
    timeout: float = 60.0

    def _recall(self, query: str) -> Operation[RecallResult]:
        # The ranking is the explorer's; a retriever hands over the delivered items only.
        return recall(
            query,
            priority=self.priority,
            profile=self.profile,
            tiers=self.tiers,
            project=self.project,
            session=self.session,
            ranking=1,
        )

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        with Client(self.url, self.key.get_secret_value(), timeout=self.timeout) as hg:
            return documents(hg.send(self._recall(query)))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        async with AsyncClient(self.url, self.key.get_secret_value(), timeout=self.timeout) as hg:
            return documents(await hg.send(self._recall(query)))


def documents(result: RecallResult) -> list[Document]:
    """A recall's delivered items as documents, in order, each with why it came back."""
    return [
        Document(
            page_content=item.content,
            id=item.id,
            metadata={
                "id": item.id,
                "tier": item.tier.value,
                "mode": item.mode.value,
                "score": item.score,
                "tokens": item.tokens,
                "components": dataclasses.asdict(item.components),
            },
        )
        for item in result.items
    ]


class HippographChatMessageHistory(BaseChatMessageHistory):
    """A conversation kept as a hippograph session's transcript.

    ``add_messages`` appends each message as a turn (starting the session, in ``project`` when given,
    on the first one); past its trigger share of the budget the server summarises the oldest third, so ``messages``
    is the standing summary (a ``SystemMessage``) followed by the recent turns. ``clear`` erases the
    session (``forgetSession``): its turns, its memories and what was derived from them.
    """

    def __init__(
        self, url: str, key: str, session_id: str, *, project: str | None = None, timeout: float = 60.0
    ) -> None:
        self.client = Client(url, key, timeout=timeout)
        self.session_id = session_id
        self.project = project
        self._started = False

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]  # langchain declares an attribute; read anew each time
        try:
            entries = self.client.send(transcript(self.session_id)).transcript
        except HippographError as error:
            if error.code == ErrorCode.NOT_FOUND:
                return []
            raise
        return [message(entry) for entry in entries]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        if not self._started:
            self.client.send(start_session(self.session_id, project=self.project))
            self._started = True
        for each in messages:
            self.client.send(append_turn(self.session_id, role(each), each.text, project=self.project, ref=each.id))

    def clear(self) -> None:
        try:
            self.client.send(forget_session(self.session_id))
        except HippographError as error:
            if error.code != ErrorCode.NOT_FOUND:
                raise
        self._started = False

    def close(self) -> None:
        self.client.close()


def role(each: BaseMessage) -> str:
    """Who spoke, as the transcript names it: user, assistant, system, tool, or a chat message's own role."""
    if isinstance(each, ChatMessage):
        return each.role
    return next((name for kind, name in _ROLES.items() if isinstance(each, kind)), each.type)


def message(entry: TranscriptEntry) -> BaseMessage:
    """A transcript entry as a message; the standing summary of older turns is a system message."""
    if entry.is_summary:
        return SystemMessage(content=entry.content, id=entry.id)
    kind = _MESSAGES.get(entry.role)
    return (
        kind(content=entry.content, id=entry.id)
        if kind
        else ChatMessage(role=entry.role, content=entry.content, id=entry.id)
    )
