"""The "list" family of the differential harness: the TensorList ops (TensorFlow 2's
TensorArray) and the Optionals, over every dtype our kernels claim. Imported by
fidelity_catalogue (CATALOGUE).

A list or an optional is a variant, which neither side can feed or fetch, so each case is a
small graph that makes one from tensors, applies the op and ends in a tensor: a list from a
tensor's rows stacked back, rows read and written, elements pushed and popped, a reserved
list whose unset elements read as zeros, an optional's components read back. Bad indices,
empty lists, shapes that do not match and unset elements of an unknown shape are refused on
both sides. Every case is exact (data movement); the gradient mode differentiates the float
cases through the lists (graph/gradients/list_grad.cc here, list_ops.py there).
"""
import numpy as np
import tensorflow as tf

from fidelity_catalogue import REAL_TYPES, Case, OpSpec, random_values, shape_str

raw = tf.raw_ops

# (tensor shape, the element shape the list is given): rows of a matrix, of a vector
# (scalars), of a 3-d tensor; an empty list; one large enough for the threaded paths.
ROWS = [((3, 2), [-1]), ((5,), []), ((4, 3, 2), [3, 2]), ((0, 4), [4]), ((1,), -1), ((4100, 2), [2]),
        ((2, 3), [-1, -1])]


def element_shape(s):
    return np.array(s, dtype=np.int32)


def dtype_of(combo):
    return combo.get("element_dtype", "float")


def stack_cases(rng, combo, full):
    """TensorListStack(TensorListFromTensor(t)): t again; with a wrong element count refused."""
    dt = dtype_of(combo)
    for shape, es in ROWS:
        yield Case([random_values(rng, dt, shape), element_shape(es)], f"rows of {shape_str(shape)} shape {es}",
                   aux=[1], build=stack_build(-1))
    yield Case([random_values(rng, dt, (3, 2)), element_shape([-1])], "num_elements 4 of 3", aux=[1],
               build=stack_build(4))
    yield Case([random_values(rng, dt, (3, 2)), element_shape([3])], "element shape [3] for rows [2]", aux=[1],
               build=stack_build(-1))
    yield Case([random_values(rng, dt, ()), element_shape([])], "a scalar", aux=[1], build=stack_build(-1))


def stack_build(num_elements):
    def build(op, ts, attrs):
        lst = raw.TensorListFromTensor(tensor=ts[0], element_shape=ts[1])
        return raw.TensorListStack(input_handle=lst, element_shape=ts[1], element_dtype=ts[0].dtype,
                                   num_elements=num_elements)
    return build


def get_item_cases(rng, combo, full):
    """Row i of a list from a tensor's rows; i out of range refused."""
    dt = dtype_of(combo)
    for shape, i in [((3, 2), 1), ((5,), 4), ((4, 3, 2), 0), ((4100, 2), 4099), ((3, 2), 3), ((3, 2), -1), ((0, 2), 0)]:
        yield Case([random_values(rng, dt, shape), np.array(i, dtype=np.int32)], f"row {i} of {shape_str(shape)}",
                   aux=[1], build=get_item_build)


def get_item_build(op, ts, attrs):
    lst = raw.TensorListFromTensor(tensor=ts[0], element_shape=-1)
    return raw.TensorListGetItem(input_handle=lst, index=ts[1], element_shape=-1, element_dtype=ts[0].dtype)


def set_item_cases(rng, combo, full):
    """Item i of a reserved list of n set, the list stacked: the other rows are zeros; an index
    out of range refused; an item of another shape refused."""
    dt = dtype_of(combo)
    for item_shape, n, i, es in [((2,), 3, 1, [2]), ((), 4, 0, []), ((2, 3), 2, 1, [-1, 3]), ((2,), 3, 3, [2]),
                                 ((2,), 3, -1, [2]), ((3,), 3, 0, [2]), ((4100,), 2, 1, [-1])]:
        yield Case([random_values(rng, dt, item_shape), np.array(n, dtype=np.int32), np.array(i, dtype=np.int32),
                    element_shape(es)], f"item {shape_str(item_shape)} at {i} of {n}, shape {es}", aux=[1, 2, 3],
                   build=set_item_build)


