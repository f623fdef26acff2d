"""The "linalg" family of the differential harness: MatrixInverse, MatrixDeterminant,
Cholesky, MatrixSolve, MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd (their sections below
say how they are compared), BatchMatMul (v1) and BatchMatMulV3, BroadcastGradientArgs, and the
stateful seeded random ops (RandomUniform, RandomStandardNormal, TruncatedNormal,
RandomUniformInt, RandomShuffle).
Imported by fidelity_catalogue (CATALOGUE, ACCEPTED).

Inverse and determinant: both sides factor with partial pivoting (LU), whose backward error is
a few n eps of the input; the forward error is that times the condition number kappa(A).
So the bounds are in units of eps: inverse 16 n kappa ||A^-1||_2 per element (normwise
perturbation theory: |dX| / |X| <= n eps kappa), determinant 16 n^2 min(kappa |det|,
prod ||row_i||) (the Hadamard product covers singular matrices, where kappa is infinite but a
cofactor's size bounds the change) plus the exp(log|det|) TensorFlow rounds through. Cases
run from kappa ~ 1 to a 5x5 Hilbert matrix (kappa ~ 5e5).

The stateful random ops: both seeds non-zero, so TensorFlow's numbers are a function of the
seeds and of how many times the node has run in its session. Each case therefore runs in a
graph and session of its own on both sides (OpSpec.own_session), once, and its values are
compared bit for bit: our Philox and distribution transforms are TensorFlow's. (Sharing a
batch, a random case would get a second draw here whenever fidelity_tool re-ran the rest of
a failed step, while TensorFlow's ran once.)
"""
import numpy as np
import tensorflow as tf

from fidelity_catalogue import (EXACT, SUM_BOUND, Case, OpSpec, Tolerance, batch_matmul_bound, batch_matmul_cases,
                                cast, complex_too, np_type, random_values, shape_str)

LU_BOUND = Tolerance("bound", 4, "LU with partial pivoting on both sides: n eps backward error times the "
                                 "condition number (the bound functions say how)")

# ---- MatrixInverse, MatrixDeterminant -----------------------------------------------------


def batched(x):
    """x as [batch, n, n] float64 (complex128 if complex)."""
    n = x.shape[-1] if x.ndim >= 2 else 0
    batch = int(np.prod(x.shape[:-2], dtype=np.int64))
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64).reshape(batch, n, n), n


def inverse_bound(inputs, attrs, outputs):
    a, n = batched(inputs[0])
    out = np.zeros((a.shape[0], n, n))
    for i, m in enumerate(a):
        s = np.linalg.svd(m, compute_uv=False)
        kappa = s[0] / s[-1] if s[-1] > 0 else np.inf
        out[i] = 16 * n * kappa * (1.0 / s[-1] if s[-1] > 0 else np.inf)
    return out.reshape(outputs[0].shape)


def determinant_bound(inputs, attrs, outputs):
    a, n = batched(inputs[0])
    out = np.zeros(a.shape[0])
    for i, m in enumerate(a):
        if n == 0:
            continue
        s = np.linalg.svd(m, compute_uv=False)
        det = abs(float(np.prod(s)))
        hadamard = float(np.prod(np.linalg.norm(m, axis=1)))
        kappa_det = det * s[0] / s[-1] if s[-1] > 0 else np.inf
        log_term = 4 * (abs(np.log(det)) + 1) * det if det > 0 else 0.0
        out[i] = 16 * n * n * min(kappa_det, hadamard) + log_term
    return out.reshape(outputs[0].shape)


