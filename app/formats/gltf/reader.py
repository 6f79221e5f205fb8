"""glTF 2.0 reader (``.glb`` and ``.gltf`` with embedded, data-URI or sidecar ``.bin`` buffers), put
together from the package's modules (docs/formats/README.md conventions): ``nodes`` (bones, skins,
helpers), ``meshes``, ``materials`` and ``animations`` each say what their part of the file means.

Tails are derived at rest, where the model is drawn, and carried to bind space (a skin may bind in
other units or axes than its nodes, as Mixamo rigs exported from Blender do): that needs the model
posed, so the reader leaves it to the load stage (``DeriveTailsAtRest``, app/loading.py).

Every malformed input raises ``ReadError`` naming the file and the JSON path (and, inside a GLB, the
file byte offset); sizes are checked against the bytes present before any array is read.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from app.formats.animation_sets import model_with_lent_clips
from app.formats.gltf.animations import read_clips
from app.formats.gltf.container import GLB_MAGIC, load_document, read_container
from app.formats.gltf.meshes import read_meshes
from app.formats.gltf.walkmeshes import read_walkmesh, walkmesh_record
from app.formats.gltf.nodes import (bind_frames, kept_nodes, node_frames, read_skins, unique_names,
                                    usable_bind_frames)
from app.formats.gltf.reading import Reading
from app.formats.registry import Format, LoadOptions, ReadError, SniffedFile, register
from app.model import Helper, MeshSkin, Model, Skeleton
from app.posing_steps import DeriveTailsAtRest

#: A glTF top-level key, as the sniffer finds it in the head of a JSON file.
JSON_KEYS = re.compile(rb'"(asset|accessors|bufferViews|buffers|nodes|meshes|scenes|skins|animations)"\s*:')


def sniff(head: bytes, path: Path) -> str | None:
    """'model' for a GLB (magic ``glTF``) or a JSON object with a glTF top-level key in its head
    (writers may put ``"asset"`` after kilobytes of accessors; the reader then requires it)."""
    if head[:4] == GLB_MAGIC:
        return "model"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{") and JSON_KEYS.search(head):
        return "model"
    return None


def read(path: str | Path) -> Model:
    """Read one ``.glb`` or ``.gltf`` file into a Model (Y up, format 'gltf')."""
    path = Path(path)
    reading = Reading(path, *load_document(path, read_container(path)))
    try:
        return _build(reading, path)
    except ValueError as error:  # a model check on what was read (shapes, bone indices)
        raise ReadError(path, str(error)) from None
    except (TypeError, AttributeError, KeyError, IndexError) as error:
        raise ReadError(path, f"unexpected structure: {error!r}") from None


def _build(reading: Reading, path: Path) -> Model:
    node_names, node_parents, node_local, node_world = node_frames(reading)
    marked = {index: record for index, node in enumerate(reading.gltf.nodes or [])
              if (record := walkmesh_record(reading, index, node)) is not None}
    keep = kept_nodes(reading, node_parents, frozenset(marked))
    walkmesh_nodes = frozenset(index for index in marked if not keep[index])
    # The nodes left out that carry no mesh are cameras and lights: helpers.
    helper_nodes = [node for node in np.flatnonzero(~keep) if reading.gltf.nodes[node].mesh is None]
    bone_nodes = np.flatnonzero(keep)
    node_bones = np.full(len(keep), -1, np.int64)
    node_bones[bone_nodes] = np.arange(len(bone_nodes))
    # A dropped node has no children, so every kept node's parent is kept (or it is a root).
    kept_parents = node_parents[bone_nodes]
    parents = np.where(kept_parents >= 0, node_bones[np.maximum(kept_parents, 0)], -1)
    skins = read_skins(reading)
    node_bind = bind_frames(node_world, skins)
    mesh_skins = [MeshSkin(joints=node_bones[joints], inverse_bind=inverse) for joints, inverse in skins]
    names = unique_names([node_names[node] for node in bone_nodes], bone_nodes)
    meshes, morphs = read_meshes(reading, node_bind, node_bones, mesh_skins, walkmesh_nodes)
    walkmeshes = [read_walkmesh(reading, index, reading.gltf.nodes[index], marked[index], node_bind[index])
                  for index in sorted(walkmesh_nodes)]
    bind = usable_bind_frames(reading, node_bind[bone_nodes], bone_nodes, names)
    # Tails are found at rest by the load stage (DeriveTailsAtRest); until then they are the heads.
    skeleton = Skeleton(names=names, parents=parents, bind_world=bind, heads=bind[:, :3, 3],
                        tails=bind[:, :3, 3], derived_tails=np.ones(len(names), bool),
                        rest_local=node_local[bone_nodes])
    helpers = [Helper(name=node_names[node], parent=int(node_bones[node_parents[node]])
                      if node_parents[node] >= 0 else -1, offset=node_local[node]) for node in helper_nodes]
    clips = read_clips(reading, meshes, morphs, node_bones)
    return Model(name=path.stem, skeleton=skeleton, meshes=meshes, clips=clips, helpers=helpers,
                 format="gltf", files=[str(path)], up_axis="Y", forward="+Z", warnings=reading.warnings,
                 pending=[DeriveTailsAtRest(path=path)], walkmeshes=walkmeshes)


def _load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """One glTF model; further glTF files add the animations they hold for its nodes (by node name).
    The model is the first file with meshes (else the first); the others' meshes are not drawn."""
    return model_with_lent_clips([read(sniffed.path) for sniffed in files], ReadError)


register(Format(name="gltf", description="glTF 2.0 (.glb / .gltf)", sniff=sniff, load=_load,
                extensions=(".glb", ".gltf"), unit="metre"))
