"""The "array_more" family of the differential harness (fidelity_catalogue.FAMILIES): the array
and shape ops the core catalogue does not cover. Imported by fidelity_catalogue (CATALOGUE,
ACCEPTED).

Data movement (and LinSpace and Bincount, whose arithmetic is TensorFlow's, with weights of
small integers), so every comparison is exact: TopKV2, Where, GatherNd, ScatterNd, Split,
SplitV, Unpack, BroadcastTo, InvertPermutation, PadV2, Gather (v1), Shape, ShapeN, Size, Rank,
DynamicStitch, ParallelDynamicStitch, ListDiff, ConcatOffset, StridedSliceGrad, MirrorPadGrad,
SpaceToBatchND, BatchToSpaceND, SpaceToDepth, DepthToSpace, Roll, ReverseSequence, Reverse (v1),
Concat (v1), BroadcastArgs, the diagonal ops (Diag, DiagPart, MatrixDiag, MatrixDiagPart,
MatrixSetDiag and their V3 forms, MatrixBandPart), LinSpace, Bincount, Unique, UniqueV2,
DynamicPartition and the identities (Identity, IdentityN, Snapshot, StopGradient,
PreventGradient, PlaceholderWithDefault). Each op gets a few small shapes, one that takes the
threaded path (16 KiB and more), edge values where the values matter (TopKV2's ordering of NaN,
infinities and signed zeros; Where's nonzero test), and a refusal or two (out-of-range indices,
mismatched shapes). ScatterNd's duplicate indices add small integers, so the sum is exact in any
order; ParallelDynamicStitch gets no duplicate indices (TensorFlow leaves their winner
unspecified).
"""
import numpy as np

from fidelity_catalogue import FLOATS, REAL_TYPES, Case, OpSpec, edge_values, np_type, random_values, shape_str


def small_ints(rng, dt, shape, low=-4, high=4):
    """Small integers (or 0/1 for bool) of dtype dt: sums of them are exact in any order."""
    if dt == "bool":
        return rng.random(shape) < 0.5
    lo = 0 if dt.startswith("uint") else low
    return rng.integers(lo, high, size=shape, endpoint=True).astype(np_type(dt))


# ---- sorting and selection ---------------------------------------------------------------


def top_k_cases(rng, combo, full):
    dt, tk = combo["T"], np_type(combo["Tk"])
    for shape, k, srt in [((5,), 2, True), ((3, 7), 3, True), ((3, 7), 7, True), ((2, 3, 6), 0, True),
                          ((4, 9), 1, False), ((16, 600), 5, True), ((0, 4), 2, True)]:
        yield Case([random_values(rng, dt, shape), np.array(k, dtype=tk)], f"{shape_str(shape)} k={k} sorted={srt}",
                   attrs={"sorted": srt}, aux=[1])
    # Ties: the lower index first.
    yield Case([np.array([[1, 3, 3, 0, 3], [2, 2, 2, 2, 2]], dtype=np_type(dt)), np.array(3, dtype=tk)], "ties",
               attrs={"sorted": True}, aux=[1])
    e = edge_values(dt)
    if dt in FLOATS:  # NaN apart (see ACCEPTED): signed zeros, denormals, infinities
        nan = np.isnan(e.astype(np.float64))
        yield Case([e[~nan], np.array(e.size - 1, dtype=tk)], f"edges {e.size - 1} (no NaN)", attrs={"sorted": True},
                   aux=[1])
        yield Case([rng.permutation(e), np.array(6, dtype=tk)], "edges with NaN", attrs={"sorted": True}, aux=[1])
    else:
        yield Case([e, np.array(min(6, e.size), dtype=tk)], f"edges {e.size}", attrs={"sorted": True}, aux=[1])
    yield Case([random_values(rng, dt, (3, 4)), np.array(5, dtype=tk)], "k > last dimension",
               attrs={"sorted": True}, aux=[1])
    yield Case([random_values(rng, dt, (3, 4)), np.array(-1, dtype=tk)], "negative k",
               attrs={"sorted": True}, aux=[1])
    yield Case([random_values(rng, dt, ()), np.array(1, dtype=tk)], "scalar input", attrs={"sorted": True}, aux=[1])


def where_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(), (7,), (3, 5), (2, 3, 4), (0, 3), (5000,)]:
        x = random_values(rng, dt, shape)
        if dt != "bool" and x.size:  # some zeros, so some entries are dropped
            x = np.where(rng.random(shape) < 0.3, np.zeros((), dtype=x.dtype), x).astype(x.dtype)
        yield Case([x], "random " + shape_str(shape))
    yield Case([edge_values(dt)], "edges (signed zeros, NaN: nonzero)")


# ---- gathers and scatters ----------------------------------------------------------------


def gather_nd_cases(rng, combo, full):
    dt, ti = combo["Tparams"], np_type(combo["Tindices"])
    for shape, idx in [((5,), [[0], [4], [2]]), ((4, 3), [[1, 2], [3, 0]]), ((4, 3), [[2], [0]]),
                       ((2, 3, 4), [[[1, 2], [0, 0]]]), ((4, 3), np.zeros((0, 2))), ((4, 3), np.zeros((2, 0))),
                       ((300, 70), [[i] for i in range(299, -1, -3)]), ((4, 3), [[1, 3]]), ((4, 3), [[-1, 0]]),
                       ((4, 3), [[0, 0, 0]])]:
        idx = np.array(idx, dtype=ti)
        yield Case([random_values(rng, dt, shape), idx], f"{shape_str(shape)} indices {shape_str(idx.shape)}"
                   + (f" {idx.tolist()}" if idx.size < 4 else ""))