def square_cases(rng, dt, tail):
    """(matrices, tag) of dtype dt: well-conditioned random ones, batches, edges of size."""
    def conditioned(shape, shift):
        n = shape[-1]
        x = rng.normal(0.0, 1.0, shape) + shift * np.eye(n)
        if dt.startswith("complex"):
            x = x + 1j * rng.normal(0.0, 1.0, shape)
        return cast(x, dt)

    yield conditioned((1, 1), 0.5), "1x1"
    yield cast(np.zeros((0, 0)), dt), "0x0"
    yield cast(np.zeros((3, 0, 0)), dt), "batch of 3 0x0"
    yield cast(np.zeros((0, 4, 4)), dt), "empty batch of 4x4"
    yield conditioned((2, 2), 2.0), "2x2"
    yield conditioned((3, 3), 3.0), "3x3 diagonally weighted"
    yield conditioned((5, 4, 4), 0.0), "batch of 5 4x4 N(0,1)"
    yield conditioned((2, 3, 6, 6), 4.0), "batch [2,3] 6x6"
    yield conditioned((17, 17), 8.0), "17x17"
    yield conditioned((40, 40), 0.0), "40x40 N(0,1)"
    # A conditioning sweep: the 5x5 Hilbert matrix plus t I, t from 0 (kappa 5e5) to 1
    # (kappa 3). 64 matrices (1600 values) keep it out of the harness's gradient sample (inputs
    # of at most 1500): the gradients' tolerance does not scale with kappa^2 as theirs does.
    h = 1.0 / (np.arange(5)[:, None] + np.arange(5)[None, :] + 1.0)
    t = np.concatenate([[0.0], np.logspace(-7, 0, 63)])
    yield cast(h + t[:, None, None] * np.eye(5), dt), "64 5x5 Hilbert + t I (kappa 5e5 to 3)"
    yield cast(np.array([[0.0, 2.0], [3.0, 0.0]]), dt), "2x2 needs pivoting"
    large = {"double": 1e20, "complex128": 1e20, "half": 1e3}.get(dt, 1e10)
    yield cast(np.array([[1.0, 2.0], [3.0, -1.0]]) * large, dt), "2x2 large entries"
    yield from tail


def inverse_cases(rng, combo, full):
    dt = combo["T"]
    for x, tag in square_cases(rng, dt, []):
        yield Case([x], tag, bound=inverse_bound)
        if x.ndim >= 2 and x.shape[-1] >= 2 and x.size <= 200:
            yield Case([x], tag + " adjoint", attrs={"adjoint": True}, bound=inverse_bound)
    yield Case([cast(np.array([[1.0, 2.0], [2.0, 4.0]]), dt)], "singular refused")
    yield Case([cast(np.zeros((2, 3, 3)), dt)], "zero matrices refused")
    yield Case([cast(np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]]]), dt)],
               "one singular in a batch refused")
    yield Case([random_values(rng, dt, (2, 3))], "2x3 not square refused")
    yield Case([random_values(rng, dt, (4,))], "vector refused")
    yield Case([cast(np.array([[1.0, np.nan], [0.0, 1.0]]), dt)], "NaN entry")


def determinant_cases(rng, combo, full):
    dt = combo["T"]
    singular = [(cast(np.array([[1.0, 2.0], [2.0, 4.0]]), dt), "singular 2x2"),
                (cast(np.zeros((2, 3, 3)), dt), "zero matrices"),
                (cast(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), dt), "singular 3x3")]
    for x, tag in square_cases(rng, dt, singular):
        yield Case([x], tag, bound=determinant_bound)
    yield Case([random_values(rng, dt, (2, 3))], "2x3 not square refused")
    yield Case([random_values(rng, dt, (4,))], "vector refused")


# ---- BatchMatMul (v1), BatchMatMulV3 ------------------------------------------------------


def batch_matmul_v3_bound(inputs, attrs, outputs):
    """batch_matmul_bound in the product's type (one side may be 8-bit integers: exact in it)."""
    return batch_matmul_bound([x.astype(outputs[0].dtype) for x in inputs], attrs, outputs)


def batch_matmul_v3_cases(rng, combo, full):
    ta, tb = combo["Ta"], combo["Tb"]
    for sa, sb, ax, ay in [((2, 3, 4), (2, 4, 5), False, False), ((2, 4, 3), (2, 4, 5), True, False),
                           ((3, 4), (2, 5, 4), False, True), ((1, 3, 4), (6, 4, 2), False, False),
                           ((2, 1, 3, 4), (5, 4, 2), False, False), ((0, 3, 4), (0, 4, 5), False, False),
                           ((2, 3, 0), (2, 0, 5), False, False), ((4, 33, 70), (4, 70, 9), False, False),
                           ((2, 3, 4), (3, 4, 5), False, False), ((2, 3, 4), (2, 5, 5), False, False)]:
        yield Case([random_values(rng, ta, sa), random_values(rng, tb, sb)],
                   f"{shape_str(sa)}x{shape_str(sb)} adj={ax},{ay}", attrs={"adj_x": ax, "adj_y": ay},
                   bound=batch_matmul_v3_bound)
    if ta in ("int8", "uint8") and tb in ("int8", "uint8"):
        lo_a, hi_a = np.iinfo(np_type(ta)).min, np.iinfo(np_type(ta)).max
        lo_b, hi_b = np.iinfo(np_type(tb)).min, np.iinfo(np_type(tb)).max
        a = np.array([[lo_a, hi_a, lo_a], [hi_a, hi_a, hi_a]], dtype=np_type(ta))
        b = np.array([[lo_b, hi_b], [hi_b, lo_b], [hi_b, hi_b]], dtype=np_type(tb))
        yield Case([a, b], "8-bit extremes (no wrap in int32)")


