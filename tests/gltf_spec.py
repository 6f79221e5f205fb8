"""The glTF 2.0 specification's skinning, written out for the tests, independent of the reader.

Reads a .gltf / .glb with ``json`` and ``struct`` (buffers, buffer views, accessors with strides,
normalised integers and sparse substitutions), samples animation channels (LINEAR with slerp, STEP,
CUBICSPLINE by the spec's Hermite formula) and poses every TRIANGLES or POINTS primitive: a skinned
one as ``Σ w · world(joint) · IBM(joint) · p`` (its node ignored), any other as ``world(node) · p``,
``p`` the POSITION plus its morph targets' deltas times the node's weights (animated, else
``node.weights``, else ``mesh.weights``, else 0), unnormalised: glTF's targets are relative, and
three.js (``morphTargetsRelative``) adds them with a base influence of 1 whatever their sum.
"""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path
from urllib.parse import unquote

import numpy as np

_DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def quaternion_matrix(rotation) -> np.ndarray:
    """3×3 rotation of the unit quaternion (x, y, z, w)."""
    x, y, z, w = rotation
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def trs_matrix(translation, rotation, scale) -> np.ndarray:
    """The node matrix T · R · S."""
    matrix = np.eye(4)
    matrix[:3, :3] = quaternion_matrix(rotation) * np.asarray(scale, float)[None, :]
    matrix[:3, 3] = translation
    return matrix


def world_matrices(nodes: list[dict]) -> list[np.ndarray]:
    """Every node's global transform: its parent's global transform times its local matrix
    (``matrix``, else T · R · S)."""
    parents = {child: index for index, node in enumerate(nodes) for child in node.get("children", [])}
    local = [np.array(node["matrix"], float).reshape(4, 4).T if "matrix" in node else
             trs_matrix(node.get("translation", [0, 0, 0]), node.get("rotation", [0, 0, 0, 1]),
                        node.get("scale", [1, 1, 1])) for node in nodes]
    world: dict[int, np.ndarray] = {}

    def of(index):
        if index not in world:
            world[index] = local[index] if index not in parents else of(parents[index]) @ local[index]
        return world[index]

    return [of(index) for index in range(len(nodes))]