def set_item_build(op, ts, attrs):
    lst = raw.TensorListReserve(element_shape=ts[3], num_elements=ts[1], element_dtype=ts[0].dtype)
    lst = raw.TensorListSetItem(input_handle=lst, index=ts[2], item=ts[0])
    # Stacked with the item's shape, so the unset rows know theirs.
    return raw.TensorListStack(input_handle=lst, element_shape=tf.shape(ts[0]), element_dtype=ts[0].dtype)


def push_pop_cases(rng, combo, full):
    """Two items pushed onto an empty list, one popped: the popped item and the rest stacked;
    popping an empty list, pushing onto a full one and an item of another shape refused."""
    dt = dtype_of(combo)
    for shape, max_n, pops in [((2,), -1, 1), ((), -1, 1), ((3, 2), 2, 1), ((4100,), -1, 2), ((2,), 1, 1),
                               ((2,), -1, 3)]:
        yield Case([random_values(rng, dt, shape), random_values(rng, dt, shape), np.array(max_n, dtype=np.int32)],
                   f"push 2 x {shape_str(shape)} (max {max_n}), pop {pops}", aux=[2], build=push_pop_build(pops))
    yield Case([random_values(rng, dt, (2,)), random_values(rng, dt, (3,)), np.array(-1, dtype=np.int32)],
               "push [2] then [3]", aux=[2], build=push_pop_build(1))


def push_pop_build(pops):
    def build(op, ts, attrs):
        lst = raw.EmptyTensorList(element_shape=tf.shape(ts[0]), max_num_elements=ts[2], element_dtype=ts[0].dtype)
        lst = raw.TensorListPushBack(input_handle=lst, tensor=ts[0])
        lst = raw.TensorListPushBack(input_handle=lst, tensor=ts[1])
        items = []
        for _ in range(pops):
            lst, item = raw.TensorListPopBack(input_handle=lst, element_shape=tf.shape(ts[0]), element_dtype=ts[0].dtype)
            items.append(item)
        rest = raw.TensorListStack(input_handle=lst, element_shape=tf.shape(ts[0]), element_dtype=ts[0].dtype)
        return items + [rest]
    return build


def reserve_cases(rng, combo, full):
    """Unset elements read as zeros of a known shape; of an unknown one, refused."""
    dt = dtype_of(combo)
    for n, es, read in [(3, [2], [2]), (2, [-1, 2], [3, 2]), (2, -1, -1), (0, [2], [2]), (2, [2], [3])]:
        yield Case([random_values(rng, dt, (1,)), np.array(n, dtype=np.int32), element_shape(es), element_shape(read)],
                   f"{n} unset of shape {es}, read as {read}", aux=[1, 2, 3], build=reserve_build)


def reserve_build(op, ts, attrs):
    lst = raw.TensorListReserve(element_shape=ts[2], num_elements=ts[1], element_dtype=ts[0].dtype)
    return raw.TensorListStack(input_handle=lst, element_shape=ts[3], element_dtype=ts[0].dtype)


def gather_cases(rng, combo, full):
    """Elements at indices (repeated, reordered, none) of a list of a tensor's rows, one of them
    unset; an index out of range refused."""
    dt = dtype_of(combo)
    # (Not a negative index: TensorFlow 2.21's eager TensorListGather reads out of bounds and
    # crashes the process; ours refuses it, tests/kernels/list_optional_ops_test.cc.)
    for shape, idx in [((4, 2), [3, 0, 0]), ((5,), [4, 1]), ((3, 2, 2), []), ((4100, 2), [4099, 7]), ((4, 2), [4]),
                       ((4, 2), [2])]:
        yield Case([random_values(rng, dt, shape), np.array(idx, dtype=np.int32)],
                   f"{idx} of {shape_str(shape)}", aux=[1], build=gather_build)


