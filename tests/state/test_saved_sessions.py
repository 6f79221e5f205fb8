"""The user's work on a model kept between runs of the window (state/saved_sessions.py): clips
added, meshes hidden, the selected bone and the live mix come back when the model's files are opened
in a new ViewerState (a restart); a session file that cannot be read is ignored with a message naming
it; sessions are bounded in number and size; File › Close drops the kept session."""

import json
import os

import numpy as np
import pytest

from app import formats
from app.state import saved_sessions
from app.state.viewer import ViewerState
from tests.helpers import translation
from tests.state.test_user_work import read_from_files, turn


def new_state(folder) -> ViewerState:
    """A state as a window starting afresh makes it, keeping sessions in ``folder``."""
    state = ViewerState(formats.LoadOptions(), sessions=folder)
    state.messages = []
    state.events.subscribe("message", state.messages.append)
    return state


def worked_on(folder, mix=True) -> ViewerState:
    state = new_state(folder)
    state.set_model(read_from_files())
    state._add_clips([turn("mapped")])  # as the bone map or Keep as Clip adds them
    state.set_mesh_visible(1, False)
    state.select_bone(1)
    if mix:
        state.playback.set_clip(0)
        state.set_mixing(True)
        state.set_mix(mode="blend", weight=0.25, mask_bone=1)
    return state


def test_the_work_comes_back_after_a_restart(tmp_path):
    worked_on(tmp_path).keep_session()  # the window closes
    state = new_state(tmp_path)
    assert state.user_work.clips_set_aside(["hero.glb"]) == 1  # File › Open Recent says so
    state.set_model(read_from_files())  # File › Open Recent
    assert [clip.name for clip in state.model.clips] == ["walk", "mapped"]
    mapped = state.model.clips[1]
    # "turn" keeps bone 1 one unit along x from bone 0 at both keys (0 and 1 s).
    assert np.allclose(mapped.times, [0.0, 1.0])
    assert np.allclose(mapped.world, [[np.eye(4), translation(1, 0, 0)]] * 2)
    assert [mesh.visible for mesh in state.model.meshes] == [True, False]
    assert state.selected_bone == 1
    assert state.playback.chosen.name == "walk"
    assert (state.mix.second, state.mix.mode, state.mix.weight, state.mix.mask_bone) == (1, "blend", 0.25, 1)
    assert state.playback.mix is not None and state.playback.clip is state.playback.mix  # mixed again
    assert state.user_work.unsaved_clips == ["mapped"] and state.messages == []


def test_opening_another_model_keeps_the_work_on_disk_too(tmp_path):
    state = worked_on(tmp_path, mix=False)
    state.set_model(read_from_files(file="other.glb"))
    assert len(list(tmp_path.glob("*.npz"))) == 1
    restarted = new_state(tmp_path)
    restarted.set_model(read_from_files())
    assert [clip.name for clip in restarted.model.clips] == ["walk", "mapped"]
    assert restarted.mix is None


def test_close_drops_the_kept_session(tmp_path):
    state = worked_on(tmp_path)
    state.keep_session()
    assert len(list(tmp_path.glob("*.npz"))) == 1
    state.user_work.forget(state.model)  # what close_model does, once the user said Discard
    assert list(tmp_path.glob("*.npz")) == []


def session_file(folder):
    (path,) = folder.glob("*.npz")
    return path


def rewritten(path, change):
    """The session at ``path`` with its JSON changed by ``change`` (arrays kept)."""
    with np.load(path) as stored:
        arrays = {key: stored[key] for key in stored.files}
    meta = json.loads(arrays["session.json"].tobytes())
    change(meta)
    arrays["session.json"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    with open(path, "wb") as file:
        np.savez(file, **arrays)


@pytest.mark.parametrize("spoil", [
    lambda path: path.write_bytes(b"not a zip at all"),
    lambda path: path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2]),  # cut short
    lambda path: rewritten(path, lambda meta: meta.update(version=99)),
    lambda path: rewritten(path, lambda meta: meta.update(mesh_choices={"cloak": "no"})),
    lambda path: rewritten(path, lambda meta: meta["mix"].update(fade=float("nan"))),
    lambda path: rewritten(path, lambda meta: meta["clips"][0].update(bones=["root"])),  # 2 bones stored
    lambda path: rewritten(path, lambda meta: meta["clips"][0].update(events=[[0.5]])),
    lambda path: rewritten(path, lambda meta: meta["clips"].append(meta["clips"][0])),  # c1 arrays missing
    lambda path: (path.unlink(), os.mkfifo(path)),  # never opened (it would block)
], ids=["garbage", "truncated", "version", "choice", "mix", "bones", "events", "arrays", "fifo"])
def test_a_session_that_cannot_be_read_is_ignored_with_a_message(tmp_path, spoil):
    worked_on(tmp_path).keep_session()
    path = session_file(tmp_path)
    spoil(path)
    state = new_state(tmp_path)
    state.set_model(read_from_files())
    assert [clip.name for clip in state.model.clips] == ["walk"]  # the model opens without the work
    assert [mesh.visible for mesh in state.model.meshes] == [True, True] and state.mix is None
    assert len(state.messages) == 1 and path.name in state.messages[0] and "ignored" in state.messages[0]