def scatter_nd_cases(rng, combo, full):
    dt, ti = combo["T"], np_type(combo["Tindices"])
    for shape, idx in [([6], [[1], [4], [0]]), ([4, 3], [[1, 2], [3, 0], [1, 2]]), ([4, 3], [[2], [0], [2]]),
                       ([2, 3, 4], [[1, 2], [0, 0]]), ([4, 3], np.zeros((0, 2))), ([4100], [[i] for i in range(0, 4100, 37)]),
                       ([4, 3], [[4, 0]]), ([4, 3], [[-1, 0]])]:
        idx = np.array(idx, dtype=ti)
        upd_shape = idx.shape[:-1] + tuple(shape[idx.shape[-1]:])
        yield Case([idx, small_ints(rng, dt, upd_shape), np.array(shape, dtype=ti)],
                   f"{shape} indices {shape_str(idx.shape)}", aux=[2])
    yield Case([np.array([[0]], dtype=ti), small_ints(rng, dt, (2,)), np.array([4, 3], dtype=ti)],
               "updates of the wrong shape", aux=[2])


def gather_v1_cases(rng, combo, full):
    dt, ti = combo["Tparams"], np_type(combo["Tindices"])
    for shape, idx in [((5,), [0, 4, 2, 2]), ((5, 3), [[1, 0], [4, 4]]), ((5, 3), []), ((0, 3), []), ((5,), 3),
                       ((300, 70), list(range(299, -1, -7))), ((5,), [5]), ((5,), [-1])]:
        yield Case([random_values(rng, dt, shape), np.array(idx, dtype=ti)],
                   f"{shape_str(shape)} indices {np.array(idx).tolist() if np.size(idx) < 5 else np.shape(idx)}",
                   attrs={"validate_indices": True})


# ---- splits and stacking -----------------------------------------------------------------


def split_cases(rng, combo, full):
    dt = combo["T"]
    for shape, axis, n in [((6,), 0, 3), ((4, 6), 1, 2), ((4, 6), -2, 4), ((2, 3, 4), 2, 1), ((0, 4), 1, 2),
                           ((64, 300), 0, 4), ((5,), 0, 2), ((4, 6), 2, 2)]:
        yield Case([np.array(axis, dtype=np.int32), random_values(rng, dt, shape)], f"{shape_str(shape)} axis {axis} into {n}",
                   attrs={"num_split": n}, aux=[0])


def split_v_cases(rng, combo, full):
    dt, tl = combo["T"], np_type(combo["Tlen"])
    for shape, sizes, axis in [((7,), [2, 5], 0), ((4, 6), [1, -1, 2], 1), ((4, 6), [0, 4], 0), ((2, 3, 4), [4], -1),
                               ((64, 300), [100, 80, 120], 1), ((4, 6), [1, 1], 0), ((4, 6), [-1, -1], 1),
                               ((4, 6), [2, 2], 2)]:
        yield Case([random_values(rng, dt, shape), np.array(sizes, dtype=tl), np.array(axis, dtype=np.int32)],
                   f"{shape_str(shape)} sizes {sizes} axis {axis}", attrs={"num_split": len(sizes)}, aux=[1, 2])


def split_v_testable(combo):
    """Not int8 size_splits: TensorFlow 2.21's SplitV shape function reads a constant int8
    size_splits as int64 and aborts the process (tensor.cc "Check failed: dtype() ==
    expected_dtype (6 vs. 9)") when the graph is imported, so TensorFlow gives no answer to
    compare with."""
    return combo["Tlen"] != "int8" and combo["T"] in REAL_TYPES


def unpack_cases(rng, combo, full):
    dt = combo["T"]
    for shape, axis, num in [((3,), 0, 3), ((2, 3), 1, 3), ((2, 3, 4), -1, 4), ((4, 0), 0, 4), ((2, 4100), 0, 2),
                             ((2, 3), 0, 3), ((2, 3), 2, 2)]:
        yield Case([random_values(rng, dt, shape)], f"{shape_str(shape)} axis {axis} num {num}",
                   attrs={"num": num, "axis": axis})


def broadcast_to_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tidx"])
    for shape, to in [((), [3, 2]), ((3,), [2, 3]), ((3, 1), [3, 4]), ((1, 3), [0, 3]), ((3,), [3]),
                      ((1, 70), [64, 70]), ((3,), [4]), ((2, 3), [3]), ((3,), [2, -3])]:
        yield Case([random_values(rng, dt, shape), np.array(to, dtype=it)], f"{shape_str(shape)} to {to}", aux=[1])


def invert_permutation_cases(rng, combo, full):
    t = np_type(combo["T"])
    for perm in [[0], [2, 0, 1], [], list(rng.permutation(5000)), [0, 0, 1], [0, 3, 1], [-1, 0]]:
        yield Case([np.array(perm, dtype=t)], f"[{len(perm)}]" + ("" if len(perm) > 10 else f" {perm}"))
    yield Case([np.array([[0, 1]], dtype=t)], "matrix")


def pad_v2_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tpaddings"])
    for shape, pads in [((2, 3), [[1, 0], [0, 2]]), ((5,), [[0, 0]]), ((0, 3), [[1, 1], [0, 0]]),
                        ((64, 70), [[3, 4], [5, 6]]), ((2, 3), [[-1, 0], [0, 0]]), ((2, 3), [[1, 1]])]:
        yield Case([random_values(rng, dt, shape), np.array(pads, dtype=it), random_values(rng, dt, ())],
                   f"{shape_str(shape)} pads {pads}", aux=[1])
    yield Case([random_values(rng, dt, (2, 3)), np.array([[1, 1], [1, 1]], dtype=it), random_values(rng, dt, (2,))],
               "non-scalar constant_values", aux=[1])


