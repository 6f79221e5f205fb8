"""What the user did to the model on screen beyond what its files give, kept across File › Reload
(F5) and a new frame rate: clips added through the bone map or kept from a mix, meshes shown or
hidden in the Outliner, the selected bone. A model read again is a new Model made from the files
alone; ``onto`` puts this work back on it. Opening another model sets the work aside, by the
model's files, for as long as the window runs: reopening those files (File › Open Recent) brings it
back (``arrive``). File › Close drops it (``forget``).

Added clips hold bone indices of the skeleton they were made for, so they are put back only on a
model whose skeleton has the same bone names in the same order (a file edited elsewhere may not)."""

from __future__ import annotations

from dataclasses import replace

from app.model import Clip, Model


class UserWork:
    def __init__(self):
        #: The clips the user added, each with the bone names of the skeleton it was made for.
        self.clips: list[tuple[Clip, tuple[str, ...]]] = []
        #: Each mesh the user ticked or cleared in the Outliner, by name: drawn or not.
        self.mesh_choices: dict[str, bool] = {}
        #: The work on models opened earlier, by their files: (clips, mesh choices, selected bone name).
        self.set_aside: dict[tuple[str, ...], tuple[list, dict[str, bool], str | None]] = {}

    def arrive(self, before: Model | None, selected: int | None, model: Model,
               keep_state: bool) -> tuple[Model, int | None]:
        """``model`` about to be shown, with this work on it, and the bone to select: ``before``'s
        selected bone by name when the model is read again (``keep_state``); else the work on
        ``before`` is set aside and the work set aside for ``model``'s files, if any, taken up."""
        if keep_state:
            return self.onto(model), same_bone(before, selected, model)
        if before is not None and before.files and (self.clips or self.mesh_choices):
            bone = before.skeleton.names[selected] if selected is not None else None
            self.set_aside[tuple(before.files)] = (list(self.clips), dict(self.mesh_choices), bone)
        self.clips, self.mesh_choices, bone = self.set_aside.pop(tuple(model.files), ([], {}, None))
        model = self.onto(model)
        return model, model.skeleton.names.index(bone) if bone in model.skeleton.names else None

    def clips_set_aside(self, files: list[str]) -> int:
        """How many added clips wait for the model of ``files`` (File › Open Recent says so)."""
        return len(self.set_aside.get(tuple(files), ([],))[0])

    @property
    def unsaved_clips(self) -> list[str]:
        """The names of the added clips: they live only in the window until exported."""
        return [clip.name for clip, _ in self.clips]

    def forget(self) -> None:
        self.clips.clear()
        self.mesh_choices.clear()

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
        missing = [clip for clip, made_for in self.clips if made_for == names and clip.name not in present]
        if missing:
            model = replace(model, clips=(*model.clips, *missing)).freeze()
        for mesh in model.meshes:
            if mesh.name in self.mesh_choices:
                mesh.visible = self.mesh_choices[mesh.name]
        return model


def same_bone(before: Model | None, bone: int | None, after: Model) -> int | None:
    """The bone of ``after`` with the name of ``before``'s bone ``bone`` (None when it has none)."""
    if before is None or bone is None or bone >= len(before.skeleton):
        return None
    name = before.skeleton.names[bone]
    return after.skeleton.names.index(name) if name in after.skeleton.names else None
