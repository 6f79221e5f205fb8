"""The running ragdoll of a ``RagdollDocument``: the pybullet world, whether it runs, its settings,
shooting and dragging with view rays, and the run recorded for Bake Run to Clip.

Stepping happens when the owner calls ``tick(dt)`` with the wall seconds since the last call:
``Ragdoll.advance(dt, budget)`` runs the fixed 240 Hz steps that asks for. The budget follows what
that costs: stepping may take up to REALTIME_SHARE of ``dt``, so the simulation keeps real time
whenever its cost allows, however slowly frames are drawn, and never more than ``budget`` per tick, so
a machine that cannot keep up shows slow motion instead of freezing the window. Keeping pybullet on
the caller's thread means picking, shooting, dragging and rebuilding after an edit need no locking.

Events: ``pose`` (the simulated pose moved), ``running`` (started, stopped, paused), ``settings``
(gravity, ground, copies, impulse, budget, drag strength, tool), ``stats`` (the real-time factor,
at most every STATS_SECONDS of simulated wall time; also a shot's or drag's message).
"""

from __future__ import annotations

import time as _time

import numpy as np

from app.events import Events
from app.model import Clip
from app.physics.ragdoll import DRAG_WEIGHTS, GRAVITY, TIME_STEP, Ragdoll, RayHit
from app.pose import Pose, rest_extent
from app.scene.gizmo_scene import pick_box
from app.state.ragdoll.document import RagdollDocument

#: Default shot impulse (N·s) and per-tick stepping budget (s).
DEFAULT_IMPULSE = 25.0
DEFAULT_BUDGET = 0.05
#: The most of each tick's wall time that stepping may take (the rest draws the frame).
REALTIME_SHARE = 0.8
#: "Step" advances one display frame of this many seconds.
STEP_SECONDS = 1.0 / 60.0
#: How often (seconds of wall time) the real-time statistics are refreshed.
STATS_SECONDS = 0.5
#: Frames per second of simulated time a run keeps for baking, and the most it keeps (ten minutes).
RUN_RATE = 30.0
MAX_RUN_FRAMES = 18_000
TOOLS = ("shoot", "drag")


