"""How exactly a written glTF file plays a model back: compare its re-read model's posed vertices.

Every exported clip is compared at each of its stored frames (keys for keyed clips; the file's frame
at the file's own float32 time), the original posed with the viewer's four influences per vertex
(what glTF holds), the file's through the reader; a model with no clip is compared at rest. The
exporter's up-axis root is undone with its own rotation. Only the meshes the exporter wrote count
(hidden ones only with ``show_hidden``). A model with no written vertices is compared by its bones'
origins (found by name in the file).

The file is read back with ``loading.load_written``, which first holds its animation samplers to the
Khronos validator's rules on key times (app/formats/gltf/key_time_rules.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app import maths
from app.export.gltf import GLTF_INFLUENCES, front_rotation, is_written
from app.model import Clip, Model
from app.pose import Pose, evaluate, posed_positions



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
