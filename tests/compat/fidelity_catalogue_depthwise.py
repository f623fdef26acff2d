"""The differential harness's depthwise family (fidelity_catalogue.FAMILIES: "depthwise").

DepthwiseConv2dNative and its two gradients, for the dtypes TensorFlow's CPU kernels claim
(half, bfloat16, float, double), over the geometries a MobileNet uses (SAME and VALID,
strides 1 and 2, depth multipliers 1 to 3, EXPLICIT padding), wide channels (the vectorised
inner loops), a batch large enough for the threaded paths, empty shapes, edge values in the
input and in the filter, and the refusals of TensorFlow's CPU kernels (NCHW unless the result
is empty, forward dilations, unequal strides, mismatched shapes).

Tolerance: exact. Our kernels add the products in TensorFlow's order (each output's taps in
filter order from 0, a padded tap adding f * 0; the input gradient's taps likewise, then the
depth multiplier's; the filter gradient per image, then the images in order), one multiply
and one add per step with no fused multiply-add, and half and bfloat16 rounded after each
step as TensorFlow's Eigen packets do: the same bits. The only order not reproduced is the
input gradient's sum over a depth multiplier of 4 or more (8 for float and half), which
TensorFlow reduces as vector lanes: the cases keep the multiplier at 3 or less.
"""
import numpy as np

from fidelity_catalogue import EXACT, Case, OpSpec, random_values, shape_str


