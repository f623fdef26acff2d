"""The "math_more" family of the differential harness (fidelity_catalogue.FAMILIES): the complex
number ops (Complex, Real, Imag, Conj), the truncated remainders (Mod, TruncateMod),
ApproximateEqual, CheckNumerics (and V2), EuclideanNorm, Bitcast, BiasAddV1 and InTopKV2.
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

from fidelity_catalogue import (SUM_BOUND, FLOATS, Case, OpSpec, binary, complex_part, edge_values, finfo_of,
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
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        x64 = x.astype(np.float64)
        total = np.sum(x64 * x64, axis=ax, keepdims=keep)
        norm = np.sqrt(total)
        b = n * total / np.where(norm > 0, norm, 1.0) + 2 * norm
    b = np.where(np.isnan(total), np.nan, np.where(total > float(finfo_of(x.dtype).max), np.inf, b))
    return b.reshape(outputs[0].shape)


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
    OpSpec("EuclideanNorm", reduction_cases(), SUM_BOUND),
    OpSpec("Bitcast", bitcast_cases, label=lambda c: f"{c['T']}->{c['type']}"),
    OpSpec("BiasAddV1", bias_add_v1_cases),
    OpSpec("InTopKV2", in_top_k_cases),
]
