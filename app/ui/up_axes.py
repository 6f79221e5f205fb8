"""The up axis the user chose in the window (View › Up Axis), remembered per model file (QSettings)
and used again when that file is opened, unless ``--up`` says otherwise."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings

from app.json_text import JsonError, loads

KEY = "view/up_axes"


class RememberedUpAxes:
    """``{model file: "Y" or "Z"}`` in one settings value."""

    def __init__(self, settings: QSettings):
        self.settings = settings

    def _all(self) -> dict[str, str]:
        try:
            stored = loads(self.settings.value(KEY, "{}"))
        except (TypeError, JsonError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def get(self, file: str) -> str | None:
        axis = self._all().get(file)
        return axis if axis in ("Y", "Z") else None

    def remember(self, file: str, axis: str) -> None:
        stored = self._all()
        stored[file] = axis
        self.settings.setValue(KEY, json.dumps(stored))
