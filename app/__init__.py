"""Boneyard: a viewer and ragdoll sandbox for legacy skinned meshes and skeletal animation."""

import os

# Boneyard's matrix products are tall and thin ((N, 3) by (3, 3)): BLAS threads only add start-up cost,
# and on a busy machine they fight the software rasteriser and the physics for the cores (loading an
# NWN model ran at half speed; docs/benchmarks.md). It must be set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
