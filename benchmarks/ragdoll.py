"""Ragdoll benchmark: ``python -m benchmarks.ragdoll`` (or ``python -m benchmarks.bench ragdoll``).

(a) How many demo ragdolls one world simulates in real time at 240 Hz (goal ≥ 20). N copies start
    standing at the bind pose and run for 6 s: they fall (0–1 s), lie awake (2–3 s: the dearest
    part, every box in contact with the ground) and sleep (5–6 s). Each window's real-time factor
    (simulated seconds per wall second) is printed; N counts as real time when the whole 6 s run
    keeps up, and as sustained real time when every awake window does too. N grows until the run
    falls behind. The cost per ragdoll-step while lying is given as a ratio to one ragdoll's.
(b) The per-frame cost of reading the bones back (getLinkStates for every link, then the bone
    matrices), for one ragdoll and for all N, as ratios to evaluating the demo's walk clip (what
    playback costs per frame) and to one physics step of the same world.
(c) The simulation cost of one ragdoll per 240 Hz step, falling (first 0.5 s) and lying awake (1.5-2 s),
    for the automatic setups of the demo, synthetic.humanoid under generic names (the generic setup)
    and the same figure as a flat skeleton (no parents: the inferred hierarchy), each as a ratio to the
    demo's falling step.
(d) Physical animation: how many demo ragdolls following the walk clip with motors (root on the clip)
    one world keeps in real time at 240 Hz over 3 s (goal >= 10); one follower's joint-angle error
    against the clip (median and worst, degrees) with nothing hitting it, and how long after a
    50 N·s shot at its left forearm its arm is back within 10° of the clip (goal <= 0.75 s).
(e) A follower's set-up (``Drive``) on a 60 s clip of the walk's keys at 30 keys a second: it runs on
    the window's thread when Go Ragdoll starts following (goal < 200 ms: the window keeps answering).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from app import loading
from app.model import Model, Skeleton
from app.physics.autosetup import auto_setup
from app.physics.drive import Drive
from app.physics.multibody import gimbal_angles
from app.physics.ragdoll import TIME_STEP, Ragdoll
from app.pose import evaluate
from app.resources import demo_paths
from tests import synthetic
from benchmarks.bench import best_of

COPIES = (1, 5, 10, 15, 20, 25, 30, 35, 40, 50, 60)


def fresh(world: Ragdoll) -> Ragdoll:
    """``world`` with its part frames forgotten, so the next read asks pybullet as after a step."""
    world._frames.clear()
    return world


def realtime_factors(world: Ragdoll) -> dict[str, float]:
    """Real-time factors of the windows falling (0–1 s), lying (2–3 s), asleep (5–6 s) and of the
    whole 6 s run."""
    second = int(round(1.0 / TIME_STEP))
    walls = []
    for _ in range(6):
        started = time.perf_counter()
        world.step(second)
        walls.append(time.perf_counter() - started)
    return {"falling": 1.0 / walls[0], "lying": 1.0 / walls[2], "asleep": 1.0 / walls[5],
            "run": 6.0 / sum(walls)}


def run() -> dict:
    model = loading.load(demo_paths())
    profile = auto_setup(model)
    walk = model.clips[model.clip_index("walk")]
    figures: dict = {}
    realtime = sustained = 0
    single_lying = None
    read_all = None
    for copies in COPIES:
        with Ragdoll(model, profile, copies=copies) as world:
            factors = realtime_factors(world)
            lying_step = TIME_STEP / factors["lying"] / copies
            single_lying = single_lying or lying_step
            figures[f"{copies:>2} ragdolls: real time falling/lying/asleep/run"] = " / ".join(
                f"{factors[key]:.2f}" for key in ("falling", "lying", "asleep", "run"))
            figures[f"{copies:>2} ragdolls: ratio lying step per ragdoll / one's"] = lying_step / single_lying
            if factors["run"] < 1.0:
                break
            realtime = copies
            if min(factors["falling"], factors["lying"]) >= 1.0:
                sustained = copies
            read_all = best_of(lambda: fresh(world).all_part_world(), number=20)
    figures["ragdolls in real time over a 6 s fall (goal >= 20)"] = realtime
    figures["ragdolls in real time while all awake"] = sustained

    with Ragdoll(model, profile) as world:
        world.step(540)  # lying, still awake (it sleeps 2 s after coming to rest)
        step_one = best_of(lambda: world.step(1), repeats=3, number=40)
        read_one = best_of(lambda: fresh(world).pose(), number=200)
    playback = best_of(lambda: evaluate(model, walk, 0.37), number=200)
    figures["read back 1 ragdoll's bones (ms)"] = read_one * 1e3
    figures["ratio read back / walk clip evaluate"] = read_one / playback
    figures["ratio read back / one awake lying step"] = read_one / step_one
    if realtime:
        figures[f"read back all {realtime} ragdolls' parts (ms)"] = read_all * 1e3
        figures[f"ratio read back {realtime} / walk clip evaluate"] = read_all / playback
    figures.update(costs_per_ragdoll(model))
    figures.update(powered(model, profile, walk))
    figures["follow set-up on a 60 s clip (ms; goal < 200)"] = follow_setup(model, profile, walk) * 1e3
    return figures


def follow_setup(model: Model, profile, clip) -> float:
    """(e): seconds a following Drive takes to set up on a 60 s clip made of ``clip``'s keys."""
    long = synthetic.repeated_clip(clip)
    with Ragdoll(model, profile) as world:
        world.take_over_clip(long, 0.0)

        def set_up() -> None:
            drive = Drive(world, long, 0.0, follow=True)
            drive.stop()
        return best_of(set_up, repeats=3, number=1)


