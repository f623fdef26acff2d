"""The "segment" family of the differential harness: the segment reductions (sorted and
unsorted) and Einsum. Imported by fidelity_catalogue (CATALOGUE, BOUNDS, ACCEPTED).

Values: floats with edge values (NaN, infinities, signed zeros, denormals) in some cases,
integers over their whole range (sums and products wrap, both sides alike). Ids: repeated,
negative (dropped by the unsorted ops, refused by the sorted ones), out of range, of both
index types; empty segments (each reduction's identity), empty data, multi-dimensional ids.
Einsum: a dozen equations (products, batches, broadcasting ellipses, diagonals, traces,
sums, outer products, an inflated output) and the refusals, including equations TensorFlow's
shape function rejects (the node is built with a valid equation and the attr replaced, so the
refusal happens when the graph is imported).
"""
import numpy as np
from tensorflow.core.framework import attr_value_pb2

from fidelity_catalogue import (EXACT, FLOATS, INTS, SUM_BOUND, Case, OpSpec, finfo, finfo_of, np_type, order_dependent,
                                random_values, shape_str)

# ---- segment reductions ------------------------------------------------------------------


def segment_rows(inputs, sorted_ids):
    """(data as [n, inner] float64 (complex128), ids as a flat int64 vector, number of output rows)."""
    data, ids = inputs[0], inputs[1]
    inner = int(np.prod(data.shape[ids.ndim:], dtype=np.int64))
    flat = data.astype(np.complex128 if np.iscomplexobj(data) else np.float64).reshape(ids.size, inner)
    idx = ids.astype(np.int64).reshape(-1)
    rows = (int(idx[-1]) + 1 if idx.size else 0) if sorted_ids else int(inputs[2])
    return flat, idx, rows


def per_segment(inputs, outputs, sorted_ids, fn):
    """fn(rows of one segment as [k, inner]) -> [inner], for every output row."""
    flat, idx, rows = segment_rows(inputs, sorted_ids)
    out = np.zeros((rows, flat.shape[1]))
    for s in range(rows):
        with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
            out[s] = fn(flat[idx == s])
    return out.reshape(outputs[0].shape)


def segment_sum_bound(sorted_ids, mean=False):
    def bound(inputs, attrs, outputs):
        dt_max = float(finfo_of(inputs[0].dtype).max)

        def fn(rows):
            k = max(1, rows.shape[0])
            total = order_dependent(np.sum(np.abs(rows), axis=0), dt_max, (rows.shape[1],))
            b = 2 * k * total
            if mean:  # the division's rounding too
                with np.errstate(invalid="ignore"):
                    b = np.where(np.isfinite(b), b / k + 4 * np.abs(np.sum(rows, axis=0) / k), b)
            return b
        return per_segment(inputs, outputs, sorted_ids, fn)
    return bound


def segment_prod_bound(sorted_ids):
    def bound(inputs, attrs, outputs):
        fi = finfo_of(inputs[0].dtype)

        def fn(rows):
            k = max(1, rows.shape[0])
            mags = np.abs(rows)
            prod = np.prod(rows, axis=0)
            big = np.prod(np.maximum(mags, 1.0), axis=0)
            small = np.prod(np.where(mags == 0, 1.0, np.minimum(mags, 1.0)), axis=0)
            risky = (big > fi.max) | (small < fi.tiny)
            nan_terms = np.any(np.isnan(rows), axis=0)
            return np.where(nan_terms, np.nan, np.where(risky, np.inf, 2 * k * np.abs(prod)))
        return per_segment(inputs, outputs, sorted_ids, fn)
    return bound