class Simulation:
    """The ragdoll of ``document`` (see the module's docstring). The world is built on the first
    ``go`` and rebuilt from the take-over pose after each profile edit."""

    def __init__(self, document: RagdollDocument):
        self.document = document
        self.ragdoll: Ragdoll | None = None
        self.running = False
        self.paused = False
        self.tool = "shoot"
        self.impulse = DEFAULT_IMPULSE
        self.budget = DEFAULT_BUDGET
        self.copies = 1
        self.gravity = True
        self.ground = True
        #: Physical animation (docs/ragdoll.md): on Go, motors drive the joints toward the clip at
        #: ``motor_strength`` (0..1) while the root follows it; ``release`` fades them out over
        #: ``release_seconds``.
        self.follow = False
        self.motor_strength = 1.0
        self.release_seconds = 1.0
        self.drag_strength: float | None = None
        self.message = ""
        self.last_hit: RayHit | None = None
        #: The last shot: (origin, end, hit, monotonic time).
        self.last_shot: tuple[np.ndarray, np.ndarray, bool, float] | None = None
        #: While dragging: (copy, part, the grabbed point in the part's frame (4,)) and the target.
        self.drag_anchor: tuple[int, int, np.ndarray] | None = None
        self.drag_target: np.ndarray | None = None
        self.realtime: float | None = None
        self.steps_per_frame = 0.0
        self._clip_world: np.ndarray | None = None
        self._drag_plane: tuple[np.ndarray, np.ndarray] | None = None
        self._stats = [0.0, 0, 0]  # wall seconds, steps, ticks since the last refresh
        self._times: list[float] = []  # the recorded run: ragdoll time and bone world (float32) per frame
        self._frames: list[np.ndarray] = []
        self.events = Events("pose", "running", "settings", "stats")
        document.events.subscribe("profile", self._profile_changed)

    # --- the world -----------------------------------------------------------------------------------

    def _profile_changed(self, why: str = "edit") -> None:
        """A new model drops the world; an edit rebuilds a running world from the take-over pose, and
        drops a stopped one (it is built again on the next start, not on every step of a drag)."""
        if why == "model":
            self.stop()
            self._clip_world = None
            self._close_ragdoll()
            # What the last model's run said (a shot, a drag) is not the new model's.
            self.message, self.last_hit, self.last_shot = "", None, None
            self.events.emit("stats")
            return
        if not self.running:
            self._close_ragdoll()
            return
        profile = self.document.profile
        if profile is None:
            self._close_ragdoll()
            return
        try:
            self.ragdoll.rebuild(profile)
            self._apply_drag_strength()
        except Exception as error:  # noqa: BLE001 - pybullet refusing a profile must not kill the editor
            self._close_ragdoll()
            self.message = f"Could not build the ragdoll: {error}"
            self.events.emit("stats")
        if self.running:
            self.events.emit("pose")

    def _ensure_ragdoll(self) -> Ragdoll:
        if self.ragdoll is None:
            document = self.document
            if document.profile is None:
                raise ValueError(document.message or "this model has no ragdoll profile")
            self.ragdoll = Ragdoll(document.model, document.profile, copies=self.copies, ground=self.ground,
                                   gravity=self.gravity)
            self._apply_drag_strength()
        return self.ragdoll

    def _apply_drag_strength(self) -> None:
        if self.drag_strength is not None:
            self.ragdoll.set_drag_strength(self.drag_strength)

    def _close_ragdoll(self) -> None:
        """Drop the world (it is rebuilt on the next start); nothing runs without one."""
        if self.ragdoll is not None:
            self.ragdoll.close()
            self.ragdoll = None
        if self.running:
            self.running = False
            self._drag_plane = None
            self.events.emit("running")

    def close(self) -> None:
        self.running = False
        self._close_ragdoll()

    # --- running -------------------------------------------------------------------------------------

    def go(self, clip: Clip | None, time: float) -> None:
        """Take over from ``clip`` at ``time`` seconds (its pose and velocities) and start simulating."""
        ragdoll = self._ensure_ragdoll()
        ragdoll.take_over_clip(clip, time)
        if self.follow and clip is not None:
            from app.physics.drive import Drive

            ragdoll.set_drive(Drive(ragdoll, clip, time, strength=self.motor_strength, follow=True))
        self.running, self.paused = True, False
        self.last_hit = None
        self.realtime = None
        self._stats = [0.0, 0, 0]
        self._times, self._frames = [], []
        self._record()
        self.events.emit("running")
        self.events.emit("pose")

    def stop(self) -> None:
        """Back to the clip; the ragdoll world is kept for the next start."""
        if not self.running:
            return
        self.end_drag()
        self.running = False
        self.events.emit("running")

    def set_paused(self, paused: bool) -> None:
        self.paused = bool(paused)
        self.events.emit("running")

    def step_frame(self) -> None:
        """One display frame (STEP_SECONDS) of simulation, paused or not."""
        if self.running:
            self.ragdoll.step(int(round(STEP_SECONDS / TIME_STEP)))
            self._record()
            self.events.emit("pose")

    def reset(self) -> None:
        """Back to the pose the ragdoll took over from."""
        if self.ragdoll is not None:
            self.ragdoll.reset()
            if self.running:
                self._record()
            self.events.emit("pose")

    def tick(self, dt: float) -> int:
        """Simulate ``dt`` wall seconds within the budget; the steps taken."""
        if not self.running or self.paused:
            return 0
        taken = self.ragdoll.advance(dt, self.tick_budget(dt))
        stats = self._stats
        stats[0] += dt
        stats[1] += taken
        stats[2] += 1
        if stats[0] >= STATS_SECONDS:
            self.realtime = stats[1] * TIME_STEP / stats[0]
            self.steps_per_frame = stats[1] / stats[2]
            self._stats = [0.0, 0, 0]
            self.events.emit("stats")
        if taken:
            self._record()
            self.events.emit("pose")
        return taken

    def tick_budget(self, dt: float) -> float:
        """Wall seconds stepping may take in a tick ``dt`` seconds after the last one."""
        return min(self.budget, REALTIME_SHARE * max(dt, TIME_STEP))

    @property
    def time(self) -> float:
        """Simulated seconds since the take-over (0 without a world)."""
        return self.ragdoll.time if self.ragdoll is not None else 0.0

    # --- the run, for baking -------------------------------------------------------------------------

    def _record(self) -> None:
        """Keep the pose now for ``baked_clip``, at most RUN_RATE frames a simulated second, as float32
        (a long run at every tick in float64 held hundreds of MB). A run that went back in time (reset,
        a rebuild after an edit) starts over."""
        now, times = self.ragdoll.time, self._times
        if times and now < times[-1]:
            times.clear()
            self._frames.clear()
        # A last frame less than a period after the one before it is provisional: it moves to the newest
        # pose, so the run always ends at the pose shown and keeps at most RUN_RATE frames a second.
        if times and (now == times[-1] or (len(times) > 1 and times[-1] - times[-2] < 1.0 / RUN_RATE - 1e-9)):
            times.pop()
            self._frames.pop()
        if len(times) < MAX_RUN_FRAMES:
            times.append(now)
            self._frames.append(self.ragdoll.bone_world().astype(np.float32))

    def run_frames(self) -> int:
        """How many frames of the current run ``baked_clip`` would hold."""
        return len(self._times)

    def baked_clip(self) -> Clip | None:
        """The run so far (from the take-over, RUN_RATE frames a second and the last pose shown) as a
        'matrices' clip named ``ragdoll`` (``ragdoll 2`` … when taken), or None before two frames."""
        if len(self._times) < 2:
            return None
        names = {clip.name for clip in self.document.model.clips}
        name = next(n for n in (f"ragdoll {k}" if k > 1 else "ragdoll" for k in range(1, len(names) + 2))
                    if n not in names)
        return Clip(name=name, kind="matrices", times=np.array(self._times), world=np.stack(self._frames))

    # --- settings ------------------------------------------------------------------------------------

    def set_gravity(self, on: bool) -> None:
        self.gravity = bool(on)
        if self.ragdoll is not None:
            self.ragdoll.gravity = self.gravity
        self.events.emit("settings")

    def set_follow(self, on: bool) -> None:
        """Ragdoll › Follow Clip: the next Go follows the clip with motors (a running one goes on)."""
        self.follow = bool(on)
        self.events.emit("settings")

    def set_motor_strength(self, strength: float) -> None:
        """The motors' share of their torque (0..1), at once on a running ragdoll's motors."""
        if not 0.0 <= strength <= 1.0:
            raise ValueError(f"motor strength: expected 0 to 1, got {strength}")
        self.motor_strength = float(strength)
        if self.ragdoll is not None and self.ragdoll.drive is not None:
            self.ragdoll.drive.strength = self.motor_strength
        self.events.emit("settings")

    def set_release_seconds(self, seconds: float) -> None:
        if not seconds >= 0.0:
            raise ValueError(f"release time: expected seconds >= 0, got {seconds}")
        self.release_seconds = float(seconds)
        self.events.emit("settings")

    def release(self) -> bool:
        """Ragdoll › Release Motors: free the root now and fade the motors out over
        ``release_seconds`` (a death that starts from the clip). False when nothing drives it."""
        if not self.running or self.ragdoll.drive is None:
            return False
        drive = self.ragdoll.drive
        drive.release_at, drive.release_over = self.ragdoll.time, self.release_seconds
        return True

    def check_profile(self, progress=None) -> dict:
        """Ragdoll › Check Profile: ``ragdoll --check``'s report on the document's profile
        (``progress(share)`` as ``trial.check_profile`` tells it). It reads a copy of the profile, so it
        may run on a worker thread while the user goes on editing."""
        return self.profile_check(progress)()

    def profile_check(self, progress=None):
        """A call that makes ``check_profile``'s report from the model and a copy of the profile taken
        now (ValueError now when there is no profile): what a worker thread runs."""
        from app.physics.trial import check_profile

        if self.document.profile is None:
            raise ValueError(self.document.message or "this model has no ragdoll profile")
        model, profile = self.document.model, self.document.profile.copy()
        return lambda: check_profile(model, profile, progress)

    def set_ground(self, on: bool) -> None:
        self.ground = bool(on)
        if self.ragdoll is not None:
            self.ragdoll.ground = self.ground
        self.events.emit("settings")

    def set_copies(self, count: int) -> None:
        """How many ragdolls run side by side (at least one)."""
        if int(count) < 1:
            raise ValueError(f"copies: expected at least 1, got {count}")
        self.copies = int(count)
        if self.ragdoll is not None:
            self.ragdoll.set_copies(self.copies)
            self.events.emit("pose")
        self.events.emit("settings")

    def set_impulse(self, newton_seconds: float) -> None:
        self.impulse = _positive("impulse", newton_seconds)
        self.events.emit("settings")

    def set_budget(self, seconds: float) -> None:
        """The most wall time stepping may take per tick."""
        self.budget = _positive("budget", seconds)
        self.events.emit("settings")

    def set_drag_strength(self, newtons: float) -> None:
        self.drag_strength = _positive("drag_strength", newtons)
        if self.ragdoll is not None:
            self.ragdoll.set_drag_strength(self.drag_strength)
        self.events.emit("settings")

    def set_tool(self, tool: str) -> None:
        """What a click in the view does while running: 'shoot' or 'drag'."""
        if tool not in TOOLS:
            raise ValueError(f"tool: expected 'shoot' or 'drag', got {tool!r}")
        self.tool = tool
        self.events.emit("settings")

    def current_drag_strength(self) -> float | None:
        """The drag spring's force limit (N): the one set, else the ragdoll's default (a few times
        its weight)."""
        if self.drag_strength is not None:
            return self.drag_strength
        if self.ragdoll is not None:
            return self.ragdoll.drag_strength
        profile = self.document.profile
        return DRAG_WEIGHTS * profile.total_mass * GRAVITY if profile is not None else None

    # --- poses ---------------------------------------------------------------------------------------

    def pose(self, copy: int = 0) -> Pose:
        return self.ragdoll.pose(copy)

    def set_clip_pose(self, pose: Pose) -> None:
        """The animated pose on screen while not running (where the gizmos and picking place the parts)."""
        self._clip_world = pose.world

    def part_frames(self) -> np.ndarray | None:
        """(C, P, 4, 4) every copy's part frames now: simulated, else following the clip's pose."""
        rig = self.document.rig
        if rig is None:
            return None
        if self.running:
            return self.ragdoll.all_part_world()
        world = self._clip_world if self._clip_world is not None else self.document.model.skeleton.rest_world
        return rig.parts_at(world)[None]

    # --- view rays -----------------------------------------------------------------------------------

    def click_ray(self, origin, direction, pick: bool = False) -> bool:
        """A click in the view: shoot while running (``tool`` 'shoot'), else, with ``pick`` (the
        editor shows), select the part under the cursor. True when the click was used."""
        if self.running:
            return self._shoot(origin, direction)
        rig = self.document.rig
        if not pick or rig is None:
            return False
        frames = self.part_frames()[0] @ rig.box_rotations
        hit = pick_box(origin, direction, frames, rig.half_extents)
        if hit is None:
            return False
        self.document.select_part(hit[0])
        return True

    def _shoot(self, origin, direction) -> bool:
        if self.tool != "shoot":
            return False
        hit = self.ragdoll.shoot(origin, direction, self.impulse)
        self.last_hit = hit
        origin = np.asarray(origin, np.float64)
        extent = rest_extent(self.document.model)
        end = hit.point if hit else origin + np.asarray(direction, np.float64) * 3.0 * extent
        self.last_shot = (origin, np.asarray(end, np.float64), hit is not None, _time.monotonic())
        self.message = f"Shot {hit.name} ({self.impulse:g} N·s)" if hit else "Missed"
        if hit is not None and hit.copy == 0:
            self.document.select_part(hit.part)
        self.events.emit("stats")
        return True

    def begin_drag_ray(self, origin, direction, forward, forced: bool = False) -> bool:
        """Start pulling the part under the cursor (while running, with the 'drag' tool or
        ``forced`` by Ctrl); the target then moves in the plane square to ``forward`` through the hit."""
        if not self.running or not (forced or self.tool == "drag"):
            return False
        hit = self.ragdoll.begin_drag(origin, direction)
        if hit is None:
            return False
        self._drag_plane = (hit.point, np.asarray(forward, np.float64))
        frame = self.part_frames()[hit.copy][hit.part]
        self.drag_anchor = (hit.copy, hit.part, np.linalg.solve(frame, np.append(hit.point, 1.0)))
        self.drag_target = np.asarray(hit.point, np.float64)
        self.message = f"Dragging {hit.name}"
        self.events.emit("stats")
        return True

    def drag_ray(self, origin, direction) -> None:
        if self._drag_plane is None or self.ragdoll is None:
            return
        point, normal = self._drag_plane
        direction = np.asarray(direction, np.float64)
        denominator = float(direction @ normal)
        if abs(denominator) < 1e-9:
            return
        distance = float((point - np.asarray(origin, np.float64)) @ normal) / denominator
        if distance > 0:
            self.drag_target = np.asarray(origin, np.float64) + direction * distance
            self.ragdoll.drag_to(self.drag_target)

    def end_drag(self) -> None:
        if self._drag_plane is not None:
            self._drag_plane = None
            self.drag_anchor = self.drag_target = None
            if self.ragdoll is not None:
                self.ragdoll.end_drag()
            if self.message.startswith("Dragging"):
                self.message = ""
            self.events.emit("stats")

    def drag_spring(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The drag spring's ends (the grabbed point on the part, the target) while dragging."""
        if not self.running or self.drag_anchor is None or self.drag_target is None:
            return None
        copy, part, local = self.drag_anchor
        return (self.part_frames()[copy][part] @ local)[:3], self.drag_target


def _positive(name: str, value) -> float:
    if not float(value) > 0:
        raise ValueError(f"{name}: expected a positive number, got {value}")
    return float(value)
