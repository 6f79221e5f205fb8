"""Knock automatic ragdolls about and report how well they hold together.

``python -m tests.ragdoll_trial MODEL [MODEL ...] [--steps N] [--seed S]``: each MODEL is a file, or
several files of one model joined with commas (``ninja.c3d,ninjaBones.c3d``), or ``demo``. The
model's automatic setup falls from its bind pose and takes a random shot of 1–200 N·s every 100
steps (at a random part's centre, from a random side) until 10 s before the end, then settles. One
line per model: parts, total mass, the worst joint overshoot past its limits (degrees, from the parts'
frames) and the joints that reached it, whether everything stayed finite, the fastest part (m/s), the
deepest any part (box or capsule) went below the ground (cm) and how deep it ended, and the fastest part
at the end.
"""

from __future__ import annotations

import argparse

import numpy as np

from app import loading
from app.physics.autosetup import auto_setup
from app.physics.ragdoll import TIME_STEP, Ragdoll
from app.physics.trial import limit_excess as joint_limit_excess
from app.physics.trial import part_depths
from app.resources import demo_paths

IMPULSES = (1.0, 200.0)
SHOT_EVERY = 100
SETTLE_SECONDS = 10.0


def limit_excess(ragdoll: Ragdoll) -> np.ndarray:
    """(J,) degrees each joint is past its limits (physics.trial's measure; 0 within)."""
    return np.degrees(joint_limit_excess(ragdoll.rig, ragdoll.joint_angles()))


def depth_below_ground(ragdoll: Ragdoll) -> float:
    """Metres the lowest point of any part's shape is below the ground, as a negative number (0 when
    none is under it; physics.trial's ``part_depths``)."""
    return -float(part_depths(ragdoll, ragdoll.part_world()).max(initial=0.0)) * ragdoll.scale


def trial(paths: list, steps: int, seed: int) -> str:
    model = loading.load(paths)
    profile = auto_setup(model)
    rng = np.random.default_rng(seed)
    quiet_from = steps - int(SETTLE_SECONDS / TIME_STEP)
    with Ragdoll(model, profile) as ragdoll:
        worst = np.zeros(len(profile.joints))
        fastest, deepest = 0.0, 0.0
        for step in range(steps):
            if step % SHOT_EVERY == 0 and step < quiet_from:
                target = ragdoll.part_world()[rng.integers(len(profile.parts)), :3, 3]
                direction = rng.normal(size=3)
                direction /= np.linalg.norm(direction)
                ragdoll.shoot(target - 2.0 * direction / ragdoll.scale, direction, rng.uniform(*IMPULSES))
            ragdoll.step()
            worst = np.maximum(worst, limit_excess(ragdoll))
            if step % 10 == 0:
                speeds = np.linalg.norm(ragdoll.part_velocities(), axis=1)
                fastest = max(fastest, float(speeds.max() * ragdoll.scale))
                deepest = min(deepest, depth_below_ground(ragdoll))
        finite = bool(np.isfinite(ragdoll.part_world()).all())
        end_speed = float(np.linalg.norm(ragdoll.part_velocities(), axis=1).max() * ragdoll.scale)
        end_depth = depth_below_ground(ragdoll)
    if not len(worst):
        worst = np.zeros(1)
    names = [joint.name for joint in profile.joints] or ["(no joints)"]
    top = ", ".join(f"{names[j]} {worst[j]:.0f}" for j in np.argsort(-worst)[:3])
    return (f"{model.name}: {len(profile.parts)} parts, {profile.total_mass:.1f} kg, "
            f"worst overshoot {worst.max():.1f}° ({top}), finite {finite}, fastest {fastest:.1f} m/s, "
            f"deepest {deepest * 100:.1f} cm (at the end {end_depth * 100:.1f} cm), "
            f"end speed {end_speed:.3f} m/s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("models", nargs="+")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for model in args.models:
        paths = demo_paths() if model == "demo" else model.split(",")
        print(trial(paths, args.steps, args.seed), flush=True)


if __name__ == "__main__":
    main()
