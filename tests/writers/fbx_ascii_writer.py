"""FBX 7.4 ASCII files for the tests, written from plain values (the text grammar: ``Name: values {…}``
blocks, ``P:`` properties, ``C:`` connections). Only what the tests need: GlobalSettings (axes, unit,
frame rate), LimbNode and Mesh models with their transform properties, one polygon mesh with normals
and UVs, a skin with clusters, blend shape channels, animation stacks with linear curves, a bind pose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: FBX time units per second.
KTIME = 46186158000


@dataclass
class Bone:
    """A LimbNode. ``rotation``, ``pre_rotation``, ``post_rotation``: Euler degrees (XYZ order);
    ``pivot``: the rotation pivot; ``parent``: index into the file's bones or None."""

    name: str
    translation: tuple = (0.0, 0.0, 0.0)
    rotation: tuple = (0.0, 0.0, 0.0)
    pre_rotation: tuple = (0.0, 0.0, 0.0)
    post_rotation: tuple = (0.0, 0.0, 0.0)
    pivot: tuple = (0.0, 0.0, 0.0)
    scale: tuple = (1.0, 1.0, 1.0)
    parent: int | None = None


@dataclass
class Curve:
    """Linear keys of one bone's Lcl Rotation axis ('X', 'Y' or 'Z'): times in seconds, degrees."""

    bone: int
    axis: str
    times: tuple
    degrees: tuple


@dataclass
class ShapeCurve:
    """Keys of a blend shape channel's DeformPercent (0..100): its index in the mesh's shapes;
    ``key_flags``: FBX's KeyAttrFlags for every key (4 linear, 8 cubic, 2 constant: a step)."""

    channel: int
    times: tuple
    percents: tuple
    key_flags: int = 4


@dataclass
class Stack:
    name: str
    seconds: float
    curves: list[Curve]
    shape_curves: list[ShapeCurve] = field(default_factory=list)


@dataclass
class MeshSpec:
    """A polygon mesh at the origin: points (P, 3), polygons (lists of point indices), per-corner
    normals and UVs (computed when None), influences {bone index: (point indices, weights)}, bind
    world matrices per bone (column vectors), blend shapes {name: (rest percent, point indices,
    offsets)}."""

    points: np.ndarray
    polygons: list[list[int]]
    influences: dict[int, tuple[list[int], list[float]]] = field(default_factory=dict)
    bind: dict[int, np.ndarray] = field(default_factory=dict)
    shapes: dict[str, tuple[float, list[int], np.ndarray]] = field(default_factory=dict)
    name: str = "body"


def _numbers(values) -> str:
    flat = np.asarray(values, dtype=np.float64).ravel()
    return ",".join(repr(float(v)) if not float(v).is_integer() else str(int(v)) for v in flat)


def _array(name: str, values, integers: bool = False) -> str:
    flat = np.asarray(values).ravel()
    text = ",".join(str(int(v)) for v in flat) if integers else _numbers(flat)
    return f"\t\t{name}: *{len(flat)} {{\n\t\t\ta: {text}\n\t\t}}\n"


def _matrix(matrix: np.ndarray) -> np.ndarray:
    """A column-vector matrix in FBX's order (translation at 12..14)."""
    return np.asarray(matrix, dtype=np.float64).T.ravel()


def _vector(name: str, value, kind: str = "Vector3D", flags: str = "") -> str:
    label = "Lcl " + name if name in ("Translation", "Rotation", "Scaling") else name
    type_name = label if label.startswith("Lcl") else kind
    sub = "" if label.startswith("Lcl") else "Vector"
    flag = "A" if label.startswith("Lcl") else flags
    return f'\t\t\tP: "{label}", "{type_name}", "{sub}", "{flag}",{_numbers(value)}\n'


