"""What the Neverwinter Nights readers share: the parsed form of one ``.mdl`` (binary or ASCII) and
building the Model from it (loading several models as one is ``supermodels``).

Both readers (``binary`` for the compiled form, ``ascii`` for the text form) fill the same
``Parsed`` structure, so node → bone, skins, animations → clips and supermodels are decided here once
and the same content gives the same Model whatever form it came in.

Every node is a bone, in pre-order; ``L = T(position) @ Rot(orientation)`` from the rest controllers.
Trimesh, skin and dangly nodes become meshes, their vertices moved from node space to model space at
rest (``W_node(rest) @ p``) so that ``S = W(t) @ inv(W(rest))`` skins them. Animations are keyed clips
matched to bones by node name (case-insensitive); an animation with animmesh samples is played as a
'vertex' clip, which the load stage bakes from the samples' offsets (``BakeVertexClip``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from app import maths
from app.formats.animation_sets import unique_name
from app.formats.registry import ReadError
from app.bone_tails import derive_tails
from app.bone_tree import hierarchy_levels, world_from_local
from app.formats.nwn.dangly_params import constraints_text, dangly_params
from app.formats.nwn.emitter_settings import emitter
from app.model import Clip, Helper, Material, Mesh, Model, Skeleton, Track
from app.posing_steps import BakeVertexClip

#: Influences per vertex the compiled form stores (skins are given at least this many lanes).
SKIN_LANES = 4
#: Relative tolerance of the inverse-bind cross-check.
BIND_TOLERANCE = 1e-3

#: Controller types (the binary numbering; the ASCII reader maps its keywords onto them).
POSITION, ORIENTATION, SCALE = 8, 20, 36
#: The mesh controller holding the mesh's opacity (ASCII ``alpha``).
ALPHA = 128
#: Node kinds that are not drawn as meshes (walk meshes).
UNDRAWN_KINDS = {"aabb"}
#: Node kinds listed in the "nodes not drawn" warning. Emitters are not among them: each is a helper
#: with its cone and birth plane, drawn by View › Emitters and ``render --emitters``.
HIDDEN_KINDS = {"light", "reference", "aabb"}


@dataclass
class Node:
    """One node of a geometry. kind: 'dummy', 'trimesh', 'skin', 'dangly', 'animmesh', 'aabb',
    'light', 'emitter', 'reference' (or another name for an unusual binary flag mix).
    controllers: type → (times (K,), values (K, n)) float64, rotations as (x, y, z, w) quaternions.
    geometry (meshes): positions (V, 3) in node space, normals (V, 3) or None, uvs (V, 2) or None
    with OpenGL-style V (0 = bottom), triangles (T, 3), texture, color, render; skins add
    skin_joints (V, K) node indices (−1 = unused lane) and skin_weights (V, K), and the binary form
    inverse_rotations (w, x, y, z) / inverse_translations per node for a cross-check.
    handles: bezier-keyed controllers, type → (in, out) control values shaped like the values
    (key value + the key's in- or out-tangent; rotations as quaternions in the keys' hemisphere).
    settings: an emitter's settings by their ASCII names, as text (emitter_settings.py).
    Dangly nodes' geometry adds ``constraints``: (N,) the file's per-vertex values, unchecked."""

    name: str
    parent: int
    kind: str = "dummy"
    controllers: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    extras: dict = field(default_factory=dict)
    geometry: dict | None = None
    handles: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def drawn(self) -> bool:
        return self.geometry is not None and self.kind not in UNDRAWN_KINDS


@dataclass
class Animation:
    name: str
    length: float
    nodes: list[Node]
    events: list[tuple[float, str]]
    root: str = ""
    transition: float = 0.0


@dataclass
class Parsed:
    path: Path
    name: str
    supermodel: str
    nodes: list[Node]
    animations: list[Animation]
    warnings: list[str]
    classification: str = ""
    animation_scale: float = 1.0
    format: str = "nwn_mdl"

    @property
    def supermodel_name(self) -> str:
        """The supermodel's name, empty when there is none (``NULL`` in any case)."""
        name = self.supermodel.strip()
        return "" if name.lower() == "null" else name


# --- building the model -------------------------------------------------------------------------

def _rest_local(nodes: list[Node]) -> np.ndarray:
    """(N, 4, 4) ``T(position) @ Rot(orientation)`` from each node's first position/orientation row."""
    translations = np.zeros((len(nodes), 3))
    rotations = maths.quat_identity((len(nodes),))
    for index, node in enumerate(nodes):
        if POSITION in node.controllers:
            translations[index] = node.controllers[POSITION][1][0]
        if ORIENTATION in node.controllers:
            rotations[index] = node.controllers[ORIENTATION][1][0]
    return maths.translation(translations) @ maths.quat_to_matrix(rotations)


