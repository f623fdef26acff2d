"""The "math_more" family of the differential harness (fidelity_catalogue.FAMILIES): the complex
number ops (Complex, Real, Imag, Conj), the truncated remainders (Mod, TruncateMod),
ApproximateEqual, CheckNumerics (and V2), EuclideanNorm, Bitcast, BiasAddV1, InTopKV2, the
TensorScatter ops and SparseToDense.
Imported by fidelity_catalogue (CATALOGUE).

Every value here but EuclideanNorm's has one right answer (parts copied, fmod, a comparison, a
pass-through), so those cases are exact; EuclideanNorm's float sums of squares run in another
order on each side (euclidean_norm_bound). The complex ops take complex values made of the
part type's edge values (fidelity_catalogue.edge_values) and random ones. The harness differentiates float inputs
only, so each complex op also gets "parts" cases: float inputs made complex inside the case
(Complex), the op, and a part taken again (Real or Imag), which runs Real's, Imag's, Conj's
and Complex's gradients in one chain (one path per case: a complex AddN has no kernel here).
"""
import numpy as np

from fidelity_catalogue import (SUM_BOUND, FLOATS, Case, complex_too, OpSpec, binary, complex_part, edge_values, finfo_of,
                                np_type, random_values, reduced_axes, reduction_cases, shape_str, tiled_edges, unary)

import tensorflow as tf


def complex_type_of(t):
    return tf.complex64 if t.dtype == tf.float32 else tf.complex128


def part_cases(chain):
    """Float real and imaginary parts (edge pairs, random shapes with broadcasting), the op
    reached through `chain(raw, ins, attrs, k)` (k: the case's index, to vary the chain)."""
    def gen(rng, combo, full):
        dt = combo["T"] if combo["T"] in FLOATS else complex_part(combo["T"])
        e = edge_values(dt)
        k = 0
        build = [lambda raw, ins, attrs, k=j: chain(raw, ins, attrs, k) for j in range(2)]
        for j in range(2):
            yield Case([e, np.roll(e, 3 + j)], f"parts edges [{len(e)}] #{j}", build=build[j])
        shapes = [((7,), (7,)), ((3, 1), (1, 4)), ((2, 3), ()), ((0,), (0,)), ((17,), (17,)), ((300,), (300,))]
        for sx, sy in shapes:
            k = 1 - k
            yield Case([random_values(rng, dt, sx), random_values(rng, dt, sy)],
                       f"parts random {shape_str(sx)}x{shape_str(sy)}", build=build[k])
    return gen


def complex_chain(raw, ins, attrs, k):
    c = raw(real=ins[0], imag=ins[1], **attrs)
    return tf.raw_ops.Real(input=c, Tout=ins[0].dtype) if k == 0 else tf.raw_ops.Imag(input=c, Tout=ins[0].dtype)


def part_chain(raw, ins, attrs, k):
    # Real or Imag of Complex(parts) (both broadcast first: Real's input is the whole tensor).
    return raw(input=tf.raw_ops.Complex(real=ins[0], imag=ins[1], Tout=complex_type_of(ins[0])), **attrs)


def conj_chain(raw, ins, attrs, k):
    c = raw(input=tf.raw_ops.Complex(real=ins[0], imag=ins[1], Tout=complex_type_of(ins[0])), **attrs)
    return tf.raw_ops.Imag(input=c, Tout=ins[0].dtype) if k == 0 else tf.raw_ops.Real(input=c, Tout=ins[0].dtype)


def approximate_equal_cases(rng, combo, full):
    """x and y of one shape: every pair of edge values, random pairs and pairs a tolerance
    apart (just inside and outside), under several tolerances; shapes that differ."""
    dt = combo["T"]
    e = edge_values(dt)
    gx, gy = np.meshgrid(e, e, indexing="ij")
    for tol in (1e-5, 0.5, 0.0, 1e30):
        yield Case([gx.reshape(-1), gy.reshape(-1)], f"edge pairs flat [{gx.size}] tolerance {tol}",
                   attrs={"tolerance": tol})
    for shape in [(), (0,), (7,), (3, 5), (17,), (4100,)]:
        x = random_values(rng, dt, shape)
        yield Case([x, random_values(rng, dt, shape)], f"random {shape_str(shape)}")
        with np.errstate(over="ignore", invalid="ignore"):
            near = (x.astype(np.float64) + rng.uniform(-0.2, 0.2, shape)).astype(x.dtype)
        yield Case([x, near], f"near {shape_str(shape)} tolerance 0.1", attrs={"tolerance": 0.1})
    yield Case([random_values(rng, dt, (3,)), random_values(rng, dt, (4,))], "shapes [3]x[4]")
    yield Case([random_values(rng, dt, (3, 1)), random_values(rng, dt, (1, 3))], "shapes [3,1]x[1,3]")
    yield Case([random_values(rng, dt, (2, 3)), random_values(rng, dt, (3, 2))], "shapes [2,3]x[3,2]")


