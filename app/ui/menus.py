"""The main window's menu bar: its menus and actions, each action calling one method of the window,
its state or a dock; the check marks follow the state's display options and up axis."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

#: The View menu's display switches: (key, text, DisplayOptions field, shortcut).
DISPLAY_ACTIONS = (("shaded", "&Shaded", "shaded", "S"),
                   ("wireframe", "&Wireframe", "wireframe", "W"),
                   ("bones", "S&keleton", "bones", "B"),
                   ("names", "Bone &Names", "bone_names", "N"),
                   ("heatmap", "Weight &Heat Map", "heatmap", "H"),
                   ("normals", "Norma&ls", "normals", "Shift+N"),
                   ("grid", "&Grid", "grid", "G"),
                   ("bounds", "&Bounding Box", "bounds", None),
                   ("dqs", "&Dual-Quaternion Skinning", "skinning", "D"),
                   ("textures", "&Textures", "textures", "T"),
                   ("colors", "&Vertex Colours", "vertex_colors", None),
                   ("hidden", "Show Hidden &Meshes", "show_hidden", None),
                   ("follow", "Follow the Mod&el", "follow", None),
                   ("inplace", "&In Place", "in_place", None),
                   ("rootpath", "Root &Path", "root_path", None),
                   ("onion", "Onion Skin", "onion", None),
                   ("axes", "Bone &Axes", "bone_axes", None))
VIEW_KEYS = (("front", Qt.Key.Key_1), ("side", Qt.Key.Key_3), ("top", Qt.Key.Key_7), ("iso", Qt.Key.Key_9))


class WindowMenus:
    """Builds ``window``'s menu bar and keeps the actions the window changes later: those that need a
    model's files (``model_actions``), the display and up-axis check marks, undo and redo, the recent
    files menu (filled each time it opens)."""

    def __init__(self, window: MainWindow):
        self.window = window
        self._build_file_menu()
        self._build_edit_menu()
        self._build_view_menu()
        self._build_playback_menu()
        self._build_ragdoll_menu()
        self._build_help_menu()

    def _action(self, menu, text: str, slot, shortcut=None, checkable=False, checked=False) -> QAction:
        action = QAction(text, self.window)
        if shortcut is not None:
            shortcuts = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QKeySequence(key) for key in shortcuts])
        action.setCheckable(checkable)
        if checkable:
            action.setChecked(checked)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_file_menu(self) -> None:
        window, exports = self.window, self.window.exports
        menu = window.menuBar().addMenu("&File")
        self._action(menu, "&Open…", window.open_dialog, QKeySequence.StandardKey.Open)
        self._action(menu, "Open Arc&hive…", window.open_archive_dialog)
        self.recent_menu = menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        self._action(menu, "&Close", window.close_model, QKeySequence.StandardKey.Close)
        self.attach_action = self._action(menu, "&Attach Animation…", window.attach_dialog, "Ctrl+Shift+O")
        self.attach_other_action = self._action(menu, "Attach Clips of Another S&keleton…",
                                                window.attach_other_dialog)
        self.reload_action = self._action(menu, "Re&load", window.reload, [QKeySequence.StandardKey.Refresh,
                                                                          "Ctrl+R"])
        self.watch_action = self._action(menu, "&Watch for Changes", window.file_watch.set_enabled,
                                         checkable=True)
        self.watch_action.setToolTip("Read the model again whenever one of its files changes on disk")
        menu.addSeparator()
        self.export_action = self._action(menu, "&Export glTF…", exports.export_dialog, "Ctrl+E")
        self.export_in_place_action = self._action(menu, "Export glTF &In Place…",
                                                   lambda: exports.export_dialog(in_place=True))
        self.export_in_place_action.setToolTip("The clips without the root's travel over the ground")
        self.export_pose_action = self._action(menu, "Export &Pose…", exports.export_pose_dialog,
                                               "Ctrl+Shift+E")
        self.export_animation_action = self._action(menu, "Export A&nimation…",
                                                    exports.export_animation_dialog)
        self._action(menu, "Save &Screenshot…", exports.save_screenshot_dialog, "Ctrl+Shift+S")
        self._action(menu, "Cop&y Image", exports.copy_image, QKeySequence.StandardKey.Copy)
        menu.addSeparator()
        self._action(menu, "&Quit", window.close, QKeySequence.StandardKey.Quit)
        self.model_actions = [self.attach_action, self.attach_other_action, self.reload_action,
                              self.export_action, self.export_in_place_action, self.export_pose_action,
                              self.export_animation_action]
        self.enable_model_actions(False)

    def _build_edit_menu(self) -> None:
        """Undo and redo of ragdoll profile edits (the only document the window edits)."""
        window = self.window
        menu = window.menuBar().addMenu("&Edit")
        self.undo_action = window.ragdoll.undo_action(window)
        self.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
        self.redo_action = window.ragdoll.redo_action(window)
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)

    def _build_view_menu(self) -> None:
        window, viewport, state = self.window, self.window.viewport, self.window.state
        menu = window.menuBar().addMenu("&View")
        for name, key in VIEW_KEYS:
            self._action(menu, f"{name.title()} View", lambda _=False, n=name: viewport.set_view(n),
                         [QKeySequence(key), QKeySequence(Qt.KeyboardModifier.KeypadModifier | key)])
        self._action(menu, "&Frame All", viewport.frame_all, "F")
        self.orthographic_action = self._action(
            menu, "&Orthographic", viewport.set_orthographic,
            [QKeySequence(Qt.Key.Key_5), QKeySequence(Qt.KeyboardModifier.KeypadModifier | Qt.Key.Key_5)],
            True)
        self._action(menu, "&Reset View", self.reset_view, "Ctrl+0")
        up_menu = menu.addMenu("&Up Axis")
        up_axis_group = QActionGroup(window)
        self.up_axis_actions = {}
        for axis in ("Y", "Z"):
            action = self._action(up_menu, f"{axis} Up",
                                  lambda on, a=axis: on and state.set_up_axis(a), checkable=True)
            up_axis_group.addAction(action)
            self.up_axis_actions[axis] = action
        menu.addSeparator()
        self.display_actions = {}
        for key, text, option, shortcut in DISPLAY_ACTIONS:
            self.display_actions[key] = self._action(
                menu, text, lambda on, o=option: state.set_display(**{o: _option_value(o, on)}),
                shortcut, True, getattr(state.display, option) in (True, "dqs"))
        self._action(menu, "Background &Colour…", window.choose_background)
        self._action(menu, "Add Te&xture Folder…", window.add_texture_folder_dialog)
        self._action(menu, "Forget Texture Folders", window.forget_texture_folders)
        menu.addSeparator()
        for dock in (window.timeline, window.outliner, window.ragdoll_panel, window.warnings_dock):
            menu.addAction(dock.toggleViewAction())

    def _build_playback_menu(self) -> None:
        menu = self.window.menuBar().addMenu("&Playback")
        for action in self.window.timeline.playback_actions():
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.window.timeline.mix_action)

    def _build_ragdoll_menu(self) -> None:
        menu = self.window.menuBar().addMenu("&Ragdoll")
        for action in self.window.ragdoll_panel.ragdoll_actions():
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)

    def _build_help_menu(self) -> None:
        menu = self.window.menuBar().addMenu("&Help")
        self._action(menu, "&Shortcuts", self.window.show_shortcuts, QKeySequence.StandardKey.HelpContents)
        self._action(menu, "&About Boneyard", self.window.show_about)

    def reset_view(self) -> None:
        """View › Reset View: the iso view in perspective, the Orthographic check cleared with it."""
        self.orthographic_action.setChecked(False)
        self.window.viewport.reset_view()

    def enable_model_actions(self, enabled: bool) -> None:
        """The actions that read or write the model's files (a model with files: not the demo)."""
        for action in self.model_actions:
            action.setEnabled(enabled)

    def show_display(self, name: str, value) -> None:
        """Check the View menu's switch of display option ``name`` as ``value`` says."""
        for key, _, option, _ in DISPLAY_ACTIONS:
            if option == name:
                self.display_actions[key].setChecked(value in (True, "dqs"))

    def show_up_axis(self, axis: str) -> None:
        self.up_axis_actions[axis].setChecked(True)

    def fill_recent_menu(self) -> None:
        menu, recent = self.recent_menu, self.window.recent
        menu.clear()
        entries = recent.entries()
        for number, entry in enumerate(entries, 1):
            label = f"{' + '.join(Path(p).name for p in entry)}  —  {Path(entry[0]).parent}"
            waiting = self.window.state.user_work.clips_set_aside(entry)
            if waiting:
                label += f"  (with {waiting} added clip{'s' if waiting > 1 else ''})"
            action = menu.addAction(f"&{number % 10} {label}")
            action.setToolTip("\n".join(entry))
            action.triggered.connect(lambda _=False, e=entry: self.window.open_files(e))
        if not entries:
            menu.addAction("(none)").setEnabled(False)
        menu.addSeparator()
        menu.addAction("Clear List", recent.clear).setEnabled(bool(entries))


def _option_value(option: str, on: bool):
    """A display action's check state as the option's value (the skinning method for D)."""
    if option == "skinning":
        return "dqs" if on else "lbs"
    return on
