"""The differential harness's 3-D convolution and pooling family (fidelity_catalogue.FAMILIES:
"nn3d"): Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D, MaxPool3DGrad,
AvgPool3D and AvgPool3DGrad, NDHWC (what TensorFlow's CPU kernels take), with the refusals
of what they do not (NCDHW, dilation, groups, strides or windows over the batch).

Tolerances: the convolutions, the averages and the gradients are sums in another order,
bounded by the recursive-summation bound 2 n eps sum|terms| (SUM_BOUND); sum|terms| is
computed here in float64 for the forward convolution, and bounded by n max|a| max|b| for the
gradients. Max pooling is exact; MaxPool3DGrad is TensorFlow's: every input within 1e-5 of
its window's maximum gets that window's gradient.
"""
import numpy as np

from fidelity_catalogue import SUM_BOUND, EXACT, Case, OpSpec, order_dependent, random_values, shape_str
from fidelity_catalogue_nn import dt_max, window_dim


def conv3d_attrs(strides=1, padding="VALID", **extra):
    s = strides if isinstance(strides, tuple) else (strides,) * 3
    return {"strides": [1, *s, 1], "padding": padding, **extra}


def pool3d_attrs(k, s, padding, **extra):
    k = k if isinstance(k, tuple) else (k,) * 3
    s = s if isinstance(s, tuple) else (s,) * 3
    return {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding, **extra}


def dims3(x_shape, window, strides, padding):
    """(out, pad_before) of planes, rows and cols."""
    return [window_dim(x_shape[i + 1], window[i], 1, strides[i + 1], padding)[:2] for i in range(3)]


def values(rng, dt, shape):
    # Moderate magnitudes: half and bfloat16 sums stay finite.
    return random_values(rng, dt, shape, -10, 10) if dt in ("half", "bfloat16") else random_values(rng, dt, shape)


def abs_conv3d(x, w, attrs):
    """sum |x| |w| over each output's window, in float64 (padding contributes nothing)."""
    dims = dims3(x.shape, w.shape[:3], attrs["strides"], attrs["padding"])
    (od, pd), (oh, ph), (ow, pw) = dims
    s = attrs["strides"]
    xa = np.abs(x.astype(np.float64))
    wa = np.abs(w.astype(np.float64))
    big = [max(x.shape[1] + 2 * pd + w.shape[0], 1), max(x.shape[2] + 2 * ph + w.shape[1], 1),
           max(x.shape[3] + 2 * pw + w.shape[2], 1)]
    padded = np.zeros((x.shape[0], big[0] + od * s[1], big[1] + oh * s[2], big[2] + ow * s[3], x.shape[4]))
    padded[:, pd:pd + x.shape[1], ph:ph + x.shape[2], pw:pw + x.shape[3], :] = xa
    total = np.zeros((x.shape[0], od, oh, ow, w.shape[4]))
    with np.errstate(invalid="ignore", over="ignore"):
        for a in range(w.shape[0]):
            for b in range(w.shape[1]):
                for c in range(w.shape[2]):
                    patch = padded[:, a:a + od * s[1]:s[1], b:b + oh * s[2]:s[2], c:c + ow * s[3]:s[3], :]
                    total += np.einsum("bdhwi,io->bdhwo", patch[:, :od, :oh, :ow, :], wa[a, b, c])
    return total


def conv3d_bound(inputs, attrs, outputs):
    x, w = inputs
    n = max(1, int(np.prod(w.shape[:4])))
    return 2 * n * order_dependent(abs_conv3d(x, w, attrs), dt_max(x), outputs[0].shape)


def crude_bound(n, a, b, like):
    """2 n eps-units of n max|a| max|b|, for every element: a bound on any sum of n products."""
    with np.errstate(invalid="ignore", over="ignore"):
        m = float(np.nanmax(np.abs(a.astype(np.float64)))) if a.size else 0.0
        m *= float(np.nanmax(np.abs(b.astype(np.float64)))) if b.size else 0.0
    return 2 * max(n, 1) * order_dependent(np.full(like.shape, n * m), dt_max(like), like.shape)


CONV3D_GEOMETRIES = [
    ((2, 4, 5, 6, 3), (2, 3, 3, 3, 4), conv3d_attrs(1, "VALID")),
    ((2, 4, 5, 6, 3), (2, 3, 3, 3, 4), conv3d_attrs(1, "SAME")),
    ((1, 5, 7, 6, 2), (3, 2, 3, 2, 5), conv3d_attrs((2, 1, 2), "SAME")),
    ((1, 5, 7, 6, 2), (3, 2, 3, 2, 5), conv3d_attrs((1, 3, 2), "VALID")),
    ((3, 2, 3, 3, 6), (1, 1, 1, 6, 7), conv3d_attrs(1, "VALID")),
    ((0, 3, 3, 3, 2), (2, 2, 2, 2, 3), conv3d_attrs(1, "SAME")),
    ((1, 2, 4, 4, 1), (3, 3, 3, 1, 2), conv3d_attrs(1, "VALID")),  # planes one short of the window: 0 outputs
]