def gather_build(op, ts, attrs):
    lst = raw.TensorListFromTensor(tensor=ts[0], element_shape=-1)
    lst = raw.TensorListResize(input_handle=lst, size=tf.shape(ts[0])[0] + 1)  # an unset element at the end
    return raw.TensorListGather(input_handle=lst, indices=ts[1], element_shape=tf.shape(ts[0])[1:],
                                element_dtype=ts[0].dtype)


def scatter_cases(rng, combo, full):
    """Rows scattered into a reserved list, stacked (an index past its end grows it); a row count
    that does not match the indices refused."""
    dt = dtype_of(combo)
    # (Not a negative index: as for gather_cases.)
    for shape, idx, n in [((2, 3), [3, 0], 4), ((1,), [0], 2), ((3, 2), [2, 1, 0], 3), ((2, 3), [0], 4),
                          ((2, 3), [0, 4], 4), ((0, 3), [], 2)]:
        yield Case([random_values(rng, dt, shape), np.array(idx, dtype=np.int32), np.array(n, dtype=np.int32)],
                   f"{shape_str(shape)} at {idx} of {n}", aux=[1, 2], build=scatter_build)


def scatter_build(op, ts, attrs):
    lst = raw.TensorListReserve(element_shape=tf.shape(ts[0])[1:], num_elements=ts[2], element_dtype=ts[0].dtype)
    lst = raw.TensorListScatterIntoExistingList(input_handle=lst, tensor=ts[0], indices=ts[1])
    return raw.TensorListStack(input_handle=lst, element_shape=tf.shape(ts[0])[1:], element_dtype=ts[0].dtype)


def resize_cases(rng, combo, full):
    """A list of a tensor's rows cut or grown, stacked; a negative size refused."""
    dt = dtype_of(combo)
    for shape, n in [((3, 2), 1), ((3, 2), 5), ((3, 2), 0), ((2,), 2), ((3, 2), -1)]:
        yield Case([random_values(rng, dt, shape), np.array(n, dtype=np.int32)], f"{shape_str(shape)} to {n}",
                   aux=[1], build=resize_build)


def resize_build(op, ts, attrs):
    lst = raw.TensorListResize(input_handle=raw.TensorListFromTensor(tensor=ts[0], element_shape=-1), size=ts[1])
    return raw.TensorListStack(input_handle=lst, element_shape=tf.shape(ts[0])[1:], element_dtype=ts[0].dtype)



def split_concat_cases(rng, combo, full):
    """A tensor split into slices of the given lengths and the slices concatenated again (the
    tensor and the lengths back); lengths that leave rows over, run past the end or are
    negative, and an element shape of rank 0, refused."""
    dt = dtype_of(combo)
    for shape, lengths, es in [((5, 2), [2, 3], [-1, 2]), ((4,), [0, 4, 0], [-1]), ((3, 2, 2), [1, 1, 1], -1),
                               ((0, 3), [], [-1, 3]), ((4100, 2), [4000, 100], [-1, 2]), ((3, 2), [1, 1], [-1, 2]),
                               ((3, 2), [4], [-1, 2]), ((3, 2), [-1, 4], [-1, 2]), ((3, 2), [3], []),
                               ((3, 2), [3], [-1, 3])]:
        yield Case([random_values(rng, dt, shape), np.array(lengths, dtype=np.int64), element_shape(es)],
                   f"{shape_str(shape)} split {lengths} shape {es}", aux=[1, 2], build=split_concat_build)


