"""FBX reader (binary FBX 6.x/7.x and ASCII FBX) on ufbx, the loader Blender 4.5 imports FBX with.

extract.py is the ufbx-facing half: it copies what Boneyard uses into numpy (contents.py) in a
reader process (reader_process.py: the ufbx 0.0.5 bindings can crash, and a crash must end that
process, not the program). build.py makes the Model. Lengths are converted to metres and axes to
Y up, +Z front, as Blender and glTF do; the file's own unit and axes are kept for ``info``
(``Model.file_unit_m``, ``file_axes``). What is read, and what is not: docs/formats/fbx.md.

Several FBX files open as one model: the first with meshes (else the first) is the model, and the
others' clips move its bones by name (Mixamo's "without skin" animation files).
"""

from __future__ import annotations

from pathlib import Path

from app.formats.animation_sets import model_with_lent_clips
from app.formats.fbx.build import build_model, mesh_layouts
from app.formats.fbx.reader_process import ReaderCrash, read_isolated
from app.formats.fbx.extract import ExtractError
from app.formats.fbx.locate import BINARY_MAGIC, ascii_problem, binary_problem
from app.formats.registry import (
    Format,
    LoadOptions,
    ReadError,
    SniffedFile,
    read_bytes,
    register,
    regular_size,
)
from app.model import Model

#: Lines an ASCII FBX file opens with: its comment header, else its first block.
ASCII_STARTS = (b"; FBX", b"FBXHeaderExtension:")


def sniff(head: bytes, path: Path) -> str | None:
    """'model' for a binary FBX (its magic) or an ASCII FBX (its header comment or first block)."""
    if head.startswith(BINARY_MAGIC):
        return "model"
    text = head.lstrip(b" \t\r\n")
    return "model" if text.startswith(ASCII_STARTS) else None


def read(path: str | Path) -> Model:
    """One FBX file as a Model (metres, Y up, format 'fbx'); ReadError for anything unreadable."""
    path = Path(path)
    regular_size(path)
    try:
        contents, layouts = read_isolated(path, mesh_layouts)  # the meshes laid out while ufbx bakes
    except ExtractError as error:
        raise _located(path, f"ufbx cannot read it: {error}") from None
    except ReaderCrash as error:
        raise _located(path, str(error)) from None
    except ValueError as error:  # laying the meshes out found what no model may hold
        raise ReadError(path, str(error)) from None
    if not contents.nodes.names:  # ufbx reads what it can: a file cut short may give an empty scene
        raise _located(path, "it holds no nodes")
    try:
        return build_model(path, contents, layouts)
    except ValueError as error:  # a model check on what was read (shapes, bounds, bone indices)
        raise ReadError(path, str(error)) from None


def _located(path: Path, message: str) -> ReadError:
    """A ReadError placed at the first structural fault the file shows, else at its start."""
    data = read_bytes(path)
    if data.startswith(BINARY_MAGIC):
        found = binary_problem(data)
        if found is not None:
            return ReadError(path, f"{found[1]} ({message})", offset=found[0])
        return ReadError(path, f"{message} (its records are well formed)", offset=0)
    found = ascii_problem(data)
    if found is not None:
        return ReadError(path, f"{found[1]} ({message})", line=found[0])
    return ReadError(path, f"{message} (its blocks and quotes close)", line=1)


def _load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """The first file with meshes (else the first) as the model, the others' clips moved onto its
    bones by name."""
    return model_with_lent_clips([read(sniffed.path) for sniffed in files], ReadError)


register(Format(name="fbx", description="FBX (.fbx, binary or ASCII)", sniff=sniff, load=_load,
                extensions=(".fbx",), unit="metre", magic=BINARY_MAGIC))
