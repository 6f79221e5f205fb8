"""How exactly a written glTF file plays a model back: compare its re-read model's posed vertices.

Every exported clip is compared at each of its stored frames (keys for keyed clips; the file's frame
at the file's own float32 time), the original posed with the viewer's four influences per vertex
(what glTF holds), the file's through the reader; a model with no clip is compared at rest. The
exporter's up-axis root is undone with its own rotation. Only the meshes the exporter wrote count
(hidden ones only with ``show_hidden``). A model with no written vertices is compared by its bones'
origins (found by name in the file).

First the written file's animation samplers are held to the Khronos validator's rules on key times
(``key_time_problems``): a file the validator would reject fails the check (ExportCheckError).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import maths
from app.errors import InputError
from app.export.gltf import GLTF_INFLUENCES, front_rotation, is_written
from app.formats.gltf_container import Document, load_document, read_container
from app.formats.registry import ReadError
from app.model import Clip, Model
from app.pose import Pose, evaluate, posed_positions

#: glTF's float component type.
FLOAT = 5126


class ExportCheckError(InputError):
    """A written file that breaks a rule of glTF the Khronos validator enforces."""


@dataclass
class CheckResult:
    """error: the largest vertex distance (model units); size: the rest pose's bounding-box diagonal;
    clip: the clip it happened in (None: the model has no clip, compared at rest); frame: its index."""

    error: float
    size: float
    clip: str | None
    frame: int

    @property
    def fraction(self) -> float:
        return self.error / self.size if self.size > 0 else 0.0

    def line(self) -> str:
        where = "bind pose" if self.clip is None else f"clip {self.clip} frame {self.frame}"
        return f"check: worst vertex error {self.error:.3g} ({self.fraction:.3g} of size) at {where}"


def check_export(model: Model, loaded: Model, clips: list[Clip] | None = None,
                 show_hidden: bool = False) -> CheckResult:
    """The worst vertex error of ``loaded``, the file written from ``model`` with ``clips`` (default
    every clip) and ``show_hidden``, and read back."""
    _check_key_times(loaded)
    clips = list(model.clips) if clips is None else clips
    conversion = front_rotation(model)
    names = model.skeleton.names
    written = _written_vertices(model, show_hidden)
    rest = _points(model, evaluate(model, None, 0.0), names, written)
    size = float(np.linalg.norm(np.ptp(rest, axis=0))) if len(rest) else 0.0
    worst = CheckResult(error=-1.0, size=size, clip=None, frame=0)
    if not clips:
        worst.error = _distance(maths.transform_points(conversion, rest),
                                _points(loaded, evaluate(loaded, None, 0.0), names))
        return worst
    for clip, loaded_clip in zip(clips, _matching_clips(clips, loaded)):
        for frame, (time, stored) in enumerate(zip(clip.frame_times, _stored_times(clip, loaded_clip))):
            expected = _points(model, evaluate(model, clip, float(time)), names, written)
            actual = _points(loaded, evaluate(loaded, loaded_clip, float(stored)), names)
            error = _distance(maths.transform_points(conversion, expected), actual)
            if error > worst.error:
                worst = CheckResult(error=error, size=size, clip=clip.name, frame=frame)
    return worst


def _check_key_times(loaded: Model) -> None:
    """ExportCheckError naming the first sampler of ``loaded``'s glTF file that breaks a key-time rule."""
    gltf = next((Path(file) for file in loaded.files if Path(file).suffix.lower() in (".glb", ".gltf")), None)
    problems = key_time_problems(gltf) if gltf is not None else []
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ExportCheckError(gltf, f"the Khronos validator would reject it: {problems[0]}{more}")


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


def _matching_clips(clips: list[Clip], loaded: Model) -> list[Clip | None]:
    """The re-read clip for each written one, by name in order (None where the file has none: a clip
    that moves nothing is not written)."""
    remaining = list(loaded.clips)
    matched = []
    for clip in clips:
        found = next((other for other in remaining if other.name == clip.name), None)
        if found is not None:
            remaining.remove(found)
        matched.append(found)
    return matched


def _stored_times(clip: Clip, loaded: Clip | None) -> np.ndarray:
    """Where the file holds each of ``clip``'s frames: its own frame times (glTF stores float32, so a
    frame at 20.3667 s sits a few microseconds off), else the clip's where the counts differ."""
    if loaded is not None and loaded.frame_count == clip.frame_count:
        return loaded.frame_times
    return clip.frame_times


def _written_vertices(model: Model, show_hidden: bool) -> np.ndarray:
    """(N,) which of the model's vertices the exporter writes (``is_written``)."""
    return np.concatenate([np.full(mesh.vertex_count, is_written(mesh, show_hidden)) for mesh in model.meshes]
                          or [np.zeros(0, bool)])


def _points(model: Model, pose: Pose, names: list[str], written: np.ndarray | None = None) -> np.ndarray:
    """(N, 3) posed vertices, only the ``written`` ones of the source model (posed with glTF's four
    influences), else the origins of the bones called ``names``."""
    if written is None and model.vertex_count:
        return posed_positions(model, pose)
    if written is not None and written.any():
        return posed_positions(model, pose, influences=GLTF_INFLUENCES)[written]
    return pose.world[[model.skeleton.index(name) for name in names], :3, 3]


def _distance(expected: np.ndarray, actual: np.ndarray) -> float:
    if expected.shape != actual.shape:
        raise ValueError(f"the file holds {len(actual)} points where the model has {len(expected)}")
    return float(np.linalg.norm(actual - expected, axis=1).max()) if len(expected) else 0.0
