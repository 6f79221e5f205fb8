"""The menu bar as a keyboard user meets it: every menu's accelerators (the underlined letters) are
unique within that menu, and every menu's title letter within the bar."""

import re

import pytest

from tests.gui_helpers import needs_display

pytestmark = [pytest.mark.gui, needs_display]


def accelerator(text: str) -> str | None:
    """The letter after a single ``&`` (``&&`` is a literal ampersand), lower case; None without one."""
    found = re.search(r"(?<!&)&([^&])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def menus_under(menu):
    """``menu`` and every submenu in it, depth first."""
    yield menu
    for action in menu.actions():
        if action.menu() is not None:
            yield from menus_under(action.menu())


def test_the_accelerator_helper():
    assert [accelerator(t) for t in ("&Open…", "Re&load", "Save && Quit", "S&&P &Tools", "Plain")] == [
        "o", "l", None, "t", None]


def test_every_menu_has_unique_accelerators(window):
    bar = window.menuBar()
    titles = [accelerator(action.text()) for action in bar.actions()]
    assert None not in titles and len(set(titles)) == len(titles), titles
    clashes = {}
    for top in bar.actions():
        for menu in menus_under(top.menu()):
            menu.aboutToShow.emit()  # Open Recent fills itself when it opens
            letters: dict[str, list[str]] = {}
            for action in menu.actions():
                if action.isSeparator() or not action.text():
                    continue
                letter = accelerator(action.text())
                if letter is not None:
                    letters.setdefault(letter, []).append(action.text())
            clashes.update({f"{menu.title()} {letter}": texts for letter, texts in letters.items()
                            if len(texts) > 1})
    assert clashes == {}, clashes


def test_ctrl_0_resets_the_projection_too(window, qtbot):
    """Orthographic on (key 5), then Ctrl+0: back to perspective, the menu's check cleared, and the
    picture the same as before the 5 (the iso view of the start)."""
    from PySide6.QtCore import Qt

    from tests.gui_helpers import view_image

    window.viewport.reset_view()
    before = view_image(window, qtbot)
    window.menus.orthographic_action.trigger()
    assert window.viewport.camera.orthographic
    qtbot.keyClick(window.viewport, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert not window.viewport.camera.orthographic and not window.menus.orthographic_action.isChecked()
    assert window.viewport.camera.projection_matrix(1.0)[3, 2] == -1  # a perspective matrix's last row
    after = view_image(window, qtbot)
    assert (abs(before[..., :3].astype(int) - after[..., :3]).max(axis=-1) > 30).sum() < 50