def check_numerics_cases(rng, combo, full):
    """Finite values (passed through), and each kind of non-finite value alone and together."""
    dt = combo["T"]
    a = {"message": "checked"}
    for shape in [(), (0,), (7,), (3, 5), (17,), (4100,)]:
        yield Case([random_values(rng, dt, shape, low=-100.0, high=100.0)], "finite " + shape_str(shape), attrs=a)
    e = edge_values(dt)
    yield Case([e[np.isfinite(e.astype(np.float64))]], "finite edges", attrs=a)
    inf, nan = np.inf, np.nan
    for vals, what in [([1, inf], "+inf"), ([-inf, 2], "-inf"), ([nan], "nan"), ([-inf, inf], "both infs"),
                       ([inf, nan], "+inf nan"), ([nan, -inf], "-inf nan"), ([-inf, nan, inf], "all three")]:
        yield Case([np.array(vals, dtype=np.float64).astype(e.dtype)], what, attrs=a)
    yield Case([tiled_edges(rng, dt, 5000)], "edges tiled [5000]", attrs=a)


def euclidean_norm_bound(inputs, attrs, outputs):
    """The sum of squares is off by up to 2 n eps of itself (another order of summation), its
    root by half that relative to the norm; plus the root's own rounding. NaN where a NaN term
    makes the norm NaN; +inf where a square or the sum may overflow (anything goes there)."""
    x, axes = inputs
    ax = reduced_axes(x, axes)
    n = max(1, int(np.prod([x.shape[a] for a in ax])) if ax else 1)
    keep = bool(attrs.get("keep_dims"))
    fi = finfo_of(x.dtype)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        x64 = np.abs(x).astype(np.float64)  # complex: the moduli
        total = np.sum(x64 * x64, axis=ax, keepdims=keep)
        norm = np.sqrt(total)
        b = n * total / np.where(norm > 0, norm, 1.0) + 2 * norm
    # A complex norm's root is Eigen's complex one, sqrt((|s| + |s|) / 2): inf from half the
    # largest value on.
    limit = float(fi.max) / 2 if np.iscomplexobj(x) else float(fi.max)
    b = np.where(np.isnan(total), np.nan, np.where(total > limit, np.inf, b))
    return b.reshape(outputs[0].shape)