def write_fbx(path: Path, bones: list[Bone], mesh: MeshSpec | None = None, stacks: list[Stack] = (),
              up: str = "Y", unit_cm: float = 1.0, fps_mode: int = 6, lying_pose: bool = False) -> Path:
    """The file at ``path``. ``up`` 'Y' (Maya) or 'Z' (3ds Max axes); ``unit_cm``: UnitScaleFactor
    (centimetres per file unit); ``fps_mode``: FBX TimeMode (6: 30 fps); ``lying_pose``: a bind Pose
    node whose matrices are all identity, which the clusters contradict."""
    axes = (1, 1, 2, 1) if up == "Y" else (2, 1, 1, -1)
    out = ["; FBX 7.4.0 project file\n",
           "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n",
           "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n"]
    for name, value in zip(("UpAxis", "UpAxisSign", "FrontAxis", "FrontAxisSign"), axes):
        out.append(f'\t\tP: "{name}", "int", "Integer", "",{value}\n')
    out.append('\t\tP: "CoordAxis", "int", "Integer", "",0\n\t\tP: "CoordAxisSign", "int", "Integer", "",1\n')
    out.append(f'\t\tP: "UnitScaleFactor", "double", "Number", "",{unit_cm!r}\n')
    out.append(f'\t\tP: "TimeMode", "enum", "", "",{fps_mode}\n\t}}\n}}\n')
    out.append("Objects:  {\n")
    connections = []
    for index, bone in enumerate(bones):
        uid = 1000 + index
        out.append(f'\tNodeAttribute: {uid + 500}, "NodeAttribute::{bone.name}", "LimbNode" {{\n'
                   '\t\tTypeFlags: "Skeleton"\n\t}\n')
        out.append(f'\tModel: {uid}, "Model::{bone.name}", "LimbNode" {{\n\t\tVersion: 232\n'
                   '\t\tProperties70:  {\n')
        out.append('\t\t\tP: "RotationActive", "bool", "", "",1\n')
        out.append(_vector("Translation", bone.translation))
        out.append(_vector("Rotation", bone.rotation))
        out.append(_vector("Scaling", bone.scale))
        out.append(_vector("PreRotation", bone.pre_rotation))
        out.append(_vector("PostRotation", bone.post_rotation))
        out.append(_vector("RotationPivot", bone.pivot))
        out.append(_vector("ScalingPivot", bone.pivot))
        out.append("\t\t}\n\t}\n")
        connections.append(f'\tC: "OO",{uid + 500},{uid}\n')
        connections.append(f'\tC: "OO",{uid},{0 if bone.parent is None else 1000 + bone.parent}\n')
    if mesh is not None:
        out.extend(_mesh_objects(mesh, connections))
        if lying_pose:
            out.append('\tPose: 9000, "Pose::BIND_POSES", "BindPose" {\n\t\tType: "BindPose"\n'
                       f'\t\tVersion: 100\n\t\tNbPoseNodes: {len(bones)}\n')
            identity = _array("Matrix", _matrix(np.eye(4))).replace("\t\t", "\t\t\t", 1)
            for index in range(len(bones)):
                out.append(f'\t\tPoseNode:  {{\n\t\t\tNode: {1000 + index}\n{identity}\t\t}}\n')
            out.append("\t}\n")
    for number, stack in enumerate(stacks):
        out.extend(_stack_objects(number, stack, connections))
    out.append("}\nConnections:  {\n")
    out.extend(connections)
    out.append("}\n")
    path.write_text("".join(out))
    return path


def _mesh_objects(mesh: MeshSpec, connections: list[str]) -> list[str]:
    out = []
    indices = []
    for polygon in mesh.polygons:
        indices.extend(polygon[:-1] + [-polygon[-1] - 1])
    corners = [point for polygon in mesh.polygons for point in polygon]
    normals = np.tile([0.0, 0.0, 1.0], (len(corners), 1))
    uvs = mesh.points[corners][:, :2] * 0.1 + 0.5
    out.append(f'\tGeometry: 100, "Geometry::{mesh.name}", "Mesh" {{\n')
    out.append(_array("Vertices", mesh.points))
    out.append(_array("PolygonVertexIndex", indices, integers=True))
    out.append('\t\tLayerElementNormal: 0 {\n\t\t\tVersion: 101\n'
               '\t\t\tMappingInformationType: "ByPolygonVertex"\n\t\t\tReferenceInformationType: "Direct"\n')
    out.append(_array("Normals", normals).replace("\t\t", "\t\t\t", 1))
    out.append("\t\t}\n")
    out.append('\t\tLayerElementUV: 0 {\n\t\t\tVersion: 101\n\t\t\tName: "map1"\n'
               '\t\t\tMappingInformationType: "ByPolygonVertex"\n\t\t\tReferenceInformationType: "Direct"\n')
    out.append(_array("UV", uvs).replace("\t\t", "\t\t\t", 1))
    out.append("\t\t}\n")
    out.append('\t\tLayer: 0 {\n\t\t\tVersion: 100\n')
    for kind in ("LayerElementNormal", "LayerElementUV"):
        out.append(f'\t\t\tLayerElement:  {{\n\t\t\t\tType: "{kind}"\n\t\t\t\tTypedIndex: 0\n\t\t\t}}\n')
    out.append("\t\t}\n")
    out.append("\t}\n")
    out.append(f'\tModel: 200, "Model::{mesh.name}", "Mesh" {{\n\t\tVersion: 232\n\t}}\n')
    connections.append('\tC: "OO",200,0\n\tC: "OO",100,200\n')
    if mesh.influences:
        out.append('\tDeformer: 300, "Deformer::skin", "Skin" {\n\t\tVersion: 101\n\t}\n')
        connections.append('\tC: "OO",300,100\n')
        for bone, (points, weights) in mesh.influences.items():
            uid = 310 + bone
            out.append(f'\tDeformer: {uid}, "SubDeformer::cluster{bone}", "Cluster" {{\n\t\tVersion: 100\n')
            out.append(_array("Indexes", points, integers=True))
            out.append(_array("Weights", weights))
            # Transform is the mesh's bind frame seen from the bone (the file's inverse bind matrix).
            out.append(_array("Transform", _matrix(np.linalg.inv(mesh.bind[bone]))))
            out.append(_array("TransformLink", _matrix(mesh.bind[bone])))
            out.append("\t}\n")
            connections.append(f'\tC: "OO",{uid},300\n\tC: "OO",{1000 + bone},{uid}\n')
    if mesh.shapes:
        out.append('\tDeformer: 400, "Deformer::shapes", "BlendShape" {\n\t\tVersion: 100\n\t}\n')
        connections.append('\tC: "OO",400,100\n')
        for number, (name, (percent, points, offsets)) in enumerate(mesh.shapes.items()):
            channel, shape = 410 + number, 450 + number
            out.append(f'\tDeformer: {channel}, "SubDeformer::{name}", "BlendShapeChannel" {{\n'
                       f'\t\tVersion: 100\n\t\tDeformPercent: {percent!r}\n')
            out.append(_array("FullWeights", [100.0]))
            out.append("\t}\n")
            out.append(f'\tGeometry: {shape}, "Geometry::{name}", "Shape" {{\n\t\tVersion: 100\n')
            out.append(_array("Indexes", points, integers=True))
            out.append(_array("Vertices", offsets))
            out.append("\t}\n")
            connections.append(f'\tC: "OO",{channel},400\n\tC: "OO",{shape},{channel}\n')
    return out