def test_open_recent_counts_no_clips_in_a_session_it_cannot_read(tmp_path):
    worked_on(tmp_path).keep_session()
    session_file(tmp_path).write_bytes(b"PK\x03\x04 but no zip")
    assert new_state(tmp_path).user_work.clips_set_aside(["hero.glb"]) == 0


def test_sessions_are_bounded_in_number(tmp_path, monkeypatch):
    monkeypatch.setattr(saved_sessions, "SESSION_LIMIT", 3)
    state = new_state(tmp_path)
    for number in range(5):
        state.set_model(read_from_files(file=f"model{number}.glb"))
        state.select_bone(1)
        times = 1_000_000 + number  # written one after another: the newest kept
        state.keep_session()
        os.utime(saved_sessions.session_path(tmp_path, [f"model{number}.glb"]), (times, times))
    state.keep_session()
    kept = sorted(path.name.split("-")[0] for path in tmp_path.glob("*.npz"))
    assert kept == ["model2", "model3", "model4"]


def test_clips_past_the_size_bound_are_left_out_and_named(tmp_path, monkeypatch):
    world_bytes = 2 * 2 * 16 * 8  # two frames of two bones' 4×4 float64 matrices
    monkeypatch.setattr(saved_sessions, "SESSION_BYTES", world_bytes + 16 + 1)  # one clip and its times
    state = worked_on(tmp_path, mix=False)
    state._add_clips([turn("second")])
    state.keep_session()
    assert any("second" in message and "Not kept" in message for message in state.messages)
    restarted = new_state(tmp_path)
    restarted.set_model(read_from_files())
    assert [clip.name for clip in restarted.model.clips] == ["walk", "mapped"]


def test_a_changed_skeleton_keeps_the_choices_but_not_the_clips(tmp_path):
    worked_on(tmp_path, mix=False).keep_session()
    state = new_state(tmp_path)
    state.set_model(read_from_files(("arm", "root")))  # the file was edited: bones reordered
    assert [clip.name for clip in state.model.clips] == ["walk"]
    assert [mesh.visible for mesh in state.model.meshes] == [True, False]
    assert state.selected_bone == 0  # "arm", by name


def _archive_with_a_placeable(folder):
    """``pack.hak`` holding ``plc_a``: a root node and one mesh node (two bones, one mesh)."""
    from tests.formats.test_nwn_walkmesh import placeable_tree
    from tests.nwn_archive_bytes import erf_bytes
    from tests.writers.nwn_ascii_writer import write_ascii_mdl

    archive = folder / "pack.hak"
    archive.write_bytes(erf_bytes([("plc_a", "mdl", write_ascii_mdl("plc_a", placeable_tree("plc_a")))]))
    return archive


def test_the_work_on_a_model_inside_an_archive_comes_back_however_it_is_named(tmp_path):
    """The reader reads an archive's model from a scratch copy that changes every run: its session is
    kept by the archive's path and the resref, so the work comes back after a restart when the model
    is named either way (``ARCHIVE:RESREF`` or ``ARCHIVE/RESREF.mdl``, the resref in any case)."""
    from app import loading

    archive = _archive_with_a_placeable(tmp_path)
    sessions = tmp_path / "sessions"
    state = new_state(sessions)
    state.set_model(loading.load([f"{archive}:plc_a"]))
    state.set_mesh_visible(0, False)
    state.select_bone(1)
    state.keep_session()  # the window closes
    (kept,) = sessions.glob("*.npz")
    assert kept.name.startswith("plc_a-")
    for name in (f"{archive}:plc_a", f"{archive}:PLC_A", f"{archive}/plc_a.mdl"):
        again = new_state(sessions)  # a restart
        again.set_model(loading.load([name]))
        assert [mesh.visible for mesh in again.model.meshes] == [False], name
        assert again.selected_bone == 1 and again.messages == []
    assert saved_sessions.session_path(sessions, [f"{archive}:plc_a"]) == kept
    assert saved_sessions.session_path(sessions, [str(tmp_path / "plc_a.mdl")]) != kept
