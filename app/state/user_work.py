"""What the user did to the model on screen beyond what its files give, kept across File › Reload
(F5) and a new frame rate: clips added through the bone map or kept from a mix, meshes shown or
hidden in the Outliner, the selected bone. A model read again is a new Model made from the files
alone; ``onto`` puts this work back on it. Opening another model sets the work aside, by the
model's files, with the live mix: reopening those files (File › Open Recent) brings it back
(``arrive``). With a ``sessions`` folder the work set aside is also kept there
(``saved_sessions``), and ``keep`` keeps the work on screen when the window closes, so Open Recent
brings it back after a restart. File › Close drops it (``forget``).

Added clips hold bone indices of the skeleton they were made for, so they are put back only on a
model whose skeleton has the same bone names in the same order (a file edited elsewhere may not),
and their morph weight and alpha keys only where the meshes they name are there."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.model import Clip, Model
from app.state import saved_sessions
from app.state.saved_sessions import SavedWork, SessionError


class UserWork:
    def __init__(self, sessions: Path | None = None):
        #: The clips the user added, each with the bone names of the skeleton it was made for.
        self.clips: list[tuple[Clip, tuple[str, ...]]] = []
        #: Each mesh the user ticked or cleared in the Outliner, by name: drawn or not.
        self.mesh_choices: dict[str, bool] = {}
        #: The live mix taken up with the work set aside (``live_mix.mix_names``), for the state.
        self.mix: dict | None = None
        #: The work on models opened earlier, by their files.
        self.set_aside: dict[tuple[str, ...], SavedWork] = {}
        #: The folder where the work set aside is kept between runs (None: only while the window runs).
        self.sessions = sessions
        #: Lines for the status bar: a session that could not be read or written, clips left out.
        self.notes: list[str] = []

    def arrive(self, before: Model | None, selected: int | None, model: Model, keep_state: bool,
               mix: dict | None = None) -> tuple[Model, int | None]:
        """``model`` about to be shown, with this work on it, and the bone to select: ``before``'s
        selected bone by name when the model is read again (``keep_state``); else the work on
        ``before`` (with ``mix``, its live mix by names) is set aside and the work set aside for
        ``model``'s files, if any, taken up (``self.mix``: its mix)."""
        if keep_state:
            return self.onto(model), same_bone(before, selected, model)
        if before is not None and before.files:
            self.keep(before, selected, mix)
        work = self.set_aside.pop(tuple(model.files), None) or self._stored(model)
        self.clips, self.mesh_choices, self.mix = list(work.clips), dict(work.mesh_choices), work.mix
        model = self.onto(model)
        bone = work.selected
        return model, model.skeleton.names.index(bone) if bone in model.skeleton.names else None

    def keep(self, model: Model, selected: int | None, mix: dict | None = None) -> None:
        """Set the work on ``model`` aside by its files (and keep it in ``sessions``)."""
        bone = model.skeleton.names[selected] if selected is not None else None
        work = SavedWork(list(self.clips), dict(self.mesh_choices), bone, mix)
        self.set_aside.pop(tuple(model.files), None)
        if not work.empty:
            self.set_aside[tuple(model.files)] = work
        if self.sessions is None or not model.files:
            return
        try:
            left_out = saved_sessions.save(self.sessions, model, work)
        except OSError as error:
            self.notes.append(f"The work on {model.name} could not be kept for the next session: {error}")
            return
        if left_out:
            self.notes.append(f"Not kept for the next session (too large, or vertex clips): "
                              f"{', '.join(left_out[:5])}")

    def _stored(self, model: Model) -> SavedWork:
        """The work kept in ``sessions`` for ``model``'s files (none when there is none or it cannot
        be read: a note says which file and why)."""
        nothing = SavedWork([], {}, None, None)
        if self.sessions is None or not model.files:
            return nothing
        try:
            return saved_sessions.load(self.sessions, model.files) or nothing
        except SessionError as error:
            self.notes.append(f"The work kept from an earlier session was ignored: {error}")
            return nothing

    def take_notes(self) -> list[str]:
        notes, self.notes = self.notes, []
        return notes

    def clips_set_aside(self, files: list[str]) -> int:
        """How many added clips wait for the model of ``files`` (File › Open Recent says so)."""
        if tuple(files) in self.set_aside:
            return len(self.set_aside[tuple(files)].clips)
        return saved_sessions.clip_count(self.sessions, files) if self.sessions is not None else 0

    @property
    def unsaved_clips(self) -> list[str]:
        """The names of the added clips: they live only in the window until exported."""
        return [clip.name for clip, _ in self.clips]

    def forget(self, model: Model | None = None) -> None:
        """Drop the work (and the session kept for ``model``'s files)."""
        self.clips.clear()
        self.mesh_choices.clear()
        self.mix = None
        if model is not None and model.files:
            self.set_aside.pop(tuple(model.files), None)
            if self.sessions is not None:
                saved_sessions.forget(self.sessions, model.files)

    def add_clips(self, clips: list[Clip], model: Model) -> None:
        """``clips``, just added to ``model``, are the user's."""
        names = tuple(model.skeleton.names)
        self.clips.extend((clip, names) for clip in clips)

    def choose_mesh(self, name: str, shown: bool) -> None:
        self.mesh_choices[name] = shown

    def onto(self, model: Model) -> Model:
        """``model`` (read again from its files) with the added clips it lacks, where its skeleton is
        the one they were made for, and the user's mesh choices (``visible`` is the user's to set on
        a loaded model: ``Model.CHOSEN_FIELDS``)."""
        names = tuple(model.skeleton.names)
        present = {clip.name for clip in model.clips}
        missing = [clip for clip, made_for in self.clips
                   if made_for == names and clip.name not in present and keys_fit(clip, model)]
        if missing:
            model = replace(model, clips=(*model.clips, *missing)).freeze()
        for mesh in model.meshes:
            if mesh.name in self.mesh_choices:
                mesh.visible = self.mesh_choices[mesh.name]
        return model


def keys_fit(clip: Clip, model: Model) -> bool:
    """Whether the meshes ``clip`` keys (morph weights, opacity) are ``model``'s, with as many targets."""
    meshes = model.meshes
    for channel in clip.weight_channels:
        if not 0 <= channel.mesh < len(meshes) or meshes[channel.mesh].morphs is None:
            return False
        if meshes[channel.mesh].morphs.positions.shape[0] != channel.width:
            return False
    return all(0 <= mesh < len(meshes) for mesh in clip.mesh_alpha)


def same_bone(before: Model | None, bone: int | None, after: Model) -> int | None:
    """The bone of ``after`` with the name of ``before``'s bone ``bone`` (None when it has none)."""
    if before is None or bone is None or bone >= len(before.skeleton):
        return None
    name = before.skeleton.names[bone]
    return after.skeleton.names.index(name) if name in after.skeleton.names else None