def _stack_objects(number: int, stack: Stack, connections: list[str]) -> list[str]:
    base = 5000 + 100 * number
    out = [f'\tAnimationStack: {base}, "AnimStack::{stack.name}", "" {{\n\t\tProperties70:  {{\n'
           f'\t\t\tP: "LocalStart", "KTime", "Time", "",0\n'
           f'\t\t\tP: "LocalStop", "KTime", "Time", "",{int(round(stack.seconds * KTIME))}\n\t\t}}\n\t}}\n',
           f'\tAnimationLayer: {base + 1}, "AnimLayer::BaseLayer", "" {{\n\t}}\n']
    connections.append(f'\tC: "OO",{base + 1},{base}\n')
    by_bone: dict[int, list[Curve]] = {}
    for curve in stack.curves:
        by_bone.setdefault(curve.bone, []).append(curve)
    for offset, shape in enumerate(stack.shape_curves):
        node = base + 90 - 2 * offset
        out.append(f'\tAnimationCurveNode: {node}, "AnimCurveNode::DeformPercent", "" {{\n'
                   '\t\tProperties70:  {\n\t\t\tP: "d|DeformPercent", "Number", "", "A",0\n\t\t}\n\t}\n')
        connections.append(f'\tC: "OO",{node},{base + 1}\n'
                           f'\tC: "OP",{node},{410 + shape.channel}, "DeformPercent"\n')
        out.extend(_curve(node + 1, shape.times, shape.percents, shape.key_flags))
        connections.append(f'\tC: "OP",{node + 1},{node}, "d|DeformPercent"\n')
    for offset, (bone, curves) in enumerate(by_bone.items()):
        node = base + 10 + 10 * offset
        out.append(f'\tAnimationCurveNode: {node}, "AnimCurveNode::R", "" {{\n\t\tProperties70:  {{\n'
                   '\t\t\tP: "d|X", "Number", "", "A",0\n\t\t\tP: "d|Y", "Number", "", "A",0\n'
                   '\t\t\tP: "d|Z", "Number", "", "A",0\n\t\t}\n\t}\n')
        connections.append(f'\tC: "OO",{node},{base + 1}\n\tC: "OP",{node},{1000 + bone}, "Lcl Rotation"\n')
        for position, curve in enumerate(curves):
            uid = node + 1 + position
            out.extend(_curve(uid, curve.times, curve.degrees))
            connections.append(f'\tC: "OP",{uid},{node}, "d|{curve.axis}"\n')
    return out


def _curve(uid: int, times, values, key_flags: int = 4) -> list[str]:
    """An AnimationCurve whose keys all have ``key_flags`` (default linear)."""
    return [f'\tAnimationCurve: {uid}, "AnimCurve::", "" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009\n',
            _array("KeyTime", [int(round(t * KTIME)) for t in times], integers=True),
            _array("KeyValueFloat", values), _array("KeyAttrFlags", [key_flags], integers=True),
            _array("KeyAttrDataFloat", [0, 0, 218434821, 0]),
            _array("KeyAttrRefCount", [len(times)], integers=True), "\t}\n"]
