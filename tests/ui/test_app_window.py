"""The desktop window under Xvfb, judged by its pixels: every format opens through the dialog's code
path, display modes change the picture, screenshots have the asked size and alpha, failures keep the
model on screen."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from tests.demo_formats import WRITERS
from tests.gui_helpers import image_array, needs_display, view_image
from tests.paths import CORPUS

pytestmark = [pytest.mark.gui, needs_display]

BACKGROUND_TOLERANCE = 12
#: Seconds a background load may take in these tests.
LOAD_TIMEOUT_MS = 60_000


def foreground(image):
    """Pixels that differ from the background colour sampled in the top-left corner."""
    background = image[2, 2, :3].astype(int)
    return np.abs(image[..., :3].astype(int) - background).max(axis=-1) > BACKGROUND_TOLERANCE


def changed_pixels(first, second, threshold=30) -> int:
    return int((np.abs(first.astype(int) - second.astype(int)).max(axis=-1) > threshold).sum())


def assert_in_frame(image, coverage=0.02):
    mask = foreground(image)
    rows, cols = np.nonzero(mask)
    height, width = mask.shape
    assert mask.mean() > coverage, "the model should cover a good part of the view"
    assert 0.25 * width < cols.mean() < 0.75 * width and 0.2 * height < rows.mean() < 0.8 * height
    assert not mask[:, 0].all() and not mask[0, :].all()


@pytest.fixture
def window(window):
    """Paused: the tests move time with state.tick."""
    window.playback.set_playing(False)
    return window


def open_and_wait(window, qtbot, paths):
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files(paths)
    qtbot.waitUntil(lambda: window.viewport.renderer.model is window.model, timeout=10_000)


def test_window_draws_the_demo_in_frame(window, qtbot):
    assert_in_frame(view_image(window, qtbot), coverage=0.03)


@pytest.mark.parametrize("format_name", sorted(WRITERS))
def test_each_format_opens_through_the_dialog_path(window, qtbot, tmp_path, format_name):
    paths = WRITERS[format_name](window.model, tmp_path)
    open_and_wait(window, qtbot, paths)
    assert window.model.format == format_name
    assert [str(p) for p in paths] == list(window.model.files)
    assert_in_frame(view_image(window, qtbot), coverage=0.005)
    if window.model.clips:
        clip = window.playback.clip
        window.playback.set_playing(False)
        window.playback.set_time(clip.start)
        before = view_image(window, qtbot)
        window.playback.set_time(clip.start + 0.4 * clip.duration)
        assert changed_pixels(before, view_image(window, qtbot)) > 200, "the clip should move the model"
    assert window.windowTitle() == " + ".join(path.name for path in paths) + " — Boneyard"


def test_failed_load_keeps_the_model(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *args: shown.append(args[2]))
    bad = tmp_path / "broken.glb"
    bad.write_bytes(b"glTF" + b"\x00" * 20)
    model, before = window.model, view_image(window, qtbot)
    with qtbot.waitSignal(window.load_failed, timeout=LOAD_TIMEOUT_MS) as failure:
        window.open_files([bad])
    assert window.model is model and "broken.glb" in shown[0] and "broken.glb" in failure.args[0]
    assert "byte" in shown[0], "the error names where in the file it went wrong"
    assert changed_pixels(before, view_image(window, qtbot)) == 0, "the picture stays as it was"


def test_cancelled_load_keeps_the_model(window, qtbot, tmp_path):
    paths = WRITERS["lgw"](window.model, tmp_path)
    model = window.model
    request = window.open_files(paths)
    window.loads.cancel(request)
    worker = f"load-{request}"
    qtbot.waitUntil(lambda: all(thread.name != worker for thread in threading.enumerate()), timeout=10_000)
    assert not window.loads.loader.waiting  # the cancelled result is in, and nothing will deliver it
    assert window.model is model


def test_display_modes_change_the_picture(window, qtbot):
    window.playback.set_time(0.25)  # a bent pose, where dual-quaternion skinning differs
    for name in ("wireframe", "bones", "normals", "dqs"):
        before = view_image(window, qtbot)
        window.menus.display_actions[name].setChecked(True)
        changed = changed_pixels(before, view_image(window, qtbot), threshold=20)
        assert changed > 30, f"{name} changes the picture"
        window.menus.display_actions[name].setChecked(False)
    window.menus.display_actions["grid"].setChecked(False)
    no_grid = view_image(window, qtbot)
    window.menus.display_actions["shaded"].setChecked(False)
    nothing = view_image(window, qtbot)
    drawn = foreground(nothing)
    drawn[-100:, :100] = False  # the corner's axes indicator, a fixed size whatever the view's
    assert drawn.mean() < 0.001, "no shading, no grid, no overlays: an empty view"
    assert foreground(no_grid).mean() > 0.02


def test_bone_names_are_drawn_over_the_view(window, qtbot):
    before = image_array(window.viewport.grab())
    window.menus.display_actions["names"].setChecked(True)
    qtbot.waitUntil(lambda: changed_pixels(before, image_array(window.viewport.grab())) > 200, timeout=5_000)
    window.menus.display_actions["names"].setChecked(False)
    qtbot.waitUntil(lambda: changed_pixels(before, image_array(window.viewport.grab())) < 20, timeout=5_000)


def test_each_view_frame_paints_its_overlay_in_its_own_window(window, qtbot):
    """The bone names and the overlay are painted with each frame of the view, in the view's own
    native window: the main window around it gets no update for it (with a QOpenGLWidget Qt composed
    the whole window again each frame, half the window's frame rate on a software rasteriser)."""
    from PySide6.QtCore import QEvent, QObject

    class UpdateCounter(QObject):
        def __init__(self):
            super().__init__()
            self.count = 0

        def eventFilter(self, watched, event):
            self.count += event.type() == QEvent.Type.UpdateRequest
            return False

    view = window.viewport
    window.status.frame_timer.stop()  # the status bar's frame rate would update the main window
    window.menus.display_actions["names"].setChecked(True)
    qtbot.wait(200)
    overlay_paints = []
    paint = view.overlay.paint
    view.overlay.paint = lambda painter: (overlay_paints.append(1), paint(painter))
    swaps = []
    view.surface.frameSwapped.connect(lambda: swaps.append(1))
    main_window_updates = UpdateCounter()
    window.windowHandle().installEventFilter(main_window_updates)
    drawn = view.frames_drawn
    for frame in range(1, 7):
        view.update()
        qtbot.waitUntil(lambda frame=frame: view.frames_drawn == drawn + frame, timeout=10_000)
        qtbot.wait(50)
    qtbot.wait(200)
    window.windowHandle().removeEventFilter(main_window_updates)
    assert view.frames_drawn == drawn + 6
    assert len(overlay_paints) == 6 and len(swaps) == 6
    assert main_window_updates.count == 0


def test_heat_map_follows_the_selected_bone(window, qtbot):
    names = window.model.skeleton.names
    window.menus.display_actions["heatmap"].setChecked(True)
    window.state.select_bone(names.index("thigh_l"))
    thigh = view_image(window, qtbot)
    window.state.select_bone(names.index("head"))
    head = view_image(window, qtbot)
    assert window.viewport.options.heatmap_bone == names.index("head")
    assert changed_pixels(thigh, head) > 500, "another bone's weights colour other parts"
    red = lambda image: ((image[..., 0] > 150) & (image[..., 2] < 100)).sum()  # noqa: E731
    assert red(thigh) > 100 and red(head) > 100


def test_clicking_a_bone_selects_it(window, qtbot):
    """Clicked in the view's native GL window, where real clicks land: it hands them to the view."""
    from PySide6.QtCore import QPoint, Qt

    window.menus.display_actions["bones"].setChecked(True)
    viewport = window.viewport
    heads, tails, visible = viewport.bone_segments()
    bone = window.model.skeleton.names.index("chest")
    middle = 0.5 * (heads[bone] + tails[bone])
    qtbot.mouseClick(viewport.surface, Qt.MouseButton.LeftButton, pos=QPoint(int(middle[0]), int(middle[1])))
    assert viewport.options.selected_bone == bone
    qtbot.mouseClick(viewport.surface, Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    assert viewport.options.selected_bone is None


def test_dragging_and_wheeling_in_the_views_window_move_the_camera(window, qtbot):
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from app.ui.viewport import ORBIT_PER_PIXEL, ZOOM_PER_NOTCH

    viewport = window.viewport
    surface = viewport.surface
    yaw, distance = viewport.camera.yaw, viewport.camera.distance
    start = QPoint(surface.width() // 2, surface.height() // 2)
    qtbot.mousePress(surface, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 5):
        qtbot.mouseMove(surface, start + QPoint(20 * step, 0))
    qtbot.mouseRelease(surface, Qt.MouseButton.LeftButton, pos=start + QPoint(80, 0))
    assert viewport.camera.yaw == pytest.approx(yaw - 80 * ORBIT_PER_PIXEL)  # dragged 80 pixels right
    wheel = QWheelEvent(QPointF(start), QPointF(surface.mapToGlobal(start)), QPoint(), QPoint(0, 120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                        False)
    QApplication.sendEvent(surface, wheel)
    assert viewport.camera.distance == pytest.approx(distance * ZOOM_PER_NOTCH)


def test_screenshot_at_full_hd_and_transparent(window, qtbot, tmp_path):
    from PIL import Image

    out = tmp_path / "shot.png"
    assert window.exports.save_screenshot(out, 1920, 1080)
    image = np.asarray(Image.open(out).convert("RGBA"))
    assert image.shape == (1080, 1920, 4)
    assert_in_frame(image)
    clear = tmp_path / "clear.png"
    assert window.exports.save_screenshot(clear, 800, 600, transparent=True)
    image = np.asarray(Image.open(clear).convert("RGBA"))
    corners = image[[0, 0, -1, -1], [0, -1, 0, -1], 3]
    assert (corners == 0).all() and (image[..., 3] == 255).mean() > 0.02


def test_copy_image_puts_the_view_on_the_clipboard(window, qtbot):
    from PySide6.QtWidgets import QApplication

    window.exports.copy_image()
    copied = QApplication.clipboard().image()
    assert copied.width() == window.viewport.width() and foreground(image_array(copied)).mean() > 0.02


def test_export_pose_and_gltf(window, qtbot, tmp_path):
    from app import loading

    window.playback.set_time(0.5)
    exports = window.exports
    for name in ("pose.obj", "pose.glb"):  # written in the background, one export at a time
        assert exports.export_pose(tmp_path / name)
        qtbot.waitUntil(lambda name=name: name in window.statusBar().currentMessage(),
                        timeout=LOAD_TIMEOUT_MS)
    assert (tmp_path / "pose.obj").read_text().count("\nv ") == window.model.vertex_count
    window.exports.export_gltf(tmp_path / "all.glb")  # written in the background
    qtbot.waitUntil(lambda: "all.glb" in window.statusBar().currentMessage(), timeout=LOAD_TIMEOUT_MS)
    back = loading.load([tmp_path / "all.glb"])
    assert [clip.name for clip in back.clips] == [clip.name for clip in window.model.clips]
    # The window shows the figure `convert --check` prints.
    from app.export.roundtrip import check_export

    assert check_export(window.model, back).line() in window.statusBar().currentMessage()


def test_recent_files_reload_and_attach(window, qtbot, tmp_path):
    paths = WRITERS["bonespro"](window.model, tmp_path)
    structure, animation = paths
    open_and_wait(window, qtbot, [structure])
    assert not window.model.clips
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.attach_files([animation])
    assert len(window.model.clips) == 1 and list(window.model.files) == [str(structure), str(animation)]
    window.playback.set_time(0.2)
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.reload()
    assert window.playback.time == pytest.approx(0.2)
    assert window.recent.entries()[0] == [str(structure), str(animation)]
    window.menus.fill_recent_menu()
    labels = [action.text() for action in window.menus.recent_menu.actions()]
    assert any("demo_structure.txt + demo_walk.txt" in label for label in labels)


def test_dropping_files_opens_or_attaches_them(window, qtbot, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    structure, animation = WRITERS["bonespro"](window.model, tmp_path)

    def drop(paths):
        data = QMimeData()
        data.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
        event = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.NoModifier)
        with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
            window.dropEvent(event)

    drop([structure])
    assert list(window.model.files) == [str(structure)]
    drop([animation])
    assert list(window.model.files) == [str(structure), str(animation)], "an animation file attaches"


def test_files_dropped_on_the_views_own_window_open(window, qtbot, tmp_path):
    """A drag over the view reaches its native GL window, not the main window: it takes local files
    (and nothing else) and opens them as a drop elsewhere on the window would."""
    from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    structure, _ = WRITERS["bonespro"](window.model, tmp_path)
    surface = window.viewport.surface
    text = QMimeData()
    text.setText("not a file")
    enter = QDragEnterEvent(QPoint(40, 40), Qt.DropAction.CopyAction, text, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(surface, enter)
    assert not enter.isAccepted()
    files = QMimeData()
    files.setUrls([QUrl.fromLocalFile(str(structure))])
    enter = QDragEnterEvent(QPoint(40, 40), Qt.DropAction.CopyAction, files, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(surface, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(40, 40), Qt.DropAction.CopyAction, files, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        QApplication.sendEvent(surface, drop)
    assert drop.isAccepted() and list(window.model.files) == [str(structure)]


def test_dropping_several_bones_files_attaches_a_clip_for_each(window, qtbot, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    mesh, bones = WRITERS["c3de"](window.model, tmp_path)
    run = tmp_path / "demo_run.c3d"
    run.write_bytes(bones.read_bytes())
    open_and_wait(window, qtbot, [mesh])
    assert not window.model.clips
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(p)) for p in (bones, run)])
    event = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.dropEvent(event)
    assert list(window.model.files) == [str(mesh), str(bones), str(run)], "bones files attach to a C3DE mesh"
    clips = window.timeline.clips
    labels = [clips.itemText(index) for index in range(clips.count())]
    assert labels == ["demo_bones  ·  demo_bones.c3d", "demo_run  ·  demo_run.c3d"]


def test_shortcuts_dialog_lists_the_keys(window):
    from app.ui.shortcuts_dialog import shortcut_rows

    rows = {action: keys for _, action, keys in shortcut_rows(window.menuBar())}
    assert rows["Frame All"] == "F" and "Space" in rows.values()
    assert any("Num+1" in keys or "1" == keys.split(",")[0] for keys in rows.values())


def test_up_axis_switch_turns_the_view(window, qtbot):
    before = view_image(window, qtbot)
    window.menus.up_axis_actions["Z"].setChecked(True)
    after = view_image(window, qtbot)
    assert window.viewport.camera.up_axis == "Z" and changed_pixels(before, after) > 1000


def test_screenshot_option_saves_the_window(tmp_path):
    from PIL import Image

    out = tmp_path / "window.png"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "app", "--screenshot", str(out), "--size", "900x640"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    image = np.asarray(Image.open(out).convert("RGBA"))
    assert image.shape[:2] == (640, 900)
    assert foreground(image[40:-120, 220:-20]).mean() > 0.02


def test_screenshot_option_without_opengl_fails_at_once_with_the_reason(tmp_path):
    """Qt's offscreen platform without a display makes no OpenGL context: the view cannot draw, so
    --screenshot says why and exits 1 at once (it waited, and Qt's GL window crashed painting)."""
    out = tmp_path / "window.png"
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(XDG_CONFIG_HOME=str(tmp_path), QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-m", "app", "--screenshot", str(out)],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 1, result.stderr
    assert "error: the view cannot draw: no OpenGL context" in result.stderr
    assert "Traceback" not in result.stderr and not out.exists()


def test_saved_pictures_carry_the_bone_names_when_they_are_shown(window, qtbot):
    """Bone Names is a display option like Bones: a saved picture shows them, at any size, where the
    bones are in that picture, their text scaled with it."""
    plain = {size: image_array(window.exports.capture(*size)) for size in ((800, 600), (1600, 1200))}
    window.menus.display_actions["names"].setChecked(True)
    named = {size: image_array(window.exports.capture(*size)) for size in plain}
    changes = {size: np.nonzero((np.abs(named[size][..., :3].astype(int) - plain[size][..., :3])
                                 .max(axis=-1) > 30)) for size in plain}
    small, large = (len(changes[size][0]) for size in plain)
    assert small > 200 and 2.5 < large / small < 6, "twice the size: about four times the text pixels"
    small_box = np.array([changes[(800, 600)][k].min() for k in (0, 1)] + [changes[(800, 600)][k].max()
                                                                          for k in (0, 1)])
    large_box = np.array([changes[(1600, 1200)][k].min() for k in (0, 1)] + [changes[(1600, 1200)][k].max()
                                                                             for k in (0, 1)])
    np.testing.assert_allclose(large_box / 2, small_box, atol=12)


def test_saved_screenshots_show_the_gizmos_the_view_shows(window, qtbot):
    window.ragdoll_panel.raise_()
    qtbot.waitUntil(lambda: window.viewport.gizmo_scene is not None, timeout=5_000)
    with_gizmos = image_array(window.exports.capture(800, 600))
    window.outliner.raise_()
    qtbot.waitUntil(lambda: window.viewport.gizmo_scene is None, timeout=5_000)
    without = image_array(window.exports.capture(800, 600))
    assert changed_pixels(with_gizmos, without) > 500


def test_the_window_shows_the_picture_the_renderer_draws_offscreen(window, qtbot):
    """The view's frame (resolved straight into its GL window) is the offscreen picture of the same
    view, but for the overlay painted over it (the orientation gizmo in the bottom-left corner)."""
    from app.ui.view_overlay import GIZMO_LENGTH, GIZMO_MARGIN

    shown = view_image(window, qtbot)
    height, width = shown.shape[:2]
    drawn = window.viewport.render_image(width, height)
    differs = np.abs(shown[..., :3].astype(int) - drawn[..., :3]).max(axis=-1) > 2
    corner = GIZMO_MARGIN + GIZMO_LENGTH + 20
    assert differs[height - corner:, :corner].sum() > 50, "the orientation gizmo is painted"
    differs[height - corner:, :corner] = False
    assert differs.sum() == 0


def test_the_timer_only_tells_the_state_how_much_time_passed(window, qtbot, monkeypatch):
    from app.ui.main_window import TICK_MS

    elapsed = []
    monkeypatch.setattr(window.state, "tick", elapsed.append)
    window.timer.start()
    qtbot.waitUntil(lambda: len(elapsed) >= 3, timeout=5_000)
    window.timer.stop()
    assert all(0 < seconds < 5 for seconds in elapsed) and sum(elapsed) >= 2 * TICK_MS / 1000


def test_each_display_action_sets_its_option_in_the_state_and_follows_it(window):
    from app.ui.menus import DISPLAY_ACTIONS

    display = window.state.display
    for key, _, option, _ in DISPLAY_ACTIONS:
        action, before = window.menus.display_actions[key], getattr(display, option)
        action.trigger()
        assert getattr(display, option) != before, f"{key} sets {option}"
        action.trigger()
        assert getattr(display, option) == before
    window.state.set_display(wireframe=True, skinning="dqs")
    actions = window.menus.display_actions
    assert actions["wireframe"].isChecked() and actions["dqs"].isChecked()
    assert window.viewport.options.wireframe and window.viewport.options.skinning == "dqs"


def test_vertex_colours_toggle_and_a_scaled_armature_in_frame(window, qtbot, tmp_path):
    from tests.tool_exports import mixamo_character, vertex_colored_torus

    open_and_wait(window, qtbot, [vertex_colored_torus(tmp_path)])
    colored = view_image(window, qtbot)
    window.menus.display_actions["colors"].setChecked(False)
    assert window.viewport.options.vertex_colors is False
    plain = view_image(window, qtbot)
    assert changed_pixels(colored, plain) > 500, "the vertex colours leave the picture"
    # A skeleton under an armature scaled 0.01 with a camera 1,000 m away: framed on the body.
    open_and_wait(window, qtbot, [mixamo_character(tmp_path)])
    assert_in_frame(view_image(window, qtbot), coverage=0.03)
    window.viewport.frame_all()
    assert_in_frame(view_image(window, qtbot), coverage=0.03)


def test_root_path_and_in_place_on_a_travelling_clip(window, qtbot):

    fox = CORPUS / "Fox" / "Fox.glb"
    open_and_wait(window, qtbot, [str(fox)])
    playback = window.state.playback
    playback.set_clip([clip.name for clip in window.model.clips].index("Run"))
    playback.set_playing(False)
    playback.set_time(0.5)
    before = view_image(window, qtbot)
    window.menus.display_actions["rootpath"].setChecked(True)
    with_path = view_image(window, qtbot)
    assert changed_pixels(before, with_path) > 30, "the root path is drawn"
    window.menus.display_actions["inplace"].setChecked(True)
    assert changed_pixels(with_path, view_image(window, qtbot)) > 100, "the fox moves back over its start"
    window.menus.display_actions["inplace"].setChecked(False)
    window.menus.display_actions["rootpath"].setChecked(False)


def test_exports_keep_the_travel_unless_asked_for_in_place(window, qtbot, tmp_path, monkeypatch):
    """View › In Place is a preview: File › Export glTF keeps the Fox's run; Export glTF In Place
    and Export Animation's In Place box take it off (the hips stay over their start)."""

    from PIL import Image
    from PySide6.QtWidgets import QFileDialog

    from app import loading
    from app.animation.root_motion import root_travel
    from app.ui.export_animation import AnimationChoice

    fox = CORPUS / "Fox" / "Fox.glb"
    open_and_wait(window, qtbot, [str(fox)])
    window.menus.display_actions["inplace"].setChecked(True)
    chosen = iter([str(tmp_path / "kept.glb"), str(tmp_path / "placed.glb")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (next(chosen), ""))
    for action in (window.menus.export_action, window.menus.export_in_place_action):
        action.trigger()  # written in the background, one export at a time
        qtbot.waitUntil(lambda: not window.exports.background.running, timeout=LOAD_TIMEOUT_MS)
    run = [clip.name for clip in window.model.clips].index("Run")
    kept, placed = (loading.load([str(tmp_path / name)]) for name in ("kept.glb", "placed.glb"))
    assert root_travel(kept, kept.clips[run])[0] > 26.0 and root_travel(placed, placed.clips[run])[0] < 1e-4
    window.menus.display_actions["inplace"].setChecked(False)
    run_clip = window.model.clips[run]
    shots = {}
    for in_place in (False, True):
        choice = AnimationChoice(kind="frames", clip=run, start=run_clip.start, end=run_clip.start + 0.8,
                                 fps=2.5, size=(200, 150), turntable=False, frames=1, in_place=in_place)
        assert window.exports.export_animation(tmp_path / f"run{in_place}_%02d.png", choice)
        shots[in_place] = [np.asarray(Image.open(tmp_path / f"run{in_place}_{k:02d}.png").convert("RGBA"))
                           for k in (0, 2)]
    # both start alike; the running fox's orange leaves its place (about 6 px in 0.8 s at this size),
    # the one in place stays about it
    assert changed_pixels(shots[False][0], shots[True][0]) == 0
    moved = {key: np.linalg.norm(fox_centre(last) - fox_centre(first))
             for key, (first, last) in shots.items()}
    assert moved[False] > 3 and moved[True] < moved[False] / 3


def fox_centre(image) -> np.ndarray:
    """The mean pixel (x, y) of the Fox's orange (red well above blue, which the grey ground lacks)."""
    rows, cols = np.nonzero(image[..., 0].astype(int) - image[..., 2] > 60)
    return np.array([cols.mean(), rows.mean()])


def test_attach_animation_of_another_skeleton_opens_the_bone_map(window, qtbot, tmp_path, monkeypatch):
    """File › Attach Animation with the demo's glTF on the Mixamo-style soldier: the files are read
    alone and the bone map opens by itself; the demo's own file on the demo attaches as before."""
    import shutil

    from PySide6.QtWidgets import QFileDialog

    from app.resources import demo_paths
    from app.ui.bone_map_dialog import BoneMapDialog
    from tests.tool_exports import mixamo_character

    soldier = str(mixamo_character(tmp_path))
    copy = str(shutil.copy(demo_paths()[0], tmp_path / "demo_copy.glb"))
    maps = []
    monkeypatch.setattr(BoneMapDialog, "exec",
                        lambda dialog: maps.append(dialog.mapping()) or dialog.accept())
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *args: ([copy], ""))
    open_and_wait(window, qtbot, [soldier])
    window.menus.attach_action.trigger()
    qtbot.waitUntil(lambda: [clip.name for clip in window.model.clips] == ["walk", "idle"],
                    timeout=LOAD_TIMEOUT_MS)
    assert len(maps) == 1 and maps[0]["thigh_l"] == "mixamorig:LeftUpLeg"
    assert list(window.model.files) == [soldier]  # carried onto the soldier's skeleton, not read with it
    open_and_wait(window, qtbot, [str(path) for path in demo_paths()])
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.menus.attach_action.trigger()
    assert list(window.model.files) == [str(demo_paths()[0]), copy] and len(maps) == 1
    assert [clip.name for clip in window.model.clips] == ["walk", "idle", "walk (2)", "idle (2)"]


def test_attach_clips_of_another_skeleton_reads_in_the_background(window, qtbot, tmp_path, monkeypatch):
    """File › Attach Clips of Another Skeleton: the files are read on the load thread, then the bone
    map opens; a file that cannot be read is a warning and the model stays."""
    from PySide6.QtWidgets import QMessageBox

    from app.resources import demo_paths
    from app.ui.bone_map_dialog import BoneMapDialog
    from tests.tool_exports import mixamo_character

    soldier = str(mixamo_character(tmp_path))
    maps, warned = [], []
    monkeypatch.setattr(BoneMapDialog, "exec",
                        lambda dialog: maps.append(dialog.mapping()) or dialog.accept())
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text: warned.append((title, text)))
    open_and_wait(window, qtbot, [soldier])
    window.attach_other([str(demo_paths()[0])])
    assert window.loads.loader.waiting
    qtbot.waitUntil(lambda: [clip.name for clip in window.model.clips] == ["walk", "idle"],
                    timeout=LOAD_TIMEOUT_MS)
    assert len(maps) == 1 and maps[0]["thigh_l"] == "mixamorig:LeftUpLeg"
    window.attach_other([str(tmp_path / "missing.glb")])
    qtbot.waitUntil(lambda: bool(warned), timeout=LOAD_TIMEOUT_MS)
    assert warned[0][0] == "Attach Clips of Another Skeleton" and "missing.glb" in warned[0][1]
    assert list(window.model.files) == [soldier] and len(maps) == 1
