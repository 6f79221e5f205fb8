"""The table of formats, content sniffing, and loading several files as one model."""

from __future__ import annotations

import importlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Literal

from app import errors
from app.formats import textures
from app.formats.animation_sets import make_clip_names_unique
from app.errors import ReadError
from app.model import Model

#: Bytes read from the start of a file for sniffing.
SNIFF_BYTES = 4096


#: The byte-order mark Windows editors (Notepad) put before UTF-8 text: not part of the content.
UTF8_BOM = b"\xef\xbb\xbf"


def regular_size(path: str | Path) -> int:
    """The size of ``path`` if it is a regular file, else a ReadError (see ``errors.regular_size``)."""
    return errors.regular_size(path, ReadError)


def read_bytes(path: str | Path) -> bytes:
    """The whole file, or a ReadError saying why it cannot be opened."""
    regular_size(path)
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise ReadError(path, f"cannot open: {error.strerror or error}") from None


@dataclass
class LoadOptions:
    """Reader options a user can set. ``fps``: frames per second for formats that store frames
    without times (None: the format's default). ``conjugate_quaternions``: for ``.anm`` files
    written by a tool with the opposite quaternion sign. ``up``: the up axis, overriding the file's
    or the guessed one. ``textures``: assigned images, ``(mesh name or None for every mesh, image
    path)``. ``texture_dirs``: folders searched for the textures files name, after the model's own.
    ``show_hidden``: meshes the file marks as not rendered are drawn and exported too.
    ``resources``: folders and NWN archives searched, in order, for supermodels, textures and
    palettes after the model's own folder (``--resources``). ``plt_colours``: the colour index of
    each PLT layer named (``--plt LAYER=INDEX``; the others 0)."""

    fps: float | None = None
    conjugate_quaternions: bool = False
    up: Literal["Y", "Z"] | None = None
    textures: list[tuple[str | None, str]] = field(default_factory=list)
    texture_dirs: list[str] = field(default_factory=list)
    show_hidden: bool = False
    resources: list[str] = field(default_factory=list)
    plt_colours: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SniffedFile:
    """A file with the format and role (e.g. 'structure', 'animation') its content showed."""

    path: Path
    format: str
    role: str


@dataclass
class Format:
    """One readable format.

    sniff(head, path) → a role name when the first bytes are this format's, else None.
    load(files, options) → Model, for all files of this format (and of ``accepts``) opened together.
    accepts: other formats whose files this one takes as companions (e.g. an OBJ with faces).
    frames_without_times: the format stores frames, not seconds, so ``LoadOptions.fps`` applies.
    unit: the length unit the format states ('metre'), or None when its files are in whatever unit
    the authoring tool used.
    dds_bottom_up: the DDS textures its files name store the image's bottom row first.
    magic: the bytes its files start with, naming the reader whose message a file no reader accepts
    gets when its extension names none (the extension is asked first).
    """

    name: str
    description: str
    sniff: Callable[[bytes, Path], str | None]
    load: Callable[[list[SniffedFile], LoadOptions], Model]
    accepts: tuple[str, ...] = ()
    extensions: tuple[str, ...] = field(default=())
    frames_without_times: bool = False
    unit: str | None = None
    dds_bottom_up: bool = False
    magic: bytes = b""


#: Every format's name and the module that reads it, in the order sniffing tries them.
READERS = {
    "gltf": "app.formats.gltf.reader",
    "obj": "app.formats.obj_faces",
    "bonespro": "app.formats.bonespro.structure",
    "bnf": "app.formats.bnf",
    "lgw": "app.formats.lgw",
    "c3de": "app.formats.c3de",
    "nwn_ascii": "app.formats.nwn.ascii",
    "nwn_mdl": "app.formats.nwn.binary",
    "fbx": "app.formats.fbx",
    "bvh": "app.formats.bvh",
}


class FormatTable(Mapping[str, Format]):
    """The formats by name, in ``READERS``' order. A reader module is imported, and registers its
    Format, when its format is first looked up: reading a glTF file imports no other reader."""

    def __init__(self) -> None:
        self._registered: dict[str, Format] = {}

    def add(self, fmt: Format) -> None:
        self._registered[fmt.name] = fmt

    def __getitem__(self, name: str) -> Format:
        if name not in self._registered and name in READERS:
            importlib.import_module(READERS[name])
        return self._registered[name]

    def __iter__(self) -> Iterator[str]:
        return iter([*READERS, *(name for name in self._registered if name not in READERS)])

    def __len__(self) -> int:
        return len(READERS.keys() | self._registered.keys())


formats = FormatTable()


def register(fmt: Format) -> Format:
    formats.add(fmt)
    return fmt