def euclidean_norm_comparable(inputs, combo, shape):
    """The complex norms compared: TensorFlow squares the elements in whole AVX vectors with
    Eigen's vector product (pmul of Packet4cf/Packet2cd, no recovery of infinities) and the
    rest with C's (__mulsc3), which turns NaN + inf i, or a NaN part beside one whose square
    overflows, into inf + NaN i where the vector gives NaN + NaN i. Which elements are the
    rest depends on its vector width, its tree reduction's splits and its threads' blocks,
    so a norm with such an element is not compared (ours squares as the vector does)."""
    x, axes = inputs
    if not np.iscomplexobj(x) or x.size == 0:
        return np.ones(shape, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        big = lambda v: np.isinf(v * v)
        either = (np.isnan(x.real) & big(x.imag)) | (np.isnan(x.imag) & big(x.real))
    ax = reduced_axes(x, axes)
    return ~np.any(either, axis=ax).reshape(shape) if ax else ~either.reshape(shape)


BOUNDS = {"EuclideanNorm": euclidean_norm_bound}


def bitcast_cases(rng, combo, full):
    """Values of T (edges too) in the shapes the sizes allow (a last dimension of the ratio
    for a wider type), empty ones, and the shapes each direction refuses."""
    src, dst = combo["T"], combo["type"]
    a, b = np.dtype(np_type(src)).itemsize, np.dtype(np_type(dst)).itemsize
    if a < b:
        r = b // a
        shapes = [(r,), (3, r), (2, 4, r), (0, r), (1100, r)]
        yield Case([random_values(rng, src, (2, r + 1))], f"last dimension {r + 1} (not {r})")
        yield Case([random_values(rng, src, ())], "scalar")
    else:
        shapes = [(), (5,), (3, 4), (0,), (2, 0, 3), (4100,)]
    for shape in shapes:
        yield Case([random_values(rng, src, shape)], "random " + shape_str(shape))
    e = edge_values(src)
    n = len(e) - len(e) % (b // a if a < b else 1)
    yield Case([e[:n].reshape((-1, b // a) if a < b else (-1,))], "edges")


def bias_add_v1_cases(rng, combo, full):
    """BiasAdd's NHWC cases (BiasAddV1 has no data_format), a scalar value and a bias of the
    wrong length or rank."""
    dt = combo["T"]
    for shape in [(4, 3), (2, 5, 5, 7), (0, 3), (64, 70), (3,), (2, 3, 4), (5, 0)]:
        yield Case([random_values(rng, dt, shape, edges=dt in FLOATS), random_values(rng, dt, shape[-1:])],
                   shape_str(shape))
    yield Case([random_values(rng, dt, (4, 3)), random_values(rng, dt, (4,))], "bias length mismatch")
    yield Case([random_values(rng, dt, (4, 3)), random_values(rng, dt, (1, 3))], "bias of rank 2")
    yield Case([random_values(rng, dt, ()), random_values(rng, dt, (1,))], "scalar value")


def in_top_k_cases(rng, combo, full):
    """Predictions with ties (small integers), random ones and edge values (a row with a NaN or
    an infinity says false), targets in and out of range, k from -1 to past the classes; the
    shapes each input must have."""
    it = np_type(combo["T"])
    for rows, classes in [(4, 5), (1, 1), (0, 3), (3, 0), (64, 100)]:
        ties = rng.integers(-2, 3, size=(rows, classes)).astype(np.float32)
        rand = random_values(rng, "float", (rows, classes))
        edged = random_values(rng, "float", (rows, classes), edges=True)
        targets = rng.integers(-1, classes + 2, size=rows).astype(it)
        for k in (-1, 0, 1, 2, classes + 1):
            yield Case([ties, targets, np.array(k, dtype=it)], f"ties [{rows},{classes}] k={k}")
        yield Case([rand, targets, np.array(3, dtype=it)], f"random [{rows},{classes}] k=3")
        yield Case([edged, targets, np.array(2, dtype=it)], f"edges [{rows},{classes}] k=2")
    p = random_values(rng, "float", (4, 3))
    yield Case([p, np.array([0, 1], dtype=it), np.array(1, dtype=it)], "targets of another length")
    yield Case([p, np.array([0, 1, 2, 0], dtype=it), np.array([1], dtype=it)], "k of rank 1")
    yield Case([p.reshape(-1), np.array([0], dtype=it), np.array(1, dtype=it)], "predictions of rank 1")
    yield Case([p, np.array([[0], [1], [2], [0]], dtype=it), np.array(1, dtype=it)], "targets of rank 2")


def tensor_scatter_cases(rng, combo, full):
    """Index tuples of depth 1 to 3 into tensors of rank 1 to 3, repeated tuples (the order of
    the updates decides), edge values among tensor and updates (NaN against Max and Min), a
    threaded size, empty tensors and updates, and each check: a tuple out of range or
    negative, outer and inner dimensions that do not match, indices of rank 1 or 0, a scalar
    tensor, a depth of 0."""
    dt, it = combo["T"], np_type(combo["Tindices"])

    def ix(v):
        return np.array(v, dtype=it)

    def case(shape, indices, ushape, tag, edges=False):
        return Case([random_values(rng, dt, shape, edges=edges), ix(indices), random_values(rng, dt, ushape, edges=edges)],
                    tag)

    yield case((5,), [[1], [3], [1]], (3,), "[5] <- [[1],[3],[1]]")
    yield case((4, 3), [[0], [2]], (2, 3), "[4,3] <- rows [[0],[2]]")
    yield case((3, 4), [[0, 1], [2, 3], [0, 1]], (3,), "[3,4] <- elements, one repeated")
    yield case((2, 3, 4), [[[1, 2]], [[0, 0]]], (2, 1, 4), "[2,3,4] <- indices [2,1,2]")
    yield case((2, 3, 4), [[1, 2, 3], [0, 0, 0]], (2,), "[2,3,4] <- depth 3")
    yield case((6,), rng.integers(0, 6, size=(40, 1)), (40,), "[6] <- 40 random tuples, edges", edges=True)
    yield case((300, 64), rng.integers(0, 300, size=(50, 1)), (50, 64), "[300,64] <- 50 rows")
    yield case((0, 2), np.zeros((0, 1)), (0, 2), "empty tensor and updates")
    yield case((2, 2), np.zeros((0, 1)), (0, 2), "no updates")
    yield case((0, 2), np.zeros((3, 0)), (3, 0, 2), "empty tensor, depth 0")
    yield case((5,), [[5]], (1,), "tuple out of range")
    yield case((5,), [[1], [-1]], (2,), "negative tuple")
    yield case((4, 3), [[0]], (2, 3), "outer dimensions differ")
    yield case((4, 3), [[0]], (1, 2), "inner dimensions differ")
    yield case((4, 3), [1, 2], (1,), "indices of rank 1")
    yield case((4, 3), [1], (3,), "indices of rank 1, updates of the row's shape")
    yield case((4, 3), 1, (3,), "indices of rank 0")
    yield case((), [[0]], (1,), "scalar tensor")
    yield case((0, 2), [[0]], (1, 2), "updates for an empty tensor")
    yield case((2, 2), np.zeros((0, 0)), (0, 2, 2), "depth 0, no updates")


def sparse_to_dense_cases(rng, combo, full):
    """Sorted distinct tuples (validated), a scalar value for all, 1-D and scalar indices, a
    scalar output, unsorted and repeated tuples with and without validation, tuples out of
    range, and each shape check."""
    dt, it = combo["T"], np_type(combo["Tindices"])

    def ix(v):
        return np.array(v, dtype=it)

    def vals(shape):
        return random_values(rng, dt, shape, edges=dt in FLOATS)

    d = vals(())
    yield Case([ix([[0, 1], [1, 2]]), ix([2, 3]), vals((2,)), d], "[2,3] two tuples")
    flat = np.sort(rng.choice(200 * 30, size=300, replace=False))
    yield Case([ix(np.stack([flat // 30, flat % 30], axis=1)), ix([200, 30]), vals((300,)), d], "[200,30] 300 tuples")
    yield Case([ix([1, 3]), ix([5]), vals(()), d], "vector indices, one value")
    yield Case([ix(2), ix([5]), vals(()), d], "scalar index")
    yield Case([ix(np.zeros((1, 0))), ix(np.zeros(0)), vals((1,)), d], "scalar output")
    yield Case([ix(np.zeros((0, 2))), ix([2, 2]), vals((0,)), d], "no tuples")
    yield Case([ix([[2, 1, 0], [0, 0, 1]]), ix([3, 2, 2]), vals((2,)), d], "rank 3")
    for validate in (True, False):
        a = {"validate_indices": validate}
        yield Case([ix([[1], [0]]), ix([5]), vals((2,)), d], f"unsorted validate={validate}", attrs=a)
        yield Case([ix([[1], [1]]), ix([5]), vals((2,)), d], f"repeated validate={validate}", attrs=a)
        yield Case([ix([[1], [7]]), ix([5]), vals((2,)), d], f"out of range validate={validate}", attrs=a)
        yield Case([ix([[1], [-1]]), ix([5]), vals((2,)), d], f"negative validate={validate}", attrs=a)
    yield Case([ix([[[1]]]), ix([5]), vals((1,)), d], "indices of rank 3")
    yield Case([ix([[1]]), ix([[5]]), vals((1,)), d], "output_shape of rank 2")
    yield Case([ix([[1]]), ix([5]), vals((2,)), d], "too many values")
    yield Case([ix([[1]]), ix([5]), vals((1,)), vals((1,))], "default of rank 1")
    yield Case([ix([[1]]), ix([5, 2]), vals((1,)), d], "output_shape of another length")
    yield Case([ix([[0, 1]]), ix([0, 2]), vals((1,)), d], "empty output")


def any_combo(combo):
    return True


CATALOGUE = [
    binary("Mod", nonzero_int_rhs=True), binary("TruncateMod", nonzero_int_rhs=True),
    OpSpec("ApproximateEqual", approximate_equal_cases),
    OpSpec("CheckNumerics", check_numerics_cases), OpSpec("CheckNumericsV2", check_numerics_cases),
    binary("Complex", accept=any_combo),
    OpSpec("Complex", part_cases(complex_chain), accept=any_combo),
    unary("Real", accept=any_combo), OpSpec("Real", part_cases(part_chain), accept=any_combo),
    unary("Imag", accept=any_combo), OpSpec("Imag", part_cases(part_chain), accept=any_combo),
    unary("Conj", accept=any_combo), OpSpec("Conj", part_cases(conj_chain), accept=any_combo),
    OpSpec("EuclideanNorm", reduction_cases(), SUM_BOUND, accept=complex_too, comparable=euclidean_norm_comparable),
    OpSpec("Bitcast", bitcast_cases, label=lambda c: f"{c['T']}->{c['type']}"),
    OpSpec("BiasAddV1", bias_add_v1_cases, accept=complex_too),
    OpSpec("InTopKV2", in_top_k_cases),
    OpSpec("TensorScatterUpdate", tensor_scatter_cases), OpSpec("TensorScatterAdd", tensor_scatter_cases),
    OpSpec("TensorScatterSub", tensor_scatter_cases), OpSpec("TensorScatterMax", tensor_scatter_cases),
    OpSpec("TensorScatterMin", tensor_scatter_cases),
    OpSpec("SparseToDense", sparse_to_dense_cases),
]