# ---- shapes ------------------------------------------------------------------------------


SHAPE_SHAPES = [(), (0,), (3,), (2, 3, 4), (4100,)]


def shape_cases(rng, combo, full):
    dt = combo["T"]
    for shape in SHAPE_SHAPES:
        yield Case([random_values(rng, dt, shape)], shape_str(shape))


def shape_n_cases(rng, combo, full):
    dt = combo["T"]
    build = lambda raw_op, ts, attrs: raw_op(input=ts, **attrs)  # noqa: E731
    for shapes in [[(3,)], [(), (2, 3), (0, 4)], [(4100,), (1, 1, 1)]]:
        yield Case([random_values(rng, dt, s) for s in shapes], " ".join(map(shape_str, shapes)), build=build)


def concat_offset_cases(rng, combo, full):
    t = np_type(combo["shape_type"])
    build = lambda raw_op, ts, attrs: raw_op(concat_dim=ts[0], shape=ts[1:], **attrs)  # noqa: E731
    for axis, shapes in [(1, [[2, 3], [2, 4], [2, 0]]), (0, [[5], [7]]), (-1, [[2, 3], [2, 5]]),
                         (1, [[2, 3], [3, 3]]), (2, [[2, 3], [2, 3]]), (0, [[2, 3], [2]])]:
        yield Case([np.array(axis, dtype=np.int32)] + [np.array(s, dtype=t) for s in shapes], f"axis {axis} {shapes}",
                   aux=list(range(len(shapes) + 1)), build=build)


# ---- stitching and set difference ------------------------------------------------------


def stitch_cases(parallel):
    def gen(rng, combo, full):
        dt = combo["T"]

        def build(raw_op, ts, attrs):
            n = len(ts) // 2
            return raw_op(indices=ts[:n], data=ts[n:], **attrs)

        cases = [([[0, 2], [1, 3]], (), "two vectors"), ([[[0, 3], [1, 4]], [2]], (3,), "a matrix and a vector of ids"),
                 ([[4], [0, 1, 2, 3]], (2, 2), "rows [2,2]"), ([[], [0]], (), "empty indices"),
                 ([list(range(0, 5000, 2)), list(range(1, 5000, 2))], (), "5000 interleaved")]
        if not parallel:
            cases += [([[0, 1], [1, 0]], (3,), "duplicates: the last wins")]
        for ids, inner, tag in cases:
            idx = [np.array(i, dtype=np.int32) for i in ids]
            data = [random_values(rng, dt, i.shape + inner) for i in idx]
            yield Case(idx + data, tag, build=build)
        yield Case([np.array([0, 1], dtype=np.int32), random_values(rng, dt, (3,))], "data of the wrong shape", build=build)
        yield Case([np.array([0, -1], dtype=np.int32), random_values(rng, dt, (2,))], "negative index", build=build)
    return gen


def list_diff_cases(rng, combo, full):
    dt = combo["T"]
    for x, y in [([1, 2, 3, 4, 5, 6], [1, 3, 5]), ([3, 1, 3, 2], [7]), ([], [1]), ([1, 2], []), ([2, 2, 2], [2]),
                 ([5, 4, 3], [0, 5, 4, 3])]:
        yield Case([np.array(x).astype(np_type(dt)), np.array(y).astype(np_type(dt))], f"{x} - {y}")
    big = small_ints(rng, dt, (5000,), 0, 60)
    yield Case([big, small_ints(rng, dt, (20,), 0, 60)], "[5000] - [20]")
    if dt in FLOATS:
        e = edge_values(dt)
        yield Case([e, e[::3]], "edges (NaN never equal)")
    yield Case([np.ones((2, 2), dtype=np_type(dt)), np.ones((2,), dtype=np_type(dt))], "matrix x")


# ---- gradients of array ops ----------------------------------------------------------------


def strided_slice_grad_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Index"])
    for shape, b, e, s, masks in [((10,), [1], [8], [2], (0, 0, 0, 0, 0)), ((4, 5), [1, 0], [3, 5], [1, 2], (0, 0, 0, 0, 0)),
                                  ((4, 5), [3, 4], [0, 0], [-1, -2], (0, 0, 0, 0, 0)),
                                  ((4, 5), [1], [2], [1], (0, 0, 0, 0, 1)),
                                  ((2, 3, 4), [0, 0], [0, 0], [1, 1], (0, 0, 0, 1, 0)),
                                  ((64, 300), [2, 5], [60, 290], [3, 1], (0, 0, 0, 0, 0))]:
        fwd = np.zeros(shape)
        sl = tuple(slice(bb, ee, ss) for bb, ee, ss in zip(b, e, s))
        bm, em, elm, nam, sam = masks
        if sam:
            dy_shape = fwd[b[0]].shape
        elif nam:
            dy_shape = (1,) + fwd.shape
        else:
            dy_shape = fwd[sl].shape
        attrs = {"begin_mask": bm, "end_mask": em, "ellipsis_mask": elm, "new_axis_mask": nam, "shrink_axis_mask": sam}
        yield Case([np.array(shape, dtype=it), np.array(b, dtype=it), np.array(e, dtype=it), np.array(s, dtype=it),
                    random_values(rng, dt, dy_shape)], f"{shape_str(shape)} {b}:{e}:{s} masks {masks}",
                   attrs=attrs, aux=[0, 1, 2, 3])
    attrs = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}
    yield Case([np.array([10], dtype=it), np.array([1], dtype=it), np.array([8], dtype=it), np.array([2], dtype=it),
                random_values(rng, dt, (3,))], "dy of the wrong shape", attrs=attrs, aux=[0, 1, 2, 3])
    yield Case([np.array([10], dtype=it), np.array([1], dtype=it), np.array([8], dtype=it), np.array([0], dtype=it),
                random_values(rng, dt, (4,))], "zero stride", attrs=attrs, aux=[0, 1, 2, 3])


