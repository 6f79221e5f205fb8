"""Textures the user assigned in the window, remembered per model file (QSettings) and given back
when that file is opened again."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings

from app.json_text import JsonError, loads
from app.model import Model

KEY = "textures/assigned"


def _mesh_key(model: Model, index: int) -> str:
    return f"{index}:{model.meshes[index].name}"


class AssignedTextures:
    """``{model file: {"index:mesh name": image path}}`` in one settings value."""

    def __init__(self, settings: QSettings):
        self.settings = settings

    def _all(self) -> dict[str, dict[str, str]]:
        try:
            stored = loads(self.settings.value(KEY, "{}"))
        except (TypeError, JsonError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def remember(self, model: Model, indices: list[int], image: str) -> None:
        """Remember that meshes ``indices`` of ``model`` (by its first file) show ``image``."""
        if not model.files:
            return
        stored = self._all()
        entries = stored.setdefault(model.files[0], {})
        entries.update({_mesh_key(model, index): image for index in indices})
        self.settings.setValue(KEY, json.dumps(stored))

    def for_model(self, model: Model) -> dict[str, list[int]]:
        """``{image path: mesh indices}`` remembered for ``model``'s first file. A mesh is matched by
        index and name, else by name alone (the file changed)."""
        if not model.files:
            return {}
        entries = self._all().get(model.files[0], {})
        names = [mesh.name for mesh in model.meshes]
        result: dict[str, list[int]] = {}
        for key, image in entries.items() if isinstance(entries, dict) else ():
            index_text, _, name = str(key).partition(":")
            index = int(index_text) if index_text.isdigit() else -1
            if not 0 <= index < len(names) or names[index] != name:
                index = names.index(name) if name in names else -1
            if index >= 0 and isinstance(image, str):
                result.setdefault(image, []).append(index)
        return result
