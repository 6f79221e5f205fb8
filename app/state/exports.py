"""The window's exports of the model on screen: glTF (checked by reading the file back) and the pose."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from app import loading
from app.export.writers import MODEL_WRITERS, POSE_WRITERS, pose_arrays, writer_for
from app.model import Model
from app.pose import Pose


@dataclass(frozen=True)
class Exported:
    """A written file, the writer's warnings and (glTF) how exactly it plays back."""

    path: Path
    warnings: list[str]
    note: str = ""

    def line(self) -> str:
        return f"Wrote {self.path}." + (f"  {self.note}" if self.note else "")


def export_gltf(model: Model, path: str | Path, show_hidden: bool) -> Exported:
    """``model``'s meshes (hidden ones only with ``show_hidden``), skeleton and clips as glTF 2.0
    (``.glb`` unless the path ends in ``.gltf``), then the written file read back and checked (the
    figure ``convert --check`` prints). Raises OSError, ValueError or InputError."""
    from app.export.roundtrip import check_export

    path = with_suffix(path, tuple(MODEL_WRITERS), ".glb")
    warnings = writer_for(path, MODEL_WRITERS)(path, model, None, show_hidden)
    return Exported(path, warnings, check_export(model, loading.load_written(path), None, show_hidden).line())


@dataclass(frozen=True)
class GltfExport:
    """An Export glTF of ``model`` as it was asked (``in_place``: the clips without the root's travel;
    ``show_hidden``: hidden meshes too), to be written later, in a worker thread if need be: a model
    does not change, so the job holds nothing the window may change meanwhile."""

    model: Model
    in_place: bool
    show_hidden: bool

    def __call__(self, path: str | Path) -> Exported:
        from app.animation.root_motion import in_place_model

        model = in_place_model(self.model) if self.in_place else self.model
        return export_gltf(model, path, self.show_hidden)


def export_pose(model: Model, pose: Pose, skinning: str, path: str | Path) -> Exported:
    """``pose`` as OBJ (unless the path ends in another suffix of the pose writers), skinned by
    ``skinning``. Raises OSError or ValueError."""
    path = with_suffix(path, tuple(POSE_WRITERS), ".obj")
    arrays = pose_arrays(model, pose, skinning)
    return Exported(path, writer_for(path, POSE_WRITERS)(path, model, arrays))


@dataclass(frozen=True)
class PoseExport:
    """An Export Pose of ``pose`` on ``model``, skinned by ``skinning``, to be written later, in a
    worker thread if need be: the pose's arrays are copied, so the playhead moving meanwhile (or the
    ragdoll stepping its own arrays) does not change what is written."""

    model: Model
    pose: Pose
    skinning: str

    def __post_init__(self):
        pose = self.pose
        copied = replace(pose, world=pose.world.copy(), skin=pose.skin.copy(), helpers=pose.helpers.copy(),
                         positions=None if pose.positions is None else pose.positions.copy(),
                         morph_weights=None if pose.morph_weights is None else pose.morph_weights.copy(),
                         mesh_alpha=dict(pose.mesh_alpha))
        object.__setattr__(self, "pose", copied)

    def __call__(self, path: str | Path) -> Exported:
        return export_pose(self.model, self.pose, self.skinning, path)


def with_suffix(path: str | Path, allowed: tuple[str, ...], default: str) -> Path:
    """``path`` as it is when it ends in one of ``allowed``, else with ``default`` added."""
    path = Path(path)
    return path if path.suffix.lower() in allowed else path.with_suffix(path.suffix + default)