def mirror_pad_grad_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tpaddings"])
    # The gradient sums padded entries onto their mirrors: small integers keep it exact.
    for shape, pads, mode in [((8,), [[2, 1]], "REFLECT"), ((8,), [[2, 1]], "SYMMETRIC"),
                              ((6, 9), [[1, 2], [3, 0]], "REFLECT"), ((9, 12), [[3, 3], [4, 4]], "SYMMETRIC"),
                              ((75, 84), [[5, 6], [7, 7]], "REFLECT"), ((5,), [[3, 3]], "REFLECT"),
                              ((4, 4), [[1, 1]], "SYMMETRIC")]:
        yield Case([small_ints(rng, dt, shape), np.array(pads, dtype=it)], f"{shape_str(shape)} {pads} {mode}",
                   attrs={"mode": mode}, aux=[1])


# ---- space, batch and depth ----------------------------------------------------------------


# TensorFlow's shape functions of SpaceToBatchND and BatchToSpaceND refuse a block_shape of
# unknown length, so it is a constant in every mode (always_const), as in TensorFlow 1's
# dilated convolutions.
def space_to_batch_cases(rng, combo, full):
    dt, tb, tp = combo["T"], np_type(combo["Tblock_shape"]), np_type(combo["Tpaddings"])
    for shape, block, pads in [((2, 2, 4, 1), [2, 2], [[0, 0], [2, 0]]), ((1, 3, 4, 2), [2], [[1, 0]]),
                               ((2, 4, 6, 3), [2, 3], [[0, 0], [0, 0]]), ((1, 5, 5, 1), [2, 2], [[1, 2], [0, 1]]),
                               ((3, 4), [1], [[0, 0]]), ((1, 2, 3, 4, 2), [1, 2, 1], [[0, 0], [1, 0], [0, 0]]),
                               ((1, 2, 2, 2, 2, 1), [2, 2, 2, 2], [[0, 0]] * 4), ((0, 4, 4, 1), [2, 2], [[0, 0]] * 2),
                               ((4, 62, 64, 8), [2, 2], [[1, 1], [0, 2]]),
                               # refusals: not divisible, negative padding, a zero block, more than
                               # four block dimensions that matter (at run: no shape function sees it)
                               ((1, 3, 4, 1), [2, 2], [[0, 0], [0, 0]]), ((1, 4, 4, 1), [2, 2], [[-1, 1], [0, 0]]),
                               ((1, 4, 4, 1), [0, 2], [[0, 0], [0, 0]]),
                               ((1, 2, 2, 2, 2, 2, 1), [2] * 5, [[0, 0]] * 5)]:
        yield Case([random_values(rng, dt, shape), np.array(block, dtype=tb), np.array(pads, dtype=tp)],
                   f"{shape_str(shape)} block {block} pads {pads}", aux=[1, 2], always_const=[1])
    yield Case([random_values(rng, dt, (1, 4, 4, 1)), np.array([2, 2], dtype=tb), np.zeros((3, 2), dtype=tp)],
               "paddings of the wrong shape", aux=[1, 2], always_const=[1])


def batch_to_space_cases(rng, combo, full):
    dt, tb, tc = combo["T"], np_type(combo["Tblock_shape"]), np_type(combo["Tcrops"])
    for shape, block, crops in [((8, 1, 3, 1), [2, 2], [[0, 0], [2, 0]]), ((4, 3, 1), [2], [[1, 2]]),
                                ((12, 2, 2, 3), [2, 3], [[0, 0], [0, 0]]), ((4, 4, 3, 1), [2, 2], [[1, 2], [0, 1]]),
                                ((3, 4), [1], [[0, 0]]), ((4, 2, 3, 4, 2), [1, 2, 1], [[0, 0], [1, 0], [0, 0]]),
                                ((16, 1, 1, 1, 1, 1), [2, 2, 2, 2], [[0, 0]] * 4), ((0, 4, 4, 1), [2, 2], [[0, 0]] * 2),
                                ((16, 32, 33, 8), [2, 2], [[1, 1], [0, 2]]),
                                # refusals: batch not divisible, crops too large, negative crops
                                ((3, 2, 2, 1), [2, 2], [[0, 0], [0, 0]]), ((4, 1, 1, 1), [2, 2], [[0, 3], [0, 0]]),
                                ((4, 2, 2, 1), [2, 2], [[-1, 0], [0, 0]]),
                                ((32, 1, 1, 1, 1, 1, 1), [2] * 5, [[0, 0]] * 5)]:
        yield Case([random_values(rng, dt, shape), np.array(block, dtype=tb), np.array(crops, dtype=tc)],
                   f"{shape_str(shape)} block {block} crops {crops}", aux=[1, 2], always_const=[1])


def space_depth_cases(to_depth):
    def gen(rng, combo, full):
        dt = combo["T"]
        if to_depth:
            cases = [((1, 4, 4, 2), 2), ((2, 6, 9, 3), 3), ((1, 2, 2, 1), 2), ((0, 4, 4, 1), 2), ((2, 64, 64, 4), 2),
                     ((1, 3, 4, 1), 2), ((1, 4, 4), 2)]
        else:
            cases = [((1, 1, 2, 8), 2), ((2, 3, 3, 18), 3), ((1, 1, 1, 4), 2), ((0, 2, 2, 4), 2), ((2, 32, 32, 16), 2),
                     ((1, 3, 4, 6), 2), ((1, 4, 4), 2)]
        for shape, bs in cases:
            yield Case([random_values(rng, dt, shape)], f"{shape_str(shape)} block {bs}", attrs={"block_size": bs})
    return gen


