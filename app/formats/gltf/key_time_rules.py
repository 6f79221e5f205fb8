"""The Khronos glTF validator's rules on animation key times, held against a written file (``convert
--check``, the window's export check, ``batch``): a file the validator would reject is a ReadError
naming the first sampler that breaks one, so the check fails where the validator would."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.formats.gltf.container import Document, load_document, read_container
from app.formats.registry import ReadError

#: glTF's float component type.
FLOAT = 5126


def check_key_times(path: Path) -> None:
    """ReadError naming the first sampler of the glTF file ``path`` that breaks a key-time rule."""
    problems = key_time_problems(path)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ReadError(path, f"the Khronos validator would reject it: {problems[0]}{more}")


def key_time_problems(path: Path) -> list[str]:
    """Where the glTF file ``path`` breaks the validator's rules on animation samplers: input times
    float32 scalars, finite, not negative and strictly increasing (ACCESSOR_ANIMATION_INPUT_NEGATIVE,
    _NON_INCREASING), bounds stated and true (ACCESSOR_MIN/MAX_MISMATCH), and as many outputs as
    inputs ask for (ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT). One line per problem."""
    gltf, buffers, raw = load_document(path, read_container(path))
    document = Document(path, gltf, buffers, raw)
    problems = []
    for a, animation in enumerate(gltf.animations or []):
        for channel in animation.channels or []:
            where = f"animations[{a}].samplers[{channel.sampler}]"
            try:
                sampler = document.item_of(animation.samplers, channel.sampler, where)
                per_key = _values_per_key(document, channel, sampler)
                problems += _sampler_problems(document, sampler, per_key, where)
            except ReadError as error:
                problems.append(error.message)
    return list(dict.fromkeys(problems))  # a sampler shared by channels is told once


def _values_per_key(document: Document, channel, sampler) -> int:
    """Output elements per input key: 1, or a node's morph target count for weights; three times
    that for CUBICSPLINE (in-tangent, value, out-tangent)."""
    count = 1
    if channel.target is not None and channel.target.path == "weights":
        node = document.item("nodes", channel.target.node, "channel.target.node")
        mesh = document.item("meshes", node.mesh, "node.mesh") if node.mesh is not None else None
        count = len(mesh.primitives[0].targets or []) if mesh is not None and mesh.primitives else 0
    return count * (3 if sampler.interpolation == "CUBICSPLINE" else 1)


def _sampler_problems(document: Document, sampler, per_key: int, where: str) -> list[str]:
    times = document.accessor(sampler.input, f"{where}.input", ("SCALAR",), (FLOAT,))[:, 0]
    outputs = document.item("accessors", sampler.output, f"{where}.output").count
    problems = []
    if np.any(times < 0):
        problems.append(f"{where}.input: a key time is negative ({times.min():.9g} s)")
    steps = np.flatnonzero(np.diff(times) <= 0)
    if len(steps):
        key = int(steps[0])
        problems.append(f"{where}.input: key times do not strictly increase as float32: key {key} at "
                        f"{times[key]:.9g} s, key {key + 1} at {times[key + 1]:.9g} s")
    problems += _bounds_problems(document.item("accessors", sampler.input, where), times, f"{where}.input")
    if outputs != len(times) * per_key:
        problems.append(f"{where}.output: {outputs} values where {len(times)} keys need "
                        f"{len(times) * per_key}")
    return problems


def _bounds_problems(accessor, times: np.ndarray, where: str) -> list[str]:
    """An input accessor must state its min and max, and they must be its times' (as float32)."""
    if not accessor.min or not accessor.max:
        return [f"{where}: min and max are not stated (an animation input needs them)"]
    stated = np.float32(accessor.min[0]), np.float32(accessor.max[0])
    if len(times) and stated != (np.float32(times.min()), np.float32(times.max())):
        return [f"{where}: min {accessor.min[0]:.9g} and max {accessor.max[0]:.9g} are not the key "
                f"times' {times.min():.9g} and {times.max():.9g}"]
    return []