def window(size, k, stride, padding, explicit=(0, 0)):
    """Output size of one spatial dimension (TensorFlow's GetWindowedOutputSize)."""
    if padding == "SAME":
        return -(-size // stride)
    before, after = explicit if padding == "EXPLICIT" else (0, 0)
    return max(0, (size + before + after - k) // stride + 1)


def attrs_of(stride=1, padding="VALID", explicit=None, data_format="NHWC", dilations=None):
    a = {"strides": [1, stride, stride, 1] if data_format == "NHWC" else [1, 1, stride, stride],
         "padding": padding, "data_format": data_format}
    if explicit is not None:
        a["explicit_paddings"] = explicit
    if dilations is not None:
        a["dilations"] = dilations
    return a


# (input NHWC, filter [rows, cols, in_depth, multiplier], attrs).
GEOMETRIES = [
    ((2, 5, 6, 3), (3, 3, 3, 1), attrs_of(1, "VALID")),
    ((2, 5, 6, 3), (3, 3, 3, 2), attrs_of(1, "SAME")),
    ((1, 7, 9, 2), (3, 2, 2, 3), attrs_of(2, "SAME")),
    ((1, 7, 9, 2), (3, 3, 2, 1), attrs_of(2, "VALID")),
    ((1, 9, 8, 3), (5, 5, 3, 1), attrs_of(3, "SAME")),
    ((1, 5, 6, 3), (3, 3, 3, 2), attrs_of(1, "EXPLICIT", explicit=[0, 0, 1, 2, 0, 3, 0, 0])),
    ((2, 8, 8, 19), (3, 3, 19, 1), attrs_of(1, "SAME")),      # wide channels: vector body and tail
    ((4, 16, 16, 32), (3, 3, 32, 1), attrs_of(2, "SAME")),    # threaded over rows and images
    ((1, 3, 3, 2), (4, 4, 2, 1), attrs_of(1, "SAME")),        # a window larger than the input
    ((1, 4, 4, 3), (1, 1, 3, 2), attrs_of(1, "VALID")),       # 1x1
    ((0, 5, 5, 3), (3, 3, 3, 2), attrs_of(1, "SAME")),        # empty batch (see ACCEPTED)
    ((2, 4, 4, 0), (3, 3, 0, 2), attrs_of(1, "VALID")),       # empty depth
    ((1, 4, 4, 3), (3, 3, 3, 0), attrs_of(1, "SAME")),        # depth multiplier 0 (see ACCEPTED)
]


def out_shape(xs, ws, attrs):
    s = attrs["strides"][1]
    ep = attrs.get("explicit_paddings") or [0] * 8
    return (xs[0], window(xs[1], ws[0], s, attrs["padding"], ep[2:4]),
            window(xs[2], ws[1], s, attrs["padding"], ep[4:6]), xs[3] * ws[3])


def tag(xs, ws, attrs):
    note = " empty batch" if xs[0] == 0 else " multiplier 0" if ws[3] == 0 else ""
    return f"{shape_str(xs)}*{shape_str(ws)} {attrs['padding']} s{attrs['strides'][1]}{note}"


# Refusals and odd attrs, each (tag, input, filter, attrs): the gradients get the same.
NCHW = attrs_of(1, "SAME", data_format="NCHW")
ODD = [
    ("NCHW", (1, 3, 5, 6), (3, 3, 3, 2), NCHW),
    ("NCHW empty batch", (0, 3, 5, 6), (3, 3, 3, 2), NCHW),
    ("dilations 2", (1, 6, 6, 2), (3, 3, 2, 1), attrs_of(1, "SAME", dilations=[1, 2, 2, 1])),
    ("strides 1x2", (1, 6, 6, 2), (3, 3, 2, 1), {**attrs_of(1, "SAME"), "strides": [1, 1, 2, 1]}),
    ("batch stride", (1, 6, 6, 2), (3, 3, 2, 1), {**attrs_of(1, "SAME"), "strides": [2, 1, 1, 1]}),
]


def depthwise_cases(rng, combo, full):
    dt = combo["T"]
    for xs, ws, attrs in GEOMETRIES:
        yield Case([random_values(rng, dt, xs), random_values(rng, dt, ws)], tag(xs, ws, attrs), attrs=attrs)
    # A NaN or an infinity reaches every output whose window holds it; an infinite filter tap
    # also reaches the padding (f * 0 is NaN there, in TensorFlow's sums too).
    yield Case([random_values(rng, dt, (2, 6, 6, 3), edges=True), random_values(rng, dt, (3, 3, 3, 2))],
               "edges in input SAME", attrs=attrs_of(1, "SAME"))
    yield Case([random_values(rng, dt, (1, 5, 5, 4)), random_values(rng, dt, (3, 3, 4, 1), edges=True)],
               "edges in filter SAME", attrs=attrs_of(1, "SAME"))
    for name, xs, ws, attrs in ODD:
        yield Case([random_values(rng, dt, xs), random_values(rng, dt, ws)], name, attrs=attrs)
    yield Case([random_values(rng, dt, (1, 5, 5, 4)), random_values(rng, dt, (3, 3, 3, 2))], "depth mismatch",
               attrs=attrs_of(1, "SAME"))
    yield Case([random_values(rng, dt, (1, 2, 2, 1)), random_values(rng, dt, (4, 4, 1, 1))],
               "window past VALID input", attrs=attrs_of(1, "VALID"))


def nchw_shape(shape, attrs):
    return (shape[0], shape[3], shape[1], shape[2]) if attrs["data_format"] == "NCHW" else shape


def backprop_input_cases(rng, combo, full):
    dt = combo["T"]
    for xs, ws, attrs in GEOMETRIES:
        yield Case([np.array(xs, dtype=np.int32), random_values(rng, dt, ws),
                    random_values(rng, dt, out_shape(xs, ws, attrs))], tag(xs, ws, attrs), attrs=attrs, aux=[0])
    xs, ws, attrs = (2, 6, 6, 3), (3, 3, 3, 2), attrs_of(1, "SAME")
    yield Case([np.array(xs, dtype=np.int32), random_values(rng, dt, ws),
                random_values(rng, dt, out_shape(xs, ws, attrs), edges=True)], "edges in out_backprop", attrs=attrs,
               aux=[0])
    yield Case([np.array(xs, dtype=np.int32), random_values(rng, dt, ws, edges=True),
                random_values(rng, dt, out_shape(xs, ws, attrs))], "edges in filter", attrs=attrs, aux=[0])
    for name, xs, ws, attrs in ODD:
        nhwc = (xs[0], xs[2], xs[3], xs[1]) if attrs["data_format"] == "NCHW" else xs
        dy = out_shape(nhwc, ws, {**attrs, "strides": [1, 1, 1, 1]})
        yield Case([np.array(xs, dtype=np.int32), random_values(rng, dt, ws),
                    random_values(rng, dt, nchw_shape(dy, attrs))], name, attrs=attrs, aux=[0])
    yield Case([np.array(xs, dtype=np.int32), random_values(rng, dt, (3, 3, 3, 2)),
                random_values(rng, dt, (2, 5, 6, 6))], "out_backprop of the wrong size", attrs=attrs_of(1, "SAME"), aux=[0])
    yield Case([np.array((2, 6, 6, 3), dtype=np.int32), random_values(rng, dt, (3, 3, 3, 2)),
                random_values(rng, dt, (2, 6, 6, 5))], "out depth not in_depth * multiplier", attrs=attrs_of(1, "SAME"),
               aux=[0])
    yield Case([np.array((6, 6), dtype=np.int32), random_values(rng, dt, (3, 3, 3, 2)),
                random_values(rng, dt, (2, 6, 6, 6))], "input_sizes of 2", attrs=attrs_of(1, "SAME"), aux=[0])


def backprop_filter_cases(rng, combo, full):
    dt = combo["T"]
    for xs, ws, attrs in GEOMETRIES:
        yield Case([random_values(rng, dt, xs), np.array(ws, dtype=np.int32),
                    random_values(rng, dt, out_shape(xs, ws, attrs))], tag(xs, ws, attrs), attrs=attrs, aux=[1])
    xs, ws, attrs = (2, 6, 6, 3), (3, 3, 3, 2), attrs_of(1, "SAME")
    yield Case([random_values(rng, dt, xs, edges=True), np.array(ws, dtype=np.int32),
                random_values(rng, dt, out_shape(xs, ws, attrs))], "edges in input", attrs=attrs, aux=[1])
    yield Case([random_values(rng, dt, xs), np.array(ws, dtype=np.int32),
                random_values(rng, dt, out_shape(xs, ws, attrs), edges=True)], "edges in out_backprop", attrs=attrs,
               aux=[1])
    for name, xs, ws, attrs in ODD:
        nhwc = (xs[0], xs[2], xs[3], xs[1]) if attrs["data_format"] == "NCHW" else xs
        dy = out_shape(nhwc, ws, {**attrs, "strides": [1, 1, 1, 1]})
        yield Case([random_values(rng, dt, xs), np.array(ws, dtype=np.int32),
                    random_values(rng, dt, nchw_shape(dy, attrs))], name, attrs=attrs, aux=[1])
    yield Case([random_values(rng, dt, (2, 6, 6, 3)), np.array((3, 3, 3, 2), dtype=np.int32),
                random_values(rng, dt, (2, 6, 5, 6))], "out_backprop of the wrong size", attrs=attrs_of(1, "SAME"), aux=[1])
    yield Case([random_values(rng, dt, (2, 6, 6, 3)), np.array((3, 3, 4, 2), dtype=np.int32),
                random_values(rng, dt, (2, 6, 6, 8))], "filter depth mismatch", attrs=attrs_of(1, "SAME"), aux=[1])


CATALOGUE = [
    OpSpec("DepthwiseConv2dNative", depthwise_cases, EXACT),
    OpSpec("DepthwiseConv2dNativeBackpropInput", backprop_input_cases, EXACT),
    OpSpec("DepthwiseConv2dNativeBackpropFilter", backprop_filter_cases, EXACT),
]

# TensorFlow's gradient kernels return early, leaving their output unwritten (whatever the
# allocator held: zeros or old values), when there is nothing to sum; ours are zeros.
ACCEPTED = [
    dict(op="DepthwiseConv2dNativeBackpropInput", row=".*", tag=r".* multiplier 0", mode=".*", kind="values",
         reason="with a depth multiplier of 0 (an empty out_backprop) TensorFlow's input gradient leaves its "
                "output uninitialised; ours is zero, the gradient of an empty output"),
    dict(op="DepthwiseConv2dNativeBackpropFilter", row=".*", tag=r".* empty batch", mode=".*", kind="values",
         reason="with an empty batch TensorFlow's filter gradient leaves its output uninitialised; ours is zero"),
    dict(op="DepthwiseConv2dNative(BackpropInput)?", row=".*", tag=r".*empty batch", mode=".*", kind="grad-.*",
         reason="the filter gradient of an empty batch: TensorFlow's DepthwiseConv2dNativeBackpropFilter leaves it "
                "uninitialised (see above); ours is zero"),
    dict(op="DepthwiseConv2dNative(BackpropFilter)?", row=".*", tag=r".* multiplier 0", mode=".*", kind="grad-values",
         reason="the input gradient with a depth multiplier of 0: TensorFlow's DepthwiseConv2dNativeBackpropInput "
                "leaves it uninitialised (see above); ours is zero"),
]