# ---- rolling and reversing ---------------------------------------------------------------


def roll_cases(rng, combo, full):
    dt, ts, ta = combo["T"], np_type(combo["Tshift"]), np_type(combo["Taxis"])
    for shape, shift, axis in [((5,), 2, 0), ((2, 3), [1, -1], [0, 1]), ((2, 3), [1, 1], [1, -1]),
                               ((3, 4, 5), [7, -9], [2, 0]), ((4,), [0], [0]), ((0, 3), [1], [0]),
                               ((64, 300), [5, -17], [0, 1]),
                               ((2, 3), [1], [2]), ((2, 3), [1, 2], [0]), ((), 1, 0)]:
        yield Case([random_values(rng, dt, shape), np.array(shift, dtype=ts), np.array(axis, dtype=ta)],
                   f"{shape_str(shape)} shift {shift} axis {axis}", aux=[1, 2])
    if combo["Tshift"] == "int64":  # TensorFlow reads shifts as 32-bit ints: 2^33 + 1 rolls by 1
        yield Case([random_values(rng, dt, (2, 3)), np.array([2 ** 33 + 1], dtype=ts), np.array([1], dtype=ta)],
                   "shift 2^33 + 1", aux=[1, 2])


def reverse_sequence_cases(rng, combo, full):
    dt, tl = combo["T"], np_type(combo["Tlen"])
    for shape, lens, seq_dim, batch_dim in [((2, 3, 4), [2, 3], 2, 0), ((2, 3, 4), [1, 4, 0], 2, 1),
                                            ((3, 5), [5, 0, 2], 1, 0), ((5, 3), [5, 0, 2], 0, 1),
                                            ((2, 3, 4, 5, 2), [4, 1], 3, 0), ((2, 0, 3), [0, 0], 1, 0),
                                            ((64, 300), list(rng.integers(0, 301, 64)), 1, 0),
                                            # refusals: too long, negative, seq_dim == batch_dim, a
                                            # negative seq_dim (only the kernel sees it), rank 6
                                            ((2, 3, 4), [2, 5], 2, 0), ((2, 3, 4), [2, -1], 2, 0),
                                            ((2, 3, 4), [2, 3], 0, 0), ((2, 3, 4), [2, 3], -1, 0),
                                            ((2, 1, 1, 1, 1, 1), [1, 1], 1, 0)]:
        yield Case([random_values(rng, dt, shape), np.array(lens, dtype=tl)],
                   f"{shape_str(shape)} seq_dim {seq_dim} batch_dim {batch_dim}" + (f" {lens}" if len(lens) < 5 else ""),
                   attrs={"seq_dim": seq_dim, "batch_dim": batch_dim}, aux=[1])


def reverse_v1_cases(rng, combo, full):
    dt = combo["T"]
    for shape, dims in [((2, 3, 4), [True, False, True]), ((5,), [True]), ((5,), [False]), ((), []), ((), [True]),
                        ((3, 0), [True, True]), ((64, 300), [True, True]), ((1,) * 9, [True] * 9),
                        ((0, 3), [True, False]), ((2, 3, 4), [True, False])]:
        yield Case([random_values(rng, dt, shape), np.array(dims, dtype=bool)], f"{shape_str(shape)} dims {dims}",
                   aux=[1])


def concat_v1_cases(rng, combo, full):
    dt = combo["T"]
    build = lambda raw_op, ts, attrs: raw_op(concat_dim=ts[0], values=ts[1:], **attrs)  # noqa: E731
    for axis, shapes in [(1, [(2, 3), (2, 4)]), (0, [(5,), (7,), (0,)]), (-1, [(2, 3, 1), (2, 3, 2)]),
                         (1, [(64, 300), (64, 100)]), (0, [(2, 3), (2,)]), (1, [(2, 3), (3, 3)]),
                         (2, [(2, 3), (2, 3)]), (0, [(), ()])]:
        yield Case([np.array(axis, dtype=np.int32)] + [random_values(rng, dt, sh) for sh in shapes],
                   f"axis {axis} {' '.join(map(shape_str, shapes))}", aux=[0], build=build)


def broadcast_args_cases(rng, combo, full):
    t = np_type(combo["T"])
    for s0, s1 in [([2, 1, 3], [4, 1]), ([], [4, 1]), ([0, 3], [1, 3]), ([5], [5]), ([-1, 3], [1, 3]),
                   ([2, 3], [4]), ([-1, 3], [2, 3])]:
        yield Case([np.array(s0, dtype=t), np.array(s1, dtype=t)], f"{s0} {s1}")
    yield Case([np.array([[2, 3]], dtype=t), np.array([3], dtype=t)], "a matrix")


# ---- diagonals ---------------------------------------------------------------------------


def matrix_band_part_cases(rng, combo, full):
    dt, ti = combo["T"], np_type(combo["Tindex"])
    for shape, lower, upper in [((3, 4), 1, 0), ((3, 4), -1, 2), ((2, 3, 5), 0, 0), ((4, 4), -1, -1), ((4, 4), 4, 4),
                                ((0, 3), 0, 0), ((64, 300), 5, 7), ((3, 4), 4, 0), ((3, 4), 0, 5), ((5,), 0, 0)]:
        yield Case([random_values(rng, dt, shape), np.array(lower, dtype=ti), np.array(upper, dtype=ti)],
                   f"{shape_str(shape)} lower {lower} upper {upper}", aux=[1, 2])