def split_concat_build(op, ts, attrs):
    lst = raw.TensorListSplit(tensor=ts[0], element_shape=ts[2], lengths=ts[1])
    out, lengths = raw.TensorListConcatV2(input_handle=lst, element_shape=ts[2], leading_dims=np.zeros(0, np.int64),
                                          element_dtype=ts[0].dtype)
    return [out, lengths, raw.TensorListLength(input_handle=lst)]


def concat_cases(rng, combo, full):
    """A reserved list with one element set, concatenated: the unset ones as zeros of their
    leading_dims entry or of the element shape's first dimension; too few leading_dims, scalar
    elements, an empty list of an unknown element shape and a set element of another first
    dimension than the element shape's refused."""
    dt = dtype_of(combo)
    # (item shape, list length, where it is set, the list's element shape, concat's element
    # shape, leading_dims)
    for item, n, at, list_es, es, leading in [
            ((3, 2), 3, 1, [-1, 2], [-1, 2], [1, 0, 2]), ((3, 2), 3, 0, [-1, 2], [-1, 2], [9, 4, 2]),
            ((2, 2), 3, 2, [2, 2], [-1, 2], []), ((2, 2), 2, 0, [-1, 2], [2, 2], []),
            ((3, 2), 3, 1, [-1, 2], [-1, 2], [1]), ((2,), 2, 0, [], [], []), ((3, 2), 2, 0, [-1, 2], [2, 2], []),
            ((3, 4100), 2, 1, [-1, -1], [-1, 4100], [5])]:
        yield Case([random_values(rng, dt, item), np.array(n, dtype=np.int32), np.array(at, dtype=np.int32),
                    element_shape(list_es), element_shape(es), np.array(leading, dtype=np.int64)],
                   f"{shape_str(item)} at {at} of {n} ({list_es}), concat as {es} leading {leading}",
                   aux=[1, 2, 3, 4, 5], build=concat_build)
    # An empty list: the rest of the element shape must be known.
    for es in [[-1, 3], [-1, -1]]:
        yield Case([random_values(rng, dt, (1, 3)), np.array(0, dtype=np.int32), np.array(0, dtype=np.int32),
                    element_shape(es), element_shape(es), np.zeros(0, dtype=np.int64)], f"empty list {es}",
                   aux=[1, 2, 3, 4, 5], build=empty_concat_build)


def concat_build(op, ts, attrs):
    lst = raw.TensorListReserve(element_shape=ts[3], num_elements=ts[1], element_dtype=ts[0].dtype)
    lst = raw.TensorListSetItem(input_handle=lst, index=ts[2], item=ts[0])
    out, lengths = raw.TensorListConcatV2(input_handle=lst, element_shape=ts[4], leading_dims=ts[5],
                                          element_dtype=ts[0].dtype)
    return [out, lengths]


def empty_concat_build(op, ts, attrs):
    lst = raw.TensorListReserve(element_shape=ts[3], num_elements=ts[1], element_dtype=ts[0].dtype)
    out, lengths = raw.TensorListConcatV2(input_handle=lst, element_shape=ts[4], leading_dims=ts[5],
                                          element_dtype=ts[0].dtype)
    return [out, lengths]


def concat_v1_cases(rng, combo, full):
    """The older TensorListConcat (element_shape an attr) of a split tensor; of a list of a known
    element shape with the default attr, refused as TensorFlow does."""
    dt = dtype_of(combo)
    for shape, lengths, es in [((5, 2), [2, 3], [-1, 2]), ((4, 3), [4], [4, 3])]:
        yield Case([random_values(rng, dt, shape), np.array(lengths, dtype=np.int64), element_shape(es)],
                   f"{shape_str(shape)} split {lengths} shape {es}", aux=[1, 2], build=concat_v1_build)


def concat_v1_build(op, ts, attrs):
    lst = raw.TensorListSplit(tensor=ts[0], element_shape=ts[2], lengths=ts[1])
    out, lengths = raw.TensorListConcat(input_handle=lst, element_dtype=ts[0].dtype)
    return [out, lengths]


