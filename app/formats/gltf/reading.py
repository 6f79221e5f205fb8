"""One read of a glTF file: its document (``container.Document``: the JSON, the buffers, checked
accessors) with what the reading gathers as it goes: the warnings and the images it has decoded
(each once, however many materials use it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from app.formats.gltf.container import APPEARANCE_EXTENSIONS, Buffer, Document

if TYPE_CHECKING:
    from pygltflib import GLTF2


class Reading(Document):
    """One glTF document being read into a Model; the readers of its nodes, meshes, materials and
    animations take it."""

    def __init__(self, path: Path, gltf: GLTF2, buffers: list[Buffer], document: dict | None = None):
        super().__init__(path, gltf, buffers, document)
        self.warnings: list[str] = self._unshown_lights() + self._approximated_materials()
        self.images: dict[int, tuple[str, np.ndarray | None]] = {}

    def _unshown_lights(self) -> list[str]:
        """A warning for the file's KHR_lights_punctual lights: the view lights every model itself."""
        lights = ((self.document.get("extensions") or {}).get("KHR_lights_punctual") or {}).get("lights")
        if not isinstance(lights, list) or not lights:
            return []
        return [f"{len(lights)} light(s) (KHR_lights_punctual) not used: Boneyard lights the scene itself"]

    def _approximated_materials(self) -> list[str]:
        """A warning for each material extension the file requires that the view draws without."""
        required = self.document.get("extensionsRequired") or []
        return [f"the file requires {name}; its materials are drawn with their base colour and texture only"
                for name in APPEARANCE_EXTENSIONS if name in required]