# ---- BroadcastGradientArgs ------------------------------------------------------------------


def broadcast_gradient_args_cases(rng, combo, full):
    t = np_type(combo["T"])
    for s0, s1 in [([], []), ([5], []), ([], [5]), ([2, 3], [2, 3]), ([2, 1, 3], [4, 1]), ([1], [1]),
                   ([1, 1], [1]), ([0], [1]), ([3, 0], [0]), ([1, 5, 1], [7, 1, 1, 1]), ([4, 1, 6], [1, 5, 1]),
                   ([2, 3], [3, 2]), ([0], [2])]:
        tag = f"{s0} {s1}" + (" incompatible" if s0 in ([2, 3], [0]) and s1 in ([3, 2], [2]) else "")
        yield Case([np.array(s0, dtype=t), np.array(s1, dtype=t)], tag)
    yield Case([np.array([[2, 3]], dtype=t), np.array([3], dtype=t)], "s0 a matrix")


# ---- stateful seeded random ops -------------------------------------------------------------

SEEDS = {"seed": 87654321, "seed2": 1234}
RANDOM_SHAPES = [(), (0,), (1,), (7,), (2, 3, 5), (3, 0, 2), (4097,)]


def random_cases(rng, combo, full):
    it = np_type(combo["T"])
    for s in RANDOM_SHAPES:
        yield Case([np.array(s, dtype=it)], shape_str(s), attrs=dict(SEEDS), aux=[0])
    if combo["dtype"] in ("float", "double"):
        yield Case([np.array([2, -1], dtype=it)], "negative size refused", attrs=dict(SEEDS), aux=[0])
        yield Case([np.array([[2]], dtype=it)], "shape not a vector refused", attrs=dict(SEEDS), aux=[0])


def random_int_cases(rng, combo, full):
    it, ot = np_type(combo["T"]), np_type(combo["Tout"])
    info = np.iinfo(ot)

    def case(shape, lo, hi, tag):
        return Case([np.array(shape, dtype=it), np.array(lo, dtype=ot), np.array(hi, dtype=ot)],
                    f"{shape_str(shape)} [{lo}, {hi}) {tag}", attrs=dict(SEEDS), aux=[0])

    yield case((5,), 0, 10, "")
    yield case((2, 3), -5, 5, "")
    yield case((4097,), int(info.min), int(info.max), "whole range")
    yield case((0,), 3, 3, "empty: any bounds")
    yield case((6,), 7, 8, "one value")
    yield case((3, 2), int(info.max) - 1, int(info.max), "one value at the top")
    yield case((4,), 5, 5, "minval == maxval refused")
    yield case((4,), 6, -6, "minval > maxval refused")
    yield Case([np.array([4], dtype=it), np.array([1], dtype=ot), np.array(9, dtype=ot)], "minval not a scalar refused",
               attrs=dict(SEEDS), aux=[0])
    yield case((2, -1), 0, 10, "negative size refused")


def shuffle_cases(rng, combo, full):
    dt = combo["T"]
    yield Case([random_values(rng, dt, ())], "scalar", attrs=dict(SEEDS))
    yield Case([random_values(rng, dt, (0,))], "[0]", attrs=dict(SEEDS))
    yield Case([random_values(rng, dt, (0, 3))], "[0,3]", attrs=dict(SEEDS))
    yield Case([random_values(rng, dt, (1, 4))], "[1,4] one row", attrs=dict(SEEDS))
    yield Case([np.repeat(random_values(rng, dt, (1, 3)), 5, axis=0)], "[5,3] equal rows", attrs=dict(SEEDS))
    yield Case([random_values(rng, dt, (9,))], "[9]", attrs=dict(SEEDS))
    yield Case([random_values(rng, dt, (6, 2, 3))], "[6,2,3]", attrs=dict(SEEDS))