def new_scatter_cases(rng, combo, full):
    """Rows scattered into a new list (TensorListScatterV2), stacked: it is as long as the largest
    index or num_elements says, the last of repeated indices wins; an index past num_elements,
    a negative one, a num_elements below -1 and a row count that does not match refused."""
    dt = dtype_of(combo)
    for shape, idx, n in [((2, 3), [3, 0], -1), ((2, 3), [3, 0], 5), ((2, 3), [0, 0], -1), ((1,), [0], -1),
                          ((0, 3), [], 2), ((4100, 2), list(range(4099, -1, -1)), -1), ((2, 3), [3, 0], 2),
                          ((2, 3), [1, -1], -1), ((2, 3), [1, 0], -2), ((2, 3), [1], -1)]:
        yield Case([random_values(rng, dt, shape), np.array(idx, dtype=np.int32), np.array(n, dtype=np.int32)],
                   f"{shape_str(shape)} at {idx[:4]} of {n}", aux=[1, 2], build=new_scatter_build)


def new_scatter_build(op, ts, attrs):
    rows = tf.shape(ts[0])[1:]
    lst = raw.TensorListScatterV2(tensor=ts[0], indices=ts[1], element_shape=rows, num_elements=ts[2])
    return [raw.TensorListStack(input_handle=lst, element_shape=rows, element_dtype=ts[0].dtype),
            raw.TensorListLength(input_handle=lst)]


def push_back_batch_cases(rng, combo, full):
    """Row b of a tensor appended to list b of a vector of two lists (one of them empty), each
    stacked; a tensor of another row count refused."""
    dt = dtype_of(combo)
    for shape, rows in [((2, 3), 2), ((2,), 2), ((3, 3), 2)]:
        yield Case([random_values(rng, dt, shape), random_values(rng, dt, (rows,) + shape[1:])],
                   f"{shape_str(shape)} onto 2 lists", build=push_back_batch_build)


def push_back_batch_build(op, ts, attrs):
    rows = tf.shape(ts[1])[1:]
    one = raw.TensorListFromTensor(tensor=ts[1][:1], element_shape=rows)
    empty = raw.EmptyTensorList(element_shape=rows, max_num_elements=-1, element_dtype=ts[0].dtype)
    pushed = raw.TensorListPushBackBatch(input_handles=tf.stack([one, empty]), tensor=ts[0])
    return [raw.TensorListStack(input_handle=lst, element_shape=rows, element_dtype=ts[0].dtype)
            for lst in tf.unstack(pushed, num=2)]


def concat_lists_cases(rng, combo, full):
    """Two lists joined, stacked; lists of different element shapes refused."""
    dt = dtype_of(combo)
    for a, b, es_b in [((2, 3), (1, 3), [3]), ((0, 2), (2, 2), [2]), ((2, 3), (1, 3), [-1])]:
        yield Case([random_values(rng, dt, a), random_values(rng, dt, b), element_shape(es_b)],
                   f"{shape_str(a)} then {shape_str(b)} ({es_b})", aux=[2], build=concat_lists_build)


def concat_lists_build(op, ts, attrs):
    rows = tf.shape(ts[0])[1:]
    a = raw.TensorListFromTensor(tensor=ts[0], element_shape=rows)
    b = raw.TensorListFromTensor(tensor=ts[1], element_shape=ts[2])
    joined = raw.TensorListConcatLists(input_a=a, input_b=b, element_dtype=ts[0].dtype)
    return raw.TensorListStack(input_handle=joined, element_shape=rows, element_dtype=ts[0].dtype)


def set_item_resize_cases(rng, combo, full):
    """An item set past the end of a list with resize_if_index_out_of_bounds: the list grows to
    hold it (its gradient is cut back to the list's length)."""
    dt = dtype_of(combo)
    for item_shape, n, i in [((2,), 2, 4), ((2,), 3, 1), ((), 0, 0)]:
        yield Case([random_values(rng, dt, (n,) + item_shape), random_values(rng, dt, item_shape),
                    np.array(i, dtype=np.int32)], f"item {shape_str(item_shape)} at {i} of {n}", aux=[2],
                   build=set_item_resize_build)


