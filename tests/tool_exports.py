"""glTF files shaped the way common tools export them, built from hand-chosen numbers.

``mixamo_character``: a Blender export of a Mixamo rig. The skeleton and the skinned mesh sit under
an ``Armature`` node scaled 0.01 and turned −90° about X; inside it, lengths are centimetres and Z
is up, so the character stands 1.85 m tall along +Y in the world. The mesh binds in the armature's
space (its inverse bind matrices leave the armature's transform out), so a joint's bind frame, the
inverse of its inverse bind matrix, is in centimetres while its rest frame is in metres. A camera
1,000 m away and a light 500 m away come with it, as they do in exported scenes.

``vertex_colored_cube``: a unit cube whose COLOR_0 runs from black to the corners' RGB.
``vertex_colored_torus``: a torus whose COLOR_0 runs once round the colour wheel along its ring.

``python -m tests.tool_exports FOLDER`` writes the character and the torus there (the README's
pictures are ``boneyard render`` of them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from app import maths
from tests.writers.gltf_writer import write_gltf

#: Bones of the character: name, parent index, head relative to the parent (cm, armature axes Z up).
BONES = (("Hips", -1, (0, 0, 100)), ("Spine", 0, (0, 0, 30)), ("Head", 1, (0, 0, 40)),
         ("LeftArm", 1, (20, 0, 30)), ("LeftForeArm", 3, (28, 0, 0)), ("LeftHand", 4, (22, 0, 0)),
         ("RightArm", 1, (-20, 0, 30)), ("RightForeArm", 6, (-28, 0, 0)), ("RightHand", 7, (-22, 0, 0)),
         ("LeftUpLeg", 0, (10, 0, -10)), ("LeftFoot", 9, (0, 0, -85)),
         ("RightUpLeg", 0, (-10, 0, -10)), ("RightFoot", 11, (0, 0, -85)))
#: Each bone's box: its far end relative to its head (cm) and its half width.
BOX_ENDS = {"Hips": ((0, 0, 30), 16), "Spine": ((0, 0, 40), 14), "Head": ((0, 0, 25), 10),
            "LeftArm": ((28, 0, 0), 6), "LeftForeArm": ((22, 0, 0), 5), "LeftHand": ((5, 0, 0), 4),
            "RightArm": ((-28, 0, 0), 6), "RightForeArm": ((-22, 0, 0), 5), "RightHand": ((-5, 0, 0), 4),
            "LeftUpLeg": ((0, 0, -85), 7), "LeftFoot": ((0, 12, -5), 5),
            "RightUpLeg": ((0, 0, -85), 7), "RightFoot": ((0, 12, -5), 5)}
ARMATURE_ROTATION = (-np.sin(np.pi / 4), 0.0, 0.0, np.cos(np.pi / 4))  # −90° about X: armature +Z → +Y
ARMATURE_SCALE = 0.01


def armature_matrix() -> np.ndarray:
    return maths.compose_trs(np.zeros(3), np.array(ARMATURE_ROTATION), np.full(3, ARMATURE_SCALE))


def bone_heads_cm() -> np.ndarray:
    """(B, 3) every bone's head in the armature's space (cm)."""
    heads = np.zeros((len(BONES), 3))
    for index, (_, parent, offset) in enumerate(BONES):
        heads[index] = (heads[parent] if parent >= 0 else 0) + np.array(offset, float)
    return heads


def _box(head: np.ndarray, end: np.ndarray, half: float) -> tuple[np.ndarray, np.ndarray]:
    """A box from ``head`` to ``head + end`` with square section 2·half: 8 corners, 12 triangles."""
    along = np.asarray(end, float)
    axis = along / np.linalg.norm(along)
    side = np.cross(axis, [0.0, 1.0, 0.0] if abs(axis[1]) < 0.9 else [1.0, 0.0, 0.0])
    side = side / np.linalg.norm(side) * half
    other = np.cross(axis, side)
    corners = np.array([head + s * side + o * other + t * along
                        for t in (0, 1) for s, o in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    quads = [(0, 1, 2, 3), (4, 7, 6, 5), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0)]
    triangles = [(a, b, c) for a, b, c, d in quads] + [(a, c, d) for a, b, c, d in quads]
    return corners, np.array(triangles)


def mixamo_character(folder, with_far_nodes: bool = True, name: str = "soldier.gltf"):
    """Write the character (see the module docstring); returns the path."""
    heads = bone_heads_cm()
    positions, triangles, joints = [], [], []
    for index, (bone, _, _) in enumerate(BONES):
        corners, faces = _box(heads[index], *BOX_ENDS[bone])
        triangles.append(faces + 8 * index)
        positions.append(corners)
        joints.append(np.full(8, index))
    positions = np.concatenate(positions)
    joints = np.concatenate(joints)
    joint_lanes = np.zeros((len(joints), 4), np.uint8)
    joint_lanes[:, 0] = joints
    weight_lanes = np.zeros((len(joints), 4), np.float32)
    weight_lanes[:, 0] = 1.0
    # Bound in the armature's space: IBM_j = inv(joint in armature space) (a pure translation here).
    inverse_binds = np.stack([maths.translation(-head) for head in heads])
    bone_nodes = list(range(1, 1 + len(BONES)))
    nodes = [{"name": "Armature", "rotation": list(ARMATURE_ROTATION), "scale": [ARMATURE_SCALE] * 3,
              "children": [1, 1 + len(BONES)]}]
    for index, (bone, parent, offset) in enumerate(BONES):
        children = [1 + child for child, (_, p, _) in enumerate(BONES) if p == index]
        node = {"name": f"mixamorig:{bone}", "translation": list(map(float, offset))}
        if children:
            node["children"] = children
        nodes.append(node)
    nodes.append({"name": "Body", "mesh": 0, "skin": 0})
    document = {
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
        "meshes": [{"name": "Body", "primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1,
                                                                    "WEIGHTS_0": 2}, "indices": 3}]}],
        "skins": [{"joints": bone_nodes, "inverseBindMatrices": 4, "skeleton": 1}],
    }
    arrays = [(positions, "VEC3", 5126), (joint_lanes, "VEC4", 5121), (weight_lanes, "VEC4", 5126),
              (np.concatenate(triangles).ravel(), "SCALAR", 5125),
              (np.swapaxes(inverse_binds, 1, 2).reshape(-1, 16), "MAT4", 5126)]
    if with_far_nodes:
        nodes += [{"name": "Camera", "camera": 0, "translation": [0, 1, 1000]},
                  {"name": "Light", "translation": [0, 500, 0],
                   "extensions": {"KHR_lights_punctual": {"light": 0}}}]
        document["scenes"][0]["nodes"] += [len(nodes) - 2, len(nodes) - 1]
        document["cameras"] = [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1}}]
        document["extensionsUsed"] = ["KHR_lights_punctual"]
        document["extensions"] = {"KHR_lights_punctual": {"lights": [{"type": "point"}]}}
    return write_gltf(folder, document, arrays, name)


def cube_corners() -> np.ndarray:
    """(8, 3) the corners of the unit cube centred on the origin; corner i has bits (x, y, z)."""
    bits = np.array([[(i >> 0) & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)], float)
    return bits - 0.5


CUBE_TRIANGLES = np.array([(0, 2, 1), (1, 2, 3), (4, 5, 6), (5, 7, 6), (0, 1, 4), (1, 5, 4),
                           (2, 6, 3), (3, 6, 7), (0, 4, 2), (2, 4, 6), (1, 3, 5), (3, 7, 5)])


def vertex_colored_cube(folder, colors, kind: str = "VEC4", component: int = 5121,
                        name: str = "cube.gltf", base_color=(1.0, 1.0, 1.0, 1.0)):
    """A cube with COLOR_0 ``colors`` (8, 3 or 4), stored as ``kind`` with ``component`` (normalised
    when an integer type); returns the path."""
    colors = np.asarray(colors)
    document = {
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "Cube", "mesh": 0}],
        "meshes": [{"name": "Cube", "primitives": [{"attributes": {"POSITION": 0, "COLOR_0": 1},
                                                    "indices": 2, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": list(base_color)}}],
    }
    arrays = [(cube_corners(), "VEC3", 5126), (colors, kind, component, component != 5126),
              (CUBE_TRIANGLES.ravel(), "SCALAR", 5123)]
    return write_gltf(folder, document, arrays, name)


def vertex_colored_torus(folder, name: str = "torus.gltf", rings: int = 96, sides: int = 32):
    """A torus (ring radius 1, tube radius 0.35, standing in the XY plane, facing +Z) whose COLOR_0
    goes round the colour wheel along the ring, darker on the tube's inside; returns the path."""
    ring_angles = np.linspace(0, 2 * np.pi, rings, endpoint=False)[:, None]
    side_angles = np.linspace(0, 2 * np.pi, sides, endpoint=False)[None, :]
    reach = 1.0 + 0.35 * np.cos(side_angles)
    positions = np.stack([reach * np.cos(ring_angles), reach * np.sin(ring_angles),
                          0.35 * np.sin(side_angles) + 0 * ring_angles], axis=-1).reshape(-1, 3)
    hue = np.repeat(ring_angles[:, 0] / (2 * np.pi), sides)
    wheel = np.clip(np.abs((hue[:, None] * 6 + [0, 4, 2]) % 6 - 3) - 1, 0, 1)  # HSV hue → RGB
    shade = 0.55 + 0.45 * np.tile(np.cos(side_angles[0]), rings)
    colors = np.concatenate([wheel * shade[:, None], np.ones((len(wheel), 1))], axis=1)
    ring, side = np.meshgrid(np.arange(rings), np.arange(sides), indexing="ij")
    corner = ring * sides + side
    right = ((ring + 1) % rings) * sides + side
    up = ring * sides + (side + 1) % sides
    diagonal = ((ring + 1) % rings) * sides + (side + 1) % sides
    triangles = np.concatenate([np.stack([corner, right, diagonal], -1).reshape(-1, 3),
                                np.stack([corner, diagonal, up], -1).reshape(-1, 3)])
    document = {
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "Torus", "mesh": 0}],
        "meshes": [{"name": "Torus", "primitives": [{"attributes": {"POSITION": 0, "COLOR_0": 1},
                                                     "indices": 2}]}],
    }
    arrays = [(positions, "VEC3", 5126), (np.round(colors * 255), "VEC4", 5121, True),
              (triangles.ravel(), "SCALAR", 5125)]
    return write_gltf(folder, document, arrays, name)


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    print(mixamo_character(out), vertex_colored_torus(out))