def diag_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(3,), (2, 3), (0,), (1,), (70,), (6, 5, 4), ()]:
        yield Case([random_values(rng, dt, shape)], shape_str(shape))


def diag_part_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(3, 3), (2, 3, 2, 3), (0, 0), (64, 64), (), (2, 3), (3,)]:
        yield Case([random_values(rng, dt, shape)], shape_str(shape))


def matrix_diag_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(3,), (2, 4), (0,), (2, 0), (64, 70), ()]:
        yield Case([random_values(rng, dt, shape)], shape_str(shape))


def matrix_diag_part_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(3, 4), (4, 3), (2, 3, 3), (0, 3), (16, 64, 64), (5,)]:
        yield Case([random_values(rng, dt, shape)], shape_str(shape))


def matrix_set_diag_cases(rng, combo, full):
    dt = combo["T"]
    for shape, dshape in [((3, 4), (3,)), ((2, 3, 3), (2, 3)), ((4, 3), (3,)), ((0, 3), (0,)), ((16, 64, 64), (16, 64)),
                          ((3, 4), (4,)), ((5,), (5,))]:
        yield Case([random_values(rng, dt, shape), random_values(rng, dt, dshape)],
                   f"{shape_str(shape)} diagonal {shape_str(dshape)}")


ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]


def matrix_diag_part_v3_cases(rng, combo, full):
    dt = combo["T"]
    for shape, k, align in [((3, 4), [-1, 1], "RIGHT_LEFT"), ((3, 4), 1, "RIGHT_LEFT"), ((4, 3), [-2, 0], "LEFT_RIGHT"),
                            ((2, 3, 3), [0, 2], "LEFT_LEFT"), ((3, 4), [-1, 1], "RIGHT_RIGHT"),
                            ((3, 4), [-1, 1], "LEFT_RIGHT"), ((0, 3), 0, "RIGHT_LEFT"), ((8, 64, 64), [-3, 3], "RIGHT_LEFT"),
                            ((3, 4), [-3, 1], "RIGHT_LEFT"), ((3, 4), [1, 0], "RIGHT_LEFT"),
                            ((3, 4), [0, 1, 2], "RIGHT_LEFT")]:
        yield Case([random_values(rng, dt, shape), np.array(k, dtype=np.int32), random_values(rng, dt, ())],
                   f"{shape_str(shape)} k {k} {align}", attrs={"align": align}, aux=[1])


def matrix_diag_v3_cases(rng, combo, full):
    dt = combo["T"]
    for dshape, k, rows, cols, align in [((2, 3), [0, 1], -1, -1, "RIGHT_LEFT"), ((3,), -1, -1, -1, "RIGHT_LEFT"),
                                         ((3,), 0, 4, -1, "RIGHT_LEFT"), ((3,), 1, -1, 5, "LEFT_RIGHT"),
                                         ((2, 3, 4), [-1, 1], -1, -1, "LEFT_RIGHT"),
                                         ((2, 3, 4), [-1, 1], -1, -1, "RIGHT_RIGHT"), ((0,), 0, -1, -1, "RIGHT_LEFT"),
                                         ((4, 3, 64), [-1, 1], -1, -1, "LEFT_LEFT"),
                                         ((2, 3), [0, 1], 2, -1, "RIGHT_LEFT"), ((3,), 0, 5, 5, "RIGHT_LEFT"),
                                         ((2, 3), [0, 2], -1, -1, "RIGHT_LEFT")]:
        yield Case([random_values(rng, dt, dshape), np.array(k, dtype=np.int32), np.array(rows, dtype=np.int32),
                    np.array(cols, dtype=np.int32), random_values(rng, dt, ())],
                   f"{shape_str(dshape)} k {k} rows {rows} cols {cols} {align}", attrs={"align": align}, aux=[1, 2, 3])


def matrix_set_diag_v3_cases(rng, combo, full):
    dt = combo["T"]
    for shape, dshape, k, align in [((3, 4), (2, 3), [-1, 0], "RIGHT_LEFT"), ((3, 4), (3,), 1, "RIGHT_LEFT"),
                                    ((4, 4), (3, 4), [-1, 1], "LEFT_RIGHT"), ((2, 3, 5), (2, 2, 3), [0, 1], "RIGHT_RIGHT"),
                                    ((3, 4), (2, 3), [-1, 0], "LEFT_LEFT"), ((8, 64, 64), (8, 64), 0, "RIGHT_LEFT"),
                                    ((3, 4), (1, 3), [-1, 0], "RIGHT_LEFT"), ((3, 4), (3,), 4, "RIGHT_LEFT")]:
        yield Case([random_values(rng, dt, shape), random_values(rng, dt, dshape), np.array(k, dtype=np.int32)],
                   f"{shape_str(shape)} diagonal {shape_str(dshape)} k {k} {align}", attrs={"align": align}, aux=[2])


# ---- sequences, counts, distinct values and partitions ----------------------------------------


def lin_space_cases(rng, combo, full):
    t, ti = np_type(combo["T"]), np_type(combo["Tidx"])
    for start, stop, num in [(0.1, 1.0, 7), (3.0, 1.0, 1), (-2.5, 2.5, 11), (1.0, 1.0, 5), (0.0, 1.0, 5000),
                             (0.0, 1.0, 2), (1e-30, 1e30, 9), (np.inf, 1.0, 3), (0.0, np.nan, 3), (3.0, 1.0, 0),
                             (3.0, 1.0, -1)]:
        yield Case([np.array(start, dtype=t), np.array(stop, dtype=t), np.array(num, dtype=ti)],
                   f"{start} to {stop} num {num}", aux=[2])
    yield Case([np.array([0.0], dtype=t), np.array(1.0, dtype=t), np.array(3, dtype=ti)], "start a vector", aux=[2])


