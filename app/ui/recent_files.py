"""The File › Open Recent list: each entry is the set of files opened together as one model."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings

from app.json_text import JsonError, loads

#: Entries kept in the menu.
RECENT_LIMIT = 10
KEY = "files/recent"


class RecentFiles:
    def __init__(self, settings: QSettings):
        self.settings = settings

    def entries(self) -> list[list[str]]:
        """Newest first; malformed stored values are ignored rather than trusted."""
        try:
            stored = loads(self.settings.value(KEY, "[]"))
        except (TypeError, JsonError):
            return []
        if not isinstance(stored, list):
            return []
        return [entry for entry in stored
                if isinstance(entry, list) and entry and all(isinstance(p, str) for p in entry)]

    def add(self, paths: list[str]) -> None:
        entries = [paths] + [entry for entry in self.entries() if entry != paths]
        self.settings.setValue(KEY, json.dumps(entries[:RECENT_LIMIT]))

    def clear(self) -> None:
        self.settings.setValue(KEY, "[]")