def rest_world(nodes: list[Node]) -> np.ndarray:
    """(N, 4, 4) each node's world matrix at rest (its file's rest controllers, parents first)."""
    parents = np.array([node.parent for node in nodes], np.int32)
    return world_from_local(_rest_local(nodes), parents, hierarchy_levels(parents))


def _skin_influences(node: Node, world: np.ndarray, skin_index: int,
                     warnings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(V, K) joints (bone = pre-order node index) and weights of a skin node."""
    geometry = node.geometry
    nodes_of_lanes, weights = geometry["skin_joints"], geometry["skin_weights"].copy()
    orphan = (nodes_of_lanes < 0) & (weights > 0)
    if orphan.any():
        warnings.append(f"skin {node.name!r}: {int(orphan.sum())} weighted lane(s) name no node; dropped")
    weights[(nodes_of_lanes < 0) | (weights < 0)] = 0.0
    totals = weights.sum(axis=1)
    if np.any(np.abs(totals[totals > 0] - 1.0) > 1e-3):
        warnings.append(f"skin {node.name!r}: weights that do not sum to 1 are renormalised")
    joints = np.where(weights > 0, nodes_of_lanes, 0)
    if "inverse_rotations" in geometry:
        weighted_bones = np.flatnonzero(np.bincount(joints[weights > 0], minlength=len(world)))
        _check_inverse_bind(node, geometry, weighted_bones, world, skin_index, warnings)
    # One lane layout whatever the form: heaviest first, at least SKIN_LANES lanes.
    order = np.argsort(-weights, axis=1, kind="stable")
    joints, weights = np.take_along_axis(joints, order, 1), np.take_along_axis(weights, order, 1)
    padding = ((0, 0), (0, max(0, SKIN_LANES - weights.shape[1])))
    return np.pad(joints, padding).astype(np.int32), np.pad(weights, padding).astype(np.float32)


def _check_inverse_bind(node: Node, geometry: dict, bones: np.ndarray, world: np.ndarray, skin_index: int,
                        warnings: list[str]) -> None:
    """Warn when QBoneRefInv (w, x, y, z) / TBoneRefInv disagree with ``inv(W_bone) @ W_skin`` at rest."""
    rotations, translations = geometry["inverse_rotations"], geometry["inverse_translations"]
    listed = bones[(bones < len(rotations)) & (bones < len(translations))]
    if len(listed) < len(bones):
        warnings.append(f"skin {node.name!r}: the inverse-bind tables do not cover every bone")
    if not len(listed):
        return
    expected = maths.affine_inverse(world[listed]) @ world[skin_index]
    stored = rotations[listed][:, [1, 2, 3, 0]]
    stored = maths.quat_normalize(stored)
    agreement = np.abs(np.sum(stored * maths.quat_from_matrix(expected), axis=1))
    scale = max(1.0, float(np.abs(expected[:, :3, 3]).max()))
    apart = np.linalg.norm(translations[listed] - expected[:, :3, 3], axis=1)
    wrong = (agreement < 1 - BIND_TOLERANCE) | (apart > BIND_TOLERANCE * scale)
    if wrong.any():
        warnings.append(f"skin {node.name!r}: the stored inverse-bind tables disagree with the rest "
                        f"hierarchy for {int(wrong.sum())} bone(s); the hierarchy is used")


def _meshes(parsed: Parsed, world: np.ndarray, warnings: list[str]) -> list[Mesh]:
    """The drawn nodes' meshes, in pre-order."""
    meshes = []
    for index, node in enumerate(parsed.nodes):
        if not node.drawn:
            continue
        geometry = node.geometry
        count = len(geometry["positions"])
        if "skin_joints" in geometry:
            joints, weights = _skin_influences(node, world, index, warnings)
        else:
            joints, weights = np.full((count, 1), index, np.int32), np.ones((count, 1), np.float32)
        normals = geometry["normals"]
        if normals is not None:
            normals = normals @ world[index, :3, :3].T.astype(np.float32)
        uvs = geometry["uvs"]
        if uvs is not None:
            uvs = np.column_stack([uvs[:, 0], 1.0 - uvs[:, 1]])  # OpenGL-style V → glTF's top-left origin
        alpha = rest_alpha(node)
        dangly = dangly_params(node.name, geometry, node.extras, warnings) if node.kind == "dangly" else None
        if node.kind == "dangly" and geometry.get("constraints") is not None:
            node.extras["constraints"] = constraints_text(geometry["constraints"])
        meshes.append(Mesh(name=node.name,
                           positions=maths.transform_points(world[index], geometry["positions"]),
                           joints=joints, weights=weights, normals=normals, uvs=uvs,
                           triangles=geometry["triangles"],
                           material=_material(node, alpha), visible=geometry["render"] and alpha > 0,
                           colors=_linear_colours(geometry.get("colors")),
                           hidden_reason="alpha 0" if alpha <= 0 and geometry["render"] else "",
                           dangly=dangly))
    return meshes


def _linear_colours(colours: np.ndarray | None) -> np.ndarray | None:
    """Display (sRGB) vertex colours as the linear light a mesh's colours are, alpha kept."""
    if colours is None:
        return None
    return np.column_stack([maths.srgb_to_linear_array(colours[:, :3]), colours[:, 3]])


def rest_alpha(node: Node) -> float:
    """The mesh's opacity at rest, 0..1: its alpha controller's first value (1 without one)."""
    values = node.controllers[ALPHA][1] if ALPHA in node.controllers else np.ones((1, 1))
    return float(np.clip(values.flat[0], 0.0, 1.0)) if values.size else 1.0


def _material(node: Node, alpha: float) -> Material:
    """The texture0 (bitmap) name, the diffuse colour, and the opacity at rest: below 1 the mesh is
    blended. At 0 the game hides the mesh, which the reader does (Mesh.visible); shown anyway (Show
    Hidden Meshes) it is drawn opaque."""
    geometry = node.geometry
    texture = "" if geometry["texture"].lower() in ("", "null") else geometry["texture"]
    alpha = 1.0 if alpha <= 0 else alpha
    colour = maths.srgb_to_linear(geometry["color"])
    return Material(name=node.name, texture=texture, base_color=(*colour, alpha),
                    alpha_mode="BLEND" if alpha < 1.0 else "OPAQUE")


def alpha_keys(animation: Animation, mesh_of: dict[str, int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The animation's alpha keys per drawn mesh (``mesh_of``: lower-cased node name → mesh index):
    mesh index → (times (K,) increasing, opacities (K,) clamped to 0..1); of keys at one time the
    first, the first node of a name."""
    found = {}
    for node in animation.nodes:
        mesh = mesh_of.get(node.name.lower())
        if mesh is None or mesh in found or ALPHA not in node.controllers:
            continue
        times, values = node.controllers[ALPHA]
        times, first = np.unique(times, return_index=True)
        opacities = np.clip(values.reshape(len(values), -1)[first, 0], 0.0, 1.0)
        if len(times):
            times.flags.writeable = opacities.flags.writeable = False
            found[mesh] = (times, opacities)
    return found


def _show_faded_in(meshes: list[Mesh], clips: list[Clip]) -> None:
    """A mesh at alpha 0 that a clip keys is not hidden: it is drawn blended, invisible at rest, and
    the clip's keys fade it in (as the game plays such effects)."""
    keyed = {mesh for clip in clips for mesh in clip.mesh_alpha}
    for index in keyed:
        mesh = meshes[index]
        if mesh.hidden_reason == "alpha 0":
            material = replace(mesh.material, base_color=(*mesh.material.base_color[:3], 0.0),
                               alpha_mode="BLEND")
            meshes[index] = replace(mesh, visible=True, hidden_reason="", material=material)


def _clip(animation: Animation, bones: dict[str, int], source: str, unmatched_by_source: dict[str, int],
          translation_scale: float = 1.0) -> Clip:
    """A keyed clip; animation nodes are matched to bones by lower-cased name, unmatched ones skipped
    (counted per source file in ``unmatched_by_source``). Position keys are multiplied by
    ``translation_scale`` (the model's animation scale, for inherited animations)."""
    tracks, unmatched = {}, 0
    length = animation.length if animation.length > 0 else None
    for node in animation.nodes:
        bone = bones.get(node.name.lower())
        if bone is None:
            unmatched += 1
            continue
        if bone in tracks or not node.controllers:
            continue
        channels, handles = {}, {}
        for kind, channel in ((POSITION, "translation"), (ORIENTATION, "rotation"), (SCALE, "scale")):
            if kind in node.controllers:
                times, values = node.controllers[kind]
                factor = translation_scale if kind == POSITION else 1.0
                channels[channel] = (np.clip(times, 0.0, length) if length else times, values * factor)
                if kind in node.handles:
                    handles[channel] = tuple(side * factor for side in node.handles[kind])
        if channels:
            tracks[bone] = Track(bone=bone, handles=handles, **channels)
    if unmatched:
        unmatched_by_source[source] = unmatched_by_source.get(source, 0) + 1
    return Clip(name=animation.name, kind="keyed", tracks=list(tracks.values()), events=animation.events,
                source=source)


def _sample_times(samples: int, period: float, length: float) -> np.ndarray:
    """(S,) the times of an animmesh's vertex samples: one every ``period`` seconds from 0, else
    (no period) spread over the animation's length."""
    if period > 0:
        return period * np.arange(samples)
    return np.linspace(0.0, length if length > 0 else samples - 1.0, samples) if samples > 1 else np.zeros(1)


def _vertex_offsets(animation: Animation, source: Parsed, nodes: list[Node], world: np.ndarray,
                    warnings: list[str]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The animmesh samples of ``animation`` for the drawn model nodes they name: node index →
    (sample times (S,), offsets (S, V, 3) from the node's rest vertices, in model space). A sample
    list that is not a whole number of the node's vertex lists is a warning, and not played."""
    by_name = {node.name.lower(): index for index, node in reversed(list(enumerate(nodes)))}
    found = {}
    for animated in animation.nodes:
        samples = animated.geometry
        index = by_name.get(animated.name.lower())
        if samples is None or index is None or not nodes[index].drawn or index in found:
            continue
        geometry = nodes[index].geometry
        split = geometry.get("source_vertices")
        rows = samples["anim_vertices"]
        count = int(split.max()) + 1 if split is not None and len(split) else 0
        where = (f"{source.path.name} line {samples['anim_line']}: animation {animation.name!r} "
                 f"node {animated.name!r}")
        if not count or len(rows) % count:
            warnings.append(f"{where}: {len(rows)} animated vertices is not a whole number of samples of "
                            f"its mesh's {count} vertices; its vertex animation is not played")
            continue
        sampled = rows.reshape(-1, count, 3)[:, split]
        offsets = (sampled - geometry["positions"]) @ world[index, :3, :3].T
        times = _sample_times(len(sampled), samples["sample_period"], animation.length)
        found[index] = (times, offsets)
        uvs = samples["anim_uvs"]
        if len(uvs) and (len(uvs) % len(sampled)
                         or np.ptp(uvs.reshape(len(sampled), -1, 2), axis=0).max() > 0):
            warnings.append(f"{where}: its texture-vertex animation is not played (its vertices' is)")
    return found


def _vertex_bake(clip: Clip, offsets: dict[int, tuple[np.ndarray, np.ndarray]], mesh_nodes: list[int],
                 path: Path) -> BakeVertexClip:
    """``clip`` to be played with its animmesh samples: a 'vertex' clip with a frame at every key and
    every sample time, the samples interpolated linearly between their times."""
    times = [clip.frame_times if clip.tracks else np.zeros(1)] + [times for times, _ in offsets.values()]
    times = np.unique(np.concatenate(times))
    moved = [_offsets_at(*offsets[node], times) if node in offsets else None for node in mesh_nodes]
    return BakeVertexClip(clip=clip, times=times, offsets=moved, path=path)


def _offsets_at(sample_times: np.ndarray, samples: np.ndarray, times: np.ndarray) -> np.ndarray:
    """(F, V, 3) the offsets at each of ``times`` (F,), from ``samples`` (S, V, 3) at ``sample_times``
    (S,): the nearest sample's outside them, linear between them."""
    if len(sample_times) == 1:
        return np.broadcast_to(samples[0], (len(times), *samples.shape[1:]))
    after = np.clip(np.searchsorted(sample_times, times, side="right"), 1, len(sample_times) - 1)
    start, end = sample_times[after - 1], sample_times[after]
    fraction = np.clip((times - start) / (end - start), 0.0, 1.0)[:, None, None]
    return samples[after - 1] + fraction * (samples[after] - samples[after - 1])


def _clips(parsed: Parsed, lenders: list[Parsed], chain: list[Parsed], bones: dict[str, int],
           warnings: list[str],
           animated: Callable[[Clip, Animation, Parsed], None] | None = None) -> list[Clip]:
    """The model's own clips, then the lenders' (a name the model already has is the model's: the
    engine plays its own; a name two lenders share gets a suffix), then the supermodel chain's
    (nearest first; a name already present is skipped, as the engine finds the nearest). Inherited
    position keys are scaled by the model's animation scale, as the engine does. ``animated(clip,
    animation, source)`` is told of each clip, to play the animation's animmesh samples with it."""
    clips: list[Clip] = []
    own = {animation.name.lower() for animation in parsed.animations}
    taken: set[str] = set()
    numbers: dict[str, int] = {}  # the last suffix each duplicated name got (unique_name)
    unmatched: dict[str, int] = {}
    scale = parsed.animation_scale
    if not (np.isfinite(scale) and scale > 0):
        warnings.append(f"animation scale {scale} is not a positive number; "
                        "inherited animations are not scaled")
        scale = 1.0

    def add(animation: Animation, source: Parsed, name: str) -> None:
        clip = _clip(animation, bones, source.path.name, unmatched, 1.0 if source is parsed else scale)
        clip.name = name
        clips.append(clip)
        if animated:
            animated(clip, animation, source)
        taken.add(name.lower())

    def add_renamed(animation, source: Parsed, renamed: str) -> None:
        """Add ``animation`` under a name no clip has yet; when that is not its own, the warning
        ``renamed`` followed by the name it is shown as."""
        name = unique_name(animation.name, taken, numbers)
        if name != animation.name:
            warnings.append(f"{renamed}{name!r}")
        add(animation, source, name)

    for animation in parsed.animations:
        add_renamed(animation, parsed, f"animation {animation.name!r} appears twice in {parsed.path.name}; "
                                       "the second is shown as ")
    for lender in lenders:
        for animation in lender.animations:
            if animation.name.lower() in own:
                warnings.append(f"animation {animation.name!r} of {lender.path.name}: the model has its own; "
                                "the model's is played")
                continue
            add_renamed(animation, lender, f"animation {animation.name!r} of {lender.path.name} is also in "
                                           "another file; shown as ")
    for link in chain:
        for animation in link.animations:
            if animation.name.lower() not in taken:
                add(animation, link, animation.name)
    warnings.extend(f"{source}: {count} animation(s) key nodes the model does not have; "
                    "those keys are ignored" for source, count in unmatched.items())
    return clips


def build(parsed: Parsed, lenders: list[Parsed] = (), chain: list[Parsed] = (),
          links: list[tuple[str, str | None]] = ()) -> Model:
    """The Model of ``parsed``, with the animations of ``lenders`` and of its supermodel ``chain``
    (``links``: each chain name with the file found for it, or None)."""
    warnings = list(parsed.warnings)
    nodes = parsed.nodes
    parents = np.array([node.parent for node in nodes], np.int32)
    world = rest_world(nodes)
    if not np.isfinite(world).all():
        raise ReadError(parsed.path, "node transforms overflow (values too large)")
    meshes = _meshes(parsed, world, warnings)
    names = [node.name for node in nodes]
    bones: dict[str, int] = {}
    for index, name in enumerate(names):
        bones.setdefault(name.lower(), index)
    if len(bones) < len(names):
        warnings.append(f"{len(names) - len(bones)} duplicate node name(s); animations drive the first")
    hidden = [f"{node.name} ({node.kind})" for node in nodes if node.kind in HIDDEN_KINDS]
    if hidden:
        warnings.append("nodes not drawn: " + ", ".join(hidden))
    for source in [*lenders, *chain]:
        warnings.extend(f"{source.path.name}: {warning}" for warning in source.warnings)
    missing = [name for name, found in links if found is None]
    if missing:
        warnings.append(f"supermodel {missing[0]!r} not found beside {parsed.path.name}: its animations are "
                        "missing")
    heads, tails = derive_tails(world, parents, meshes)
    skeleton = Skeleton(names=names, parents=parents, bind_world=world, heads=heads, tails=tails,
                        derived_tails=np.ones(len(nodes), bool),
                        extras=[{"node_type": node.kind, **node.extras} for node in nodes])
    mesh_nodes = [index for index, node in enumerate(nodes) if node.drawn]

    bakes: list[BakeVertexClip] = []

    mesh_of = {}
    for mesh, node in reversed(list(enumerate(mesh_nodes))):
        mesh_of[nodes[node].name.lower()] = mesh

    def animated(clip: Clip, animation: Animation, source: Parsed) -> None:
        clip.mesh_alpha = alpha_keys(animation, mesh_of)
        offsets = _vertex_offsets(animation, source, nodes, world, warnings)
        if offsets:
            bakes.append(_vertex_bake(clip, offsets, mesh_nodes, parsed.path))

    clips = _clips(parsed, list(lenders), list(chain), bones, warnings, animated)
    _show_faded_in(meshes, clips)
    helpers = [Helper(name=node.name, parent=index, offset=np.eye(4),
                      emitter=emitter(node.settings, warnings, node.name))
               for index, node in enumerate(nodes) if node.kind == "emitter"]
    return Model(name=parsed.name or parsed.path.stem, skeleton=skeleton, meshes=meshes, clips=clips,
                 helpers=helpers, format=parsed.format, up_axis="Z", forward="+Y", warnings=warnings,
                 supermodels=list(links),
                 pending=bakes)

