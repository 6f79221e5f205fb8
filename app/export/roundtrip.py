"""How exactly a written glTF file plays a model back: compare its re-read model's posed vertices.

Every exported clip is compared at each of its stored frames (keys for keyed clips; the file's frame
at the file's own float32 time) and halfway between each two (where interpolation, not the keys,
decides), the original posed with the viewer's four influences per vertex (what glTF holds), the
file's through the reader; a model with no clip is compared at rest. The exporter's up-axis root is
undone with its own rotation. Only the meshes the exporter wrote count (hidden ones only with
``show_hidden``). A model with no written vertices is compared by its bones' origins (found by name
in the file). Beside the vertices, the bones' origins (by name) and every written mesh's own morph
weights are compared at the same instants.

The file is read back with ``loading.load_written``, which first holds its animation samplers to the
Khronos validator's rules on key times (app/formats/gltf/key_time_rules.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app import maths
from app.export.gltf import GLTF_INFLUENCES, front_rotation, is_written
from app.model import Clip, Model
from app.morph_targets import weight_slices
from app.pose import Pose, evaluate, pose_morph_weights, posed_positions



@dataclass
class CheckResult:
    """error: the largest vertex distance (model units); size: the rest pose's bounding-box diagonal;
    clip: the clip it happened in (None: the model has no clip, compared at rest); frame: its index;
    between: True when it was halfway from that frame to the next. bone_error: the largest distance
    between a bone's origins; weight_error: the largest difference of a morph weight."""

    error: float
    size: float
    clip: str | None
    frame: int
    between: bool = False
    bone_error: float = 0.0
    weight_error: float = 0.0

    @property
    def fraction(self) -> float:
        return self.error / self.size if self.size > 0 else 0.0

    def line(self) -> str:
        where = "bind pose" if self.clip is None else f"clip {self.clip} frame {self.frame}"
        if self.between:
            where = f"clip {self.clip} between frames {self.frame} and {self.frame + 1}"
        return f"check: worst vertex error {self.error:.3g} ({self.fraction:.3g} of size) at {where}"

    def parts_line(self) -> str:
        """The bones' and the morph weights' worst differences, at keys and between them."""
        bones = self.bone_error / self.size if self.size > 0 else 0.0
        return (f"check: worst bone origin error {self.bone_error:.3g} ({bones:.3g} of size), "
                f"worst morph weight error {self.weight_error:.3g}")


def check_export(model: Model, loaded: Model, clips: list[Clip] | None = None,
                 show_hidden: bool = False) -> CheckResult:
    """The worst vertex error of ``loaded``, the file written from ``model`` with ``clips`` (default
    every clip) and ``show_hidden``, and read back."""
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
        for frame, time, stored, between in _instants(clip, loaded_clip):
            expected_pose, actual_pose = evaluate(model, clip, time), evaluate(loaded, loaded_clip, stored)
            expected = _points(model, expected_pose, names, written)
            actual = _points(loaded, actual_pose, names)
            error = _distance(maths.transform_points(conversion, expected), actual)
            if error > worst.error:
                worst.error, worst.clip, worst.frame, worst.between = error, clip.name, frame, between
            worst.bone_error = max(worst.bone_error, _bone_distance(model, expected_pose, loaded, actual_pose,
                                                                    conversion))
            worst.weight_error = max(worst.weight_error, _weight_difference(model, expected_pose, loaded,
                                                                            actual_pose, show_hidden))
    return worst


def _instants(clip: Clip, loaded: Clip | None) -> list[tuple[int, float, float, bool]]:
    """(frame, the model's time, the file's time, halfway to the next frame) at each stored frame
    and halfway between each two."""
    times, stored = clip.frame_times, _stored_times(clip, loaded)
    instants = [(frame, float(time), float(at), False) for frame, (time, at) in enumerate(zip(times, stored))]
    halfway = (times[:-1] + times[1:]) / 2, (stored[:-1] + stored[1:]) / 2
    instants += [(frame, float(time), float(at), True) for frame, (time, at) in enumerate(zip(*halfway))]
    return instants


def _bone_distance(model: Model, pose: Pose, loaded: Model, loaded_pose: Pose,
                   conversion: np.ndarray) -> float:
    """The largest distance between a bone's origin in ``pose`` (turned as the file is) and the origin
    of the file's bone of that name."""
    found = [(bone, loaded.skeleton.names.index(name)) for bone, name in enumerate(model.skeleton.names)
             if name in loaded.skeleton.names]
    if not found:
        return 0.0
    ours, theirs = np.array(found).T
    expected = maths.transform_points(conversion, pose.world[ours, :3, 3])
    return float(np.linalg.norm(loaded_pose.world[theirs, :3, 3] - expected, axis=1).max())


def _weight_difference(model: Model, pose: Pose, loaded: Model, loaded_pose: Pose,
                       show_hidden: bool) -> float:
    """The largest difference between a written mesh's own morph weights and the file's (its first
    targets, in order; the file's meshes are the written ones, in order)."""
    ours, theirs = pose_morph_weights(model, pose), pose_morph_weights(loaded, loaded_pose)
    written = [part for mesh, part in zip(model.meshes, weight_slices(model.meshes))
               if is_written(mesh, show_hidden)]
    worst = 0.0
    for part, mesh, their_part in zip(written, loaded.meshes, weight_slices(loaded.meshes)):
        if part is None:
            continue
        if their_part is None:
            return float("inf")
        count = part.stop - part.start
        difference = ours[part] - theirs[their_part][:count]
        worst = max(worst, float(np.abs(difference).max()) if count else 0.0)
    return worst


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