class Document:
    """One glTF file: its JSON and its buffers' bytes."""

    def __init__(self, path: Path):
        data = Path(path).read_bytes()
        binary = None
        if data[:4] == b"glTF":
            length = struct.unpack_from("<I", data, 12)[0]
            self.json = json.loads(data[20:20 + length])
            offset = 20 + length
            if offset + 8 <= len(data):
                chunk = struct.unpack_from("<I", data, offset)[0]
                binary = data[offset + 8: offset + 8 + chunk]
        else:
            self.json = json.loads(data)
        self.buffers = []
        for buffer in self.json.get("buffers", []):
            uri = buffer.get("uri")
            if uri is None:
                self.buffers.append(binary)
            elif uri.startswith("data:"):
                self.buffers.append(base64.b64decode(uri.split(",", 1)[1]))
            else:
                self.buffers.append((Path(path).parent / unquote(uri)).read_bytes())

    def _view(self, index: int, offset: int, count: int, dtype: np.dtype, width: int, packed: bool):
        view = self.json["bufferViews"][index]
        stride = dtype.itemsize * width if packed else view.get("byteStride", dtype.itemsize * width)
        start = view.get("byteOffset", 0) + offset
        raw = self.buffers[view["buffer"]]
        return np.ndarray((count, width), dtype, raw, start, (stride, dtype.itemsize)).copy()

    def accessor(self, index: int) -> np.ndarray:
        """(count, width) float64 values (normalised integers scaled to [0, 1] or [−1, 1])."""
        accessor = self.json["accessors"][index]
        dtype, width = np.dtype(_DTYPES[accessor["componentType"]]), _WIDTHS[accessor["type"]]
        count = accessor["count"]
        values = np.zeros((count, width), dtype) if "bufferView" not in accessor else \
            self._view(accessor["bufferView"], accessor.get("byteOffset", 0), count, dtype, width, False)
        sparse = accessor.get("sparse")
        if sparse:
            index_type = np.dtype(_DTYPES[sparse["indices"]["componentType"]])
            rows = self._view(sparse["indices"]["bufferView"], sparse["indices"].get("byteOffset", 0),
                              sparse["count"], index_type, 1, True)[:, 0]
            values = values.copy()
            values[rows] = self._view(sparse["values"]["bufferView"], sparse["values"].get("byteOffset", 0),
                                      sparse["count"], dtype, width, True)
        values = values.astype(np.float64)
        if accessor.get("normalized"):
            values = np.maximum(values / np.iinfo(dtype).max, -1.0)
        return values

    # --- animation --------------------------------------------------------------------------------

    def node_trs(self, animation: int | None, time: float) -> list[dict]:
        """Every node's TRS (or matrix) at ``time`` of ``animation`` (None: at rest)."""
        nodes = [dict(node) for node in self.json.get("nodes", [])]
        if animation is None:
            return nodes
        source = self.json["animations"][animation]
        for channel in source["channels"]:
            path = channel["target"]["path"]
            if path == "weights" or "node" not in channel["target"]:
                continue
            sampler = source["samplers"][channel["sampler"]]
            value = self.sample(sampler, time, path == "rotation")
            nodes[channel["target"]["node"]][path] = value.tolist()
        return nodes

    def sample(self, sampler: dict, time: float, rotation: bool) -> np.ndarray:
        times = self.accessor(sampler["input"])[:, 0]
        values = self.accessor(sampler["output"])
        mode = sampler.get("interpolation", "LINEAR")
        if mode == "CUBICSPLINE":
            values = values.reshape(len(times), 3, -1)
        value = _sample(times, values, mode, time)
        return value / np.linalg.norm(value) if rotation else value

    def node_weights(self, index: int, animation: int | None, time: float) -> np.ndarray | None:
        """The morph weights of node ``index`` at ``time`` of ``animation``: keyed, else the node's,
        else its mesh's; None when neither says."""
        node = self.json["nodes"][index]
        if animation is not None:
            source = self.json["animations"][animation]
            for channel in source["channels"]:
                if channel["target"].get("node") == index and channel["target"]["path"] == "weights":
                    sampler = source["samplers"][channel["sampler"]]
                    times = self.accessor(sampler["input"])[:, 0]
                    per_key = 3 if sampler.get("interpolation") == "CUBICSPLINE" else 1
                    values = self.accessor(sampler["output"]).reshape(len(times), per_key, -1)
                    values = values[:, 0] if per_key == 1 else values
                    return _sample(times, values, sampler.get("interpolation", "LINEAR"), time)
        weights = node.get("weights", self.json["meshes"][node["mesh"]].get("weights"))
        return None if weights is None else np.asarray(weights, float)

    # --- posing -----------------------------------------------------------------------------------

    def posed(self, animation: int | None = None, time: float = 0.0) -> np.ndarray:
        """(N, 3) every TRIANGLES/POINTS primitive's vertices, nodes and primitives in file order."""
        world = world_matrices(self.node_trs(animation, time))
        points = []
        for index, node in enumerate(self.json.get("nodes", [])):
            if "mesh" not in node:
                continue
            for primitive in self.json["meshes"][node["mesh"]]["primitives"]:
                if primitive.get("mode", 4) not in (0, 4):
                    continue
                attributes = primitive["attributes"]
                points3 = self.accessor(attributes["POSITION"])
                weights = self.node_weights(index, animation, time) if primitive.get("targets") else None
                for target, weight in zip(primitive.get("targets", []), [] if weights is None else weights):
                    if "POSITION" in target:
                        points3 = points3 + weight * self.accessor(target["POSITION"])
                positions = np.hstack([points3, np.ones((len(points3), 1))])
                if "skin" in node and "JOINTS_0" in attributes:
                    points.append(self._skinned(node["skin"], attributes, positions, world))
                else:
                    points.append((positions @ world[index].T)[:, :3])
        return np.concatenate(points) if points else np.zeros((0, 3))

    def _skinned(self, skin_index: int, attributes: dict, positions: np.ndarray,
                 world: list[np.ndarray]) -> np.ndarray:
        skin = self.json["skins"][skin_index]
        joints_world = np.stack([world[joint] for joint in skin["joints"]])
        if "inverseBindMatrices" in skin:
            inverse = np.swapaxes(self.accessor(skin["inverseBindMatrices"]).reshape(-1, 4, 4), 1, 2)
        else:
            inverse = np.broadcast_to(np.eye(4), joints_world.shape)
        matrices = joints_world @ inverse[: len(joints_world)]
        result = np.zeros((len(positions), 3))
        for lane_set in (0, 1):
            if f"JOINTS_{lane_set}" not in attributes:
                continue
            joints = self.accessor(attributes[f"JOINTS_{lane_set}"]).astype(int)
            weights = self.accessor(attributes[f"WEIGHTS_{lane_set}"])
            for lane in range(4):
                moved = np.einsum("vij,vj->vi", matrices[np.minimum(joints[:, lane], len(matrices) - 1)],
                                  positions)[:, :3]
                result += weights[:, lane:lane + 1] * moved
        return result


def _sample(times: np.ndarray, values: np.ndarray, mode: str, time: float) -> np.ndarray:
    """One channel's value at ``time`` (glTF 2.0 Appendix C)."""
    cubic = mode == "CUBICSPLINE"
    keys = values[:, 1] if cubic else values
    if time <= times[0] or len(times) == 1:
        return keys[0]
    if time >= times[-1]:
        return keys[-1]
    k = int(np.searchsorted(times, time, side="right")) - 1
    span = times[k + 1] - times[k]
    t = (time - times[k]) / span
    if mode == "STEP":
        return keys[k]
    if cubic:
        return ((2 * t**3 - 3 * t**2 + 1) * values[k, 1] + span * (t**3 - 2 * t**2 + t) * values[k, 2]
                + (-2 * t**3 + 3 * t**2) * values[k + 1, 1] + span * (t**3 - t**2) * values[k + 1, 0])
    if values.shape[1] == 4:  # rotations: slerp along the shorter arc
        # The spec's rotations are unit quaternions; files round theirs, so normalise the keys first.
        a, b = keys[k] / np.linalg.norm(keys[k]), keys[k + 1] / np.linalg.norm(keys[k + 1])
        dot = float(np.dot(a, b))
        if dot < 0:
            b, dot = -b, -dot
        angle = np.arccos(min(dot, 1.0))
        if np.sin(angle) < 1e-12:
            return a + t * (b - a)
        return (np.sin((1 - t) * angle) * a + np.sin(t * angle) * b) / np.sin(angle)
    return (1 - t) * keys[k] + t * keys[k + 1]
