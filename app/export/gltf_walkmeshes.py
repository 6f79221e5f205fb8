"""The model's walkmeshes in a written glTF file: one mesh node per walkmesh, named after it, beside
the model's meshes under the up root (so it turns with them), never skinned.

Each face is written as its own three corners (a vertex shared by faces of two materials needs two
colours), its material's colour in COLOR_0 (the View › Walkmesh colours, converted to linear, with
its translucency) and drawn unlit (KHR_materials_unlit) and from both sides, so a viewer shows the
surface materials as Boneyard does. The node's ``extras.walkmesh`` keeps its kind, where it was read
from and each face's surface material id, so the reader takes it back as a walkmesh, not a mesh
(docs/formats/walkmesh.md).
"""

from __future__ import annotations

import numpy as np
import pygltflib as gl

from app import maths
from app.model import Model
from app.walkmeshes import Walkmesh, material_colors

#: Opacity of the written faces: View › Walkmesh's, so the model shows through.
WALKMESH_ALPHA = 0.55
#: The material every walkmesh's primitive uses.
MATERIAL_NAME = "boneyard_walkmesh"
FLOAT, TRIANGLES, ARRAY_BUFFER = 5126, 4, 34962


def walkmesh_extras(walkmesh: Walkmesh) -> dict:
    """What the node keeps for the reader: kind, source and the (F,) surface material ids."""
    return {"walkmesh": {"kind": walkmesh.kind, "source": walkmesh.source,
                         "materials": [int(material) for material in walkmesh.materials]}}


def corner_colors(walkmesh: Walkmesh) -> np.ndarray:
    """(3F, 4) linear RGBA of every face's corners: its material's colour, WALKMESH_ALPHA."""
    linear = maths.srgb_to_linear_array(material_colors(walkmesh.materials).astype(np.float64))
    rgba = np.column_stack([linear, np.full(len(linear), WALKMESH_ALPHA)])
    return np.repeat(rgba, 3, axis=0)


def add_walkmeshes(gltf: gl.GLTF2, add_accessor, model: Model, roots: list[int], uses) -> None:
    """Append a node, mesh and (shared) material per walkmesh of ``model`` with faces; the nodes
    join ``roots``. ``add_accessor(array, type, component, target=, bounds=)`` writes an accessor;
    ``uses(extension)`` declares an extension used."""
    walkmeshes = [walkmesh for walkmesh in model.walkmeshes if len(walkmesh.faces)]
    if not walkmeshes:
        return
    material = _add_material(gltf, uses)
    for walkmesh in walkmeshes:
        corners = walkmesh.vertices[walkmesh.faces].reshape(-1, 3)
        attributes = gl.Attributes(
            POSITION=add_accessor(corners, "VEC3", FLOAT, target=ARRAY_BUFFER, bounds=True),
            COLOR_0=add_accessor(corner_colors(walkmesh), "VEC4", FLOAT, target=ARRAY_BUFFER))
        primitive = gl.Primitive(attributes=attributes, mode=TRIANGLES, material=material)
        gltf.meshes.append(gl.Mesh(name=walkmesh.name, primitives=[primitive]))
        roots.append(len(gltf.nodes))
        gltf.nodes.append(gl.Node(name=walkmesh.name, mesh=len(gltf.meshes) - 1,
                                  extras=walkmesh_extras(walkmesh)))


def _add_material(gltf: gl.GLTF2, uses) -> int:
    pbr = gl.PbrMetallicRoughness(baseColorFactor=[1.0, 1.0, 1.0, 1.0], metallicFactor=0.0,
                                  roughnessFactor=1.0)
    gltf.materials.append(gl.Material(name=MATERIAL_NAME, pbrMetallicRoughness=pbr, alphaMode="BLEND",
                                      doubleSided=True, extensions={"KHR_materials_unlit": {}}))
    uses("KHR_materials_unlit")
    return len(gltf.materials) - 1
