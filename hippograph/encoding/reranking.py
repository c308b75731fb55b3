"""The cross-encoder that re-ranks recall's candidates for profiles that ask for it (``hanzo``).

Off unless ``HIPPOGRAPH_CROSS_ENCODER`` names a sentence-transformers cross-encoder: a local
folder, or the name of an installed offline model package (as for the embedding model). It
reads each (query, memory) pair whole, so it is slower than the fused score, and it is not
always better: on conversational memory an MS-MARCO cross-encoder was found to lower Hit@1.
"""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.encoding.embedding import EmbeddingError, resolve_model


class CrossEncoderError(RuntimeError):
    """The configured cross-encoder cannot be loaded; the message says why."""


class CrossEncoder:
    """Scores (query, passage) pairs; a higher score is a better answer."""

    def __init__(self, model: str, batch_size: int = 32) -> None:
        try:
            location, local = resolve_model(model, "cross-encoder")
        except EmbeddingError as exc:
            raise CrossEncoderError(str(exc)) from None
        from sentence_transformers import CrossEncoder as Model

        try:
            self._model = Model(location, device="cpu", local_files_only=local)
        except Exception as exc:  # sentence-transformers raises many kinds; all mean "cannot load"
            raise CrossEncoderError(f"cannot load cross-encoder {model!r} from {location}: {exc}") from None
        self.name = model
        self.batch_size = batch_size

    def rank(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        scores = self._model.predict(
            [(query, passage) for passage in passages],
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [float(score) for score in scores.reshape(len(passages), -1)[:, 0]]