def bincount_cases(rng, combo, full):
    dt = combo["T"]
    for shape, size, weighted in [((5,), 5, False), ((5,), 5, True), ((2, 3), 4, True), ((0,), 3, False),
                                  ((5000,), 40, True), ((5000,), 40, False), ((7,), 0, False), ((6,), 10, True)]:
        arr = rng.integers(0, size + 3, size=shape).astype(np.int32)
        w = small_ints(rng, dt, shape, 0, 4) if weighted else np.zeros((0,), dtype=np_type(dt))
        yield Case([arr, np.array(size, dtype=np.int32), w], f"{shape_str(shape)} size {size}" + (" weighted" if weighted else ""),
                   aux=[1])
    yield Case([np.array([1, -1, 2], dtype=np.int32), np.array(4, dtype=np.int32), np.zeros((0,), dtype=np_type(dt))],
               "a negative value", aux=[1])
    yield Case([np.array([1, 2], dtype=np.int32), np.array(-1, dtype=np.int32), np.zeros((0,), dtype=np_type(dt))],
               "negative size", aux=[1])


def unique_values(rng, dt, n):
    """n values of dt with many repeats: small integers (0/1 for bool)."""
    return small_ints(rng, dt, (n,), 0, 6)


def unique_cases(rng, combo, full):
    dt = combo["T"]
    for n in [20, 0, 1, 5000]:
        yield Case([unique_values(rng, dt, n)], f"[{n}] with repeats")
    yield Case([random_values(rng, dt, (30,))], "[30] random")
    if dt in FLOATS:
        e = edge_values(dt)
        yield Case([np.concatenate([e, e[::-1]])], "edges twice (signed zeros, NaN)")
    yield Case([unique_values(rng, dt, 6).reshape(2, 3)], "a matrix")


def unique_v2_cases(rng, combo, full):
    dt, ta = combo["T"], np_type(combo["Taxis"])
    rows = unique_values(rng, dt, 9).reshape(3, 3)
    for x, axis in [(unique_values(rng, dt, 20), []), (rows[[0, 1, 0, 2, 1, 1]], [0]),
                    (rows[[0, 1, 0, 2, 1, 1]].T.copy(), [1]), (unique_values(rng, dt, 24).reshape(2, 3, 4) % 2, [-1]),
                    (unique_values(rng, dt, 5), [0]), (np.zeros((0, 3), dtype=np_type(dt)), [1]),
                    (rows, [2]), (rows, [0, 1]), (rows, [])]:
        x = np.asarray(x).astype(np_type(dt))
        yield Case([x, np.array(axis, dtype=ta)], f"{shape_str(x.shape)} axis {axis}", aux=[1])


def dynamic_partition_cases(rng, combo, full):
    dt = combo["T"]
    for shape, pshape, n in [((3, 2), (3,), 3), ((5,), (5,), 2), ((2, 3, 4), (2, 3), 4), ((0, 3), (0,), 2),
                             ((5000,), (5000,), 5), ((4, 0), (4,), 2), ((3,), (3,), 1)]:
        parts = rng.integers(0, n, size=pshape).astype(np.int32)
        yield Case([random_values(rng, dt, shape), parts], f"{shape_str(shape)} into {n}",
                   attrs={"num_partitions": n}, aux=[1])
    yield Case([random_values(rng, dt, (3,)), np.array([0, 3, 1], dtype=np.int32)], "a partition out of range",
               attrs={"num_partitions": 3}, aux=[1])
    yield Case([random_values(rng, dt, (3, 2)), np.array([[0, 1]], dtype=np.int32)], "partitions not a prefix",
               attrs={"num_partitions": 2}, aux=[1])


# ---- identities --------------------------------------------------------------------------


def identity_cases(attrs=None):
    a = dict(attrs or {})

    def gen(rng, combo, full):
        dt = next(iter(combo.values()))
        for shape in [(), (0,), (3, 5), (4100,)]:
            yield Case([random_values(rng, dt, shape)], shape_str(shape), attrs=a)
        yield Case([edge_values(dt)], "edges", attrs=a)
    return gen


def placeholder_with_default_cases(rng, combo, full):
    dt = combo["dtype"]
    for shape, declared in [((), []), ((3, 5), [3, 5]), ((3, 5), [None, 5]), ((4100,), None), ((0, 2), [None, None]),
                            ((3, 5), [3, 4])]:
        yield Case([random_values(rng, dt, shape)], f"{shape_str(shape)} declared {declared}", attrs={"shape": declared})


def identity_n_cases(rng, combo, full):
    build = lambda raw_op, ts, attrs: raw_op(input=ts, **attrs)  # noqa: E731
    for dts, shapes in [(["float"], [(3,)]), (["float", "int32", "bool"], [(2, 3), (), (0,)]),
                        (["double", "int64"], [(4100,), (5,)])]:
        yield Case([random_values(rng, d, s) for d, s in zip(dts, shapes)], " ".join(
            f"{d}{shape_str(s)}" for d, s in zip(dts, shapes)), build=build)


