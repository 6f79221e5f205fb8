"""What a reader leaves for the load stage to do: the parts of a file's meaning that need the model posed.

Readers convert their file's conventions and build the Model; they do not pose it (docs/architecture.md,
"Layers"). Where a format can only be understood by posing — animated meshes (NWN animmesh samples)
played as vertex clips, glTF tails found where the model is drawn at rest, the C3DE check that a bones file
fits its mesh — the reader describes the work here, as data, in ``Model.pending``; ``app/loading.py``
does it after the registry has read the files, and empties the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.model import Clip


@dataclass(eq=False)
class BakeVertexClip:
    """Play ``clip`` as a 'vertex' clip: at each of ``times`` (F,), every mesh's bind positions plus
    its ``offsets`` (F, V, 3) at that frame (None: the mesh is only skinned), skinned by ``clip``'s
    pose then (its tracks; none: the rest pose), the bones' world matrices kept per frame too.
    ``clip`` (keyed) holds the clip's place in ``Model.clips`` until then; the baked clip takes its
    name, source, events and note. ``path``: the file read, named if the baked clip is refused."""

    clip: Clip
    times: np.ndarray
    offsets: list[np.ndarray | None]
    path: Path


@dataclass(eq=False)
class DeriveTailsAtRest:
    """Find the bones' tails where the model is drawn at rest (the vertices skinned to the rest pose)
    and carry them back to bind space: a glTF skin may bind in other units or axes than its nodes, so
    the bind-space vertices would put them elsewhere. ``path``: the file read, named in an error."""

    path: Path


@dataclass(eq=False)
class CheckFit:
    """Warn when the meshes do not fit the first clip's bones: posed at its first frame, more than
    ``edge_share`` of their triangle edges stretch or shrink more than ``stretch`` times. The warning
    names ``mesh_files`` and ``bones_file``."""

    mesh_files: list[str]
    bones_file: str
    stretch: float
    edge_share: float


PendingStep = BakeVertexClip | DeriveTailsAtRest | CheckFit
