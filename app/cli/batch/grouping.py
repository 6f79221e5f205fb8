"""Files under the batch's PATHs, grouped into models by the rules for several FILEs (docs/cli.md).

Within one folder: a BonesPro structure takes the animation (and OBJ face) files, a C3DE mesh the
bones files, a ``.bnf`` its ``.anm``/``.prm``, a glTF with meshes the animation-only glTF files, an
FBX with meshes the FBX files without (a BVH take is a model of its own), each companion going
to the model file of its kind whose name shares the longest start with its own. An NWN model that
is another NWN model's supermodel is read with that model (the reader finds it beside), not as a
model of its own; nor is a walkmesh file (``.wok``, ``.pwk``, ``.dwk``, in any of its forms, a
compiled one sniffing as an MDL), which goes with the NWN model named like it (its reader finds it
beside). A companion with no model file of its kind beside it is an orphan, reported as an error.
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app import json_text
from app.atomic_files import special_kind
from app.cli.batch.names import shown
from app.errors import InputError
from app.formats import registry
from app.formats.nwn.archives import is_archive, open_archive

#: Role of a sniffed file → whether it is a model's main file ('main') or a companion of one.
COMPANION_ROLES = {("bonespro", "animation"), ("obj", "faces"), ("c3de", "bones"), ("bnf", "animation"),
                   ("bnf", "parameters"), ("gltf", "animation"), ("fbx", "animation")}
#: Formats whose files group together (an OBJ's faces belong to a BonesPro structure).
FAMILIES = {"obj": "bonespro", "nwn_ascii": "nwn", "nwn_mdl": "nwn"}
#: Suffixes of NWN walkmesh files: a tile's, a placeable's, a door's (docs/formats/walkmesh.md).
WALKMESH_SUFFIXES = (".wok", ".pwk", ".dwk")
_SETSUPERMODEL = re.compile(rb"^\s*setsupermodel\s+\S+\s+(\S+)", re.MULTILINE | re.IGNORECASE)


@dataclass
class Found:
    """A file found under ``root`` (the PATH given), as the path to open and its name below root."""

    path: Path
    root: Path

    @property
    def relative(self) -> str:
        if self.root.is_dir():
            return self.path.relative_to(self.root).as_posix()
        if self.path.parent == self.root:  # a resource of an archive given as a PATH
            return f"{self.root.name}/{self.path.name}"
        return self.path.name


@dataclass
class Group:
    """One model: its main file first; ``error`` says why it cannot be read (an orphan).
    ``walkmeshes``: the walkmesh files that are the model's, read by its reader from beside it (not
    given to it as files)."""

    main: Found
    companions: list[Found] = field(default_factory=list)
    error: str | None = None
    walkmeshes: list[Found] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [str(found.path) for found in (self.main, *self.companions)]

    @property
    def relative(self) -> str:
        return self.main.relative

    def relative_of(self, path: str) -> str:
        """``path`` (one of the model's files or a file beside them) named below the model's root."""
        resolved = Path(path)
        base = self.main.path.parent
        try:
            below = resolved.relative_to(base).as_posix()
        except ValueError:
            return str(path)
        folder = str(Path(self.relative).parent.as_posix())
        return below if folder in ("", ".") else f"{folder}/{below}"


#: Folders a walk never enters: their files are the system's, not models, and /proc alone holds
#: hundreds of thousands.
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")


def find_files(paths: list[str | Path], skip: Path | None = None,
               warn: Callable[[str], None] = lambda message: None) -> list[Found]:
    """The files under ``paths`` (files as given, folders recursively, links followed once), each
    file once however many links reach it, none under ``skip`` (the output folder), in sorted order.
    System folders (/proc, /sys, /dev and what is mounted from their filesystems) are not entered,
    nor a folder link that leads to ``/`` or to a folder above the walk; ``warn`` is told why."""
    seen_files: set[tuple[int, int]] = set()
    seen_dirs: set[tuple[int, int]] = set()
    skip_key = _key(skip) if skip is not None else None
    system = _system_devices()
    found: list[Found] = []
    for given in paths:
        root = Path(given)
        if not root.is_dir():
            if _first_visit(root, seen_files):
                found.append(Found(root, root))
            continue
        if _system_folder(os.path.realpath(root)):
            warn(f"{shown(root)} is a system folder; not searched")
            continue
        for folder, dirs, files in os.walk(root, followlinks=True):
            key = _key(Path(folder))
            if key is None or key in seen_dirs or key == skip_key or key[0] in system:
                dirs[:] = []
                continue
            seen_dirs.add(key)
            dirs[:] = sorted(name for name in dirs if _enters(root, Path(folder) / name, warn))
            for name in sorted(files):
                path = Path(folder) / name
                if _first_visit(path, seen_files):
                    found.append(Found(path, root))
    return found


def _enters(root: Path, folder: Path, warn: Callable[[str], None]) -> bool:
    """Whether the walk of ``root`` goes into ``folder``: not when it is a link to a system folder,
    to ``/`` or to a folder the walk is inside (it would read the whole tree again, or the machine)."""
    if not folder.is_symlink():
        return not _system_folder(os.path.realpath(folder))
    target = os.path.realpath(folder)
    if _system_folder(target):
        warn(f"{shown(folder)} leads to {shown(target)}, a system folder; not followed")
        return False
    inside = os.path.realpath(root)
    if inside == target or inside.startswith(target.rstrip(os.sep) + os.sep):
        warn(f"{shown(folder)} leads to {shown(target)}, a folder above {shown(root)}; not followed")
        return False
    return True


def _system_folder(real: str) -> bool:
    return any(real == top or real.startswith(top + "/") for top in SYSTEM_FOLDERS)


def _system_devices() -> set[int]:
    """The devices of the system folders' filesystems, where they are not the root's own."""
    root = _key(Path("/"))
    devices = {key[0] for key in map(_key, map(Path, SYSTEM_FOLDERS)) if key is not None}
    return devices - {root[0]} if root is not None else set()


def _key(path: Path) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _first_visit(path: Path, seen: set[tuple[int, int]]) -> bool:
    """Whether ``path`` was not reached before (a dangling link counts as new: its error is reported)."""
    key = _key(path)
    if key is None:
        return True
    if key in seen:
        return False
    seen.add(key)
    return True


@dataclass
class _Sniffed:
    found: Found
    family: str
    companion: bool
    supermodel: str = ""


def group_files(files: list[Found]) -> list[Group]:
    """``files`` as models, in the order of their main files. A file no reader recognises is a model of
    its own, whose error the worker reports, when it was given by name or has a model file's extension;
    other files (textures, glTF buffers, notes) are left out."""
    folders: dict[Path, list[_Sniffed]] = {}
    walkmeshes: dict[Path, list[Found]] = {}
    groups: list[Group] = []
    extensions = {suffix for fmt in registry.formats.values() for suffix in fmt.extensions}
    for found in files:
        if found.path == found.root and is_archive(found.path):
            groups += _archive_groups(found)
            continue
        if found.path.suffix.lower() in WALKMESH_SUFFIXES:
            walkmeshes.setdefault(found.path.parent, []).append(found)
            continue
        sniffed = _sniff(found)
        if sniffed is None:
            if found.path.suffix.lower() in extensions or found.path == found.root:
                groups.append(Group(found))
        else:
            folders.setdefault(found.path.parent, []).append(sniffed)
    for folder, members in folders.items():
        folder_groups = _group_folder(members)
        groups += folder_groups
        groups += _attach_walkmeshes(walkmeshes.pop(folder, []), folder_groups)
    for orphans in walkmeshes.values():
        groups += _attach_walkmeshes(orphans, [])
    return sorted(groups, key=lambda g: (str(g.main.root), g.relative))


def walkmesh_owner_names(path: Path) -> list[str]:
    """The model names (lower case) a walkmesh file may belong to, the likeliest first: its own stem,
    and for a door's ``RESREF0.dwk`` … ``RESREF2.dwk`` the stem without the digit."""
    stem = path.stem.lower()
    numbered = path.suffix.lower() == ".dwk" and stem[-1:] in ("0", "1", "2") and len(stem) > 1
    return [stem, stem[:-1]] if numbered else [stem]


def _attach_walkmeshes(walkmeshes: list[Found], groups: list[Group]) -> list[Group]:
    """Give each walkmesh file to the NWN model of its folder named like it; those with none are
    orphans, returned as models with their error."""
    by_name = {group.main.path.stem.lower(): group for group in groups
               if group.error is None and group.main.path.suffix.lower() == ".mdl"}
    orphans = []
    for found in walkmeshes:
        owner = next((by_name[name] for name in walkmesh_owner_names(found.path) if name in by_name), None)
        if owner is None:
            orphans.append(Group(found, error="no model file for this walkmesh in its folder (expected "
                                              f"{walkmesh_owner_names(found.path)[-1]}.mdl)"))
        else:
            owner.walkmeshes.append(found)
    return orphans


def _archive_groups(found: Found) -> list[Group]:
    """An NWN archive given as a PATH, walked like a folder: one model per ``.mdl`` resource, named
    ``ARCHIVE/RESREF.mdl`` (an archive that cannot be listed is one model with its error)."""
    try:
        archive = open_archive(found.path)
    except InputError as error:
        where = "" if error.offset is None else f"at byte {error.offset}: "
        return [Group(found, error=where + error.message)]
    names = dict.fromkeys(entry.name for entry in archive.entries if entry.type == "mdl")
    return [Group(Found(found.path / f"{name}.mdl", found.root)) for name in names]


def _sniff(found: Found) -> _Sniffed | None:
    """The file's family and role, or None when it is not recognised (the worker then says why). A
    FIFO, socket or device is never opened (a FIFO would wait for a writer forever)."""
    if special_kind(found.path):
        return None
    try:
        sniffed = registry.sniff(found.path)
    except (InputError, OSError):
        return None
    family = FAMILIES.get(sniffed.format, sniffed.format)
    role = sniffed.role
    if sniffed.format == "gltf" and not _gltf_has_meshes(found.path):
        role = "animation"
    if sniffed.format == "fbx" and not _fbx_has_meshes(found.path):
        role = "animation"
    supermodel = _nwn_supermodel(found.path, sniffed.format) if family == "nwn" else ""
    return _Sniffed(found, family, (sniffed.format, role) in COMPANION_ROLES, supermodel)


def _group_folder(members: list[_Sniffed]) -> list[Group]:
    groups: list[Group] = []
    families: dict[str, list[_Sniffed]] = {}
    for member in members:
        families.setdefault(member.family, []).append(member)
    for family, items in families.items():
        if family == "nwn":
            groups += _nwn_groups(items)
            continue
        mains = {id(item): Group(item.found) for item in items if not item.companion}
        main_items = [item for item in items if not item.companion]
        for item in items:
            if not item.companion:
                continue
            owner = _owner(item, main_items)
            if owner is None:
                groups.append(Group(item.found, error=f"no model file for this {_kind(item)} in its folder"))
            else:
                mains[id(owner)].companions.append(item.found)
        groups += mains.values()
    return groups


def _kind(item: _Sniffed) -> str:
    return {"c3de": "bones file", "bnf": "animation or parameter file"}.get(item.family, "animation file")


def _owner(item: _Sniffed, mains: list[_Sniffed]) -> _Sniffed | None:
    """The main file whose name shares the longest start with ``item``'s (case ignored)."""
    if not mains:
        return None
    stem = item.found.path.stem.lower()
    return max(mains, key=lambda main: len(os.path.commonprefix([stem, main.found.path.stem.lower()])))


def _nwn_groups(items: list[_Sniffed]) -> list[Group]:
    """Every NWN model that is no other's supermodel, with its supermodel chain found beside it."""
    by_name = {item.found.path.stem.lower(): item for item in items}
    lent = {item.supermodel.lower() for item in items} - {"", "null"}
    groups = []
    for item in items:
        if item.found.path.stem.lower() in lent:
            continue
        group = Group(item.found)
        name, chain = item.supermodel.lower(), set()
        while name in by_name and name not in chain:
            chain.add(name)
            group.companions.append(by_name[name].found)
            name = by_name[name].supermodel.lower()
        groups.append(group)
    return groups


def _nwn_supermodel(path: Path, fmt: str) -> str:
    """The supermodel name an NWN model's header names ('' when none or unreadable)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(registry.SNIFF_BYTES if fmt == "nwn_mdl" else 1 << 16)
    except OSError:
        return ""
    if fmt == "nwn_mdl":
        at = 12 + 0xA8  # the file header, then the model header's supermodel name
        name = head[at:at + 64].split(b"\0", 1)[0]
    else:
        match = _SETSUPERMODEL.search(head)
        name = match.group(1) if match else b""
    text = name.decode("latin-1").strip()
    return "" if text.lower() == "null" else text


#: How an FBX file names a geometry object: binary (name, 0x00 0x01, class) and ASCII.
FBX_GEOMETRY = (b"\x00\x01Geometry", b'"Geometry::')


def _fbx_has_meshes(path: Path) -> bool:
    """Whether an FBX file holds a geometry object (Mixamo's "without skin" animation files hold
    none and lend their clips); True when it cannot be read, so the reader reports it as a model."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 28)
    except OSError:
        return True
    return any(marker in data for marker in FBX_GEOMETRY)


def _gltf_has_meshes(path: Path) -> bool:
    """Whether a glTF document lists meshes (an animation-only file lends its clips); True when the
    document cannot be read, so the reader reports it as a model."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(20)
            if head[:4] == b"glTF":
                length = struct.unpack("<I", head[12:16])[0]
                handle.seek(20)
                text = handle.read(min(length, 1 << 28))
            else:
                handle.seek(0)
                text = handle.read(1 << 28)
        document = json_text.loads(text, unique_keys=False)
    except (OSError, ValueError, struct.error):
        return True
    return not isinstance(document, dict) or bool(document.get("meshes"))
