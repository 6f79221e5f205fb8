"""What a glTF file's animations mean: keyed clips, and the morph bakes of animated weights.

Animations become keyed clips, one Track per (node, interpolation). CUBICSPLINE samplers are
resampled to linear keys (``CUBIC_SUBSTEPS`` per key interval) by the spec's Hermite formula. An
animation that drives morph weights becomes a 'vertex' clip sampled at every key time (and, for STEP
samplers, one float32 step before each key); animated weights replace the rest weights
(``node.weights``, else ``mesh.weights``). The reader gives the morph offsets per frame; the load
stage skins them (``BakeVertexClip``).
"""

from __future__ import annotations

import numpy as np

from app.formats.gltf.reading import Reading
from app.model import Clip, Mesh, Track
from app.posing_steps import BakeVertexClip

#: Linear keys made per key interval when resampling a CUBICSPLINE sampler.
CUBIC_SUBSTEPS = 8
#: Values per key of each TRS channel path.
TRS_WIDTHS = {"translation": 3, "rotation": 4, "scale": 3}


def read_clips(reading: Reading, meshes: list[Mesh], morphs, node_bones: np.ndarray) -> list[Clip]:
    """One clip per animation; ``morphs`` and morph weight keys are by node, tracks by bone. An
    animation of morph weights is left in ``reading.pending`` to be baked into a 'vertex' clip."""
    clips = []
    for index, animation in enumerate(reading.gltf.animations or []):
        name = animation.name or f"animation{index}"
        tracks, weight_keys = animation_channels(reading, index, animation, node_bones)
        clip = Clip(name=name, kind="keyed", tracks=tracks)
        if weight_keys and morphs:
            reading.pending.append(morph_bake(reading, clip, weight_keys, meshes, morphs))
        elif weight_keys:
            reading.warnings.append(f"animations[{index}]: morph weights animated on a mesh without targets")
        clips.append(clip)
    return clips


def animation_channels(reading: Reading, index: int, animation,
                       node_bones: np.ndarray) -> tuple[list[Track], dict]:
    """Tracks (one per node and interpolation, ``bone`` the node's bone index) and morph weight
    keys {node: (times, (K, M))}."""
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
            weight_keys[target.node] = sampler_keys(reading, sampler, where, None)
        elif target.path in TRS_WIDTHS:
            times, values, mode = sampler_keys(reading, sampler, where, TRS_WIDTHS[target.path])
            channels.setdefault((target.node, mode), {})[target.path] = (times, values)
    tracks = [Track(bone=int(node_bones[node]), interpolation=mode, **paths)
              for (node, mode), paths in channels.items()]
    return tracks, weight_keys


def sampler_keys(reading: Reading, sampler, where: str,
                 width: int | None) -> tuple[np.ndarray, np.ndarray, str]:
    """Times (K,), values (K, width) and 'linear' or 'step' ('linear' after cubic resampling).

    ``width`` None (morph weights): the values per key are whatever the output holds per key.
    """
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
    if mode == "CUBICSPLINE":
        times, values = _resample_cubic(times, values)
        return times, values, "linear"
    return times, values[:, 0], mode.lower()


def increasing_keys(times: np.ndarray) -> np.ndarray:
    """Indices of the keys to keep so that (K,) ``times`` strictly increase, in file order: a key
    earlier than one before it is dropped, and of keys at one time the last is kept."""
    earlier_max = np.maximum.accumulate(np.concatenate([[-np.inf], times[:-1]]))
    forward = np.flatnonzero(times >= earlier_max)
    return forward[np.append(times[forward[:-1]] < times[forward[1:]], True)]


def morph_bake(reading: Reading, clip: Clip, weight_keys: dict, meshes: list[Mesh], morphs) -> BakeVertexClip:
    """What the load stage needs to play ``clip`` as a 'vertex' clip with a frame at every key time
    of the animation: each morphed mesh's offsets per frame, the animated weights' change from the
    rest weights already in its positions (the load stage adds them and skins). A STEP sampler
    (weights, or a bone's STEP track) also gets a frame one float32 step before each of its keys
    holding the previous value, since a vertex clip blends linearly between its frames.
    """
    steps = [keys[0][1:] for keys in weight_keys.values() if keys[2] == "step"]
    steps += [keys[0][1:] for track in clip.tracks if track.interpolation == "step"
              for keys in (track.translation, track.rotation, track.scale) if keys is not None]
    holds = [np.nextafter(keys.astype(np.float32), np.float32(-np.inf)).astype(np.float64)
             for keys in steps]
    times = np.unique(np.concatenate([clip.frame_times if clip.tracks else np.zeros(0)]
                                     + [keys[0] for keys in weight_keys.values()] + holds))
    offsets: list[np.ndarray | None] = [None] * len(meshes)
    for node, mesh_index, deltas, defaults in morphs:
        if node in weight_keys:
            moved = np.empty((len(times), *deltas.shape[1:]), np.result_type(deltas, np.float64))
            for frame, time in enumerate(times):
                weights = _sample_weights(*weight_keys[node], float(time), len(deltas)) - defaults
                moved[frame] = np.einsum("m,mvi->vi", weights, deltas)
            offsets[mesh_index] = moved
    return BakeVertexClip(clip=clip, times=times, offsets=offsets, path=reading.path)


def _sample_weights(times: np.ndarray, values: np.ndarray, mode: str, time: float, width: int) -> np.ndarray:
    """(width,) morph weights at ``time`` from (K,) times and (K, ≥width) values, 'linear' or 'step'
    (missing columns are 0)."""
    values = values.reshape(len(times), -1)[:, :width]
    if mode == "step":
        result = values[max(int(np.searchsorted(times, time, side="right")) - 1, 0)]
    else:
        result = np.array([np.interp(time, times, values[:, column]) for column in range(values.shape[1])])
    return np.pad(result.astype(np.float64), (0, width - len(result)))


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
