"""Summaries and facts from any OpenAI-compatible chat endpoint (optional).

Implements the ``Summarizer`` and ``FactExtractor`` protocols of
``hippograph.memory.lifecycle.summarizing``. Configured by ``HIPPOGRAPH_LLM_BASE_URL``,
``HIPPOGRAPH_LLM_MODEL`` and ``HIPPOGRAPH_LLM_API_KEY``; nothing uses it unless
the base URL is set. Uses only the standard library's HTTP client.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass

from hippograph.config import Settings
from hippograph.memory.lifecycle.summarizing import Fact, TurnText

SUMMARY_PROMPT = (
    "Summarise this conversation excerpt in at most {max_tokens} tokens. Keep concrete content — names, dates, "
    "numbers, decisions, errors and their fixes — and drop greetings, thanks and small talk. "
    "Answer with the summary only."
)
FACTS_PROMPT = (
    "Extract the standalone facts from this conversation excerpt: names, dates, numbers, decisions, errors and fixes. "
    'Answer with JSON only: {"facts": [{"content": "...", "turns": ["<turn id>", ...], "kind": "fact|decision"}]}'
)


class LLMError(RuntimeError):
    """The endpoint failed or answered something unusable; the message says which."""


@dataclass(frozen=True)
class OpenAICompatibleClient:
    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 30.0

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAICompatibleClient | None:
        if not settings.llm_base_url:
            return None
        return cls(settings.llm_base_url.rstrip("/"), settings.llm_model, settings.llm_api_key or None)

    def summarize(self, turns: Sequence[TurnText], max_tokens: int) -> str:
        return self._chat(SUMMARY_PROMPT.format(max_tokens=max_tokens), _transcript(turns), max_tokens).strip()

    def extract(self, turns: Sequence[TurnText]) -> list[Fact]:
        known = {t.id for t in turns}
        answer = self._chat(FACTS_PROMPT, _transcript(turns), 1024)
        try:
            payload = json.loads(answer[answer.index("{") : answer.rindex("}") + 1])
            facts = payload["facts"]
        except (ValueError, KeyError, TypeError):
            raise LLMError("the endpoint's fact list is not the JSON asked for") from None
        extracted = []
        for fact in facts:
            content = str(fact.get("content", "")).strip()
            sources = tuple(t for t in fact.get("turns", []) if t in known)  # never trust ids the model invents
            if content and sources:
                kind = "decision" if fact.get("kind") == "decision" else "fact"
                extracted.append(Fact(content, sources, kind))
        return extracted

    def _chat(self, instruction: str, content: str, max_tokens: int) -> str:
        body = json.dumps(
            {
                "model": self.model,
                "messages": [{"role": "system", "content": instruction}, {"role": "user", "content": content}],
                "max_tokens": max_tokens,
                "temperature": 0,
            }
        ).encode()
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, method="POST")
        request.add_header("content-type", "application/json")
        if self.api_key:
            request.add_header("authorization", f"Bearer {self.api_key}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.load(response)
            return str(answer["choices"][0]["message"]["content"])
        except urllib.error.HTTPError as exc:
            raise LLMError(f"the endpoint answered HTTP {exc.code}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise LLMError(f"the endpoint at {self.base_url} is not reachable: {exc}") from None
        except (KeyError, IndexError, TypeError, ValueError):
            raise LLMError("the endpoint's answer is not an OpenAI-style chat completion") from None


def _transcript(turns: Sequence[TurnText]) -> str:
    return "\n".join(f"[{t.id}] {t.speaker}: {t.text}" for t in turns)