# ---- Cholesky, MatrixSolve, MatrixTriangularSolve ------------------------------------------
#
# Both sides factor with Eigen (LLT, partial-pivoting LU, triangular substitution), whose
# backward errors are a few n eps; the forward error is that times the condition number. The
# bound per element: 16 n kappa max|result| eps, kappa of the matrix actually used (the lower
# triangle for Cholesky and the triangle a triangular solve reads). Cholesky of a matrix that
# is not positive definite is NaN in the lower triangle on both sides; TensorFlow leaves the
# upper triangle unwritten (whatever its allocator held), so only the lower one is compared
# there (cholesky_comparable).


def kappa_of(m):
    if m.size == 0:
        return 1.0
    with np.errstate(all="ignore"):
        try:
            s = np.linalg.svd(m, compute_uv=False)
        except np.linalg.LinAlgError:
            return np.inf
    return s[0] / s[-1] if s[-1] > 0 else np.inf


def per_matrix_bound(matrices, results, out_shape):
    """16 n kappa_i max|X_i| for each matrix i of the batch, broadcast over its result."""
    n = matrices.shape[-1] if matrices.ndim >= 2 else 0
    count = int(np.prod(out_shape[:-2], dtype=np.int64))
    res = results.astype(np.float64).reshape(count, *out_shape[-2:]) if count else results
    out = np.zeros((count, *out_shape[-2:]))
    for i in range(count):
        with np.errstate(invalid="ignore"):
            finite = res[i][np.isfinite(res[i])]
        scale = float(np.max(np.abs(finite))) if finite.size else 0.0
        out[i] = 16 * max(n, 1) * kappa_of(matrices[i]) * scale
    return out.reshape(out_shape)


def symmetric_from_lower(a):
    low = np.tril(a)
    return low + np.swapaxes(np.tril(a, -1), -1, -2)


def cholesky_bound(inputs, attrs, outputs):
    a = inputs[0].astype(np.float64)
    n = a.shape[-1]
    mats = symmetric_from_lower(a).reshape(-1, n, n) if a.size else a.reshape(0, n, n)
    return per_matrix_bound(mats, outputs[0], outputs[0].shape)


def cholesky_comparable(inputs, combo, shape):
    a = inputs[0].astype(np.float64)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.size == 0:
        return np.ones(shape, dtype=bool)
    n = a.shape[-1]
    mask = np.ones((int(np.prod(a.shape[:-2], dtype=np.int64)), n, n), dtype=bool)
    for i, m in enumerate(symmetric_from_lower(a).reshape(-1, n, n)):
        try:
            with np.errstate(all="ignore"):
                ok = np.all(np.isfinite(np.linalg.cholesky(m)))
        except np.linalg.LinAlgError:
            ok = False
        if not ok:
            mask[i] = np.tril(np.ones((n, n), dtype=bool))
    return mask.reshape(shape) if mask.size == int(np.prod(shape)) else np.ones(shape, dtype=bool)


def spd(rng, shape, dt, upper_noise=False):
    n = shape[-1]
    m = rng.normal(0.0, 1.0, shape)
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    if upper_noise:  # TensorFlow reads only the lower triangle
        a = a + np.triu(rng.normal(0.0, 50.0, shape), 1)
    return cast(a, dt)


def largest_kappa(a):
    """The largest condition number among the (symmetric, from the lower triangle) matrices of
    a, 1 for none (an infinite one is a NaN case, compared as NaN): Cholesky's gradient solves
    with L twice, kappa(L)^2 = kappa(A)."""
    a = a.astype(np.float64)
    if a.ndim < 2 or a.size == 0 or a.shape[-1] != a.shape[-2]:
        return 1.0
    n = a.shape[-1]
    kappas = [k for k in (kappa_of(m) for m in symmetric_from_lower(a).reshape(-1, n, n)) if np.isfinite(k)]
    return max([1.0] + kappas)


def cholesky_case(a, tag):
    return Case([a], tag, bound=cholesky_bound, grad_kappa=largest_kappa(a))


