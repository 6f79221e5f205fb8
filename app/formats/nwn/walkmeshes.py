"""A Neverwinter Nights model's walkmeshes (docs/formats/walkmesh.md): its own AABB nodes (tiles), and
the walkmesh files named after it — ``RESREF.wok`` (tiles), ``RESREF.pwk`` (placeables),
``RESREF.dwk`` or ``RESREF0.dwk`` … ``RESREF2.dwk`` (doors) — beside it or through ``--resources``.

A walkmesh file is ASCII (``beginwalkmeshgeom`` … ``endwalkmeshgeom``, as NWmax writes and the game
ships), a compiled binary MDL, or a ``BWM V1.0`` file. One that cannot be read is a warning on the
model, which still loads.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from app import maths
from app.formats.nwn import bwm
from app.formats.nwn.archives.search import ResourceSearch
from app.formats.nwn.nodes import Parsed, rest_world
from app.formats.registry import ReadError
from app.walkmeshes import Walkmesh

#: The walkmesh files looked for, as (suffix after the model's resref, type), in this order.
CANDIDATES = (("", "wok"), ("", "pwk"), ("", "dwk"), ("0", "dwk"), ("1", "dwk"), ("2", "dwk"))
#: The MDL readers, imported when a walkmesh of their form is met (as supermodels.PARSER_MODULES: the
#: ASCII reader imports the module that imports this one).
READERS = {"binary": "app.formats.nwn.binary", "ascii": "app.formats.nwn.ascii"}
#: Node kinds whose faces make a walkmesh in a walkmesh file (a tile's ``.wok`` holds an aabb node,
#: a placeable's or a door's trimesh nodes).
WALKMESH_KINDS = ("aabb", "trimesh")


def node_walkmeshes(parsed: Parsed, kinds: tuple[str, ...], kind: str, source: str) -> list[Walkmesh]:
    """A walkmesh per node of ``parsed`` of one of ``kinds`` with faces, its vertices moved to model
    space at rest; faces without a material column get 0 (NotDefined)."""
    world = rest_world(parsed.nodes)
    found = []
    for index, node in enumerate(parsed.nodes):
        geometry = node.geometry
        if node.kind not in kinds or geometry is None or not len(geometry["triangles"]):
            continue
        surfaces = geometry.get("surfaces")
        faces = geometry["triangles"]
        vertices = maths.transform_points(world[index], geometry["positions"])
        if not np.isfinite(vertices.astype(np.float32)).all():
            raise ReadError(parsed.path, f"node {node.name!r}: its vertices overflow once placed (values too "
                                         "large)")
        found.append(Walkmesh(name=node.name, source=source, kind=kind, vertices=vertices, faces=faces,
                              materials=np.zeros(len(faces)) if surfaces is None else surfaces))
    return found


def parse_walkmesh_file(where: str, kind: str, data: bytes) -> list[Walkmesh]:
    """The walkmeshes of one walkmesh file's bytes (``where`` names it); a ReadError when unreadable."""
    path = Path(where)
    if bwm.is_bwm(data):
        vertices, faces, materials = bwm.parse(path, data)
        return [Walkmesh(name=path.stem, source=where, kind=kind, vertices=vertices, faces=faces,
                         materials=materials)]
    if data[:4] == b"\0\0\0\0":
        parsed = importlib.import_module(READERS["binary"]).parse(path, data)
    else:
        parsed = importlib.import_module(READERS["ascii"]).parse(path, data, walkmesh=True)
    found = node_walkmeshes(parsed, WALKMESH_KINDS, kind, where)
    if not found:
        raise ReadError(path, "no walkmesh node with faces (expected an aabb or trimesh node)")
    return found


def side_walkmeshes(model_path: Path, resources: ResourceSearch) -> tuple[list[Walkmesh], list[str]]:
    """The walkmesh files named after the model, beside it then through ``resources`` (each name once,
    the first found), and a warning for each that cannot be read."""
    beside = ResourceSearch([model_path.parent])
    found: list[Walkmesh] = []
    warnings: list[str] = []
    for suffix, kind in CANDIDATES:
        name = f"{model_path.stem}{suffix}"
        try:
            resource = beside.find(name, (kind,)) or resources.find(name, (kind,))
            if resource is not None:
                found += parse_walkmesh_file(resource.where, kind, resource.data)
        except (ReadError, ValueError) as error:
            warnings.append(f"walkmesh {name}.{kind} is not used: {error}")
    return found, warnings


def walkmeshes_of(parsed: Parsed, resources: ResourceSearch) -> tuple[list[Walkmesh], list[str]]:
    """The model's AABB nodes' walkmeshes and its walkmesh files' (``resources``: the ``--resources``
    search, its archives already open), with the warnings of those files."""
    try:
        own = node_walkmeshes(parsed, ("aabb",), "aabb", parsed.path.name)
        problems = []
    except ReadError as error:
        own, problems = [], [f"the AABB walkmesh is not used: {error}"]
    files, warnings = side_walkmeshes(parsed.path, resources)
    return own + files, problems + warnings
