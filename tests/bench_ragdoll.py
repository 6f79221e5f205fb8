"""Ragdoll benchmark: ``python -m tests.bench_ragdoll`` (or ``python -m tests.bench ragdoll``).

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
"""

from __future__ import annotations

import sys
import time

import numpy as np

from app import formats
from app.model import Model, Skeleton
from app.physics.autosetup import auto_setup
from app.physics.ragdoll import TIME_STEP, Ragdoll
from app.pose import evaluate
from app.resources import demo_paths
from tests import synthetic
from tests.bench import best_of

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
    model = formats.load(demo_paths())
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
