"""Several Neverwinter Nights models loaded as one: the model is the file the others are supermodels of
(else the first given); every other file lends its animations (its meshes are not drawn). The model's
own clips win over inherited ones of the same name, as the engine does. The model's supermodel chain
is then followed through files beside it (any case of the name, binary or ASCII).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import numpy as np

from app.formats.nwn.archives.search import ResourceSearch
from app.formats.nwn.nodes import Parsed, build
from app.formats.nwn.walkmeshes import walkmeshes_of
from app.formats.registry import LoadOptions, ReadError, SniffedFile, read_bytes
from app.model import Model

#: Longest supermodel chain followed; a longer one is an error.
MAX_SUPERMODEL_CHAIN = 16

#: The reader module of each form, each with ``parse(path, data) → Parsed``. Imported when a file of
#: that form is met: the registry imports only the module of the file given, and its supermodels may
#: be of the other form.
PARSER_MODULES = {"binary": "app.formats.nwn.binary", "ascii": "app.formats.nwn.ascii"}


def parse_file(path: Path) -> Parsed:
    """Either form of ``.mdl`` (``parse_bytes``) from a file."""
    return parse_bytes(path, read_bytes(path))


def parse_bytes(path: Path, data: bytes) -> Parsed:
    """Either form of ``.mdl``, told apart by content: binary files start with four NUL bytes;
    ``path`` names it in errors."""
    form = "binary" if data[:4] == b"\0\0\0\0" else "ascii"
    return importlib.import_module(PARSER_MODULES[form]).parse(path, data)


def find_beside(path: Path, name: str) -> Path | None:
    """``<name>.mdl`` in ``path``'s folder, compared case-insensitively."""
    wanted = f"{name}.mdl".lower()
    try:
        entries = os.listdir(path.parent)
    except OSError:
        return None
    return next((path.parent / entry for entry in sorted(entries) if entry.lower() == wanted), None)


def given_by_name(given: dict[Path, Parsed]) -> dict[str, Path]:
    """Each given file by its model name and its file stem (lower case): a supermodel given with the
    model is found wherever it lies, as the command line and the window's attach give it."""
    by_name: dict[str, Path] = {}
    for path, item in given.items():
        by_name.setdefault(item.name.lower(), path)
        by_name.setdefault(item.path.stem.lower(), path)
    by_name.pop("", None)
    return by_name


def parse_resource(name: str, search: ResourceSearch) -> Parsed | None:
    """The model ``name`` found through ``--resources`` (a folder's file or an archive's entry), parsed;
    its path is the file, or ``ARCHIVE:RESREF.mdl``."""
    found = search.find(name, ("mdl",))
    if found is None:
        return None
    return parse_bytes(Path(found.where), found.data)


Links = list[tuple[str, str | None]]


def supermodel_chain(parsed: Parsed, given: dict[Path, Parsed], unreadable: list[str],
                     search: ResourceSearch | None = None) -> tuple[list[Parsed], Links]:
    """The models of ``parsed``'s supermodel chain, nearest first, from the ``given`` files (by model
    name or file stem, reused, not read again) else files beside each link, then through ``search``
    (``--resources``), and each link's name with the file found for it
    (None: not found; the chain stops there). A link that cannot be read ends the chain with a
    message in ``unreadable``. A cycle or a chain longer than MAX_SUPERMODEL_CHAIN is a ReadError
    naming the files."""
    chain: list[Parsed] = []
    links: Links = []
    seen = [parsed.path.resolve()]
    named = given_by_name(given)
    current = parsed
    while name := current.supermodel_name:
        found = named.get(name.lower()) or find_beside(current.path, name)
        if found is None and search is not None and search.paths:
            try:
                from_resources = parse_resource(name, search)
            except ReadError as error:
                unreadable.append(f"supermodel {name!r} is unreadable, its animations are missing: {error}")
                break
            if from_resources is not None:
                found, current = from_resources.path, from_resources
        if found is None:
            links.append((name, None))
            break
        resolved = found.resolve()
        if resolved in seen:
            loop = " → ".join(path.name for path in [*seen[seen.index(resolved):], resolved])
            raise ReadError(current.path, f"supermodel chain loops: {loop}")
        if len(chain) >= MAX_SUPERMODEL_CHAIN:
            raise ReadError(current.path, f"supermodel chain deeper than {MAX_SUPERMODEL_CHAIN} "
                                          f"({' → '.join(path.name for path in seen)} → …)")
        seen.append(resolved)
        links.append((name, str(found)))
        try:
            current = given.get(resolved) or (current if current.path == found else parse_file(found))
        except ReadError as error:
            unreadable.append(f"supermodel {name!r} is unreadable, its animations are missing: {error}")
            break
        chain.append(current)
    return chain, links


def _reach(start: Parsed, by_name: dict[str, Parsed]) -> set[int]:
    """The ids of the given models on ``start``'s supermodel chain, by model name or file stem."""
    reached: set[int] = set()
    current = start
    while (name := current.supermodel_name.lower()) in by_name and id(by_name[name]) not in reached:
        current = by_name[name]
        reached.add(id(current))
    return reached


def choose_model(parsed: list[Parsed]) -> Parsed:
    """The file every other file is a supermodel of (through the given files), else the first."""
    by_name: dict[str, Parsed] = {}
    for item in parsed:
        by_name.setdefault(item.name.lower(), item)
        by_name.setdefault(item.path.stem.lower(), item)
    for candidate in parsed:
        if _reach(candidate, by_name) >= {id(item) for item in parsed if item is not candidate}:
            return candidate
    return parsed[0]


def load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """One model, the other files lending their animations, then the model's supermodel chain."""
    with np.errstate(all="ignore"):
        parsed = [parse_file(Path(sniffed.path)) for sniffed in files]
        model = choose_model(parsed)
        lenders = [item for item in parsed if item is not model]
        given = {item.path.resolve(): item for item in lenders}
        unreadable: list[str] = []
        search = ResourceSearch([Path(path) for path in options.resources])
        chain, links = supermodel_chain(model, given, unreadable, search)
        lent = {id(item) for item in lenders}
        chain = [link for link in chain if id(link) not in lent]
        try:
            built = build(model, lenders, chain, links)
        except ValueError as error:
            raise ReadError(model.path, str(error)) from None
        built.warnings.extend(unreadable)
        built.walkmeshes, walkmesh_warnings = walkmeshes_of(model, search)
        built.warnings.extend(walkmesh_warnings)
        return built
