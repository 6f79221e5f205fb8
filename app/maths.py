"""Vectorised transform maths in the project's one convention.

- Matrices are 4×4, column vectors: ``p' = M @ [x, y, z, 1]``.
- Quaternions are ``(x, y, z, w)``, Hamilton product, unit length.
- Every function takes stacks: a leading ``...`` shape broadcasts.
"""

from __future__ import annotations

import numpy as np

#: Quaternions closer than this (1 − |dot|) are interpolated linearly instead of by slerp.
SLERP_LINEAR_THRESHOLD = 1e-6
#: A 3×3 block B whose columns have one length s and square to each other within this (largest entry of
#: |BᵀB − s²I| / s²) counts as s times a rotation in ``rotation_part``: B / s differs from its nearest
#: rotation by about half as much.
ORTHONORMAL_TOLERANCE = 1e-10
#: Vectors shorter than this are treated as zero-length by ``normalize``.
NORMALIZE_EPSILON = 1e-12
#: Largest |determinant| ratio below which a 3×3 block counts as singular in ``affine_inverse``.
SINGULAR_DETERMINANT = 1e-20
#: The ratio below which a bind matrix stored in float32 counts as singular: its inverse would be
#: mostly rounding error (C3DE offset matrices, glTF inverse bind matrices).
FLOAT32_SINGULAR = 1e-12

EULER_ORDERS = ("XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX", "XYX", "YZY", "ZXZ")


def normalize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors along the last axis and a validity mask; zero-length rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float64)
    lengths = np.linalg.norm(vectors, axis=-1, keepdims=True)
    valid = lengths[..., 0] > NORMALIZE_EPSILON
    safe = np.where(lengths > NORMALIZE_EPSILON, lengths, 1.0)
    return vectors / safe, valid


