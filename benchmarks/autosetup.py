"""The automatic ragdoll setup on a long skeleton: ``autosetup_500_bones_s`` is the CPU time
``auto_setup`` takes on a skinned chain of 500 bones (best of three; goal ≤ 2 s). A chain is the
worst shape for the setup's per-level work: every bone is a level of its own."""

from __future__ import annotations

import time

import numpy as np

from app.model import Mesh, Model, Skeleton
from app.physics.autosetup import auto_setup


def skinned_chain(count: int, length: float = 0.1) -> Model:
    """``count`` bones in a row along +X, each moving a tetrahedron of its own around its middle."""
    bind = np.tile(np.eye(4), (count, 1, 1))
    bind[:, 0, 3] = np.arange(count) * length
    heads = bind[:, :3, 3].copy()
    skeleton = Skeleton(names=[f"segment{i}" for i in range(count)], parents=np.arange(count) - 1,
                        bind_world=bind, heads=heads, tails=heads + [length, 0, 0],
                        derived_tails=np.zeros(count, bool))
    corners = np.array([[-0.02, 0.02, 0.02], [-0.01, -0.02, 0.02], [0.01, -0.02, -0.02], [0.02, 0.02, -0.02]])
    positions = (heads[:, None] + [length / 2, 0, 0] + corners).reshape(-1, 3)
    owners = np.repeat(np.arange(count), 4)
    first = np.arange(count)[:, None] * 4
    triangles = np.concatenate([first + [0, 1, 2], first + [0, 2, 3], first + [0, 3, 1], first + [1, 3, 2]])
    mesh = Mesh("chain", positions=positions, joints=owners[:, None], weights=np.ones((len(owners), 1)),
                triangles=triangles)
    return Model(f"chain{count}", skeleton, meshes=[mesh])


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
