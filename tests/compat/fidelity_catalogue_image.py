"""The differential harness's image family (fidelity_catalogue.FAMILIES: "image"):
ResizeBilinear, ResizeBilinearGrad, ResizeNearestNeighbor and ResizeNearestNeighborGrad, in
the three sampling conventions (legacy x * scale,
align_corners, half_pixel_centers), up and down, to and from one pixel, the output's own
size (TensorFlow copies), three channels (its vectorised path), an empty batch, edge values,
and the refusals of its kernels' checks.

Tolerance: exact. Both sides compute each sample position in float, read the four pixels as
float and blend them in TensorFlow's order (top + (bottom - top) * y_lerp of the two
horizontal blends), with every product rounded (no fused multiply-adds); the gradient adds
each output's share into the pixels in TensorFlow's order (rows, then columns, then the four
corners), in T. Nearest neighbour picks pixels by the same float positions (floor, or round
with align_corners) and its gradient adds in T, integers wrapping.
"""
import numpy as np

from fidelity_catalogue import EXACT, Case, OpSpec, random_values, shape_str


def resize_attrs(mode):
    return {"align_corners": mode == "align", "half_pixel_centers": mode == "half"}


def size_of(h, w):
    return np.array([h, w], dtype=np.int32)


# (image shape, output size, sampling): every convention up and down; the rest probe the
# particular paths.
RESIZE_GEOMETRIES = [(xs, size, mode) for xs, size in [((2, 3, 4, 2), (5, 7)), ((1, 6, 5, 3), (4, 3))]
                     for mode in ("legacy", "align", "half")] + [
    ((1, 3, 4, 2), (3, 4), "half"),       # the image's own size: copied
    ((2, 4, 4, 1), (1, 1), "align"),      # one output pixel: align_corners falls back to in / out
    ((1, 1, 1, 2), (3, 3), "legacy"),     # from one pixel
    ((2, 5, 5, 3), (7, 9), "half"),       # three channels
    ((1, 7, 3, 4), (2, 8), "align"),      # down one way, up the other
    ((0, 3, 3, 2), (5, 5), "legacy"),     # no images
]


def resize_values(rng, dt, shape):
    return random_values(rng, dt, shape, -100, 100) if dt in ("half", "bfloat16") else random_values(rng, dt, shape)


def resize_cases(rng, combo, full):
    dt = combo["T"]
    geometries = RESIZE_GEOMETRIES + ([((2, 33, 31, 4), (50, 40), "half")] if full else [])
    for xs, size, mode in geometries:
        yield Case([resize_values(rng, dt, xs), size_of(*size)], f"{shape_str(xs)}->{list(size)} {mode}",
                   attrs=resize_attrs(mode), aux=[1])
    for mode in ("legacy", "half"):
        yield Case([random_values(rng, dt, (1, 4, 5, 3), edges=True), size_of(7, 3)], f"edges {mode}",
                   attrs=resize_attrs(mode), aux=[1])
    # Refusals, in the order TensorFlow's ImageResizerState checks.
    x = resize_values(rng, dt, (1, 3, 3, 2))
    yield Case([x, size_of(4, 4)], "half_pixel_centers and align_corners",
               attrs={"align_corners": True, "half_pixel_centers": True}, aux=[1])
    yield Case([x[0], size_of(4, 4)], "rank 3 image", attrs=resize_attrs("legacy"), aux=[1])
    yield Case([resize_values(rng, dt, (1, 3, 3, 0)), size_of(4, 4)], "no channels", attrs=resize_attrs("legacy"),
               aux=[1])
    yield Case([resize_values(rng, dt, (1, 0, 3, 2)), size_of(4, 4)], "no rows", attrs=resize_attrs("legacy"), aux=[1])
    yield Case([x, size_of(0, 4)], "size 0", attrs=resize_attrs("legacy"), aux=[1])
    yield Case([x, size_of(-1, 4)], "size -1", attrs=resize_attrs("legacy"), aux=[1])


