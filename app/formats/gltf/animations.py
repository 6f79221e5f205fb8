"""What a glTF file's animations mean: keyed clips of bone channels and morph weight channels.

Animations become keyed clips, one Track per (node, interpolation). CUBICSPLINE bone samplers are
resampled to linear keys (``CUBIC_SUBSTEPS`` per key interval) by the spec's Hermite formula. Animated
morph weights become the clip's weight channels, one per mesh the node draws, keyed as the file keys
them (STEP, LINEAR, or CUBICSPLINE with its tangents): the weights are interpolated, never the vertices.
"""

from __future__ import annotations

import numpy as np

from app.formats.gltf.reading import Reading
from app.model import MAX_MAGNITUDE, Clip, Mesh, Track
from app.morph_targets import WeightChannel

#: Linear keys made per key interval when resampling a CUBICSPLINE sampler.
CUBIC_SUBSTEPS = 8
#: Values per key of each TRS channel path.
TRS_WIDTHS = {"translation": 3, "rotation": 4, "scale": 3}


def read_clips(reading: Reading, meshes: list[Mesh], morphs: list[tuple[int, int]],
               node_bones: np.ndarray) -> list[Clip]:
    """One clip per animation; ``morphs``: (node, mesh index) for each mesh with targets. Tracks are by
    bone, weight channels by mesh."""
    clips = []
    for index, animation in enumerate(reading.gltf.animations or []):
        name = animation.name or f"animation{index}"
        tracks, weight_keys = animation_channels(reading, index, animation, node_bones)
        channels = weight_channels(reading, index, weight_keys, meshes, morphs)
        clips.append(Clip(name=name, kind="keyed", tracks=tracks, weight_channels=channels))
    return clips


def weight_channels(reading: Reading, index: int, weight_keys: dict, meshes: list[Mesh],
                    morphs: list[tuple[int, int]]) -> list[WeightChannel]:
    """A WeightChannel per mesh of each node whose weights are keyed; a node without targets is
    warned about; keys with fewer weights than targets, or weights that would move a vertex past the
    model's bounds (``MAX_MAGNITUDE``), are refused."""
    channels = []
    for node, (times, values, mode, tangents) in weight_keys.items():
        drawn = [mesh_index for morph_node, mesh_index in morphs if morph_node == node]
        if not drawn:
            reading.warnings.append(f"animations[{index}]: morph weights animated on node {node}, "
                                    "whose mesh has no targets; ignored")
        for mesh_index in drawn:
            count = meshes[mesh_index].morphs.count
            if values.shape[1] < count:
                raise reading.fail(f"animations[{index}]: {values.shape[1]} weights per key for node {node}, "
                                   f"whose mesh has {count} morph targets")
            if not _reach(meshes[mesh_index], values[:, :count]) <= MAX_MAGNITUDE:
                raise reading.fail(f"animations[{index}]: the weights keyed for node {node} move its mesh's "
                                   f"vertices past ±{MAX_MAGNITUDE:g}")
            channels.append(WeightChannel(mesh=mesh_index, times=times, values=values[:, :count],
                                          interpolation=mode,
                                          tangents=None if tangents is None else tangents[..., :count]))
    return channels


def _reach(mesh: Mesh, weights: np.ndarray) -> float:
    """A bound on how far from the origin ``weights`` (K, M) can move ``mesh``'s vertices."""
    if not mesh.vertex_count:
        return 0.0
    moved = np.abs(weights).sum(axis=1).max() * np.abs(mesh.morphs.positions).max()
    return float(moved + np.abs(mesh.positions).max())


def animation_channels(reading: Reading, index: int, animation,
                       node_bones: np.ndarray) -> tuple[list[Track], dict]:
    """Tracks (one per node and interpolation, ``bone`` the node's bone index) and morph weight
    keys {node: (times (K,), values (K, M), 'linear' | 'step' | 'cubic', tangents (K, 2, M) or None)}."""
    channels: dict[tuple[int, str], dict] = {}
    weight_keys = {}
    for position, channel in enumerate(animation.channels or []):
        where = f"animations[{index}].channels[{position}]"
        target = channel.target
        if target is None or target.node is None:
            continue
        reading.item("nodes", target.node, f"{where}.target.node")
        sampler = reading.item_of(animation.samplers, channel.sampler, f"{where}.sampler")
        where = f"animations[{index}].samplers[{channel.sampler}]"
        if target.path == "weights":
            weight_keys[target.node] = weight_sampler_keys(reading, sampler, where)
        elif target.path in TRS_WIDTHS:
            times, values, mode = sampler_keys(reading, sampler, where, TRS_WIDTHS[target.path])
            channels.setdefault((target.node, mode), {})[target.path] = (times, values)
    tracks = [Track(bone=int(node_bones[node]), interpolation=mode, **paths)
              for (node, mode), paths in channels.items()]
    return tracks, weight_keys