def cholesky_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(1, 1), (0, 0), (3, 0, 0), (0, 4, 4), (2, 2), (3, 3), (5, 4, 4), (2, 3, 6, 6), (17, 17), (40, 40)]:
        yield cholesky_case(spd(rng, shape, dt), shape_str(shape))
    yield cholesky_case(spd(rng, (3, 5, 5), dt, upper_noise=True), "upper triangle not read")
    h = 1.0 / (np.arange(6)[:, None] + np.arange(6)[None, :] + 1.0)
    # kappa ~ 1.6e3: the float gradients of the two sides differ by ~1e-5 relative.
    yield cholesky_case(cast(h + 1e-3 * np.eye(6), dt), "Hilbert 6x6 + 1e-3 I")
    yield Case([cast(np.array([[[4.0, 2.0], [2.0, 5.0]], [[1.0, 2.0], [2.0, 1.0]]]), dt)],
               "one not positive definite in a batch: NaN", bound=cholesky_bound)
    yield Case([cast(np.array([[4.0, 2.0, 1.0], [2.0, 5.0, 1.0], [1.0, 1.0, -7.0]]), dt)],
               "fails at the last pivot: NaN", bound=cholesky_bound)
    yield Case([cast(np.array([[4.0, 0.0], [2.0, np.inf]]), dt)], "inf on the diagonal", bound=cholesky_bound)
    yield Case([random_values(rng, dt, (2, 3))], "2x3 not square refused")
    yield Case([random_values(rng, dt, (4,))], "vector refused")


def solve_bound(lower=None):
    def bound(inputs, attrs, outputs):
        a = inputs[0].astype(np.float64)
        if lower is not None:
            a = np.tril(a) if attrs.get("lower", True) else np.triu(a)
        out = outputs[0]
        n = a.shape[-1]
        a = np.broadcast_to(a, (*out.shape[:-2], n, n)).reshape(-1, n, n) if out.size else a
        return per_matrix_bound(a, out, out.shape)
    return bound


def conditioned_square(rng, shape, dt, boost=None):
    n = shape[-1]
    return cast(rng.normal(0.0, 1.0, shape) + (boost if boost is not None else n) * np.eye(n), dt)


def matrix_solve_cases(rng, combo, full):
    dt = combo["T"]
    for sa, sb in [((1, 1), (1, 1)), ((2, 2), (2, 1)), ((3, 3), (3, 4)), ((5, 4, 4), (5, 4, 2)),
                   ((2, 3, 6, 6), (2, 3, 6, 1)), ((17, 17), (17, 3)), ((40, 40), (40, 5)), ((0, 0), (0, 3)),
                   ((3, 3), (3, 0)), ((0, 4, 4), (0, 4, 2))]:
        a, b = conditioned_square(rng, sa, dt), random_values(rng, dt, sb, -10, 10)
        for adjoint in (False, True):
            yield Case([a, b], f"{shape_str(sa)}\\{shape_str(sb)} adjoint={adjoint}", attrs={"adjoint": adjoint},
                       bound=solve_bound())
    yield Case([cast(np.array([[0.0, 2.0], [3.0, 0.0]]), dt), cast(np.ones((2, 1)), dt)], "needs pivoting",
               attrs={"adjoint": False}, bound=solve_bound())
    yield Case([cast(np.array([[1.0, 2.0], [2.0, 4.0]]), dt), cast(np.ones((2, 1)), dt)], "singular refused",
               attrs={"adjoint": False})
    yield Case([cast(np.ones((2, 2, 2)), dt), cast(np.ones((3, 2, 1)), dt)], "batch mismatch refused",
               attrs={"adjoint": False})
    yield Case([conditioned_square(rng, (2, 2), dt), cast(np.ones((3, 1)), dt)], "rows mismatch refused",
               attrs={"adjoint": False})
    yield Case([random_values(rng, dt, (2, 3)), cast(np.ones((2, 1)), dt)], "2x3 not square refused",
               attrs={"adjoint": False})