def conv3d_cases(rng, combo, full):
    dt = combo["T"]
    for xs, ws, attrs in CONV3D_GEOMETRIES:
        yield Case([values(rng, dt, xs), values(rng, dt, ws)],
                   f"{shape_str(xs)}*{shape_str(ws)} {attrs['padding']} s{attrs['strides'][1:4]}", attrs=attrs,
                   bound=conv3d_bound)
    yield Case([random_values(rng, dt, (1, 3, 4, 4, 3), edges=True), values(rng, dt, (2, 2, 2, 3, 2))],
               "edges SAME", attrs=conv3d_attrs(1, "SAME"), bound=conv3d_bound)
    # Refusals, as TensorFlow's CPU kernel refuses them.
    x, w = values(rng, dt, (1, 4, 4, 4, 2)), values(rng, dt, (2, 2, 2, 2, 3))
    yield Case([x, w], "NCDHW", attrs=conv3d_attrs(1, "SAME", data_format="NCDHW"))
    yield Case([x, w], "dilation 2", attrs=conv3d_attrs(1, "SAME", dilations=[1, 2, 2, 2, 1]))
    yield Case([x, w], "batch stride", attrs={**conv3d_attrs(1, "SAME"), "strides": [2, 1, 1, 1, 1]})
    yield Case([values(rng, dt, (1, 4, 4, 4, 4)), w], "groups", attrs=conv3d_attrs(1, "SAME"))
    yield Case([values(rng, dt, (1, 4, 4, 4, 3)), w], "depth mismatch", attrs=conv3d_attrs(1, "SAME"))


def conv3d_out_shape(xs, ws, attrs):
    dims = dims3(xs, ws[:3], attrs["strides"], attrs["padding"])
    return (xs[0], dims[0][0], dims[1][0], dims[2][0], ws[4])


def conv3d_input_grad_cases(rng, combo, full):
    dt = combo["T"]
    for xs, ws, attrs in CONV3D_GEOMETRIES[:-1]:
        w, dy = values(rng, dt, ws), values(rng, dt, conv3d_out_shape(xs, ws, attrs))
        n = int(np.prod(ws[:3])) * ws[4]
        yield Case([np.array(xs, dtype=np.int32), w, dy],
                   f"{shape_str(xs)}*{shape_str(ws)} {attrs['padding']} s{attrs['strides'][1:4]}", attrs=attrs,
                   aux=[0], bound=lambda i, a, o, n=n: crude_bound(n, i[1], i[2], o[0]))
    xs, ws = (1, 4, 4, 4, 2), (2, 2, 2, 2, 3)
    yield Case([np.array(xs, dtype=np.int32), values(rng, dt, ws), values(rng, dt, (1, 3, 4, 4, 3))],
               "out_backprop of the wrong shape", attrs=conv3d_attrs(1, "SAME"), aux=[0])


def conv3d_filter_grad_cases(rng, combo, full):
    dt = combo["T"]
    for xs, ws, attrs in CONV3D_GEOMETRIES[:-1]:
        x, dy = values(rng, dt, xs), values(rng, dt, conv3d_out_shape(xs, ws, attrs))
        n = int(np.prod(dy.shape[:4]))
        yield Case([x, np.array(ws, dtype=np.int32), dy],
                   f"{shape_str(xs)}*{shape_str(ws)} {attrs['padding']} s{attrs['strides'][1:4]}", attrs=attrs,
                   aux=[1], bound=lambda i, a, o, n=n: crude_bound(n, i[0], i[2], o[0]))


POOL3D_GEOMETRIES = [
    ((2, 4, 6, 6, 3), pool3d_attrs(2, 2, "VALID")),
    ((2, 5, 5, 7, 3), pool3d_attrs(2, 2, "SAME")),
    ((1, 5, 7, 9, 2), pool3d_attrs(3, 2, "SAME")),  # overlapping windows
    ((1, 5, 7, 9, 2), pool3d_attrs((3, 2, 2), (1, 2, 1), "VALID")),
    ((1, 3, 4, 5, 2), pool3d_attrs((3, 5, 1), 1, "SAME")),  # windows past both edges
    ((0, 4, 4, 4, 3), pool3d_attrs(2, 2, "SAME")),
]


def np_pool3d(x, attrs, reduce):
    k, s = attrs["ksize"], attrs["strides"]
    dims = dims3(x.shape, k[1:4], s, attrs["padding"])
    out = np.zeros((x.shape[0], dims[0][0], dims[1][0], dims[2][0], x.shape[4]), dtype=x.dtype)
    for d in range(out.shape[1]):
        for h in range(out.shape[2]):
            for w in range(out.shape[3]):
                lo = [max(0, o * s[i + 1] - dims[i][1]) for i, o in enumerate((d, h, w))]
                hi = [min(x.shape[i + 1], o * s[i + 1] - dims[i][1] + k[i + 1]) for i, o in enumerate((d, h, w))]
                window = x[:, lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2], :]
                out[:, d, h, w, :] = reduce(window.astype(np.float64), axis=(1, 2, 3))
    return out