def packet_nan_columns(inputs, combo, shape):
    """Sorted Max/Min: the output elements compared. TensorFlow reduces a segment of several
    rows in packets of columns that drop NaN (an all-NaN column gives -inf/+inf) and the
    leftover columns one by one, keeping a NaN (as here, everywhere); which columns are
    packets depends on its vector width, so a multi-row segment column holding a NaN is not
    compared. Those columns keep their NaN here (kernels/cpu/segment_reduction_ops.cc)."""
    data, ids = inputs[0], inputs[1]
    if combo["T"] not in FLOATS or ids.size == 0:
        return np.ones(shape, dtype=bool)
    flat = data.astype(np.float64).reshape(ids.size, int(np.prod(data.shape[1:], dtype=np.int64)))
    idx = ids.astype(np.int64)
    mask = np.ones((shape[0], flat.shape[1]), dtype=bool)
    for s in range(shape[0]):
        rows = flat[idx == s]
        if rows.shape[0] > 1:
            mask[s] = ~np.isnan(rows).any(axis=0)
    return mask.reshape(shape)


def segment_values(rng, dt, shape, product, edges=False):
    """Data of dtype dt: products get small factors (so a segment's product stays finite)."""
    if product:
        lo, hi = (-2, 2) if dt in FLOATS else (-3, 3)
        v = random_values(rng, dt, shape, lo, hi)
        if edges and dt in FLOATS:
            v = random_values(rng, dt, shape, lo, hi, edges=True)
        return v
    return random_values(rng, dt, shape, edges=edges and dt in FLOATS)


def sorted_ids_of(rng, n, segments):
    return np.sort(rng.integers(0, segments, n))


def sorted_segment_cases(product=False):
    def gen(rng, combo, full):
        dt, it = combo["T"], np_type(combo["Tindices"])

        def case(shape, ids, tag, edges=False):
            return Case([segment_values(rng, dt, shape, product, edges), np.array(ids, dtype=it)], tag)

        yield case((6,), [0, 0, 1, 1, 1, 3], "[6] ids 0,0,1,1,1,3 (empty segment 2)")
        yield case((5, 3), [2, 2, 2, 4, 4], "[5,3] ids from 2 (empty 0,1,3)")
        yield case((4, 2, 3), [0, 1, 2, 3], "[4,2,3] one row each")
        yield case((7, 20), [0, 0, 0, 1, 1, 2, 2], "[7,20] (packets and tails)", edges=True)
        yield case((300, 70), sorted_ids_of(rng, 300, 40), "[300,70] 40 segments")
        yield case((40, 9), sorted_ids_of(rng, 40, 6), "[40,9] random+edges", edges=True)
        yield case((0, 3), [], "[0,3] no rows")
        yield case((3, 0), [0, 1, 1], "[3,0] no columns")
        yield case((1,), [5], "[1] single id 5")
        yield case((4,), [0, 2, 1, 3], "unsorted ids")
        yield case((4,), [0, 0, 1, -1], "negative last id")
        yield case((4,), [-1, 0, 1, 2], "negative first id")
        yield case((4,), [0, 1, 2], "ids shorter than data")
        yield Case([segment_values(rng, dt, (4,), product), np.array([[0, 1], [1, 2]], dtype=it)], "[2,2] ids")
        yield Case([segment_values(rng, dt, (), product), np.array([0], dtype=it)], "scalar data")
        if dt in INTS:
            info = np.iinfo(np_type(dt))
            x = np.array([info.max, info.max, info.min, info.min, 1, info.max], dtype=np_type(dt))
            yield Case([x, np.array([0, 0, 1, 1, 1, 2], dtype=it)], "integer extremes (wrapping)")
    return gen