def triangular_solve_cases(rng, combo, full):
    dt = combo["T"]
    for sa, sb in [((1, 1), (1, 1)), ((3, 3), (3, 4)), ((5, 4, 4), (5, 4, 2)), ((17, 17), (17, 3)),
                   ((3, 4, 4), (1, 4, 2)), ((4, 4), (2, 4, 3)), ((2, 1, 3, 3), (5, 3, 1)), ((0, 0), (0, 3)),
                   ((3, 3), (3, 0)), ((40, 40), (40, 2))]:
        a, b = conditioned_square(rng, sa, dt, boost=4.0), random_values(rng, dt, sb, -10, 10)
        for lower in (True, False):
            for adjoint in (False, True):
                yield Case([a, b], f"{shape_str(sa)}\\{shape_str(sb)} lower={lower} adjoint={adjoint}",
                           attrs={"lower": lower, "adjoint": adjoint}, bound=solve_bound(lower=True))
    yield Case([cast(np.array([[0.0, 0.0], [2.0, 4.0]]), dt), cast(np.ones((2, 1)), dt)], "zero on the diagonal",
               attrs={"lower": True, "adjoint": False})
    yield Case([cast(np.ones((3, 2, 2)), dt), cast(np.ones((2, 2, 1)), dt)], "incompatible batches refused",
               attrs={"lower": True, "adjoint": False})
    yield Case([conditioned_square(rng, (2, 2), dt), cast(np.ones((3, 1)), dt)], "rows mismatch refused",
               attrs={"lower": True, "adjoint": False})
    yield Case([random_values(rng, dt, (2, 3)), cast(np.ones((2, 1)), dt)], "2x3 not square refused",
               attrs={"lower": True, "adjoint": False})
    yield Case([conditioned_square(rng, (2, 2), dt), cast(np.ones((2,)), dt)], "vector rhs refused",
               attrs={"lower": True, "adjoint": False})



# ---- Qr, SelfAdjointEigV2, Svd --------------------------------------------------------------
#
# Both sides factor with Eigen's HouseholderQR, SelfAdjointEigenSolver and BDCSVD (Jacobi below
# 16 columns), so the factors' signs are the same algorithm's choices: Q, R, U and V are
# compared as they are. SelfAdjointEigV2's eigenvectors are compared with each column's
# largest entry made positive (eig_signs_fixed says why). The cases keep
# eigenvalues and singular values apart (random matrices), where the vectors are unique up to
# that sign. Bounds: backward errors of a few n eps ||A||, so values are within 16 n ||A|| eps
# and vectors within 16 n ||A|| / gap eps (gap: the smallest distance between two eigenvalues
# or singular values, or to 0 for r's and u's columns past the rank); Q and R within
# 16 n kappa(A) eps of their largest entries.


def factor_bound(kind):
    """The bound of the output compared (fidelity_tool passes one output at a time): the
    largest over the batch's matrices, told apart by rank (values: one dimension fewer)."""
    def bound(inputs, attrs, outputs):
        a = inputs[0].astype(np.float64)
        t = outputs[0]
        m, n = a.shape[-2], a.shape[-1]
        mats = a.reshape(-1, m, n) if a.size else a.reshape(0, m, n)
        worst = 0.0
        for mat in mats:
            norm = float(np.linalg.norm(mat, 2)) if mat.size else 0.0
            k = 16 * max(m, n, 1)
            if kind == "qr":
                worst = max(worst, k * kappa_of(mat) * max(norm, 1.0))
                continue
            vals = np.linalg.eigvalsh(symmetric_from_lower(mat)) if kind == "eig" else \
                np.linalg.svd(mat, compute_uv=False)
            if t.ndim == a.ndim - 1:  # the values
                worst = max(worst, k * max(norm, 1e-300))
                continue
            gaps = list(np.abs(np.diff(np.sort(vals))))
            if kind == "svd" and (m != n or attrs.get("full_matrices")):
                gaps.append(float(np.min(vals)))  # columns past the rank turn with the smallest value
            gap = min(gaps) if gaps else np.inf
            worst = max(worst, k * norm / gap if gap > 0 else np.inf)
        return np.full(t.shape, worst)
    return bound


def general_matrix(rng, shape, dt):
    return cast(rng.normal(0.0, 1.0, shape), dt)


def only_first(raw, tensors, attrs):
    """The first output alone: the vectors' outputs are left unwritten by TensorFlow without
    compute_v / compute_uv."""
    return raw(input=tensors[0], **attrs)[0]


