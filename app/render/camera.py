"""An orbit camera that knows which way the model's up axis points and which way it faces.

Angles live in a canonical Z-up frame in which the model faces −Y (3ds Max / Blender). The model's
up axis and facing (``forward``, e.g. '+Y' for NWN, '+Z' for glTF) map canonical +Z to the up axis
and canonical −Y to the facing, so every view shows every model the same way: a Y-up glTF model
(facing +Z) maps canonical (x, y, z) to world (x, z, −y). Yaw 0, pitch 0 looks at the model's front;
positive yaw moves the camera towards the model's left side, positive pitch moves it up. Matrices
are column-vector 4×4.

The look-at and projection matrices come from pyrr, which builds them for row vectors (``p @ M``,
translation in the last row): they are transposed here, once, into the column-vector convention
(``M @ p``) every other module uses.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pyrr import matrix44

from app.orientation import DEFAULT_FORWARD, facing

UpAxis = Literal["Y", "Z"]

_AXES = {"X": 0, "Y": 1, "Z": 2}


@functools.lru_cache(maxsize=64)
def basis(up_axis: str, forward: str = "") -> np.ndarray:
    """(3, 3) canonical → world rotation (columns: where canonical X, Y, Z go): canonical +Z goes to
    the up axis and canonical −Y to the model's facing (``orientation.facing``). Read-only, made once
    per pair (the view asks for it several times a frame)."""
    if up_axis not in DEFAULT_FORWARD:
        raise ValueError(f"up_axis must be 'Y' or 'Z', got {up_axis!r}")
    if forward and (len(forward) != 2 or forward[0] not in "+-" or forward[1] not in _AXES):
        raise ValueError(f"forward must be a signed axis such as '+Y' or '-Z', got {forward!r}")
    signed = facing(up_axis, forward)
    front = np.eye(3)[_AXES[signed[1]]] * (1.0 if signed[0] == "+" else -1.0)
    up = np.eye(3)[_AXES[up_axis]]
    rotation = np.stack([np.cross(-front, up), -front, up], axis=1)
    rotation.flags.writeable = False
    return rotation


#: Named views as (yaw, pitch) in degrees.
VIEWS = {"front": (0.0, 0.0), "side": (90.0, 0.0), "top": (0.0, 90.0), "iso": (35.0, 25.0)}
#: Room left around a framed model, as a factor on the needed field of view.
FRAME_MARGIN = 1.1
#: Closest framing distance, in bounding radii (keeps the whole box beyond the near plane).
MIN_FRAME_DISTANCE = 1.2
#: Near and far planes as fractions of the distance, plus the scene radius beyond the target.
NEAR_FRACTION = 0.02
FAR_FRACTION = 4.0


@dataclass
class Camera:
    """Orbit camera: the eye sits ``distance`` from ``target`` at ``yaw`` / ``pitch`` (radians).

    ``fov`` is the vertical field of view in radians; ``radius`` the framed scene's radius
    (sets the far plane). ``orthographic``: a parallel projection showing the height the perspective
    one shows at the target's distance (so toggling keeps the model's size there).
    """

    target: np.ndarray = field(default_factory=lambda: np.zeros(3))
    distance: float = 5.0
    yaw: float = math.radians(VIEWS["iso"][0])
    pitch: float = math.radians(VIEWS["iso"][1])
    fov: float = math.radians(40.0)
    up_axis: UpAxis = "Z"
    radius: float = 1.0
    orthographic: bool = False
    forward: str = ""

    def __post_init__(self):
        basis(self.up_axis, self.forward)  # checks both
        self.target = np.asarray(self.target, dtype=np.float64).copy()
        #: The last view matrix and what it was made from (not a field: ``asdict`` leaves it out).
        self._view_made: tuple[tuple, np.ndarray] | None = None

    @property
    def basis(self) -> np.ndarray:
        """(3, 3) canonical → world for the model's up axis and facing."""
        return basis(self.up_axis, self.forward)

    # --- frame of the eye -----------------------------------------------------------------------

    def _canonical_axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offset from target to eye, right, up), unit (3,) each, canonical Z-up frame."""
        cy, sy = math.cos(self.yaw), math.sin(self.yaw)
        cp, sp = math.cos(self.pitch), math.sin(self.pitch)
        offset = np.array([sy * cp, -cy * cp, sp])
        right = np.array([cy, sy, 0.0])
        return offset, right, np.cross(right, -offset)

    def axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World (3,) unit vectors: forward (eye → target), right and up of the screen."""
        rotation = self.basis
        offset, right, up = self._canonical_axes()
        return rotation @ -offset, rotation @ right, rotation @ up

    @property
    def world_up(self) -> np.ndarray:
        """(3,) the model's up axis in world coordinates."""
        return self.basis[:, 2].copy()

    @property
    def eye(self) -> np.ndarray:
        """(3,) the eye position."""
        forward, _, _ = self.axes()
        return self.target - forward * self.distance

    def view_matrix(self) -> np.ndarray:
        """(4, 4) world → eye; the eye looks along its −Z. Made again only when the camera moved (the
        renderer, the grid and the overlay each ask for it every frame)."""
        key = (self.target.tobytes(), self.distance, self.yaw, self.pitch, self.up_axis, self.forward)
        if self._view_made is None or self._view_made[0] != key:
            _, _, up = self.axes()
            look_at = matrix44.create_look_at(self.eye, self.target, up, dtype=np.float64)
            self._view_made = key, np.ascontiguousarray(look_at.T)
        return self._view_made[1].copy()

    def clip_planes(self) -> tuple[float, float]:
        """(near, far) distances from the eye."""
        near = max(self.distance * NEAR_FRACTION, 1e-6)
        return near, self.distance * FAR_FRACTION + 4.0 * self.radius

    def projection_matrix(self, aspect: float) -> np.ndarray:
        """(4, 4) OpenGL projection (perspective, or parallel when ``orthographic``) for ``aspect`` =
        width / height."""
        near, far = self.clip_planes()
        if self.orthographic:
            half_height = self.distance * math.tan(0.5 * self.fov)
            half_width = half_height * aspect
            rows = matrix44.create_orthogonal_projection(-half_width, half_width, -half_height, half_height,
                                                         near, far, dtype=np.float64)
        else:
            rows = matrix44.create_perspective_projection(math.degrees(self.fov), aspect, near, far,
                                                          dtype=np.float64)
        return np.ascontiguousarray(rows.T)

    # --- moving ---------------------------------------------------------------------------------

    def set_view(self, name: str) -> None:
        """Turn to a named view: 'front', 'side', 'top' or 'iso'."""
        if name not in VIEWS:
            raise ValueError(f"unknown view {name!r}; expected one of {', '.join(VIEWS)}")
        self.yaw, self.pitch = (math.radians(angle) for angle in VIEWS[name])

    def frame(self, bounds_min: np.ndarray, bounds_max: np.ndarray, aspect: float = 1.0) -> None:
        """Aim at the centre of the bounds (3,) and back off, along the current view direction,
        until all eight corners fit the view at ``aspect`` with a margin."""
        bounds_min = np.asarray(bounds_min, dtype=np.float64)
        bounds_max = np.asarray(bounds_max, dtype=np.float64)
        self.target = 0.5 * (bounds_min + bounds_max)
        self.radius = max(0.5 * float(np.linalg.norm(bounds_max - bounds_min)), 1e-6)
        corners = np.array(np.meshgrid(*zip(bounds_min, bounds_max))).reshape(3, -1).T - self.target
        forward, right, up = self.axes()
        tan_vertical = math.tan(0.5 * self.fov) / FRAME_MARGIN
        # A corner at offset c fits when |c·right| ≤ depth·tan_h and |c·up| ≤ depth·tan_v,
        # its depth from the eye being distance + c·forward.
        needed = np.maximum(np.abs(corners @ right) / (tan_vertical * aspect),
                            np.abs(corners @ up) / tan_vertical) - corners @ forward
        self.distance = max(float(needed.max()), MIN_FRAME_DISTANCE * self.radius)

    def orbit(self, dx: float, dy: float) -> None:
        """Turn by ``dx`` radians of yaw and ``dy`` of pitch (pitch stays within ±90°)."""
        self.yaw = math.remainder(self.yaw + dx, 2.0 * math.pi)
        self.pitch = min(max(self.pitch + dy, -0.5 * math.pi), 0.5 * math.pi)

    def pan(self, dx: float, dy: float, aspect: float = 1.0) -> None:
        """Slide the target so the scene follows a drag of (dx, dy) in NDC units (2 = full view)."""
        _, right, up = self.axes()
        half_height = self.distance * math.tan(0.5 * self.fov)
        self.target = self.target - right * (dx * half_height * aspect) - up * (dy * half_height)

    def zoom(self, factor: float, toward: np.ndarray | None = None) -> None:
        """Scale the distance by ``factor`` (< 1 moves closer), optionally closing in on a point (3,)."""
        if factor <= 0:
            raise ValueError(f"zoom factor must be positive, got {factor}")
        if toward is not None:
            self.target = self.target + (np.asarray(toward, dtype=np.float64) - self.target) * (1.0 - factor)
        self.distance *= factor

    def ray(self, x_ndc: float, y_ndc: float, aspect: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Picking ray through a point of the view: (origin (3,), unit direction (3,)). Orthographic
        rays are parallel, starting in the eye's plane."""
        forward, right, up = self.axes()
        half_height = math.tan(0.5 * self.fov)
        across = right * (x_ndc * half_height * aspect) + up * (y_ndc * half_height)
        if self.orthographic:
            return self.eye + across * self.distance, forward
        direction = forward + across
        return self.eye, direction / np.linalg.norm(direction)


def camera_for(bounds_min: np.ndarray, bounds_max: np.ndarray, up_axis: UpAxis = "Z",
               view: str = "iso", aspect: float = 1.0, forward: str = "") -> Camera:
    """A camera turned to ``view`` (from the side ``forward`` faces) that frames the bounds (3,) at
    ``aspect``."""
    camera = Camera(up_axis=up_axis, forward=forward)
    camera.set_view(view)
    camera.frame(bounds_min, bounds_max, aspect)
    return camera


def project(camera: Camera, points: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Window pixel coordinates (N, 2), origin top-left, of world points (N, 3), and a mask (N,)
    of those in front of the eye and inside the view."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    homogeneous = np.concatenate([points, np.ones((len(points), 1))], axis=1)
    clip = homogeneous @ (camera.projection_matrix(width / max(height, 1)) @ camera.view_matrix()).T
    w = clip[:, 3]
    in_front = w > 1e-9
    ndc = clip[:, :2] / np.where(in_front, w, 1.0)[:, None]
    pixels = np.stack([(ndc[:, 0] + 1.0) * 0.5 * width, (1.0 - ndc[:, 1]) * 0.5 * height], axis=1)
    inside = in_front & (np.abs(ndc) <= 1.0).all(axis=1)
    return pixels, inside