def unsorted_segment_cases(product=False):
    def gen(rng, combo, full):
        dt, it, nt = combo["T"], np_type(combo["Tindices"]), np_type(combo["Tnumsegments"])

        def case(shape, ids, n, tag, edges=False):
            return Case([segment_values(rng, dt, shape, product, edges), np.array(ids, dtype=it), np.array(n, dtype=nt)],
                        tag, aux=[2])

        yield case((6,), [0, 2, 0, 1, 2, 2], 3, "[6] into 3")
        yield case((6, 4), [-1, 0, 3, 3, -2, 1], 5, "[6,4] negative ids, empty segments 2 and 4")
        yield case((2, 3, 5), [[0, 1, 1], [2, -1, 0]], 3, "[2,3,5] ids [2,3]")
        yield case((7, 20), [1, 1, 0, 0, 1, 0, 1], 2, "[7,20] (packets and tails)", edges=True)
        yield case((300, 70), rng.integers(-1, 20, 300), 20, "[300,70] 20 segments")
        yield case((40, 9), rng.integers(-2, 6, 40), 6, "[40,9] random+edges", edges=True)
        yield case((0, 3), [], 2, "[0,3] no rows: identities")
        yield case((3, 0), [0, 7, 1], 2, "[3,0] no columns, an id out of range")
        yield case((4,), [0, 1, 1, 0], 0, "num_segments 0")
        yield case((4,), [0, 3, 1, 0], 3, "id out of range")
        yield case((4,), [0, 1, 1], 3, "ids shorter than data")
        yield case((4,), [0, 1, 1, 0], -1, "negative num_segments")
        yield Case([segment_values(rng, dt, (), product), np.array(1, dtype=it), np.array(2, dtype=nt)],
                   "scalar data and id", aux=[2])
        yield Case([segment_values(rng, dt, (4,), product), np.array([0, 1, 1, 0], dtype=it), np.array([2], dtype=nt)],
                   "num_segments a vector", aux=[2])
        if dt in INTS:
            info = np.iinfo(np_type(dt))
            x = np.array([info.max, info.max, info.min, info.min, 1, info.max], dtype=np_type(dt))
            yield Case([x, np.array([0, 0, 1, 1, 1, 2], dtype=it), np.array(4, dtype=nt)],
                       "integer extremes (wrapping)", aux=[2])
        if dt in FLOATS:
            x = np.array([-np.inf, -np.inf, np.inf, np.nan, 1.0, np.nan, -0.0, 0.0], dtype=np_type(dt))
            yield Case([x, np.array([0, 0, 1, 2, 2, 3, 4, 4], dtype=it), np.array(5, dtype=nt)],
                       "infinities, NaN order, signed zeros", aux=[2])
    return gen


# ---- Einsum ------------------------------------------------------------------------------

def einsum_build(equation_after=None):
    """Builds Einsum over the case's inputs; with equation_after, the node's equation attr is
    then replaced (TensorFlow's Python runs the shape function when the node is made, so an
    equation it refuses can only reach the import this way)."""
    def build(raw, tensors, attrs):
        out = raw(inputs=list(tensors), **attrs)
        if equation_after is not None:
            out.op._set_attr("equation", attr_value_pb2.AttrValue(s=equation_after.encode()))
        return out
    return build


def einsum_bound(inputs, attrs, outputs):
    eq = attrs["equation"]
    if isinstance(eq, bytes):
        eq = eq.decode()
    out_subs = eq.split("->")[1].replace("...", "")
    if len(set(out_subs)) < len(out_subs):  # an inflated output ("i->ii") copies: exact
        return np.zeros(outputs[0].shape)
    mags = [np.abs(x).astype(np.float64) for x in inputs]  # complex: the moduli
    ones = [np.ones(x.shape) for x in inputs]
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.einsum(eq, *mags)
        terms = np.einsum(eq, *ones)
    dt_max = float(finfo_of(inputs[0].dtype).max)
    return 2 * np.maximum(terms, 1) * order_dependent(total, dt_max, outputs[0].shape)


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)], "matrix product"),
    ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)], "batch, transposed contraction"),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)], "ellipsis broadcast"),
    ("ij...,jk->ik...", [(3, 4, 2), (4, 5)], "ellipsis last, one side"),
    ("ij->ji", [(3, 4)], "transpose"),
    ("ii->i", [(4, 4)], "diagonal"),
    ("bii->b", [(3, 4, 4)], "batched trace"),
    ("ij->", [(3, 4)], "sum of all"),
    ("ijk,k->i", [(2, 3, 4), (4,)], "reduced label j"),
    ("i,i->", [(17,), (17,)], "dot"),
    ("i,j->ij", [(3,), (4,)], "outer product"),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)], "two contracted labels"),
    ("i->ii", [(3,)], "inflated output"),
    ("i,i->i", [(5,), (5,)], "element-wise product"),
    ("ij,jk->ik", [(0, 4), (4, 5)], "empty free dimension"),
    ("ij,jk->ik", [(3, 0), (0, 5)], "empty contraction: zeros"),
    ("ij,jk->ik", [(33, 70), (70, 9)], "larger product"),
    # Refusals.
    ("ij,jk->ik", [(2, 3), (4, 5)], "contracted sizes differ"),
    ("ij,jk->ik", [(2, 3, 4), (3, 4)], "rank differs from subscripts"),
    ("...ij,...jk->...ik", [(5, 2, 3), (2, 3, 4)], "ellipses do not broadcast"),
    ("...ij,jk->ik", [(2, 3, 4), (4, 5)], "ellipsis missing in the output"),
    ("aabcdefg->abcdefg", [(2, 2, 1, 1, 1, 1, 1, 1)], "a diagonal over 7 labels (TensorFlow: 6 at most)"),
]
EINSUM_BAD_EQUATIONS = [
    ("ij,jk->ik", "ij,jk", "no arrow"),
    ("ij,jk->ik", "ij->ik", "one subscript for two inputs"),
    ("ij->ij", "i.j->ij", "a lone period"),
    ("ij->ij", "ij->k", "output label not in the inputs"),
]