def sampler_keys(reading: Reading, sampler, where: str, width: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Times (K,), values (K, width) and 'linear' or 'step' ('linear' after cubic resampling)."""
    times, values, mode = raw_sampler_keys(reading, sampler, where, width)
    if mode == "CUBICSPLINE":
        times, values = _resample_cubic(times, values)
        return times, values, "linear"
    return times, values[:, 0], mode.lower()


def weight_sampler_keys(reading: Reading, sampler, where: str):
    """Morph weight keys as the file has them: times (K,), values (K, M), 'linear', 'step' or 'cubic',
    and for 'cubic' the (K, 2, M) in- and out-tangents."""
    times, values, mode = raw_sampler_keys(reading, sampler, where, None)
    if mode == "CUBICSPLINE":
        return times, values[:, 1], "cubic", values[:, [0, 2]]
    return times, values[:, 0], mode.lower(), None


def raw_sampler_keys(reading: Reading, sampler, where: str,
                     width: int | None) -> tuple[np.ndarray, np.ndarray, str]:
    """Times (K,), values (K, 1 or 3 for CUBICSPLINE, w) and the file's interpolation name. ``width``
    None (morph weights): the values per key are whatever the output holds per key."""
    times = reading.accessor(sampler.input, f"{where}.input", ("SCALAR",), (5126,))[:, 0]
    types = ("SCALAR",) if width is None else ({3: "VEC3", 4: "VEC4"}[width],)
    values = reading.accessor(sampler.output, f"{where}.output", types, (5126, 5120, 5121, 5122, 5123))
    if not len(times):
        raise reading.fail(f"{where}.input: a sampler needs at least one key")
    mode = sampler.interpolation or "LINEAR"
    per_key = 3 if mode == "CUBICSPLINE" else 1
    if mode not in ("LINEAR", "STEP", "CUBICSPLINE"):
        raise reading.fail(f"{where}.interpolation: unknown {mode!r}")
    if len(values) % (len(times) * per_key):
        raise reading.fail(f"{where}.output: {len(values)} values do not fit {len(times)} keys ({mode})")
    values = values.reshape(len(times), per_key, -1)
    kept = increasing_keys(times)
    if len(kept) < len(times):
        reading.warnings.append(f"{where}.input: {len(times) - len(kept)} of {len(times)} key times do not "
                                "increase; repaired (keys at one time merged, the last kept; keys going "
                                "back dropped; the order kept)")
        times, values = times[kept], values[kept]
    return times, values, mode


def increasing_keys(times: np.ndarray) -> np.ndarray:
    """Indices of the keys to keep so that (K,) ``times`` strictly increase, in file order: a key
    earlier than one before it is dropped, and of keys at one time the last is kept."""
    earlier_max = np.maximum.accumulate(np.concatenate([[-np.inf], times[:-1]]))
    forward = np.flatnonzero(times >= earlier_max)
    return forward[np.append(times[forward[:-1]] < times[forward[1:]], True)]


def _resample_cubic(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense linear keys from cubic Hermite keys.

    times: (K,); values: (K, 3, w) in-tangent, value, out-tangent per key (glTF layout).
    Returns times (1 + (K−1)·CUBIC_SUBSTEPS,) and values (…, w).
    """
    if len(times) == 1:
        return times, values[:, 1]
    fractions = np.arange(CUBIC_SUBSTEPS) / CUBIC_SUBSTEPS
    spans = np.diff(times)[:, None]
    t = fractions[None, :]
    h00, h10 = 2 * t**3 - 3 * t**2 + 1, t**3 - 2 * t**2 + t
    h01, h11 = -2 * t**3 + 3 * t**2, t**3 - t**2
    start, end = values[:-1, 1][:, None], values[1:, 1][:, None]
    out_tangent, in_tangent = values[:-1, 2][:, None], values[1:, 0][:, None]
    dense = (h00[..., None] * start + (spans * h10)[..., None] * out_tangent
             + h01[..., None] * end + (spans * h11)[..., None] * in_tangent)
    dense_times = times[:-1, None] + spans * t
    return (np.append(dense_times.ravel(), times[-1]),
            np.concatenate([dense.reshape(-1, values.shape[2]), values[-1:, 1]]))
