"""pybullet, imported once for the physics package, and the positional tuples it answers with, named.

Only this module of the package imports pybullet; the world builder, the ragdoll and its motors take
``pb`` from here.
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple


def _import_pybullet():
    """pybullet, imported with stderr silenced: it prints its build time there on import."""
    sys.stderr.flush()
    saved, silent = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(silent, 2)
    try:
        import pybullet
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(silent)
    return pybullet


pb = _import_pybullet()

#: Fields of pybullet's getLinkState(s) tuples: the centre of mass's world position and orientation,
#: and (with computeLinkVelocity) its world linear velocity.
LINK_WORLD_POSITION, LINK_WORLD_ORIENTATION, LINK_LINEAR_VELOCITY = 0, 1, 6


class RayResult(NamedTuple):
    objectUniqueId: int
    linkIndex: int
    hitFraction: float
    hitPosition: tuple
    hitNormal: tuple
