"""One read of a glTF file: its document (``container.Document``: the JSON, the buffers, checked
accessors) with what the reading gathers as it goes: the warnings and the images it has decoded
(each once, however many materials use it).

Integer vertex data in a file that does not declare KHR_mesh_quantization is read as that extension
defines, with a warning: the data is sound, only the declaration is missing (glTF-Transform writes such
files).
"""

from __future__ import annotations

from pathlib import Path
import numpy as np

from app.formats.gltf.container import APPEARANCE_EXTENSIONS, Buffer, Document, attribute_accessors
from app.formats.gltf.objects import GltfObject

QUANTIZATION = "KHR_mesh_quantization"
#: glTF's float component type; the unsigned byte and short types core glTF allows normalised.
FLOAT, CORE_NORMALIZED = 5126, (5121, 5123)


class Reading(Document):
    """One glTF document being read into a Model; the readers of its nodes, meshes, materials and
    animations take it."""

    def __init__(self, path: Path, gltf: GltfObject, buffers: list[Buffer], document: dict | None = None):
        super().__init__(path, gltf, buffers, document)
        self.warnings += self._unshown_lights() + self._approximated_materials()
        undeclared = None if self.quantized else self._first_quantized_attribute()
        if undeclared is not None:
            self.quantized = True
            self.warnings.append(f"{undeclared} is integer vertex data, but the file does not declare "
                                 f"{QUANTIZATION}; read as that extension defines")
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

    def _first_quantized_attribute(self) -> str | None:
        """Where the file first stores a vertex attribute in a component type only KHR_mesh_quantization
        allows (integer POSITION, NORMAL, TANGENT or morph target data; signed or unnormalised TEXCOORD),
        as '<JSON path> (component type N)'; None when it stores none. Bad indices are left to the read."""
        accessors = self.gltf.accessors or []
        for m, mesh in enumerate(self.gltf.meshes or []):
            for p, primitive in enumerate(mesh.primitives or []):
                where = f"meshes[{m}].primitives[{p}]"
                named = [(f"{where}.attributes.{name}", name, index)
                         for name, index in attribute_accessors(primitive.attributes).items()]
                named += [(f"{where}.targets[{t}].{name}", name, index)
                          for t, target in enumerate(primitive.targets or [])
                          for name, index in attribute_accessors(target).items()]
                for path, name, index in named:
                    if isinstance(index, int) and 0 <= index < len(accessors) \
                            and _needs_quantization(name, accessors[index]):
                        return f"{path} (component type {accessors[index].componentType})"
        return None


def _needs_quantization(attribute: str, accessor) -> bool:
    """Whether core glTF forbids ``accessor``'s component type for ``attribute`` and
    KHR_mesh_quantization allows it."""
    if attribute in ("POSITION", "NORMAL", "TANGENT"):
        return accessor.componentType != FLOAT
    if attribute.startswith("TEXCOORD_"):
        return accessor.componentType != FLOAT and not (
            accessor.componentType in CORE_NORMALIZED and accessor.normalized)
    return False
