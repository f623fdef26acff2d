"""The "linalg" family of the differential harness: MatrixInverse, MatrixDeterminant,
BatchMatMul (v1) and BatchMatMulV3, BroadcastGradientArgs, and the stateful seeded random ops
(RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt, RandomShuffle).
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

from fidelity_catalogue import (EXACT, SUM_BOUND, Case, OpSpec, Tolerance, batch_matmul_bound, batch_matmul_cases,
                                cast, np_type, random_values, shape_str)

LU_BOUND = Tolerance("bound", 4, "LU with partial pivoting on both sides: n eps backward error times the "
                                 "condition number (the bound functions say how)")

# ---- MatrixInverse, MatrixDeterminant -----------------------------------------------------


def batched(x):
    """x as [batch, n, n] float64."""
    n = x.shape[-1] if x.ndim >= 2 else 0
    batch = int(np.prod(x.shape[:-2], dtype=np.int64))
    return x.astype(np.float64).reshape(batch, n, n), n


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
    yield cast(np.array([[1e20, 2e20], [3e20, -1e20]]), dt) if dt == "double" else cast(
        np.array([[1e10, 2e10], [3e10, -1e10]]), dt), "2x2 large entries"
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


CATALOGUE = [
    OpSpec("MatrixInverse", inverse_cases, LU_BOUND),
    OpSpec("MatrixDeterminant", determinant_cases, LU_BOUND),
    OpSpec("BatchMatMul", batch_matmul_cases, SUM_BOUND),
    OpSpec("BatchMatMulV3", batch_matmul_v3_cases, SUM_BOUND,
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
]