def resize_grad_cases(rng, combo, full):
    dt = combo["T"]
    for xs, size, mode in RESIZE_GEOMETRIES:
        g = random_values(rng, "float", (xs[0], *size, xs[3]), -100, 100)
        yield Case([g, resize_values(rng, dt, xs)], f"{shape_str(xs)}->{list(size)} {mode}", attrs=resize_attrs(mode))
    g = random_values(rng, "float", (1, 7, 3, 3), edges=True)
    yield Case([g, resize_values(rng, dt, (1, 4, 5, 3))], "edges half", attrs=resize_attrs("half"))
    # Batch and channels come from the gradient.
    yield Case([random_values(rng, "float", (3, 4, 4, 1), -10, 10), resize_values(rng, dt, (1, 2, 3, 2))],
               "batch and channels of grads", attrs=resize_attrs("align"))
    g, x = random_values(rng, "float", (1, 4, 4, 2), -10, 10), resize_values(rng, dt, (1, 3, 3, 2))
    yield Case([g, x], "half_pixel_centers and align_corners",
               attrs={"align_corners": True, "half_pixel_centers": True})
    yield Case([g[0], x], "rank 3 grads", attrs=resize_attrs("legacy"))
    yield Case([g, x[0]], "rank 3 image", attrs=resize_attrs("legacy"))
    yield Case([random_values(rng, "float", (1, 0, 4, 2)), x], "no resized rows", attrs=resize_attrs("legacy"))
    yield Case([g, resize_values(rng, dt, (1, 3, 0, 2))], "no original columns", attrs=resize_attrs("legacy"))


def nearest_cases(rng, combo, full):
    dt = combo["T"]
    for xs, size, mode in RESIZE_GEOMETRIES:
        yield Case([resize_values(rng, dt, xs), size_of(*size)], f"{shape_str(xs)}->{list(size)} {mode}",
                   attrs=resize_attrs(mode), aux=[1])
    yield Case([random_values(rng, dt, (1, 4, 5, 3), edges=True), size_of(9, 3)], "edges half",
               attrs=resize_attrs("half"), aux=[1])
    x = resize_values(rng, dt, (1, 3, 3, 2))
    yield Case([x, size_of(4, 4)], "half_pixel_centers and align_corners",
               attrs={"align_corners": True, "half_pixel_centers": True}, aux=[1])
    yield Case([x[0], size_of(4, 4)], "rank 3 image", attrs=resize_attrs("legacy"), aux=[1])
    yield Case([resize_values(rng, dt, (1, 3, 3, 0)), size_of(4, 4)], "no channels", attrs=resize_attrs("legacy"),
               aux=[1])
    yield Case([x, size_of(0, 4)], "size 0", attrs=resize_attrs("legacy"), aux=[1])


def nearest_grad_cases(rng, combo, full):
    dt = combo["T"]
    for xs, size, mode in RESIZE_GEOMETRIES:
        # The gradient of an image of xs resized to size: grads of the resized shape, size xs's.
        g = resize_values(rng, dt, (xs[0], *size, xs[3]))
        yield Case([g, size_of(xs[1], xs[2])], f"{shape_str(g.shape)}->{list(xs[1:3])} {mode}",
                   attrs=resize_attrs(mode), aux=[1])
    g = resize_values(rng, dt, (1, 4, 4, 1))
    yield Case([g, size_of(2, 3)], "half_pixel_centers and align_corners (not refused: rounded)",
               attrs={"align_corners": True, "half_pixel_centers": True}, aux=[1])
    yield Case([g[0], size_of(2, 2)], "rank 3 grads", attrs=resize_attrs("legacy"), aux=[1])
    yield Case([g, size_of(0, 2)], "size 0", attrs=resize_attrs("legacy"), aux=[1])
    yield Case([resize_values(rng, dt, (1, 0, 4, 2)), size_of(2, 2)], "no grads rows", attrs=resize_attrs("legacy"),
               aux=[1])


CATALOGUE = [
    OpSpec("ResizeBilinear", resize_cases, EXACT),
    OpSpec("ResizeBilinearGrad", resize_grad_cases, EXACT),
    OpSpec("ResizeNearestNeighbor", nearest_cases, EXACT),
    OpSpec("ResizeNearestNeighborGrad", nearest_grad_cases, EXACT),
]
