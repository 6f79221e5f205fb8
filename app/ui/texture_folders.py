"""The window's texture folders: where textures the files name are also looked for, after the
model's own folder and any ``--texture-dir`` (remembered in QSettings)."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings

from app.json_text import JsonError, loads

KEY = "textures/folders"


class TextureFolders:
    """A list of folders in one settings value, in the order they were added."""

    def __init__(self, settings: QSettings):
        self.settings = settings

    def folders(self) -> list[str]:
        try:
            stored = loads(self.settings.value(KEY, "[]"))
        except (TypeError, JsonError):
            return []
        return [folder for folder in stored if isinstance(folder, str)] if isinstance(stored, list) else []

    def add(self, folder: str) -> None:
        folders = self.folders()
        if folder not in folders:
            self.settings.setValue(KEY, json.dumps(folders + [folder]))

    def clear(self) -> None:
        self.settings.setValue(KEY, "[]")