def set_item_resize_build(op, ts, attrs):
    lst = raw.TensorListFromTensor(tensor=ts[0], element_shape=tf.shape(ts[1]))
    lst = raw.TensorListSetItem(input_handle=lst, index=ts[2], item=ts[1], resize_if_index_out_of_bounds=True)
    return raw.TensorListStack(input_handle=lst, element_shape=tf.shape(ts[1]), element_dtype=ts[1].dtype)


def length_cases(rng, combo, full):
    for shape in [(3, 2), (0,), (4100,)]:
        yield Case([random_values(rng, "float", shape)], f"rows of {shape_str(shape)}",
                   build=lambda op, ts, attrs: raw.TensorListLength(
                       input_handle=raw.TensorListFromTensor(tensor=ts[0], element_shape=-1)))


def element_shape_cases(rng, combo, full):
    for es in [[2, -1], [], -1, [0, 3]]:
        yield Case([element_shape(es)], f"shape {es}", attrs={"shape_type": attrs_type(combo)},
                   build=lambda op, ts, attrs: raw.TensorListElementShape(
                       input_handle=raw.EmptyTensorList(element_shape=ts[0], max_num_elements=-1,
                                                        element_dtype=tf.float32),
                       shape_type=attrs["shape_type"]))


def attrs_type(combo):
    return tf.int64 if combo.get("shape_type") == "int64" else tf.int32


def optional_cases(rng, combo, full):
    """An optional's components read back; one without a value refused."""
    for shapes in [[(3,)], [(2, 2), ()], [(0,)]]:
        ins = [random_values(rng, "float", s) for s in shapes]
        yield Case(ins, " ".join(map(shape_str, shapes)), build=optional_build(True))
    yield Case([random_values(rng, "float", (2,))], "none", build=optional_build(False))


def optional_build(has_value):
    def build(op, ts, attrs):
        opt = raw.OptionalFromValue(components=ts) if has_value else raw.OptionalNone()
        got = raw.OptionalGetValue(optional=opt, output_types=[t.dtype for t in ts],
                                   output_shapes=[t.shape for t in ts])
        return list(got) + [raw.OptionalHasValue(optional=opt)]
    return build


def element_real(combo):
    return combo.get("element_dtype", "float") in REAL_TYPES and combo.get("shape_type", "int32") == "int32"


ACCEPTED = [
    dict(op="TensorListGather", row=".*", tag=r"\[3, 0, 0\] of .*", mode=".*", kind="grad-values",
         reason="TensorFlow 2.21's TensorListGather gradient scatters the rows' gradients into a list, so an element "
                "gathered twice gets one of them; ours sums them (the true gradient, checked against central "
                "differences in tests/actors/gradient_check_list_test.cc)"),
]

CATALOGUE = [
    OpSpec("TensorListStack", stack_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListGetItem", get_item_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListSetItem", set_item_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListPopBack", push_pop_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListReserve", reserve_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListGather", gather_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListScatterIntoExistingList", scatter_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListSplit", split_concat_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListConcatV2", concat_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListConcat", concat_v1_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListScatterV2", new_scatter_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListPushBackBatch", push_back_batch_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListConcatLists", concat_lists_cases, accept=element_real, label_attr="element_dtype"),
    OpSpec("TensorListResize", resize_cases, accept=lambda combo: True),
    OpSpec("TensorListLength", length_cases, accept=lambda combo: True),
    OpSpec("TensorListElementShape", element_shape_cases, accept=lambda combo: True, label_attr="shape_type"),
    OpSpec("OptionalGetValue", optional_cases, accept=lambda combo: True),
]
