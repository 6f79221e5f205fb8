"""Transform maths against matrices written out by hand."""

import warnings

import numpy as np
import pytest

from app import maths

C, S = np.cos(0.3), np.sin(0.3)
RX = np.array([[1, 0, 0, 0], [0, C, -S, 0], [0, S, C, 0], [0, 0, 0, 1]])
RY = np.array([[C, 0, S, 0], [0, 1, 0, 0], [-S, 0, C, 0], [0, 0, 0, 1]])
RZ = np.array([[C, -S, 0, 0], [S, C, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
BY_AXIS = {"X": RX, "Y": RY, "Z": RZ}


def test_axis_rotations_are_right_handed():
    # +90° about Z takes +X to +Y; about X takes +Y to +Z; about Y takes +Z to +X.
    quarter = np.pi / 2
    assert np.allclose(maths.axis_rotation("Z", quarter)[:3, :3] @ [1, 0, 0], [0, 1, 0])
    assert np.allclose(maths.axis_rotation("X", quarter)[:3, :3] @ [0, 1, 0], [0, 0, 1])
    assert np.allclose(maths.axis_rotation("Y", quarter)[:3, :3] @ [0, 0, 1], [1, 0, 0])


@pytest.mark.parametrize("order", maths.EULER_ORDERS)
def test_euler_orders_apply_first_letter_first(order):
    # Every angle is 0.3 rad, so R = R_o3 @ R_o2 @ R_o1 with the hand-written matrices above.
    expected = BY_AXIS[order[2]] @ BY_AXIS[order[1]] @ BY_AXIS[order[0]]
    assert np.allclose(maths.euler_to_matrix([0.3, 0.3, 0.3], order), expected)


def test_euler_xyz_with_distinct_angles():
    a, b, c = 0.1, -0.7, 1.9
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    assert np.allclose(maths.euler_to_matrix([a, b, c], "xyz")[:3, :3], rz @ ry @ rx)


def test_unknown_euler_order_is_refused():
    with pytest.raises(ValueError, match="XYZ"):
        maths.euler_to_matrix([0, 0, 0], "XXY")


def test_affine_inverse_with_non_uniform_scale_and_shear():
    matrix = np.array([[2.0, 0.5, 0.0, 3.0], [0.0, 0.25, 0.0, -1.0], [0.0, 0.0, 4.0, 2.0], [0, 0, 0, 1]])
    # Inverse worked by hand: upper-triangular linear part.
    expected = np.array([[0.5, -1.0, 0.0, -2.5], [0.0, 4.0, 0.0, 4.0], [0.0, 0.0, 0.25, -0.5], [0, 0, 0, 1]])
    assert np.allclose(maths.affine_inverse(matrix), expected)
    assert np.allclose(maths.affine_inverse(np.stack([matrix, np.eye(4)]))[1], np.eye(4))


def test_affine_inverse_refuses_singular():
    with pytest.raises(ValueError, match="singular"):
        maths.affine_inverse(np.diag([1.0, 0.0, 1.0, 1.0]))


def test_subnormal_pivot_is_singular_without_a_warning():
    # An LGW pivot the fuzzer cut to 1e-320: the determinant, 5e-321, is far below 1e-20 × 1³.
    matrix = np.array([[0, -1, 0, 1], [1e-320, 0, 0, 2], [0, 0, 0.5, 3], [0, 0, 0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not maths.invertible(matrix)


def test_quaternion_matrix_round_trip_and_known_value():
    # 90° about Z: (0, 0, sin 45°, cos 45°).
    q = np.array([0, 0, np.sqrt(0.5), np.sqrt(0.5)])
    assert np.allclose(maths.quat_to_matrix(q)[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    rng = np.random.default_rng(1)
    quats = maths.quat_normalize(rng.normal(size=(50, 4)))
    quats[quats[:, 3] < 0] *= -1
    assert np.allclose(maths.quat_from_matrix(maths.quat_to_matrix(quats)), quats)


def test_quaternion_product_applies_right_operand_first():
    qz = maths.quat_from_axis_angle([0, 0, 1], np.pi / 2)
    qx = maths.quat_from_axis_angle([1, 0, 0], np.pi / 2)
    product = maths.quat_to_matrix(maths.quat_multiply(qz, qx))
    assert np.allclose(product, maths.quat_to_matrix(qz) @ maths.quat_to_matrix(qx))


def test_slerp_halfway_and_shortest_arc():
    a = maths.quat_identity()
    b = maths.quat_from_axis_angle([0, 0, 1], np.pi / 2)
    half = maths.slerp(a, b, 0.5)
    assert np.allclose(half, [0, 0, np.sin(np.pi / 8), np.cos(np.pi / 8)])
    # -b is the same rotation: slerp must take the short way and give the same result.
    assert np.allclose(maths.quat_to_matrix(maths.slerp(a, -b, 0.5)), maths.quat_to_matrix(half))
    assert np.allclose(maths.slerp(a, b, 0.0), a) and np.allclose(maths.slerp(a, b, 1.0), b)


def test_decompose_trs_recovers_parts_and_flags_shear():
    q = maths.quat_from_axis_angle([1, 2, 3], 0.8)
    matrix = maths.compose_trs([1, -2, 3], q, [2, 0.5, 1.5])
    t, r, s, residual = maths.decompose_trs(matrix)
    assert np.allclose(t, [1, -2, 3]) and np.allclose(s, [2, 0.5, 1.5]) and residual < 1e-9
    assert np.allclose(maths.quat_to_matrix(r), maths.quat_to_matrix(q))
    sheared = matrix.copy()
    sheared[0, 1] += 0.5
    assert maths.decompose_trs(sheared)[3] > 1e-3


def test_dual_quaternion_round_trip():
    matrix = maths.compose_trs([0.5, 2, -1], maths.quat_from_axis_angle([0, 1, 1], 2.0), [1, 1, 1])
    dq = maths.dual_quaternions_from_matrices(matrix)
    assert np.allclose(maths.dual_quaternions_to_matrices(dq), matrix)


def test_normalize_masks_zero_vectors():
    unit, valid = maths.normalize(np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0]]))
    assert np.allclose(unit, [[0.6, 0.8, 0.0], [0, 0, 0]]) and valid.tolist() == [True, False]


@pytest.mark.parametrize("values", [
    np.array([3, 1, 3, 2, 1, 1], np.int32),
    np.array([0.5, -2.0, 0.5, 1e-9, 0.0, -0.0, 1e-9]),
    np.array([7]),
    np.zeros(0),
])
def test_sorted_unique_gives_the_distinct_values_ascending(values):
    expected = sorted(set(values.tolist()))
    result = maths.sorted_unique(values)
    assert result.dtype == values.dtype
    assert result.tolist() == expected


def test_rotation_part_keeps_rotations_and_straightens_the_rest():
    """Rotations come back as they are (to the last bits); a scaled rotation, a sheared one and a
    mirrored one, mixed in the same array, give their nearest proper rotations (scale divided out by
    hand; the shear's by a hand-made polar decomposition: R = M (MᵀM)^-1/2); a zero block does not
    crash."""
    turn = maths.axis_rotation("Z", 0.3)[:3, :3] @ maths.axis_rotation("X", -1.1)[:3, :3]
    sheared = turn @ np.array([[1.0, 0.2, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    values, vectors = np.linalg.eigh(sheared.T @ sheared)
    polar = sheared @ vectors @ np.diag(values ** -0.5) @ vectors.T
    mirrored = turn @ np.diag([1.0, 1.0, -1.0])
    matrices = np.stack([turn, 2.5 * turn, sheared, turn, mirrored])
    result = maths.rotation_part(matrices)
    np.testing.assert_allclose(result[[0, 3]], [turn, turn], atol=1e-15)
    np.testing.assert_allclose(result[1], turn, atol=1e-12)
    np.testing.assert_allclose(result[2], polar, atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(result), 1.0, atol=1e-12)
    np.testing.assert_allclose(result[4].T @ result[4], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(maths.rotation_part(2.5 * turn), turn, atol=1e-12)
    np.testing.assert_allclose(maths.rotation_part(np.zeros((3, 3))) @ np.zeros(3), 0.0)