def _following(model: Model, profile, clip, copies: int = 1) -> Ragdoll:
    world = Ragdoll(model, profile, copies=copies)
    world.take_over_clip(clip, 0.0)
    world.set_drive(Drive(world, clip, 0.0, follow=True))
    return world


def _clip_errors(world: Ragdoll, clip) -> np.ndarray:
    """(J,) degrees each joint is off the clip's own angles now (a hinge's off-axis angles left out)."""
    rig = world.rig
    time = clip.start + world.time % clip.duration
    frames = rig.joint_world(rig.parts_at(evaluate(world.model, clip, time).world))
    wanted = np.degrees(gimbal_angles(np.swapaxes(frames[:, 0, :3, :3], -1, -2) @ frames[:, 1, :3, :3]))
    gap = np.abs((np.degrees(world.joint_angles()) - wanted + 180.0) % 360.0 - 180.0)
    gap[rig.hinge, 1:] = 0.0
    return gap.max(axis=1)


def powered(model: Model, profile, clip) -> dict:
    """(d): powered ragdolls in real time, tracking error and recovery after a shot."""
    figures: dict = {}
    realtime = 0
    for copies in (1, 5, 10, 15, 20, 25, 30):
        with _following(model, profile, clip, copies) as world:
            started = time.perf_counter()
            world.step(int(round(3.0 / TIME_STEP)))
            factor = 3.0 / (time.perf_counter() - started)
        figures[f"{copies:>2} powered ragdolls following walk: real time"] = factor
        if factor < 1.0:
            break
        realtime = copies
    figures["powered_ragdolls_realtime (goal >= 10)"] = realtime
    names = [joint.name for joint in profile.joints]
    arm = [names.index("elbow_l"), names.index("shoulder_l")]
    with _following(model, profile, clip) as world:
        samples = []
        for _ in range(int(round(2 * clip.duration / (4 * TIME_STEP)))):
            world.step(4)
            samples.append(_clip_errors(world, clip))
        forearm = world.part_world()[world.rig.part_names.index("forearm_l"), :3, 3]
        world.shoot(forearm + [0, 0, 2.0], [0, 0, -1.0], 50.0)
        worst, back = 0.0, None
        for step in range(int(round(2.0 / TIME_STEP))):
            world.step()
            gap = _clip_errors(world, clip)[arm].max()
            worst = max(worst, gap)
            if gap > 10.0:
                back = None
            elif back is None and worst > 10.0:
                back = (step + 1) * TIME_STEP
    samples = np.array(samples)
    figures["follow walk: joint error median / worst (deg; goal <= 3 / 10)"] = (
        f"{np.median(samples):.2f} / {samples.max():.2f}")
    figures["follow walk: arm off the clip after a 50 N·s shot (deg)"] = worst
    figures["follow walk: back within 10 deg after the shot (s; goal <= 0.75)"] = (
        back if back is not None else float("inf"))
    return figures


def _anonymous(flat: bool) -> Model:
    """synthetic.humanoid with names that match no preset; without parents when ``flat``."""
    body = synthetic.humanoid("Z")
    old = body.skeleton
    parents = np.full(len(old), -1) if flat else old.parents
    skeleton = Skeleton(names=[f"joint{i}" for i in range(len(old))], parents=parents,
                        bind_world=old.bind_world, heads=old.heads, tails=old.tails,
                        derived_tails=old.derived_tails)
    return Model(name="anonymous", skeleton=skeleton, meshes=body.meshes, up_axis="Z")


def costs_per_ragdoll(demo: Model) -> dict:
    """ms per step of one ragdoll falling and lying, per kind of automatic setup."""
    figures: dict = {}
    baseline = None
    for name, model in (("demo (humanoid preset)", demo), ("generic setup", _anonymous(False)),
                        ("flat skeleton", _anonymous(True))):
        with Ragdoll(model, auto_setup(model)) as world:
            started = time.perf_counter()
            world.step(120)
            falling = (time.perf_counter() - started) / 120
            world.step(240)
            lying = best_of(lambda: world.step(1), repeats=3, number=60)
        baseline = baseline or falling
        figures[f"1 ragdoll step, {name}: falling / lying (ms)"] = f"{falling * 1e3:.3f} / {lying * 1e3:.3f}"
        figures[f"1 ragdoll step, {name}: ratio falling / demo falling"] = falling / baseline
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        shown = f"{value:.4g}" if isinstance(value, float) else str(value)
        print(f"  {key:<55} {shown}")
    sys.exit(0)
