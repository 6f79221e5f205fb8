"""The window's settings, kept in the user's data folder (app/user_files.py), and the move of the files
that earlier versions kept in Qt's per-application folders instead."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from app.physics.profile_location import PROFILE_FOLDER, SUFFIX
from app.user_files import settings_path, user_data_dir

#: The organisation and application names under which earlier versions kept the window's files.
EARLIER_NAMES = ("Boneyard", "Boneyard")


def open_settings() -> QSettings:
    """The window's settings file, with what an earlier version left elsewhere moved in first."""
    move_earlier_files()
    return QSettings(str(settings_path()), QSettings.Format.IniFormat)


def earlier_locations() -> tuple[Path, Path]:
    """(ragdoll profile folder, settings file) where earlier versions kept them: Qt's application data
    folder (``~/.local/share/Boneyard/Boneyard/ragdoll``) and its settings file
    (``~/.config/Boneyard/Boneyard.conf``)."""
    organisation, application = EARLIER_NAMES
    data = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation))
    config = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation))
    return (data / organisation / application / PROFILE_FOLDER,
            config / organisation / f"{application}.conf")


def move_earlier_files() -> list[Path]:
    """Move the profiles and the settings an earlier version kept elsewhere into the data folder,
    never replacing a file already there; returns the files now in the data folder. A file that
    cannot be moved stays where it is (the window starts all the same)."""
    profiles, settings = earlier_locations()
    moves = [(settings, settings_path())]
    if profiles.is_dir():
        target = user_data_dir() / PROFILE_FOLDER
        moves += [(old, target / old.name) for old in sorted(profiles.glob(f"*{SUFFIX}"))]
    moved = []
    for old, new in moves:
        if not old.is_file() or new.exists():
            continue
        try:
            new.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(old, new)
        except OSError:
            continue
        moved.append(new)
    return moved