def sniff(path: str | Path) -> SniffedFile:
    """Recognise one file by its content."""
    path = Path(path)
    regular_size(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as error:
        raise ReadError(path, f"cannot open: {error.strerror or error}") from None
    if not head:
        raise ReadError(path, "the file is empty", offset=0)
    head = head.removeprefix(UTF8_BOM)
    for fmt in formats.values():
        role = fmt.sniff(head, path)
        if role:
            return SniffedFile(path, fmt.name, role)
    raise _unrecognised(path, head)


def _named_reader(path: Path, head: bytes) -> Format | None:
    """The one reader ``path``'s extension names, else the one whose magic ``head`` starts with
    (formats read by one loader, like NWN's two forms, count once); None when none or several do."""
    suffix = path.suffix.lower()
    named = {fmt.load: fmt for fmt in formats.values() if suffix in fmt.extensions}
    if len(named) != 1:
        named = {fmt.load: fmt for fmt in formats.values() if fmt.magic and head.startswith(fmt.magic)}
    return next(iter(named.values())) if len(named) == 1 else None


def _unrecognised(path: Path, head: bytes) -> ReadError:
    """The error for a file no reader accepts: the message of the reader its extension or magic
    names (it says what that format needed: the C3DE layouts' sizes, the NWN header), else the list
    of formats."""
    fmt = _named_reader(path, head)
    if fmt is not None:
        try:
            fmt.load([SniffedFile(path, fmt.name, "unrecognised")], LoadOptions())
        except ReadError as error:
            return error
        except ValueError:
            pass
    known = ", ".join(f.description for f in formats.values())
    return ReadError(path, f"not a recognised model or animation file (expected one of: {known})", offset=0)


def _refuse_repeats(paths: list[str | Path]) -> None:
    """A ReadError when one file is given twice (by any name: links and relative paths resolved)."""
    seen: dict[tuple[int, int], Path] = {}
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            continue  # sniff() names the problem
        key = (status.st_dev, status.st_ino)
        if key in seen:
            raise ReadError(path, f"the same file is given twice (also as {seen[key]})")
        seen[key] = Path(path)


def read_unposed(paths: list[str | Path], options: LoadOptions | None = None) -> Model:
    """Read ``paths`` as one model, its posing work left in ``Model.pending`` (``loading.load`` does
    it). Raises ``ReadError`` for anything that cannot be read."""
    if not paths:
        raise ValueError("no files given")
    options = options or LoadOptions()
    from app.formats.nwn.archives import split_member  # the archives' modules import this one

    if any(split_member(str(path)) for path in paths):
        return _read_members(paths, options)
    _refuse_repeats(paths)
    sniffed = [sniff(path) for path in paths]
    names = {s.format for s in sniffed}
    owners = [name for name in names if names <= {name, *formats[name].accepts}]
    if not owners:
        listing = "; ".join(f"{s.path.name}: {formats[s.format].description}" for s in sniffed)
        raise ReadError(sniffed[0].path, f"these files do not belong to one model ({listing})")
    try:
        model = formats[owners[0]].load(sniffed, options)
    except ValueError as error:  # a model-consistency check failed on what the reader built
        raise ReadError(sniffed[0].path, str(error)) from None
    model.files = [str(s.path) for s in sniffed]
    model.unit = formats[owners[0]].unit or "unknown"
    _name_clip_sources(model, sniffed)
    make_clip_names_unique(model.clips, model.warnings)
    textures.resolve_textures(model, options.texture_dirs, formats[owners[0]].dds_bottom_up,
                              [Path(path) for path in options.resources], options.plt_colours)
    textures.assign_textures(model, options.textures)
    if options.up:
        model.up_axis, model.up_source = options.up, "option"
    return model


def _read_members(paths: list[str | Path], options: LoadOptions) -> Model:
    """``read_unposed`` of paths some of which name models inside archives (``ARCHIVE:RESREF``):
    read from scratch copies, their archives searched first; ``Model.files`` keeps the given names."""
    from app.formats.nwn.archives.members import extract_members

    with tempfile.TemporaryDirectory(prefix="boneyard-archive-") as scratch:
        read, archives, given = extract_members(paths, Path(scratch))
        resources = [str(path) for path in archives] + list(options.resources)
        model = read_unposed(read, replace(options, resources=resources))
    model.files = [given.get(path, path) for path in model.files]
    return model


def _name_clip_sources(model: Model, sniffed: list[SniffedFile]) -> None:
    """Clips whose reader did not say where they came from: the one animation file of the set, else
    the first file."""
    animations = [s for s in sniffed if s.role == "animation"]
    default = (animations[0] if len(animations) == 1 else sniffed[0]).path.name
    for clip in model.clips:
        clip.source = clip.source or default
