"""The viewer's state: the model on screen, its playback, how it is drawn, the selected bone, its
warnings and the ragdoll running on it, with every user action on them as one method (napari's
ViewerModel). Views read it and subscribe to ``events``; nothing here knows of Qt or timers: time
only moves through ``tick(dt)``.

Events (``ViewerState.events``):
- ``model(keep_state)``: a model is shown (``keep_state``: the same one read again or extended);
- ``pose()``: the pose on screen changed (playback moved, the ragdoll stepped, went or stopped); the
  view then moves with the model when ``following``;
- ``selection(bone)``: another bone is selected (None: none);
- ``display(name, value)``: a display option changed (``DisplayOptions``);
- ``meshes(indices)``: those meshes' visibility or material changed;
- ``warnings(warnings)``: the model's warning list changed;
- ``ragdoll(running)``: the ragdoll went or stopped;
- ``up_axis(axis)``: the model's up axis was switched;
- ``mix(settings)``: mixing went on or off (None), or its settings changed (``mix_problem`` says why
  a mix could not be made);
- ``message(text)``: a line for the status bar.

The ragdoll is the ``document`` (``RagdollDocument``: the profile being edited, which the ragdoll
panel edits) and its ``simulation`` (``Simulation``). The state binds the document to each model,
starts and stops the simulation (playback pauses while it runs and resumes after), steps it in
``tick`` and bakes its run into a clip; the panel's other controls (pause, step, reset, settings,
shooting and dragging) go to the simulation directly. However the simulation stops (Go Ragdoll
unchecked, a new model, a profile it cannot build), the state hears it through the simulation's
events and goes back to the clip.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Protocol

from app import formats, loading
from app.animation.mix import baked_clip
from app.animation.retarget import check_map, retarget_clips
from app.animation.root_motion import pose_in_place
from app.events import Events
from app.model import Clip, Model
from app.pose import Pose
from app.resources import demo_paths
from app.scene.draw_settings import DrawSettings
from app.scene.gizmo_scene import GizmoScene
from app.state import clip_measures, exports
from app.state.dangly_motion import DanglyMotion
from app.state.display import DisplayOptions
from app.state.exports import Exported
from app.state.live_mix import MixSettings, carried, checked, first_settings, mix_from_names, mix_names
from app.state.mesh_images import put_image, restore_images
from app.state.load_requests import (
    ClipsRequest,
    LoadRequest,
    OtherSkeletonRequest,
    TextureDrop,
    brings_skeleton,
    is_own_animation_file,
    only_adds_animations,
    related,
)
from app.state.playback import Playback
from app.state.user_work import UserWork
from app.state.ragdoll.document import RagdollDocument
from app.state.ragdoll.tool import RagdollTool
from app.state.ragdoll.simulation import Simulation
from app.formats.textures import IMAGE_SUFFIXES, read_image


class ActionError(Exception):
    """A user action that could not be done; the message is for the user."""


class UpAxisMemory(Protocol):
    """The up axis chosen for a model file, remembered between sessions."""

    def get(self, file: str) -> str | None: ...

    def remember(self, file: str, axis: str) -> None: ...


class TextureMemory(Protocol):
    """Images assigned to a model file's meshes, remembered between sessions."""

    def for_model(self, model: Model) -> dict[str, list[int]]: ...

    def remember(self, model: Model, indices: list[int], image: str) -> None: ...