def qr_cases(rng, combo, full):
    """As Svd's: the shapes pinned (pinned_case), full_matrices for more rows than columns and
    empty matrices kept away from the gradient, which TensorFlow's _QrGrad refuses for them
    (NotImplementedError); a vector (refused) has no case, its unknown shape would reach the
    gradient too (Svd's case covers the kernels' shared check)."""
    dt = combo["T"]
    for shape, fulls in [((1, 1), (False, True)), ((3, 3), (False, True)), ((4, 2), (False,)), ((2, 4), (False, True)),
                         ((5, 4, 3), (False,)), ((5, 3, 4), (True,)), ((2, 3, 6, 6), (False, True)), ((17, 9), (False,)),
                         ((9, 17), (False, True)), ((40, 40), (False, True))]:
        for full_matrices in fulls:
            yield pinned_case(general_matrix(rng, shape, dt), f"{shape_str(shape)} full_matrices={full_matrices}",
                           {"full_matrices": full_matrices}, bound=factor_bound("qr"))
    x = general_matrix(rng, (4, 2), dt)
    yield Case([x], "[4,2] full_matrices=True", attrs={"full_matrices": True}, bound=factor_bound("qr"),
               build=lambda raw, t, a, x=x: raw(input=tf.constant(x), **a))
    for shape in [(0, 3), (3, 0), (0, 3, 2), (2, 0, 0)]:
        for full_matrices in (False, True):
            yield Case([cast(np.zeros(shape), dt)], f"empty {shape_str(shape)} full_matrices={full_matrices}",
                       attrs={"full_matrices": full_matrices},
                       build=lambda raw, t, a, shape=shape: raw(input=tf.zeros(shape, t[0].dtype), **a))


def eig_signs_fixed(raw, tensors, attrs):
    """SelfAdjointEigV2 with each eigenvector (column of v) turned so that its largest entry
    is positive: an eigenvector of a distinct eigenvalue is unique up to its sign, and Eigen's
    choice of sign follows the rounding of its QR iterations, which differs between
    TensorFlow's Eigen and Debian's 3.4 for a few float matrices (3 of 9 random float cases,
    columns negated whole). Both sides run these ops on their own factors."""
    e, v = raw(input=tensors[0], **attrs)
    n = tf.shape(v)[-1]
    vt = tf.linalg.matrix_transpose(v)
    pivot = tf.reduce_sum(vt * tf.one_hot(tf.argmax(tf.abs(vt), axis=-1), n, dtype=v.dtype), axis=-1)
    return e, v * tf.expand_dims(tf.sign(pivot), -2)


def symmetric_matrix(rng, shape, dt):
    m = rng.normal(0.0, 1.0, shape)
    return cast(m + np.swapaxes(m, -1, -2), dt)


def eig_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(1, 1), (2, 2), (3, 3), (5, 4, 4), (2, 3, 6, 6), (17, 17), (40, 40)]:
        yield Case([symmetric_matrix(rng, shape, dt)], shape_str(shape), attrs={"compute_v": True},
                   build=eig_signs_fixed, bound=factor_bound("eig"))
    x = symmetric_matrix(rng, (3, 5, 5), dt)
    yield Case([x + cast(np.triu(rng.normal(0.0, 50.0, (3, 5, 5)), 1), dt)], "upper triangle not read",
               attrs={"compute_v": True}, build=eig_signs_fixed, bound=factor_bound("eig"))
    yield Case([symmetric_matrix(rng, (4, 6, 6), dt)], "eigenvalues only", attrs={"compute_v": False},
               build=only_first, bound=factor_bound("eig"))
    for shape in [(0, 0), (2, 0, 0)]:
        yield Case([cast(np.zeros(shape), dt)], f"empty {shape_str(shape)}", attrs={"compute_v": True})
    yield Case([cast(np.array([[np.nan, 1.0], [1.0, 2.0]]), dt)], "NaN refused", attrs={"compute_v": True})
    yield Case([random_values(rng, dt, (2, 3))], "2x3 not square refused", attrs={"compute_v": True})


def pinned_case(x, tag, attrs, bound=None):
    """A Case whose op sees its input reshaped to the input's own (constant) shape: Svd's
    gradient slices by the matrices' sizes, which TensorFlow (NotImplementedError) and we
    (Unimplemented) need when the graph is built, so the unknown-shape mode pins them."""
    def build(raw, tensors, a, shape=x.shape):
        return raw(input=tf.reshape(tensors[0], shape), **a)
    return Case([x], tag, attrs=attrs, build=build, bound=bound)


