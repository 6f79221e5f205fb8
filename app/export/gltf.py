"""glTF 2.0 writer: skinned meshes, the skeleton as nodes, clips as animations.

Layout of a written file (nodes in this order):

- For a model that is not Y-up facing +Z, node 0 turns it so (``front_rotation``): its up axis to +Y
  and its facing to +Z, so Blender, three.js and glTF viewers show it upright with its face to their
  front view. It is ``Z_up_to_Y_up`` for a Z-up model (−90° about X for one facing −Y, a 3ds Max
  model; a turn more for an NWN model facing +Y), else ``to_gltf_front``; ``asset.extras.up_root``
  names it and ``asset.extras.forward`` keeps the facing the source had. For a Y-up model facing +Z
  with rigid vertices or several root bones, node 0 is ``boneyard_root``, an identity node. Either is
  the anchor: the skin's common root (the validator requires one) and the joint that rigid vertices
  are bound to with weight 1 (glTF weights must sum to 1) and identity inverse bind, so they stay
  put; nothing animates it.
- One node per bone, in bone order, holding the rest pose (``Skeleton.rest_local``, or the ``pose``
  asked for) as TRS (a ``matrix`` where it has shear and no clip moves the bone), children from the
  parents. A bone's constant factor ``C_b`` (app/export/motion_plan.py: a fixed scale or shear that
  T·R·S cannot hold under its parent) is divided out of its node and multiplied into the inverse
  bind matrices, which leaves every skinning matrix as it was.
- One node per helper, under its parent bone, its offset (times ``C_b``) as TRS or matrix, marked
  ``extras.helper`` so that the reader takes it back as a helper.
- One node per mesh (its bind positions as they are, node at identity; at the scene root when
  skinned, else under the up root). Meshes binding the same way share a skin: its joints are the
  bones (then the anchor), its inverse bind matrices ``C_b @`` the mesh's own skin's (else
  ``Skeleton.bind_inverse``).
- One node per walkmesh (an NWN model's), under the up root, unskinned, unlit, coloured by surface
  material, ``extras.walkmesh`` marking it (gltf_walkmeshes.py).

Uvs are written as they are: the project's uv convention is glTF's (origin at the image's top-left);
vertex colours as COLOR_0 (float RGBA, linear, as glTF's).
Four influences per vertex (JOINTS_0/WEIGHTS_0), the viewer's GPU limit: a bone listed twice for a
vertex becomes one lane, and beyond four the smallest are dropped with a warning. A mesh with no
triangles is written as POINTS. Materials carry base colour, alpha mode, sidedness and the base-colour
texture with its sampler and KHR_texture_transform; every image used is embedded (gltf_materials.py).
Meshes the file marks as not rendered are left out unless ``show_hidden``.
Keyed clips keep their keys (unless a bone they track, or its parent, has a factor: then they are
sampled at their keys like 'matrices' clips) and their morph weight channels; a mesh's own morph
targets are written once (gltf_morphs.py); 'matrices' clips become linear TRS channels at every
frame; 'vertex' clips become more morph targets (one per frame, displacements from bind that the
rest pose's skinning takes to the frame's positions) with a weights animation that steps from one-hot
to one-hot, linearly, which is exactly the player's blend between frames. A clip whose bone motion has
no T·R·S form even with the factors is written as such a morph-target clip, with a warning. Key times
are rounded down to float32, so that a STEP key takes effect at its own time; keys whose times become
one float32 number are one key (the last of them), so every sampler's times strictly increase.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pygltflib as gl

from app import maths
from app.atomic_files import replacing_all
from app.export.gltf_materials import MaterialWriter
from app.export.gltf_walkmeshes import add_walkmeshes
from app.export.gltf_morphs import (base_positions, default_weights, frame_targets, frame_weights,
                                    frame_count, keyed_weights, own_targets, target_names)
from app.export.motion_plan import MotionPlan, plan_motion
from app.model import Clip, Mesh, Model, Skeleton
from app.orientation import facing
from app.pose import (
    Pose,
    compose_world,
    evaluate,
    mesh_skinning,
    pose_from_world,
    posed_positions,
)
from app.skin_weights import GPU_INFLUENCES, merge_duplicate_joints, top_influences

#: Largest TRS residual (relative to the matrix's size) written as TRS rather than as a matrix.
SHEAR_TOLERANCE = 1e-6
#: Residual shear above which a sampled frame is reported as not representable in TRS.
SAMPLED_SHEAR_WARNING = 1e-4

UP_ROOT_NAME = "Z_up_to_Y_up"
#: The root of a Y-up model that faces elsewhere than +Z, turning it about Y to face +Z.
FRONT_ROOT_NAME = "to_gltf_front"
ANCHOR_NAME = "boneyard_root"
#: −90° about X: model +Z becomes glTF +Y (and −Y, the facing of 3ds Max models, becomes +Z).
Z_UP_TO_Y_UP = np.array([-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])
AXIS_VECTORS = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def front_rotation(model: Model) -> np.ndarray:
    """(4, 4) the turn the exporter puts above the model: its up axis to +Y and its facing to +Z
    (glTF's up and front), so a viewer's front view shows its face. Rows: the model's right
    (up × forward), up and forward."""
    forward = facing(model.up_axis, model.forward)
    ahead = np.array(AXIS_VECTORS[forward[1]]) * (1.0 if forward[0] == "+" else -1.0)
    up = np.array(AXIS_VECTORS[model.up_axis])
    rotation = np.eye(4)
    rotation[:3, :3] = np.stack([np.cross(up, ahead), up, ahead])
    return rotation

#: Influences per vertex written (JOINTS_0 / WEIGHTS_0), the viewer's GPU limit.
GLTF_INFLUENCES = GPU_INFLUENCES

FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT = 5126, 5121, 5123, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963


@dataclass
class _Blob:
    """The binary buffer under construction, with its buffer views and accessors."""

    gltf: gl.GLTF2
    data: bytearray = field(default_factory=bytearray)

    def add(self, array: np.ndarray, accessor_type: str, component: int, *, target: int | None = None,
            bounds: bool = False) -> int:
        """Append (count, width) or (count,) ``array`` as one tightly packed view; the accessor index."""
        dtype = {FLOAT: "<f4", UNSIGNED_BYTE: "u1", UNSIGNED_SHORT: "<u2", UNSIGNED_INT: "<u4"}[component]
        array = np.ascontiguousarray(array, dtype=dtype)
        self.data.extend(b"\0" * (-len(self.data) % 4))
        self.gltf.bufferViews.append(gl.BufferView(buffer=0, byteOffset=len(self.data),
                                                   byteLength=array.nbytes, target=target))
        self.data.extend(array.tobytes())
        rows = array.reshape(len(array), -1)
        accessor = gl.Accessor(bufferView=len(self.gltf.bufferViews) - 1, componentType=component,
                               count=len(array), type=accessor_type)
        if bounds:
            accessor.min = rows.min(axis=0).tolist()
            accessor.max = rows.max(axis=0).tolist()
        self.gltf.accessors.append(accessor)
        return len(self.gltf.accessors) - 1

    def add_view(self, data: bytes) -> int:
        """Append raw bytes (an image) as one buffer view; the view index."""
        self.data.extend(b"\0" * (-len(self.data) % 4))
        self.gltf.bufferViews.append(gl.BufferView(buffer=0, byteOffset=len(self.data), byteLength=len(data)))
        self.data.extend(data)
        return len(self.gltf.bufferViews) - 1


@dataclass
class _Layout:
    """Where things are in the node list: the first bone node, the rigid anchor (or None), and the
    list that top-level nodes join (the scene's, or the up root's children)."""

    bones: int
    anchor: int | None
    roots: list[int]


def export_gltf(model: Model, path: str | Path, clips: list | None = None, pose: Pose | None = None,
                *, embed_buffer: bool = False, show_hidden: bool = False) -> list[str]:
    """Write ``model`` to ``path`` (.glb, or .gltf with a sidecar .bin unless ``embed_buffer``).

    clips: Clip objects or names/indices (default: every clip). pose: when given, the nodes' rest
    transforms are this pose's (the skin still binds as the model does), so the file opens posed.
    show_hidden: also write the meshes the file marks as not rendered (left out by default).
    Returns warnings about what glTF could not hold exactly.
    """
    path = Path(path)
    warnings: list[str] = []
    selected = _select_clips(model, clips)
    gltf = gl.GLTF2(asset=gl.Asset(generator="Boneyard", version="2.0"), scene=0, scenes=[gl.Scene(nodes=[])],
                    nodes=[], meshes=[], accessors=[], bufferViews=[], buffers=[], materials=[], skins=[],
                    animations=[], images=[], textures=[], samplers=[])
    gltf.asset.extras = {"source_format": model.format, "up_axis": model.up_axis, "unit": model.unit,
                         "forward": facing(model.up_axis, model.forward)}
    blob = _Blob(gltf)
    rest_world = model.skeleton.rest_world if pose is None else pose.world
    plan = plan_motion(model, selected, rest_world, fills_rest=pose is not None)
    selected = [_baked(model, clip, plan.baked[index], warnings) if index in plan.baked else clip
                for index, clip in enumerate(selected)]
    animated = _animated_bones(model, selected, plan)
    layout = _add_nodes(gltf, model, plan, animated, warnings)
    morph_frames = [clip for clip in selected if clip.kind == "vertex"]
    materials = MaterialWriter(gltf, blob, path.parent, warnings)
    mesh_nodes = _add_meshes(gltf, blob, model, layout, plan, _written_rest(model, plan, animated),
                             morph_frames, materials, show_hidden, warnings)
    add_walkmeshes(gltf, blob.add, model, layout.roots, materials.uses)
    for index, clip in enumerate(selected):
        _add_animation(gltf, blob, model, clip, plan.sampled.get(index), layout, mesh_nodes, morph_frames,
                       pose, warnings)
    _save(gltf, blob, path, embed_buffer)
    return warnings


def export_gltf_pose(model: Model, positions: np.ndarray, path: str | Path, *,
                     embed_buffer: bool = False) -> list[str]:
    """Write a static, unskinned mesh of posed ``positions`` (N, 3) (every mesh's vertices in order)."""
    positions = np.asarray(positions, dtype=np.float64)
    if positions.shape != (model.vertex_count, 3):
        raise ValueError(f"positions: expected shape ({model.vertex_count}, 3), got {positions.shape}")
    starts = np.cumsum([0] + [mesh.vertex_count for mesh in model.meshes])
    meshes = [Mesh(name=mesh.name, positions=positions[start:end], joints=np.zeros((end - start, 1)),
                   weights=np.zeros((end - start, 1)), uvs=mesh.uvs, triangles=mesh.triangles,
                   material=mesh.material, visible=mesh.visible, colors=mesh.colors)
              for mesh, start, end in zip(model.meshes, starts[:-1], starts[1:])]
    empty = Skeleton(names=[], parents=np.zeros(0), bind_world=np.zeros((0, 4, 4)), heads=np.zeros((0, 3)),
                     tails=np.zeros((0, 3)), derived_tails=np.zeros(0, bool))
    static = Model(name=model.name, skeleton=empty, meshes=meshes, format=model.format, up_axis=model.up_axis,
                   up_source=model.up_source, forward=model.forward, unit=model.unit)
    return export_gltf(static, path, clips=[], embed_buffer=embed_buffer)


def _select_clips(model: Model, clips) -> list[Clip]:
    if clips is None:
        return list(model.clips)
    return [clip if isinstance(clip, Clip) else model.clips[model.clip_index(clip)] for clip in clips]


def _baked(model: Model, clip: Clip, bones: list[str], warnings: list[str]) -> Clip:
    """A 'vertex' clip of ``clip``'s posed vertices at its stored frames (GPU influence limit), for
    bone motion glTF's T·R·S nodes cannot hold."""
    warnings.append(f"clip {clip.name!r}: bones {bones} move in ways glTF's translation, rotation and "
                    "scale cannot hold; the clip is written as morph targets (exact at its stored frames)")
    times = clip.frame_times
    positions = np.stack([posed_positions(model, evaluate(model, clip, float(time)),
                                          influences=GLTF_INFLUENCES)
                          for time in times])
    return Clip(name=clip.name, kind="vertex", times=times, positions=positions, events=clip.events)


def _animated_bones(model: Model, clips: list[Clip], plan: MotionPlan) -> set[int]:
    """Bones some written channel moves (their nodes must be T·R·S)."""
    if plan.sampled:
        return set(range(len(model.skeleton)))
    return {track.bone for clip in clips if clip.kind == "keyed" for track in clip.tracks}


def is_written(mesh: Mesh, show_hidden: bool) -> bool:
    """Whether the exporter writes ``mesh``: one with vertices, shown (hidden ones only with
    ``show_hidden``)."""
    return mesh.vertex_count > 0 and (show_hidden or mesh.visible)


# --- nodes --------------------------------------------------------------------------------------

def _add_nodes(gltf: gl.GLTF2, model: Model, plan: MotionPlan, animated: set[int],
               warnings: list[str]) -> _Layout:
    """The up root, anchor, bone and helper nodes; returns where they are."""
    skeleton = model.skeleton
    top = gltf.scenes[0].nodes
    anchor = None
    turn = front_rotation(model)
    if not np.array_equal(turn, np.eye(4)):
        anchor = len(gltf.nodes)
        name = UP_ROOT_NAME if model.up_axis == "Z" else FRONT_ROOT_NAME
        rotation = maths.quat_from_matrix(turn)
        gltf.nodes.append(gl.Node(name=name, rotation=[float(value) for value in rotation], children=[]))
        gltf.asset.extras["up_root"] = name
    elif len(skeleton) and (_has_rigid_vertices(model) or np.sum(skeleton.parents < 0) > 1):
        anchor = len(gltf.nodes)
        gltf.nodes.append(gl.Node(name=ANCHOR_NAME, children=[]))
    if anchor is not None:
        top.append(anchor)
        top = gltf.nodes[anchor].children
    bones = len(gltf.nodes)
    for bone in range(len(skeleton)):
        node = gl.Node(name=skeleton.names[bone], children=[])
        _set_transform(node, plan.rest_local[bone], bone in animated, f"bone {skeleton.names[bone]!r}",
                       warnings)
        gltf.nodes.append(node)
    for bone, parent in enumerate(skeleton.parents):
        (gltf.nodes[bones + parent].children if parent >= 0 else top).append(bones + bone)
    for helper in model.helpers:
        # Under a node that is W @ inv(C) of its bone, the helper's local matrix is C @ offset.
        offset = helper.offset if helper.parent < 0 else plan.factors[helper.parent] @ helper.offset
        _add_helper(gltf, helper.name, helper.parent, offset, bones, top, warnings)
    return _Layout(bones=bones, anchor=anchor, roots=top)


def _has_rigid_vertices(model: Model) -> bool:
    return any(np.any(mesh.weights.sum(axis=1) <= 0) for mesh in model.meshes)


def _add_helper(gltf: gl.GLTF2, name: str, parent: int, offset: np.ndarray, bones: int, top: list[int],
                warnings: list[str]) -> None:
    node = gl.Node(name=name, extras={"helper": True})  # read back as a helper, not an empty bone
    _set_transform(node, offset, False, f"helper {name!r}", warnings)
    (gltf.nodes[bones + parent].children if parent >= 0 else top).append(len(gltf.nodes))
    gltf.nodes.append(node)


def _written_rest(model: Model, plan: MotionPlan, animated: set[int]) -> np.ndarray:
    """(B, 4, 4) the bones' world matrices at rest as the file holds them (T·R·S where a node must
    be, factors multiplied back in): what morph targets are skinned by at rest."""
    local = plan.rest_local.copy()
    for bone in animated:
        translation, rotation, scale, _ = maths.decompose_trs(local[bone])
        local[bone] = maths.compose_trs(translation, rotation, scale)
    return compose_world(model.skeleton, local) @ plan.factors


def _set_transform(node: gl.Node, matrix: np.ndarray, animated: bool, what: str, warnings: list[str]) -> None:
    """TRS when ``matrix`` (4, 4) decomposes, else a column-major ``matrix`` (TRS if animated)."""
    translation, rotation, scale, residual = maths.decompose_trs(matrix)
    if residual <= SHEAR_TOLERANCE * max(1.0, float(np.abs(matrix).max())) or animated:
        if residual > SAMPLED_SHEAR_WARNING:
            warnings.append(f"{what}: its rest frame has shear glTF TRS cannot hold "
                            f"(residual {residual:.3g})")
        node.translation, node.rotation, node.scale = translation.tolist(), rotation.tolist(), scale.tolist()
    else:
        node.matrix = np.asarray(matrix, dtype=np.float64).T.ravel().tolist()


# --- meshes -------------------------------------------------------------------------------------

def _add_meshes(gltf: gl.GLTF2, blob: _Blob, model: Model, layout: _Layout, plan: MotionPlan,
                rest_world: np.ndarray, morph_clips: list[Clip], materials: MaterialWriter,
                show_hidden: bool, warnings: list[str]) -> list[int | None]:
    """A node, mesh and material per Mesh written (hidden ones only with ``show_hidden``), each with
    its skin's glTF skin (one per distinct binding); returns each mesh's node (or None)."""
    skins: dict[int, int] = {}
    rest = pose_from_world(model, rest_world)
    starts = np.cumsum([0] + [mesh.vertex_count for mesh in model.meshes])
    frames = frame_count(morph_clips)
    nodes: list[int | None] = []
    for index, mesh in enumerate(model.meshes):
        if mesh.vertex_count == 0:
            warnings.append(f"mesh {mesh.name!r} has no vertices and was left out")
        if not is_written(mesh, show_hidden):
            nodes.append(None)
            continue
        skin = None
        if len(model.skeleton):
            # No skin without a mesh to use it (the validator reports an unused skin).
            key = id(mesh.skin)
            if key not in skins:
                skins[key] = _add_skin(gltf, blob, model, mesh, layout, plan)
            skin = skins[key]
        primitive = _primitive(gltf, blob, mesh, model, layout, skin is not None, materials, warnings)
        targets = own_targets(mesh, lambda delta, bounds: blob.add(delta, "VEC3", FLOAT, target=ARRAY_BUFFER,
                                                                   bounds=bounds))
        if morph_clips:
            deltas = frame_targets(mesh, mesh_skinning(model, rest, mesh), morph_clips, starts[index],
                                   GLTF_INFLUENCES)
            targets += [gl.Attributes(POSITION=blob.add(delta, "VEC3", FLOAT, target=ARRAY_BUFFER,
                                                        bounds=True))
                        for delta in deltas]
        primitive.targets = targets or None
        weights = default_weights(mesh, frames)
        gltf.meshes.append(gl.Mesh(name=mesh.name, primitives=[primitive], weights=weights or None,
                                   extras=target_names(mesh, frames)))
        node = gl.Node(name=mesh.name, mesh=len(gltf.meshes) - 1, skin=skin)
        # A skinned mesh ignores its parents, so it sits at the scene root
        # (else the validator warns NODE_SKINNED_MESH_NON_ROOT).
        (gltf.scenes[0].nodes if skin is not None else layout.roots).append(len(gltf.nodes))
        nodes.append(len(gltf.nodes))
        gltf.nodes.append(node)
    return nodes


def _add_skin(gltf: gl.GLTF2, blob: _Blob, model: Model, mesh: Mesh, layout: _Layout,
              plan: MotionPlan) -> int:
    """One skin: the bones (then the rigid anchor), inverse bind matrices ``C_b @ IBM_b`` (the mesh's
    own skin's, else ``bind_inverse``; ``C_b`` the plan's factors)."""
    skeleton = model.skeleton
    inverse = skeleton.bind_inverse if mesh.skin is None else mesh.skin.bone_inverse_binds(skeleton)
    inverse = plan.factors @ inverse
    joints = list(range(layout.bones, layout.bones + len(model.skeleton)))
    if layout.anchor is not None:
        # The anchor (identity, or the up root) is the skin's common root and holds rigid vertices.
        joints.append(layout.anchor)
        inverse = np.concatenate([inverse, np.eye(4)[None]])
    # glTF stores each matrix column-major: the transpose's rows, flattened.
    matrices = blob.add(np.swapaxes(inverse, 1, 2).reshape(-1, 16), "MAT4", FLOAT)
    gltf.skins.append(gl.Skin(joints=joints, inverseBindMatrices=matrices))
    return len(gltf.skins) - 1


def _primitive(gltf: gl.GLTF2, blob: _Blob, mesh: Mesh, model: Model, layout: _Layout, skinned: bool,
               materials: MaterialWriter, warnings: list[str]) -> gl.Primitive:
    attributes = gl.Attributes(POSITION=blob.add(base_positions(mesh), "VEC3", FLOAT, target=ARRAY_BUFFER,
                                                 bounds=True))
    # A mesh whose triangle list is empty is written as points: TRIANGLES without indices would draw
    # its vertices three by three (and the validator warns when they are not a multiple of three).
    faces = mesh.triangle_count > 0
    if faces or mesh.normals is not None:
        normals, valid = maths.normalize(mesh.smooth_normals)
        normals[~valid] = (0.0, 0.0, 1.0)
        attributes.NORMAL = blob.add(normals, "VEC3", FLOAT, target=ARRAY_BUFFER)
    if mesh.uvs is not None:
        attributes.TEXCOORD_0 = blob.add(mesh.uvs, "VEC2", FLOAT, target=ARRAY_BUFFER)
    if mesh.colors is not None:
        attributes.COLOR_0 = blob.add(mesh.colors, "VEC4", FLOAT, target=ARRAY_BUFFER)
    if skinned:
        joints, weights = _influences(mesh, layout, len(model.skeleton), warnings)
        component = UNSIGNED_BYTE if joints.max() < 256 else UNSIGNED_SHORT
        attributes.JOINTS_0 = blob.add(joints, "VEC4", component, target=ARRAY_BUFFER)
        attributes.WEIGHTS_0 = blob.add(weights, "VEC4", FLOAT, target=ARRAY_BUFFER)
    primitive = gl.Primitive(attributes=attributes, mode=4 if faces else 0)
    if faces:
        component = UNSIGNED_SHORT if mesh.vertex_count <= 65535 else UNSIGNED_INT
        primitive.indices = blob.add(mesh.triangles.ravel(), "SCALAR", component, target=ELEMENT_ARRAY_BUFFER)
    primitive.material = materials.add(mesh)
    return primitive


def _influences(mesh: Mesh, layout: _Layout, bones: int,
                warnings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(V, 4) skin joint indices and weights; rigid vertices go to the anchor (skin joint ``bones``).

    A bone listed twice for one vertex gets one lane with the summed weight (glTF forbids a joint
    twice with non-zero weights); beyond four influences the smallest are dropped, with a warning.
    """
    joints, weights = merge_duplicate_joints(mesh.joints, mesh.weights)
    used = np.count_nonzero(weights > 0, axis=1)
    if np.any(used > GLTF_INFLUENCES):
        warnings.append(f"mesh {mesh.name!r}: {int(np.sum(used > GLTF_INFLUENCES))} vertices have more than "
                        f"{GLTF_INFLUENCES} bone influences (up to {int(used.max())}); the "
                        f"{GLTF_INFLUENCES} largest were kept and renormalised, as the viewer's GPU "
                        "skinning does")
    joints, weights = top_influences(joints, weights, GLTF_INFLUENCES)
    rigid = weights.sum(axis=1) == 0
    joints[rigid, 0] = bones
    weights[rigid, 0] = 1.0
    # Renormalise in float32 so each row sums to 1 as closely as float32 allows: the largest lane
    # takes the remainder (it is at least 1/4, so it cannot go negative).
    rows, largest = np.arange(len(weights)), np.argmax(weights, axis=1)
    others = weights.sum(axis=1, dtype=np.float32) - weights[rows, largest]
    weights[rows, largest] = np.float32(1.0) - others
    return joints, weights


# --- animations ---------------------------------------------------------------------------------

def _add_animation(gltf: gl.GLTF2, blob: _Blob, model: Model, clip: Clip, sampled: np.ndarray | None,
                   layout: _Layout, mesh_nodes: list[int | None], morph_clips: list[Clip], pose: Pose | None,
                   warnings: list[str]) -> None:
    """``sampled``: (F, B, 4, 4) node local matrices at the clip's stored frames, when the clip is not
    written as its keys."""
    animation = gl.Animation(name=clip.name, channels=[], samplers=[])
    if sampled is not None:
        _sampled_channels(animation, blob, clip.frame_times, sampled, layout)
    elif clip.kind == "keyed":
        _keyed_channels(animation, blob, model, clip, layout, pose)
    if clip.kind != "vertex":
        _keyed_weight_channels(animation, blob, clip, mesh_nodes, morph_clips)
    else:
        _weight_channels(animation, blob, model, clip, mesh_nodes, morph_clips)
        if clip.world is not None:
            warnings.append(f"clip {clip.name!r}: bone motion of a vertex clip is not exported "
                            "(its vertex positions already include it)")
    if animation.channels:
        gltf.animations.append(animation)


def _channel(animation: gl.Animation, blob: _Blob, node: int, path: str, times: np.ndarray,
             values: np.ndarray, interpolation: str) -> None:
    """One sampler and channel: times (K,), ascending; values (K, 3|4), (3K, 3|4) for CUBICSPLINE, or
    (K, M) morph weights."""
    times, values = _increasing_keys(times, np.asarray(values, dtype=np.float64))
    if path == "weights":
        output = blob.add(values.ravel(), "SCALAR", FLOAT)
    else:
        output = blob.add(values, {3: "VEC3", 4: "VEC4"}[values.shape[1]], FLOAT)
    sampler = gl.AnimationSampler(input=blob.add(times, "SCALAR", FLOAT, bounds=True),
                                  output=output, interpolation=interpolation)
    animation.samplers.append(sampler)
    animation.channels.append(gl.AnimationChannel(sampler=len(animation.samplers) - 1,
                                                  target=gl.AnimationChannelTarget(node=node, path=path)))


def _increasing_keys(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float32 key times (``_float32_at_or_before``) strictly increasing, as glTF requires, and
    the values (one or three rows per key) that go with them: of keys whose times are one float32
    number (0.375 and 0.37500000001 s), the last is kept, whose value holds from that instant on."""
    written = _float32_at_or_before(times)
    keep = np.append(written[1:] != written[:-1], True)
    if keep.all():
        return written, values
    per_key = values.reshape(len(written), -1, values.shape[-1])
    return written[keep], per_key[keep].reshape(-1, values.shape[-1])


def _float32_at_or_before(times: np.ndarray) -> np.ndarray:
    """(K,) key times as float32, each rounded down rather than to nearest, so a key takes effect at
    its own time (a STEP key at 0.6 s would otherwise start at 0.60000002 s, after 0.6)."""
    times = np.asarray(times, dtype=np.float64)
    rounded = times.astype(np.float32)
    return np.where(rounded > times, np.nextafter(rounded, np.float32(-np.inf)), rounded)


def _keyed_channels(animation: gl.Animation, blob: _Blob, model: Model, clip: Clip, layout: _Layout,
                    pose: Pose | None) -> None:
    """Each track's channels as they are; with a rest ``pose``, rest-local values fill the gaps."""
    rest = maths.decompose_trs(model.skeleton.rest_local)[:3]
    covered = set()
    for track in clip.tracks:
        interpolation = "STEP" if track.interpolation == "step" else "LINEAR"
        for path in ("translation", "rotation", "scale"):
            keys = getattr(track, path)
            if keys is not None:
                values = _continuous(keys[1]) if path == "rotation" else keys[1]
                if path in track.handles:
                    flipped = np.sum(values * keys[1], axis=1, keepdims=True) < 0
                    values = _hermite_keys(keys[0], values, track.handles[path], np.where(flipped, -1.0, 1.0))
                _channel(animation, blob, layout.bones + track.bone, path, keys[0], values,
                         "CUBICSPLINE" if path in track.handles else interpolation)
                covered.add((track.bone, path))
    if pose is None:
        return
    start = np.array([clip.start])
    for bone in range(len(model.skeleton)):
        for path, values in zip(("translation", "rotation", "scale"), rest):
            if (bone, path) not in covered:
                _channel(animation, blob, layout.bones + bone, path, start, values[bone][None], "STEP")


def _sampled_channels(animation: gl.Animation, blob: _Blob, times: np.ndarray, local: np.ndarray,
                      layout: _Layout) -> None:
    """Linear T·R·S channels for every bone at ``times`` (F,) from node locals (F, B, 4, 4)."""
    translations, rotations, scales, _ = maths.decompose_trs(local)
    for bone in range(local.shape[1]):
        node = layout.bones + bone
        _channel(animation, blob, node, "translation", times, translations[:, bone], "LINEAR")
        _channel(animation, blob, node, "rotation", times, _continuous(rotations[:, bone]), "LINEAR")
        _channel(animation, blob, node, "scale", times, scales[:, bone], "LINEAR")


def _keyed_weight_channels(animation: gl.Animation, blob: _Blob, clip: Clip, mesh_nodes: list[int | None],
                           morph_clips: list[Clip]) -> None:
    """A keyed clip's weight channels as they are keyed, the vertex-clip targets held at 0."""
    frames = frame_count(morph_clips)
    for channel in clip.weight_channels:
        node = mesh_nodes[channel.mesh]
        if node is not None:
            _channel(animation, blob, node, "weights", *keyed_weights(channel, frames))


def _weight_channels(animation: gl.Animation, blob: _Blob, model: Model, clip: Clip,
                     mesh_nodes: list[int | None], morph_clips: list[Clip]) -> None:
    """Weights stepping one-hot from the clip's first frame target to its last, linearly between frames;
    each mesh's own targets at their defaults."""
    first = frame_count(morph_clips[: morph_clips.index(clip)])
    for mesh, node in zip(model.meshes, mesh_nodes):
        if node is not None:
            weights = frame_weights(mesh, first, len(clip.times), frame_count(morph_clips))
            _channel(animation, blob, node, "weights", clip.times, weights, "LINEAR")


def _hermite_keys(times: np.ndarray, values: np.ndarray, handles: tuple[np.ndarray, np.ndarray],
                  signs: np.ndarray) -> np.ndarray:
    """(3K, n) glTF CUBICSPLINE output (in-tangent, value, out-tangent per key) playing the cubic
    Bezier curves of ``values`` (K, n) and their (in, out) control values, whose signs follow
    ``signs`` (K, 1) (the quaternion flips made for continuity). The Hermite tangents of a Bezier
    segment are 3·(P1 − P0) and 3·(P3 − P2), per unit of time over the segment's span."""
    handle_in, handle_out = (side * signs for side in handles)
    spans = np.diff(times)[:, None]
    spans = np.where(spans > 0, spans, 1.0)
    tangent_in, tangent_out = np.zeros_like(values), np.zeros_like(values)
    tangent_out[:-1] = 3 * (handle_out[:-1] - values[:-1]) / spans
    tangent_in[1:] = 3 * (values[1:] - handle_in[1:]) / spans
    return np.stack([tangent_in, values, tangent_out], axis=1).reshape(-1, values.shape[1])


def _continuous(quaternions: np.ndarray) -> np.ndarray:
    """(K, 4) unit quaternions with signs flipped so consecutive keys lie in one hemisphere."""
    quaternions = maths.quat_normalize(quaternions)
    flips = np.sum(quaternions[1:] * quaternions[:-1], axis=1) < 0
    signs = np.concatenate([[1.0], np.cumprod(np.where(flips, -1.0, 1.0))])
    return quaternions * signs[:, None]


# --- output -------------------------------------------------------------------------------------

def _save(gltf: gl.GLTF2, blob: _Blob, path: Path, embed_buffer: bool) -> None:
    """Write .glb (binary chunk) or .gltf (sidecar .bin, or a data URI when ``embed_buffer``)."""
    for table in ("materials", "skins", "animations", "images", "textures", "samplers", "meshes",
                  "accessors", "bufferViews"):
        if not getattr(gltf, table):
            setattr(gltf, table, [])
    for node in gltf.nodes:
        if node.children == []:
            node.children = None
    data = bytes(blob.data) + b"\0" * (-len(blob.data) % 4)
    if not data:
        gltf.buffers = []
    elif path.suffix.lower() == ".glb":
        gltf.buffers = [gl.Buffer(byteLength=len(data))]
        gltf.set_binary_blob(data)
    elif embed_buffer:
        encoded = base64.b64encode(data).decode("ascii")
        uri = f"data:application/octet-stream;base64,{encoded}"
        gltf.buffers = [gl.Buffer(byteLength=len(data), uri=uri)]
    else:
        sidecar = path.with_suffix(".bin")
        gltf.buffers = [gl.Buffer(byteLength=len(data), uri=sidecar.name)]
    written = [path] if embed_buffer or not data or path.suffix.lower() == ".glb" else [path, sidecar]
    with replacing_all(written) as temporaries:
        if len(temporaries) == 2:
            temporaries[1].write_bytes(data)
        if path.suffix.lower() == ".glb":
            gltf.save_binary(str(temporaries[0]))
        else:
            gltf.save_json(str(temporaries[0]))