def pool3d_cases(op):
    def gen(rng, combo, full):
        dt = combo["T"]
        avg = op == "AvgPool3D"
        for xs, attrs in POOL3D_GEOMETRIES:
            x = values(rng, dt, xs)
            k = int(np.prod(attrs["ksize"]))
            bound = (lambda i, a, o, k=k: crude_bound(k, i[0], np.ones(1), o[0])) if avg else None
            yield Case([x], f"{shape_str(xs)} k{attrs['ksize'][1:4]} s{attrs['strides'][1:4]} {attrs['padding']}",
                       attrs=attrs, bound=bound)
        x = random_values(rng, dt, (1, 4, 5, 5, 3), edges=True)
        bound = (lambda i, a, o: crude_bound(8, i[0], np.ones(1), o[0])) if avg else None
        yield Case([x], "edges k2 s2 SAME", attrs=pool3d_attrs(2, 2, "SAME"), bound=bound)
        yield Case([values(rng, dt, (1, 3, 4, 4, 4))], "NCDHW", attrs=pool3d_attrs(2, 2, "SAME", data_format="NCDHW"))
        yield Case([values(rng, dt, (2, 4, 4, 4, 1))], "pool over batch",
                   attrs={**pool3d_attrs(2, 2, "VALID"), "ksize": [2, 2, 2, 2, 1]})
    return gen


def max_pool3d_grad_cases(rng, combo, full):
    dt = combo["T"]
    for i, (xs, attrs) in enumerate(POOL3D_GEOMETRIES):
        # Small integers make ties: TensorFlow gives a window's gradient to every tied maximum.
        x = (random_values(rng, dt, xs, -2, 2) if i % 2 else values(rng, dt, xs))
        x = np.round(x) if i % 2 else x
        x = x.astype(values(rng, dt, (1,)).dtype)
        y = np_pool3d(x, attrs, np.max).astype(x.dtype)
        g = values(rng, dt, y.shape)
        k = int(np.prod(attrs["ksize"]))
        yield Case([x, y, g], f"{shape_str(xs)} k{attrs['ksize'][1:4]} {attrs['padding']}" + (" ties" if i % 2 else ""),
                   attrs=attrs, bound=lambda i_, a, o, k=k: crude_bound(k, i_[2], np.ones(1), o[0]))
    xs, attrs = (1, 4, 4, 4, 2), pool3d_attrs(2, 2, "VALID")
    x = values(rng, dt, xs)
    yield Case([x, values(rng, dt, (1, 3, 2, 2, 2)), values(rng, dt, (1, 2, 2, 2, 2))], "orig_output of the wrong shape",
               attrs=attrs)


def avg_pool3d_grad_cases(rng, combo, full):
    dt = combo["T"]
    for xs, attrs in POOL3D_GEOMETRIES:
        dims = dims3(xs, attrs["ksize"][1:4], attrs["strides"], attrs["padding"])
        g = values(rng, dt, (xs[0], dims[0][0], dims[1][0], dims[2][0], xs[4]))
        k = int(np.prod(attrs["ksize"]))
        yield Case([np.array(xs, dtype=np.int32), g],
                   f"{shape_str(xs)} k{attrs['ksize'][1:4]} s{attrs['strides'][1:4]} {attrs['padding']}", attrs=attrs,
                   aux=[0], bound=lambda i, a, o, k=k: crude_bound(k, i[1], np.ones(1), o[0]))


CATALOGUE = [
    OpSpec("Conv3D", conv3d_cases, SUM_BOUND),
    OpSpec("Conv3DBackpropInputV2", conv3d_input_grad_cases, SUM_BOUND, label_attr="T"),
    OpSpec("Conv3DBackpropFilterV2", conv3d_filter_grad_cases, SUM_BOUND),
    OpSpec("MaxPool3D", pool3d_cases("MaxPool3D"), EXACT),
    OpSpec("AvgPool3D", pool3d_cases("AvgPool3D"), SUM_BOUND),
    OpSpec("MaxPool3DGrad", max_pool3d_grad_cases, SUM_BOUND, label_attr="T"),
    OpSpec("AvgPool3DGrad", avg_pool3d_grad_cases, SUM_BOUND),
]

ACCEPTED = [
    dict(op="Conv3D", row="double", tag="edges SAME", mode=".*", kind="grad-values",
         reason="the filter's gradient sums products of values near double's largest (the edge values): one "
                "order of the sum overflows to inf and meets -inf (TensorFlow's NaN), another stays finite (ours)"),
]