def svd_cases(rng, combo, full):
    dt = combo["T"]
    # full_matrices only where m and n are at most 1 apart: TensorFlow's gradient raises
    # NotImplementedError beyond (the forward is the same code either way).
    for shape, fulls in [((1, 1), (False, True)), ((3, 3), (False, True)), ((4, 2), (False,)), ((2, 4), (False,)),
                         ((5, 4, 3), (False, True)), ((3, 4), (True,)), ((2, 3, 6, 6), (False, True)),
                         ((17, 9), (False,)), ((9, 20), (False,)), ((40, 30), (False,))]:
        for full_matrices in fulls:
            yield pinned_case(general_matrix(rng, shape, dt), f"{shape_str(shape)} full_matrices={full_matrices}",
                           {"compute_uv": True, "full_matrices": full_matrices}, bound=factor_bound("svd"))
    yield Case([general_matrix(rng, (3, 5, 4), dt)], "values only",
               attrs={"compute_uv": False, "full_matrices": False}, build=only_first,
               bound=factor_bound("svd"))
    # Empty matrices, made in the graph (the fed input unused, so no gradient is asked for:
    # TensorFlow's raises NotImplementedError for full_matrices with m and n more than 1 apart).
    for shape in [(0, 3), (3, 0), (2, 0, 3)]:
        for full_matrices in (False, True):
            yield Case([cast(np.zeros(shape), dt)], f"empty {shape_str(shape)} full_matrices={full_matrices}",
                       attrs={"compute_uv": True, "full_matrices": full_matrices},
                       build=lambda raw, t, a, shape=shape: raw(input=tf.zeros(shape, t[0].dtype), **a))
    yield Case([cast(np.array([[np.nan, 1.0], [1.0, 2.0]]), dt)], "NaN: NaN factors",
               attrs={"compute_uv": True, "full_matrices": False})
    yield Case([cast(np.array([[np.inf, 1.0], [1.0, 2.0]]), dt)], "inf: NaN factors",
               attrs={"compute_uv": True, "full_matrices": False})
    yield Case([random_values(rng, dt, (4,))], "vector refused", attrs={"compute_uv": True, "full_matrices": False})


CATALOGUE = [
    OpSpec("MatrixInverse", inverse_cases, LU_BOUND, accept=complex_too),
    OpSpec("MatrixDeterminant", determinant_cases, LU_BOUND, accept=complex_too),
    OpSpec("Cholesky", cholesky_cases, LU_BOUND, comparable=cholesky_comparable),
    OpSpec("MatrixSolve", matrix_solve_cases, LU_BOUND),
    OpSpec("MatrixTriangularSolve", triangular_solve_cases, LU_BOUND),
    OpSpec("Qr", qr_cases, LU_BOUND),
    OpSpec("SelfAdjointEigV2", eig_cases, LU_BOUND),
    OpSpec("Svd", svd_cases, LU_BOUND),
    OpSpec("BatchMatMul", batch_matmul_cases, SUM_BOUND, accept=complex_too),
    OpSpec("BatchMatMulV3", batch_matmul_v3_cases, SUM_BOUND, accept=complex_too,
           label=lambda c: f"{c['Ta']}x{c['Tb']}->{c['Tout']}"),
    OpSpec("BroadcastGradientArgs", broadcast_gradient_args_cases),
    OpSpec("RandomUniform", random_cases, EXACT, label_attr="dtype", own_session=True),
    OpSpec("RandomStandardNormal", random_cases, EXACT, label_attr="dtype", own_session=True),
    OpSpec("TruncatedNormal", random_cases, EXACT, label_attr="dtype", own_session=True),
    OpSpec("RandomUniformInt", random_int_cases, EXACT, label_attr="Tout", own_session=True),
    OpSpec("RandomShuffle", shuffle_cases, EXACT, own_session=True),
]

ACCEPTED = [
    dict(op="BatchMatMulV3", row=r"(bfloat16xu?int8|u?int8xbfloat16)->bfloat16", tag=".*", mode=".*",
         kind="grad-(outcome|stage)",
         reason="TensorFlow 2.21 cannot build the gradient of a BatchMatMulV3 of a bfloat16 and an 8-bit integer "
                "side: its _BatchMatMulV2 gradient (math_grad.py) multiplies the bfloat16 gradient by the integer "
                "side with math_ops.matmul (\"Input 'y' of 'BatchMatMulV2' Op has type int8 that does not match "
                "type bfloat16\"); ours computes the bfloat16 side's gradient (and refuses, at run, the sides whose "
                "product is refused)"),
    dict(op="Svd", row="float", tag=r"\[2,3,6,6\] full_matrices=False", mode=".*", kind="grad-values",
         reason="Svd's gradient divides by the gaps between squared singular values (TensorFlow's linalg_grad.py "
                "_SvdGrad: f = _SafeReciprocal(expand_dims(s2, -2) - expand_dims(s2, -1)), line 892); float U and V "
                "from TensorFlow's Eigen and Debian's 3.4 differ by eps/gap, which that division amplifies again: "
                "2e-5 relative here; the double gradients of the same case agree"),
]
