"""File › Watch for Changes (as f3d's ``--watch``): while on, the model's files are watched and read
again when one changes on disk — for modders iterating on an export — keeping the clip, the time and
the user's work as File › Reload does (``ViewerState.reload_request``, ``state/user_work.py``).
A model named inside an archive (``ARCHIVE:RESREF``) is watched through its archive, and the
``--resources`` archives its supermodels and textures may come from are watched too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from app.formats.nwn.archives import is_archive, split_member

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

#: How long after the last change the files are read (milliseconds): exporters write in several
#: steps, and a file replaced by a rename is briefly missing.
SETTLE_MS = 300


class FileWatch(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._changed)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._reload)
        self.enabled = False
        window.model_changed.connect(self.watch_model)

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        self.watch_model()

    def watch_model(self) -> None:
        """Watch the files of the model on screen (none while off, or for a model without files)."""
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        model = self.window.model
        if self.enabled and model is not None and model.files and self.window.menus.reload_action.isEnabled():
            existing = watched_paths(model.files, self.window.load_options.resources)
            if existing:
                self.watcher.addPaths(existing)

    def _changed(self, path: str) -> None:
        self._settle.start()

    def _reload(self) -> None:
        """Read the files again once they settled; a file replaced by a rename is watched anew."""
        self.watch_model()
        if self.window.reload() is not None:
            self.window.statusBar().showMessage("A file of the model changed on disk: read it again", 5000)


def watched_paths(files: list[str], resources: list[str]) -> list[str]:
    """The files to watch for a model read from ``files``: each file that exists, the archive of a
    file named ``ARCHIVE:RESREF``, then the ``resources`` that are archive files; no repeats."""
    paths = []
    for name in files:
        member = split_member(name)
        paths.append(str(member[0]) if member is not None else name)
    paths += [str(path) for path in resources if is_archive(path)]
    return [path for path in dict.fromkeys(paths) if Path(path).is_file()]