CATALOGUE = [
    OpSpec("TopKV2", top_k_cases, label_attr="T", secondary_cases=2), OpSpec("Where", where_cases),
    OpSpec("GatherNd", gather_nd_cases), OpSpec("ScatterNd", scatter_nd_cases), OpSpec("Gather", gather_v1_cases),
    OpSpec("Split", split_cases), OpSpec("SplitV", split_v_cases, accept=split_v_testable), OpSpec("Unpack", unpack_cases),
    OpSpec("BroadcastTo", broadcast_to_cases), OpSpec("InvertPermutation", invert_permutation_cases),
    OpSpec("PadV2", pad_v2_cases),
    OpSpec("Shape", shape_cases), OpSpec("ShapeN", shape_n_cases), OpSpec("Size", shape_cases),
    OpSpec("Rank", shape_cases), OpSpec("ConcatOffset", concat_offset_cases),
    OpSpec("DynamicStitch", stitch_cases(False)), OpSpec("ParallelDynamicStitch", stitch_cases(True)),
    OpSpec("ListDiff", list_diff_cases),
    OpSpec("StridedSliceGrad", strided_slice_grad_cases), OpSpec("MirrorPadGrad", mirror_pad_grad_cases),
    OpSpec("SpaceToBatchND", space_to_batch_cases, label_attr="T"),
    OpSpec("BatchToSpaceND", batch_to_space_cases, label_attr="T"),
    OpSpec("SpaceToDepth", space_depth_cases(True)), OpSpec("DepthToSpace", space_depth_cases(False)),
    OpSpec("Roll", roll_cases, label_attr="T"), OpSpec("ReverseSequence", reverse_sequence_cases, label_attr="T"),
    OpSpec("Reverse", reverse_v1_cases), OpSpec("Concat", concat_v1_cases),
    OpSpec("BroadcastArgs", broadcast_args_cases),
    OpSpec("MatrixBandPart", matrix_band_part_cases, label_attr="T"), OpSpec("Diag", diag_cases),
    OpSpec("DiagPart", diag_part_cases), OpSpec("MatrixDiag", matrix_diag_cases),
    OpSpec("MatrixDiagPart", matrix_diag_part_cases), OpSpec("MatrixSetDiag", matrix_set_diag_cases),
    OpSpec("MatrixDiagV3", matrix_diag_v3_cases), OpSpec("MatrixDiagPartV3", matrix_diag_part_v3_cases),
    OpSpec("MatrixSetDiagV3", matrix_set_diag_v3_cases),
    OpSpec("LinSpace", lin_space_cases, label_attr="T"), OpSpec("Bincount", bincount_cases),
    OpSpec("Unique", unique_cases, label_attr="T"), OpSpec("UniqueV2", unique_v2_cases, label_attr="T"),
    OpSpec("DynamicPartition", dynamic_partition_cases),
    OpSpec("Identity", identity_cases()), OpSpec("Snapshot", identity_cases()), OpSpec("StopGradient", identity_cases()),
    OpSpec("PreventGradient", identity_cases({"message": "no gradient here"})),
    OpSpec("PlaceholderWithDefault", placeholder_with_default_cases), OpSpec("IdentityN", identity_n_cases,
                                                                             label=lambda c: "-"),
]

ACCEPTED = [
    dict(op="TopKV2", row=".*", tag="edges with NaN", mode=".*", kind="values|grad-values",
         reason="TensorFlow 2.21's TopKV2 orders with >, which NaN breaks: where a NaN lands depends on its place, "
                "k and the algorithm TensorFlow picks ([1, 2, NaN] k=1 gives 1, [1, NaN, 2] k=2 gives NaN, 2, "
                "[1, 2, NaN] k=2 drops it); ours ranks NaN above +inf wherever it is"),
    dict(op="TopKV2", row=".*", tag=".*", mode=".*", kind="grad-outcome", combo=".*index_type=int(16|64).*",
         reason="TensorFlow 2.21's TopKV2 gradient cannot be built for int16 or int64 indices (its _TopKGrad adds an "
                "int32 range to them: \"Input 'y' of 'AddV2' Op has type int32 that does not match type int64\"); "
                "ours computes it"),
    dict(op="Where", row="half", tag=".*", mode=".*", kind="outcome",
         reason="TensorFlow 2.21's CPU Where kernel is registered for half but refuses it at run (UNIMPLEMENTED "
                "\"No WhereOp available for float16/half type on CPU\"); ours computes it "
                "(kernels/cpu/where_op.cc, on purpose: it has a plain answer)"),
    dict(op="Where", row="bfloat16", tag="edges.*", mode=".*", kind="values",
         reason="TensorFlow 2.21's bfloat16 Where tests the bits (Eigen's bfloat16 bool conversion), so its "
                "denormals count as nonzero, while its float Where, with denormals flushed, counts them as zero; "
                "ours counts them as zero for every type, as its float Where does (kernels/cpu/where_op.cc)"),
    dict(op="ListDiff", row="half|bfloat16", tag="edges.*", mode=".*", kind="values",
         reason="TensorFlow 2.21's half and bfloat16 ListDiff hash the bits but compare the values, so -0.0 is not "
                "found among y's 0.0 (nor a bfloat16 denormal among y's zeros), while its float ListDiff finds both "
                "(value equality, denormals flushed); ours compares values for every type, as its float"),
    dict(op="GatherNd", row=".*", tag=".*", mode=".*", kind="grad-outcome", combo=".*Tindices=int16.*",
         reason="TensorFlow 2.21's GatherNd gradient cannot be built or run for int16 indices (its _GatherNdGrad "
                "calls Shape with out_type int16: \"Value passed to parameter 'out_type' has DataType int16 not in "
                "list of allowed values: int32, int64\"); ours computes it"),
]
