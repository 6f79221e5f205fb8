"""Writers chosen by the output file's suffix: one table each for poses and for whole models, used by
the command line and the window alike (meshio's pattern beside the reader registry).

A pose writer takes the arrays of the ``pose`` contract (docs/cli.md: ``pose_arrays``); a model writer
the model and the clips to write. Both return the warnings they met, and write their file whole or
not at all (``app.atomic_files``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.atomic_files import replacing, write_atomically
from app.model import Clip, Model
from app.pose import Pose, pose_morph_weights, posed_positions


def pose_arrays(model: Model, current: Pose, method: str = "lbs") -> dict[str, np.ndarray]:
    """The arrays of the ``pose`` contract (docs/cli.md), vertices skinned with ``method``."""
    heads, tails = current.heads_tails(model.skeleton)
    return {
        "positions": posed_positions(model, current, method).reshape(-1, 3),
        "bone_names": np.array(model.skeleton.names, dtype=str),
        "parents": model.skeleton.parents.astype(np.int64),
        "world": current.world,
        "skin": current.skin,
        "heads": heads,
        "tails": tails,
        "morph_weights": np.asarray(pose_morph_weights(model, current), dtype=np.float64),
    }


def _pose_npz(path: Path, model: Model, arrays: dict[str, np.ndarray]) -> list[str]:
    with replacing(path) as temporary:
        np.savez(temporary, **arrays)
    return []


def _pose_json(path: Path, model: Model, arrays: dict[str, np.ndarray]) -> list[str]:
    write_atomically(path, json.dumps({key: value.tolist() for key, value in arrays.items()}))
    return []


def _pose_obj(path: Path, model: Model, arrays: dict[str, np.ndarray]) -> list[str]:
    from app.export.obj import write_obj

    write_obj(path, model, arrays["positions"])
    return []


def _pose_gltf(path: Path, model: Model, arrays: dict[str, np.ndarray]) -> list[str]:
    from app.export.gltf import export_gltf_pose

    return export_gltf_pose(model, arrays["positions"], path, embed_buffer=path.suffix.lower() == ".gltf")


def _model_gltf(path: Path, model: Model, clips: list[Clip] | None, show_hidden: bool) -> list[str]:
    from app.export.gltf import export_gltf

    return export_gltf(model, path, clips=clips, embed_buffer=path.suffix.lower() == ".gltf",
                       show_hidden=show_hidden)


PoseWriter = Callable[[Path, Model, dict], list[str]]
ModelWriter = Callable[[Path, Model, "list[Clip] | None", bool], list[str]]

#: Suffix → writer of a posed model (the ``pose`` command, the window's Export Pose).
POSE_WRITERS: dict[str, PoseWriter] = {".npz": _pose_npz, ".json": _pose_json, ".obj": _pose_obj,
                                       ".glb": _pose_gltf, ".gltf": _pose_gltf}
#: Suffix → writer of a whole model with its clips (``convert``, the window's Export glTF).
MODEL_WRITERS: dict[str, ModelWriter] = {".glb": _model_gltf, ".gltf": _model_gltf}


def writer_for(path: str | Path, table: dict[str, Callable]) -> Callable:
    """The writer ``table`` has for ``path``'s suffix; ValueError naming the suffixes it knows."""
    suffix = Path(path).suffix.lower()
    if suffix not in table:
        known = list(table)
        raise ValueError(f"must end in {', '.join(known[:-1])} or {known[-1]}, got {Path(path).name!r}")
    return table[suffix]