def vertex_normals(positions: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """(V, 3) unit area-weighted vertex normals of ``positions`` (V, 3) from ``triangles`` (T, 3);
    +Z for a vertex no triangle turns."""
    normals = np.zeros((len(positions), 3))
    if len(triangles):
        corners = positions[triangles].astype(np.float64)
        face_normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        for corner in range(3):
            np.add.at(normals, triangles[:, corner], face_normals)
    unit, valid = normalize(normals)
    unit[~valid] = (0.0, 0.0, 1.0)
    return unit


def translation(offsets: np.ndarray) -> np.ndarray:
    """``(..., 3)`` offsets → ``(..., 4, 4)`` translation matrices."""
    offsets = np.asarray(offsets, dtype=np.float64)
    matrices = np.broadcast_to(np.eye(4), offsets.shape[:-1] + (4, 4)).copy()
    matrices[..., :3, 3] = offsets
    return matrices


def scaling(factors: np.ndarray) -> np.ndarray:
    """``(..., 3)`` scale factors → ``(..., 4, 4)`` scale matrices."""
    factors = np.asarray(factors, dtype=np.float64)
    matrices = np.zeros(factors.shape[:-1] + (4, 4))
    matrices[..., 0, 0] = factors[..., 0]
    matrices[..., 1, 1] = factors[..., 1]
    matrices[..., 2, 2] = factors[..., 2]
    matrices[..., 3, 3] = 1.0
    return matrices


def invertible(matrices: np.ndarray, tolerance: float = SINGULAR_DETERMINANT) -> np.ndarray:
    """``(...)`` bool: which ``(..., 4, 4)`` affine matrices have a 3×3 part whose determinant is more
    than ``tolerance`` times its largest entry cubed (the default: what ``affine_inverse`` accepts)."""
    linear = np.asarray(matrices, dtype=np.float64)[..., :3, :3]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # subnormal pivots: singular anyway
        determinants = np.linalg.det(linear)
    scale = np.maximum(np.abs(linear).max(axis=(-2, -1)) ** 3, 1e-300)
    return np.abs(determinants) > tolerance * scale


def affine_inverse(matrices: np.ndarray) -> np.ndarray:
    """Inverse of ``(..., 4, 4)`` affine matrices (any scale or shear in the 3×3 block).

    Raises ``ValueError`` when a 3×3 block is singular.
    """
    matrices = np.asarray(matrices, dtype=np.float64)
    linear = matrices[..., :3, :3]
    if not np.all(invertible(matrices)):
        raise ValueError("singular matrix: its 3×3 part has no inverse")
    inverse_linear = np.linalg.inv(linear)
    result = np.zeros_like(matrices)
    result[..., :3, :3] = inverse_linear
    result[..., :3, 3] = -np.einsum("...ij,...j->...i", inverse_linear, matrices[..., :3, 3])
    result[..., 3, 3] = 1.0
    return result


def transform_points(matrices: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply ``(..., 4, 4)`` matrices to ``(..., 3)`` points."""
    matrices = np.asarray(matrices, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64)
    return np.einsum("...ij,...j->...i", matrices[..., :3, :3], points) + matrices[..., :3, 3]


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-D array of finite numbers, ascending, as ``np.unique`` gives them.
    numpy 2's ``np.unique`` imports ``numpy.ma`` on its first call: 7 ms of a fresh ``boneyard render``."""
    ordered = np.sort(np.asarray(values))
    keep = np.ones(len(ordered), bool)
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def srgb_to_linear(color) -> tuple[float, ...]:
    """Display (sRGB) RGB → linear RGB, as the shaders light (an alpha after RGB is dropped)."""
    return tuple(srgb_to_linear_array(np.asarray(color[:3], dtype=np.float64)).tolist())


def srgb_to_linear_array(rgb: np.ndarray) -> np.ndarray:
    """Display (sRGB) values → linear ones, element by element (any shape)."""
    rgb = np.asarray(rgb, dtype=np.float64)
    curve = ((np.maximum(rgb, 0.04045) + 0.055) / 1.055) ** 2.4  # both branches are evaluated
    return np.where(rgb <= 0.04045, rgb / 12.92, curve)


def linear_to_srgb_array(rgb: np.ndarray) -> np.ndarray:
    """Linear values → display (sRGB) ones, element by element (any shape; the inverse of
    ``srgb_to_linear_array``)."""
    rgb = np.asarray(rgb, dtype=np.float64)
    curve = 1.055 * np.maximum(rgb, 0.0031308) ** (1 / 2.4) - 0.055  # both branches are evaluated
    return np.where(rgb <= 0.0031308, rgb * 12.92, curve)


# --- quaternions (x, y, z, w) -------------------------------------------------------------------

def quat_identity(shape: tuple[int, ...] = ()) -> np.ndarray:
    quaternions = np.zeros(shape + (4,))
    quaternions[..., 3] = 1.0
    return quaternions


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a * b`` (applies ``b`` first, then ``a``)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    q = np.array(q, dtype=np.float64)
    q[..., :3] *= -1.0
    return q


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """Unit quaternions; a zero quaternion becomes the identity."""
    unit, valid = normalize(q)
    return np.where(valid[..., None], unit, quat_identity(unit.shape[:-1]))


def quat_from_axis_angle(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    axis, _ = normalize(axis)
    half = 0.5 * np.asarray(angle, dtype=np.float64)
    return np.concatenate([axis * np.sin(half)[..., None], np.cos(half)[..., None]], axis=-1)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """``(..., 4)`` unit quaternions → ``(..., 4, 4)`` rotation matrices."""
    x, y, z, w = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    matrices = np.zeros(x.shape + (4, 4))
    matrices[..., 0, 0] = 1 - 2 * (y * y + z * z)
    matrices[..., 0, 1] = 2 * (x * y - z * w)
    matrices[..., 0, 2] = 2 * (x * z + y * w)
    matrices[..., 1, 0] = 2 * (x * y + z * w)
    matrices[..., 1, 1] = 1 - 2 * (x * x + z * z)
    matrices[..., 1, 2] = 2 * (y * z - x * w)
    matrices[..., 2, 0] = 2 * (x * z - y * w)
    matrices[..., 2, 1] = 2 * (y * z + x * w)
    matrices[..., 2, 2] = 1 - 2 * (x * x + y * y)
    matrices[..., 3, 3] = 1.0
    return matrices


def quat_from_matrix(matrices: np.ndarray) -> np.ndarray:
    """Rotation part of ``(..., 3|4, 3|4)`` matrices → unit quaternions with ``w >= 0``.

    The 3×3 block is orthonormalised first (scale and shear are dropped), so this also
    serves matrices that carry scale.
    """
    rotations = rotation_part(matrices)
    m = rotations
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    candidates = np.stack(
        [
            np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                      m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1),
            np.stack([1 + m[..., 0, 0] - m[..., 1, 1] - m[..., 2, 2], m[..., 0, 1] + m[..., 1, 0],
                      m[..., 0, 2] + m[..., 2, 0], m[..., 2, 1] - m[..., 1, 2]], axis=-1),
            np.stack([m[..., 0, 1] + m[..., 1, 0], 1 + m[..., 1, 1] - m[..., 0, 0] - m[..., 2, 2],
                      m[..., 1, 2] + m[..., 2, 1], m[..., 0, 2] - m[..., 2, 0]], axis=-1),
            np.stack([m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1],
                      1 + m[..., 2, 2] - m[..., 0, 0] - m[..., 1, 1], m[..., 1, 0] - m[..., 0, 1]],
                     axis=-1),
        ],
        axis=-2,
    )
    # The candidate with the largest diagonal term is the numerically stable one.
    diagonal = np.stack([trace, m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], axis=-1)
    best = np.argmax(diagonal, axis=-1)
    chosen = np.take_along_axis(candidates, best[..., None, None], axis=-2)[..., 0, :]
    chosen = quat_normalize(chosen)
    return np.where(chosen[..., 3:4] < 0, -chosen, chosen)


def rotation_part(matrices: np.ndarray) -> np.ndarray:
    """Nearest proper rotation to the 3×3 block of each matrix (polar decomposition by SVD). Blocks
    that are rotations times one scale (within ORTHONORMAL_TOLERANCE) are divided by their scale
    instead: most are (rigid bones, armatures scaled as a whole), and the SVD of thousands of them was
    most of a follower's set-up on a long clip."""
    linear = np.asarray(matrices, dtype=np.float64)[..., :3, :3]
    gram = np.swapaxes(linear, -1, -2) @ linear
    squared_scale = np.trace(gram, axis1=-2, axis2=-1) / 3.0
    off = np.abs(gram - squared_scale[..., None, None] * np.eye(3)).max(axis=(-1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):
        deviation = off / squared_scale
    scaled = (deviation <= ORTHONORMAL_TOLERANCE) & (np.linalg.det(linear) > 0)
    if np.any(scaled):
        rotations = np.empty_like(linear)
        rotations[scaled] = linear[scaled] / np.sqrt(squared_scale[scaled])[..., None, None]
        if not np.all(scaled):
            rotations[~scaled] = _rotation_by_svd(linear[~scaled])
        return rotations
    return _rotation_by_svd(linear)


def _rotation_by_svd(linear: np.ndarray) -> np.ndarray:
    """``rotation_part`` of (..., 3, 3) blocks by SVD: U Vᵀ, its last column flipped for a mirror."""
    u, _, vt = np.linalg.svd(linear)
    rotations = u @ vt
    flip = np.linalg.det(rotations) < 0
    if np.any(flip):
        u = u.copy()
        u[flip, :, 2] *= -1
        rotations = u @ vt
    return rotations


def slerp(a: np.ndarray, b: np.ndarray, fraction: np.ndarray) -> np.ndarray:
    """Shortest-arc spherical interpolation of ``(..., 4)`` quaternions by ``(...)`` fractions."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    fraction = np.asarray(fraction, dtype=np.float64)[..., None]
    dot = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(dot < 0, -b, b)
    dot = np.abs(dot)
    near = dot > 1.0 - SLERP_LINEAR_THRESHOLD
    angle = np.arccos(np.clip(dot, -1.0, 1.0))
    sin_angle = np.where(near, 1.0, np.sin(angle))
    weight_a = np.where(near, 1.0 - fraction, np.sin((1.0 - fraction) * angle) / sin_angle)
    weight_b = np.where(near, fraction, np.sin(fraction * angle) / sin_angle)
    return quat_normalize(weight_a * a + weight_b * b)


# --- Euler angles (3ds Max static axes) ---------------------------------------------------------

def axis_rotation(axis: str, angles: np.ndarray) -> np.ndarray:
    """Right-handed rotation matrices ``(..., 4, 4)`` about ``axis`` ('X', 'Y' or 'Z')."""
    angles = np.asarray(angles, dtype=np.float64)
    c, s = np.cos(angles), np.sin(angles)
    i, j = {"X": (1, 2), "Y": (2, 0), "Z": (0, 1)}[axis]
    matrices = np.broadcast_to(np.eye(4), angles.shape + (4, 4)).copy()
    matrices[..., i, i] = c
    matrices[..., j, j] = c
    matrices[..., j, i] = s
    matrices[..., i, j] = -s
    return matrices


def euler_to_matrix(angles: np.ndarray, order: str) -> np.ndarray:
    """3ds Max static-axis Euler angles ``(..., 3)`` in radians → ``(..., 4, 4)`` rotations.

    The order's first letter is applied first: for order ``abc`` and angles ``(e0, e1, e2)``
    the result is ``R_c(e2) @ R_b(e1) @ R_a(e0)``. All nine 3ds Max orders are accepted.
    """
    order = order.upper()
    if order not in EULER_ORDERS:
        raise ValueError(f"unknown Euler order {order!r}; expected one of {', '.join(EULER_ORDERS)}")
    angles = np.asarray(angles, dtype=np.float64)
    first = axis_rotation(order[0], angles[..., 0])
    second = axis_rotation(order[1], angles[..., 1])
    third = axis_rotation(order[2], angles[..., 2])
    return third @ second @ first


# --- TRS ----------------------------------------------------------------------------------------

def compose_trs(translations: np.ndarray, rotations: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """``T @ R @ S`` from ``(..., 3)`` translations, ``(..., 4)`` quaternions, ``(..., 3)`` scales."""
    matrices = quat_to_matrix(rotations)
    matrices[..., :3, :3] *= np.asarray(scales, dtype=np.float64)[..., None, :]
    matrices[..., :3, 3] = translations
    return matrices


def decompose_trs(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split ``(..., 4, 4)`` affine matrices into translation, rotation, scale and a shear residual.

    The residual is the largest absolute difference between each matrix and ``T @ R @ S``
    rebuilt from the parts; non-zero means the matrix had shear that TRS cannot hold.
    """
    matrices = np.asarray(matrices, dtype=np.float64)
    translations = matrices[..., :3, 3].copy()
    rotations = rotation_part(matrices)
    scale_matrix = np.swapaxes(rotations, -1, -2) @ matrices[..., :3, :3]
    scales = np.stack([scale_matrix[..., 0, 0], scale_matrix[..., 1, 1], scale_matrix[..., 2, 2]],
                      axis=-1)
    quaternions = quat_from_matrix(rotations)
    rebuilt = compose_trs(translations, quaternions, scales)
    residual = np.abs(rebuilt - matrices).max(axis=(-2, -1))
    return translations, quaternions, scales, residual


# --- dual quaternions ---------------------------------------------------------------------------

def dual_quaternions_from_matrices(matrices: np.ndarray) -> np.ndarray:
    """Rigid part of ``(..., 4, 4)`` matrices as ``(..., 2, 4)`` dual quaternions (real, dual).

    Scale and shear are dropped: dual quaternions only carry rotation and translation.
    """
    matrices = np.asarray(matrices, dtype=np.float64)
    real = quat_from_matrix(matrices)
    t = np.concatenate([matrices[..., :3, 3], np.zeros(matrices.shape[:-2] + (1,))], axis=-1)
    dual = 0.5 * quat_multiply(t, real)
    return np.stack([real, dual], axis=-2)


def dual_quaternions_to_matrices(dual_quaternions: np.ndarray) -> np.ndarray:
    """``(..., 2, 4)`` unit dual quaternions → ``(..., 4, 4)`` rigid matrices."""
    real = dual_quaternions[..., 0, :]
    dual = dual_quaternions[..., 1, :]
    matrices = quat_to_matrix(real)
    t = 2.0 * quat_multiply(dual, quat_conjugate(real))
    matrices[..., :3, 3] = t[..., :3]
    return matrices