class ViewerState:
    """The model on screen and everything the viewer does with it.

    ``load_options`` are those the model on screen was read with (a reload reads with them again).
    With ``ragdoll_dir`` (the user's data folder, where profiles that cannot be saved beside their
    model go) the state has a ragdoll: ``document`` (the profile being edited), ``simulation`` and
    ``ragdoll_tool`` (what the view's presses and drags do to them); without, all three are None.
    ``up_axes`` and ``textures`` remember the user's choices per model file (None: not remembered);
    ``sessions``, the user's work on each model between runs (``UserWork``; None: while it runs).
    """

    def __init__(self, load_options: formats.LoadOptions | None = None, ragdoll_dir: str | Path | None = None,
                 up_axes: UpAxisMemory | None = None, textures: TextureMemory | None = None,
                 sessions: Path | None = None):
        self.load_options = load_options or formats.LoadOptions()
        #: The texture folders the command line gave; remembered folders are searched after them.
        self._given_texture_dirs = list(self.load_options.texture_dirs)
        self.model: Model | None = None
        self.playback: Playback | None = None
        self.dangly: DanglyMotion | None = None
        self.display = DisplayOptions(DrawSettings(show_hidden=self.load_options.show_hidden))
        self.selected_bone: int | None = None
        self.warnings: list[str] = []
        self.user_work = UserWork(sessions)
        self.document = self.simulation = self.ragdoll_tool = None
        if ragdoll_dir is not None:
            self.document = RagdollDocument(ragdoll_dir, builtin_files=tuple(demo_paths()))
            self.simulation = Simulation(self.document)
            self.ragdoll_tool = RagdollTool(self.document, self.simulation)
        simulation = self.simulation
        self.up_axes = up_axes
        self.textures = textures
        self._resume_playback = False
        self._ragdoll_shown = False
        #: The timeline's second clip (None: one clip plays); the chosen clip it was last mixed with.
        self.mix: MixSettings | None = None
        self.mix_problem = ""
        self._mixed_from: Clip | None = None
        self.events = Events("model", "pose", "selection", "display", "meshes", "warnings", "ragdoll",
                             "up_axis", "message", "mix")
        self.display.events.subscribe("changed", self._display_changed)
        if simulation is not None:
            simulation.events.subscribe("running", self._ragdoll_switched)
            simulation.events.subscribe("pose", self._ragdoll_moved)

    # --- the model --------------------------------------------------------------------------------

    def set_model(self, model: Model, keep_state: bool = False,
                  load_options: formats.LoadOptions | None = None) -> None:
        """Show ``model`` (read with ``load_options``, when given). ``keep_state`` (reload, attach, a
        bake...) carries the clip (by name), time, speed, direction, looping, the user's work
        (``user_work``), the selected bone (by name) and the ragdoll profile being edited over."""
        if load_options is not None:
            self.load_options = load_options
        model, selected = self.user_work.arrive(self.model, self.selected_bone, model, keep_state,
                                                self._mix_names())
        if self.simulation is not None:
            self.simulation.stop()  # back to the clip while the old model is still shown
        previous = self.playback if keep_state else None
        if self.mix is not None:
            self.mix = carried(self.mix, self.model, model) if keep_state else None
        restored = None if keep_state else mix_from_names(self.user_work.mix, model)
        self._mixed_from = None
        self._use_remembered_up_axis(model)
        self.model = model
        self.playback = Playback(model)
        self.dangly = DanglyMotion(model, self.playback, self._clip_pose)
        self.dangly.set_on(self.display.dangly_motion)
        self._resume_playback = False
        if self.document is not None:
            self.document.set_model(model, keep_profile=keep_state)
        if previous is not None:
            previous.carry_to(self.playback)
        if restored is not None:  # the live mix set aside with the work: its clip chosen, mixed again
            self.playback.set_clip(restored[0])
            self.mix = restored[1]
        self.playback.subscribe(self._playback_changed)
        self.display.bones = self.display.bones or not model.meshes
        self.selected_bone = selected
        self.warnings = list(model.warnings)
        failed = self._restore_textures()
        self.events.emit("model", keep_state)
        if selected is not None:
            self.events.emit("selection", selected)
        self._playback_changed()
        if self.mix is None:
            self.mix_problem = ""
            self.events.emit("mix", None)
        if failed:
            self.events.emit("message", f"An assigned texture could not be read: {failed[0]}")
        self._say_notes()

    def _mix_names(self) -> dict | None:
        return mix_names(self.mix, self.model, self.playback.chosen if self.playback is not None else None)

    def keep_session(self) -> None:
        """The window closes: the work on the model on screen is kept for its next opening."""
        if self.model is not None and self.model.files:
            self.user_work.keep(self.model, self.selected_bone, self._mix_names())
        self._say_notes()

    def _say_notes(self) -> None:
        for note in self.user_work.take_notes():
            self.events.emit("message", note)

    def attaches(self, paths: list[str | Path], forced: bool = False) -> bool:
        """Whether files dropped on the window attach to the model on screen (read again with it)
        rather than open as a new model: when ``forced`` (Shift held), or when every file only adds
        animations to it (animation files, or C3DE bones files for a C3DE model). Never for a model
        built without files."""
        if self.model is None or not self.model.files:
            return False
        return forced or only_adds_animations(self.model, [str(path) for path in paths])

    def files_with(self, paths: list[str | Path]) -> list[str]:
        """The model's files, then those of ``paths`` not among them: what is read to attach ``paths``."""
        files = list(self.model.files) if self.model is not None else []
        return files + [str(Path(path)) for path in paths if str(Path(path)) not in files]

    # --- what to read ------------------------------------------------------------------------------

    def open_request(self, paths: list[str | Path]) -> LoadRequest:
        """``paths`` as a new model. The frame rate set for the model on screen is its own: the new
        files start at their default."""
        return LoadRequest(tuple(str(Path(p)) for p in paths), replace(self.load_options, fps=None), False)

    def attach_request(self, paths: list[str | Path]) -> LoadRequest | ClipsRequest:
        """File › Attach Animation: the model's files read again together with ``paths`` (animations
        that belong to it); files that bring a skeleton of their own are read alone first
        (``ClipsRequest``, then ``attach_read``). With no model read from files, ``paths`` open as a
        new one."""
        if self.model is None or not self.model.files:
            return self.open_request(paths)
        files = [str(Path(path)) for path in paths]
        own = all(is_own_animation_file(self.model, path) for path in files)
        if not own and not only_adds_animations(self.model, files) and brings_skeleton(files):
            return ClipsRequest(tuple(files), loading.other_skeleton_options(self.load_options))
        return self.together_request(paths)

    def other_skeleton_request(self, paths: list[str | Path]) -> OtherSkeletonRequest:
        """File › Attach Clips of Another Skeleton: ``paths`` read alone, for the bone map."""
        return OtherSkeletonRequest(tuple(str(Path(p)) for p in paths),
                                    loading.other_skeleton_options(self.load_options))

    def together_request(self, paths: list[str | Path]) -> LoadRequest:
        """The model's files read again together with ``paths``, keeping the clip and time."""
        return LoadRequest(tuple(self.files_with(paths)), self.load_options, True)

    def attach_read(self, source: Model) -> LoadRequest | None:
        """What a ``ClipsRequest``'s files, read as ``source``, do: when they are the model's own
        animations (``load_requests.related``: its supermodels, or clips of its skeleton by bone
        names) they are read again with the model, as the command line reads them; None when they
        need a bone map (the window opens it: ``add_clips_from``). ActionError for files without
        skeletal clips."""
        if not any(clip.skeletal for clip in source.clips):
            raise ActionError(f"{source.name} has no skeletal clips to attach")
        return self.together_request(source.files) if related(source, self.model) else None

    def reload_request(self, options: formats.LoadOptions | None = None) -> LoadRequest | None:
        """The model's files read again (with ``options``, default its own), keeping clip and time;
        None for a model built without files."""
        if self.model is None or not self.model.files:
            return None
        return LoadRequest(tuple(self.model.files), options or self.load_options, True)

    def fps_request(self, fps: float) -> LoadRequest | None:
        """The model read again at ``fps`` frames per second; None when that changes nothing."""
        if fps == self.load_options.fps:
            return None
        return self.reload_request(replace(self.load_options, fps=fps))

    def drop_request(self, paths: list[str | Path],
                     forced: bool = False) -> LoadRequest | ClipsRequest | TextureDrop:
        """Dropped files (any number) open as a new model; they attach to it when ``forced`` (Shift
        held) or when every file only adds animations (``attaches``), as File › Attach Animation does
        (files of another skeleton then go through the bone map). One image dropped on a model is a
        texture."""
        if self.model is not None and len(paths) == 1 and Path(paths[0]).suffix.lower() in IMAGE_SUFFIXES:
            return TextureDrop(str(paths[0]))
        return self.attach_request(paths) if self.attaches(paths, forced) else self.open_request(paths)

    def use_texture_folders(self, folders: list[str]) -> None:
        """Textures are looked for in the command line's folders, then in ``folders`` (the remembered
        ones); the next read uses them."""
        self.load_options = replace(self.load_options, texture_dirs=self._given_texture_dirs + list(folders))

    @property
    def counts_frames(self) -> bool:
        """Whether the model's format stores frames without times (LoadOptions.fps sets their rate)."""
        fmt = formats.formats.get(self.model.format) if self.model is not None else None
        return fmt is not None and fmt.frames_without_times

    def close_model(self) -> None:
        """Back to the built-in demo, read with the default options (keeping the quaternion
        convention the user chose)."""
        options = formats.LoadOptions(conjugate_quaternions=self.load_options.conjugate_quaternions)
        self.user_work.forget(self.model)  # asked first (File › Close): not set aside, nor kept
        self.set_model(loading.load(demo_paths(), options), load_options=options)

    def _use_remembered_up_axis(self, model: Model) -> None:
        """The up axis chosen for this file before, unless the command line gave one."""
        remembered = self.up_axes.get(model.files[0]) if self.up_axes is not None and model.files else None
        if remembered and model.up_source != "option":
            model.up_axis, model.up_source = remembered, "option"

    def set_up_axis(self, axis: str) -> None:
        """The model's up axis from now on, remembered for its file."""
        if axis not in ("Y", "Z"):
            raise ValueError(f"up axis must be 'Y' or 'Z', got {axis!r}")
        model = self.model
        if model is not None and model.up_axis != axis:
            model.up_axis, model.up_source = axis, "option"
            if model.files and self.up_axes is not None:
                self.up_axes.remember(model.files[0], axis)
        self.events.emit("up_axis", axis)

    def add_warning(self, message: str) -> None:
        """A problem met while showing the model (the renderer's): listed with the readers' warnings."""
        self.warnings.append(message)
        self.events.emit("warnings", self.warnings)

    # --- time and poses ---------------------------------------------------------------------------

    def tick(self, dt: float) -> None:
        """``dt`` wall seconds passed: the ragdoll steps while it runs, else the clip plays on."""
        if self.ragdoll_running:
            self.simulation.tick(dt)
        elif self.playback is not None:
            self.dangly.advance(dt)

    def current_pose(self) -> Pose:
        """What the view shows: the ragdoll while it runs, else the clip at the playhead (in place
        when View › In Place is on, its danglymeshes swung when View › Dangly Motion is)."""
        if self.ragdoll_running:
            return self.simulation.pose()
        return self.dangly.swung(self._clip_pose())

    def _clip_pose(self) -> Pose:
        pose = self.playback.pose()
        clip = self.playback.clip
        if not self.display.in_place or clip is None:
            return pose
        return pose_in_place(self.model, pose, *clip_measures.travel_start(clip, self.model))

    def root_path_scene(self) -> GizmoScene | None:
        """View › Root Path: the clip's root path on the ground with its facing each second, as
        gizmo lines (None when off, without a clip, or while the ragdoll runs); made once per clip."""
        clip = self.playback.clip if self.playback is not None else None
        if not self.display.root_path or clip is None or self.ragdoll_running:
            return None
        return clip_measures.root_path(clip, self.model)

    def copy_poses(self) -> list[Pose]:
        """The other ragdoll copies' poses while the ragdoll runs (none otherwise)."""
        if not self.ragdoll_running:
            return []
        return [self.simulation.pose(copy) for copy in range(1, self.simulation.copies)]

    @property
    def following(self) -> bool:
        """The view keeps the model in sight: while the ragdoll runs (a shot body would fly out of the
        frame; the window puts the camera back on Stop), or when View › Follow is on and the clip on
        screen travels (root motion; measured once per clip)."""
        if self.ragdoll_running:
            return True
        clip = self.playback.clip if self.playback is not None else None
        if clip is None or not self.display.follow:
            return False
        return clip_measures.travels(clip, self.model)

    def _playback_changed(self) -> None:
        if self.mix is not None and self.playback.chosen is not self._mixed_from:
            self._bake_mix()  # another clip was chosen: the mix is made from it (and this runs again)
            return
        if self.simulation is not None and not self.simulation.running:
            self.simulation.set_clip_pose(self.playback.pose())
        self.events.emit("pose")

    def _ragdoll_moved(self) -> None:
        """The simulation's pose changed (it stepped, was reset or stepped a frame)."""
        if self.playback is not None:
            self.events.emit("pose")

    # --- the ragdoll --------------------------------------------------------------------------------

    @property
    def ragdoll_running(self) -> bool:
        return self.simulation is not None and self.simulation.running

    def go_ragdoll(self, on: bool) -> bool:
        """Go ragdoll from the current frame (the clip's pose and velocities), or back to the clip.
        Playback pauses while the ragdoll runs and resumes when it stops. Returns whether the
        ragdoll runs as asked; ActionError when the simulation refuses to start."""
        if not on:
            if self.simulation is not None:
                self.simulation.stop()
            return True
        if self.playback is None or self.simulation is None or self.simulation.running:
            return self.ragdoll_running
        self._resume_playback = self.playback.playing
        try:
            self.simulation.go(self.playback.clip, self.playback.time)
        except Exception as error:  # noqa: BLE001 - a profile pybullet refuses is the user's to fix
            self._resume_playback = False
            raise ActionError(f"Could not start the ragdoll: {error}") from error
        if self.playback.playing:
            self.playback.set_playing(False)
        return True

    def _ragdoll_switched(self) -> None:
        """The simulation went or stopped (pausing is neither): the views follow, and playback
        resumes when it was playing before the ragdoll went."""
        running = self.simulation.running
        if running == self._ragdoll_shown:
            return
        self._ragdoll_shown = running
        self.events.emit("ragdoll", running)
        resume = self._resume_playback and not running
        if not running:
            self._resume_playback = False
            self.dangly.restart()  # back to the clip from wherever the ragdoll left it
        if resume and self.playback is not None:
            self.playback.set_playing(True)
        elif self.playback is not None:
            self._playback_changed()

    def bake_ragdoll_run(self) -> Clip | None:
        """Stop the ragdoll and add its run so far to the model as a clip, put at its start (it
        exports with the model's other clips). None, with a message, before anything ran."""
        clip = self.simulation.baked_clip() if self.ragdoll_running else None
        if clip is None:
            self.events.emit("message", "Nothing to bake yet: run the ragdoll for a moment first")
            return None
        self.simulation.stop()
        self._show_with_clips([clip])
        self.playback.set_time(clip.start)
        self.playback.set_playing(False)
        self.events.emit("message", f"Baked {clip.duration:.2f} s of ragdoll into clip {clip.name!r}")
        return clip

    # --- selection and display ----------------------------------------------------------------------

    def select_bone(self, index: int | None) -> None:
        """Select bone ``index`` (None: none): the view, the outliner and the heat map follow."""
        if index is not None and not 0 <= index < len(self.model.skeleton):
            raise ValueError(f"bone {index} outside 0..{len(self.model.skeleton) - 1}")
        self.selected_bone = index
        self.events.emit("selection", index)
        if index is not None:
            self.events.emit("message", f"bone {index}: {self.model.skeleton.names[index]}")

    def set_display(self, **changes) -> None:
        """Change display options (View menu): ``set_display(wireframe=True)``."""
        self.display.set(**changes)

    def _display_changed(self, name: str, value) -> None:
        if name == "heatmap" and value and self.selected_bone is None:
            self._ask_for_a_bone()
        if name == "dangly_motion" and self.dangly is not None:
            self.dangly.set_on(value)
        self.events.emit("display", name, value)
        if name in ("in_place", "root_path", "onion", "bone_axes", "dangly_motion"):
            self.events.emit("pose")

    def _ask_for_a_bone(self) -> None:
        self.events.emit("message", "Select a bone (click it, or pick it in the outliner) to see its weights")

    # --- two clips at once, clips of other skeletons -------------------------------------------------

    def set_mixing(self, on: bool) -> None:
        """The timeline's second clip on (the clip after the chosen one, cross-faded) or off.
        ActionError for a model with fewer than two clips."""
        if not on:
            if self.mix is not None:
                self.mix, self.mix_problem, self._mixed_from = None, "", None
                self.playback.set_mix(None)
                self.events.emit("mix", None)
            return
        if self.mix is not None:
            return
        if self.model is None or len(self.model.clips) < 2:
            raise ActionError("Mixing needs a model with two clips or more.")
        self.mix = first_settings(self.model, self.playback.clip_index)
        self._bake_mix()

    def set_mix(self, **changes) -> None:
        """Change the second clip's settings (``MixSettings`` fields: ``set_mix(mode="blend")``); the
        mix is made again and plays. A mix that cannot be made (a fade longer than a clip, a clip of
        vertices) leaves the chosen clip playing alone and says why in ``mix_problem``."""
        self.mix = checked(replace(self.mix, **changes), self.model)
        self._bake_mix()

    def _bake_mix(self) -> None:
        chosen = self.playback.chosen
        self._mixed_from = chosen
        try:
            if chosen is None:
                raise ValueError("choose the clip the second one joins")
            mixed = baked_clip(self.model, chosen, self.mix.mix(self.model))
        except ValueError as error:
            mixed, self.mix_problem = None, str(error)
        else:
            self.mix_problem = ""
        self.playback.set_mix(mixed)
        self.events.emit("mix", self.mix)

    def keep_mix(self) -> Clip:
        """Add the mix playing now to the model's clips (it exports with them) and play it alone:
        mixing ends. ValueError with ``mix_problem`` when there is no mix to keep."""
        if self.playback is None or self.playback.mix is None:
            raise ValueError(self.mix_problem or "No mix is playing: turn mixing on first")
        mixed = self.playback.mix
        self.set_mixing(False)
        return self._add_clips([mixed])[0]

    def animation_model(self) -> tuple[Model, int | None]:
        """What File › Export Animation offers: the model with the mix playing now as a clip of its
        own after the others (so the mix on screen can be rendered without keeping it), and the clip
        on screen's index among them (None without clips)."""
        playback = self.playback
        if playback is None or playback.mix is None:
            return self.model, playback.clip_index if playback is not None else None
        return replace(self.model, clips=[*self.model.clips, playback.mix]), len(self.model.clips)

    def add_clips_from(self, source: Model, mapping: dict[str, str]) -> list[Clip]:
        """Add ``source``'s skeletal clips, carried onto the model's skeleton through ``mapping``
        (source bone → model bone), and play the first. ValueError naming a bone or clip."""
        follows = check_map(mapping, source.skeleton, self.model.skeleton)
        carried = retarget_clips(source, self.model, follows)
        if not carried:
            raise ValueError(f"{source.name} has no skeletal clips")
        return self._add_clips(carried)

    def _add_clips(self, clips: list[Clip]) -> list[Clip]:
        """The model with ``clips`` added (a name already taken gets a number), playing the first."""
        taken = {clip.name for clip in self.model.clips}
        named = []
        for clip in clips:
            name, number = clip.name, 2
            while name in taken:
                name, number = f"{clip.name} {number}", number + 1
            taken.add(name)
            named.append(replace(clip, name=name))
        self._show_with_clips(named)
        return named

    def _show_with_clips(self, clips: list[Clip]) -> None:
        """Show a model made of the one on screen with ``clips`` after its own (a loaded model does not
        change), keeping its state, and play the first of them."""
        self.set_model(replace(self.model, clips=(*self.model.clips, *clips)).freeze(), keep_state=True)
        self.user_work.add_clips(clips, self.model)
        self.playback.set_clip(len(self.model.clips) - len(clips))

    # --- meshes -------------------------------------------------------------------------------------

    def set_mesh_visible(self, index: int, shown: bool) -> None:
        """Draw mesh ``index`` or not (the file's choice until the user makes one)."""
        self.model.meshes[index].visible = bool(shown)
        self.user_work.choose_mesh(self.model.meshes[index].name, bool(shown))
        self.events.emit("meshes", [index])

    def texture_targets(self, mesh_under: int | None) -> list[int]:
        """The meshes an image dropped on the view goes on: the mesh under the cursor, or every mesh
        when the model has one mesh or none is under the cursor."""
        if mesh_under is None or len(self.model.meshes) == 1:
            return list(range(len(self.model.meshes)))
        return [mesh_under]

    def assign_texture(self, indices: list[int], path: str | Path) -> str:
        """Show the image at ``path`` on meshes ``indices`` (remembered for this model file) and say
        so. An image that cannot be read raises TextureError and the meshes keep what they had."""
        image, note = read_image(Path(path))
        put_image(self.model, indices, str(path), image)
        self.events.emit("meshes", list(indices))
        if self.textures is not None:
            self.textures.remember(self.model, indices, str(path))
        meshes = [self.model.meshes[index] for index in indices]
        names = ", ".join(mesh.name or f"mesh {index}" for index, mesh in zip(indices, meshes))
        without_uvs = [mesh.name for mesh in meshes if mesh.uvs is None]
        message = f"{Path(path).name} on {names}"
        if note:
            message += f" ({note})"
        if without_uvs:
            message += f"; {', '.join(without_uvs)} has no texture coordinates, so it shows its base colour"
        self.events.emit("message", message)
        return message

    def _restore_textures(self) -> list[str]:
        """Give the meshes the images assigned to them when this file was open before; returns the
        images that could not be read (``mesh_images.restore_images``)."""
        remembered = self.textures.for_model(self.model) if self.textures is not None else {}
        return restore_images(self.model, remembered)

    # --- exports ------------------------------------------------------------------------------------

    def gltf_export(self, in_place: bool = False) -> exports.GltfExport:
        """Every mesh shown, the skeleton and every clip (the mix playing now too) as glTF 2.0, read back
        and checked (``exports.export_gltf``), as a job to run now or in a worker. ``in_place``: the
        clips without the root's travel (``convert --in-place``), whatever View › In Place says."""
        return exports.GltfExport(self.animation_model()[0], in_place, self.display.show_hidden)

    def export_gltf(self, path: str | Path, in_place: bool = False) -> Exported:
        """``gltf_export`` written now. Raises OSError, ValueError or InputError."""
        return self.gltf_export(in_place)(path)

    def pose_export(self) -> exports.PoseExport:
        """The pose on screen, skinned as the view skins, as a job to run now (``export_pose``: raises
        OSError or ValueError) or in a worker."""
        return exports.PoseExport(self.model, self.current_pose(), self.display.skinning)

    def export_pose(self, path: str | Path) -> Exported:
        return self.pose_export()(path)