def einsum_cases(rng, combo, full):
    dt = combo["T"]
    for eq, shapes, tag in EINSUM_CASES:
        xs = [random_values(rng, dt, s) for s in shapes]
        yield Case(xs, f"{eq} {' '.join(shape_str(s) for s in shapes)} {tag}", attrs={"equation": eq},
                   build=einsum_build())
    if dt in FLOATS:
        xs = [random_values(rng, dt, (6, 9), edges=True), random_values(rng, dt, (9, 4), edges=True)]
        yield Case(xs, "ij,jk->ik random+edges", attrs={"equation": "ij,jk->ik"}, build=einsum_build())
    for valid, bad, tag in EINSUM_BAD_EQUATIONS:
        shapes = [(2, 3), (3, 4)] if "," in valid else [(2, 3)]
        yield Case([random_values(rng, dt, s) for s in shapes], f"{bad!r} {tag}", attrs={"equation": valid},
                   build=einsum_build(bad))


def einsum_row(combo):
    return combo["T"]


# Per dtype, the int32 index types get every case; each other index-type combination two.
CATALOGUE = [
    OpSpec("UnsortedSegmentSum", unsorted_segment_cases(), SUM_BOUND, label_attr="T", secondary_cases=2),
    OpSpec("UnsortedSegmentProd", unsorted_segment_cases(product=True), SUM_BOUND, label_attr="T", secondary_cases=2),
    OpSpec("UnsortedSegmentMax", unsorted_segment_cases(), EXACT, label_attr="T", secondary_cases=2),
    OpSpec("UnsortedSegmentMin", unsorted_segment_cases(), EXACT, label_attr="T", secondary_cases=2),
    OpSpec("SegmentSum", sorted_segment_cases(), SUM_BOUND, label_attr="T", secondary_cases=2),
    OpSpec("SegmentMean", sorted_segment_cases(), SUM_BOUND, label_attr="T", secondary_cases=2),
    OpSpec("SegmentProd", sorted_segment_cases(product=True), SUM_BOUND, label_attr="T", secondary_cases=2),
    OpSpec("SegmentMax", sorted_segment_cases(), EXACT, label_attr="T", secondary_cases=2, comparable=packet_nan_columns),
    OpSpec("SegmentMin", sorted_segment_cases(), EXACT, label_attr="T", secondary_cases=2, comparable=packet_nan_columns),
    OpSpec("Einsum", einsum_cases, SUM_BOUND, label=einsum_row),
]

BOUNDS = {
    "UnsortedSegmentSum": segment_sum_bound(False),
    "UnsortedSegmentProd": segment_prod_bound(False),
    "SegmentSum": segment_sum_bound(True),
    "SegmentMean": segment_sum_bound(True, mean=True),
    "SegmentProd": segment_prod_bound(True),
    "Einsum": einsum_bound,
}

ACCEPTED = []
