"""The automatic ragdoll setup on a long skeleton: ``autosetup_500_bones_s`` is the CPU time
``auto_setup`` takes on a skinned chain of 500 bones (best of three; goal ≤ 2 s). A chain is the
worst shape for the setup's per-level work: every bone is a level of its own."""

from __future__ import annotations

import time

from app.physics.autosetup import auto_setup
from tests.synthetic import skinned_chain


def run(bones: int = 500, repeats: int = 3) -> dict:
    model = skinned_chain(bones)
    cpu, wall = [], []
    for _ in range(repeats):
        started_cpu, started_wall = time.process_time(), time.perf_counter()
        profile = auto_setup(model)
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started_wall)
    return {"bones": bones, "parts": len(profile.parts), "autosetup_500_bones_s": min(cpu),
            "wall_s (best)": min(wall)}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<24} {value}")
