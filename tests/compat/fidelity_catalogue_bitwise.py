"""The "bitwise" family of the differential harness: BitwiseAnd, BitwiseOr, BitwiseXor, Invert,
PopulationCount, LeftShift and RightShift over the eight integer types. Imported by
fidelity_catalogue (CATALOGUE).

Integers have one right answer, so every case is exact. And, or, xor, not and the population
count take the elementwise catalogue's cases (every pair of edge values: 0, -1, the integer
extremes; broadcasting, empty, threaded shapes; incompatible shapes). The shifts add the
amounts where implementations part: negative, 0, bits - 1, bits and beyond (TensorFlow clamps
the amount to [0, bits - 1]), against the edge values (a signed right shift is arithmetic).
"""
import numpy as np

from fidelity_catalogue import (BINARY_SHAPES, BINARY_SHAPES_FULL, SIGNED, Case, OpSpec, binary, edge_values,
                                np_type, random_values, shape_str, unary)


def shift_amounts(dt):
    """Shift amounts around the clamp: 0 .. 2, bits - 2 .. bits + 1, 2 bits, the type's extremes,
    and for signed types negative amounts."""
    t = np_type(dt)
    info = np.iinfo(t)
    bits = np.dtype(t).itemsize * 8
    vals = [0, 1, 2, bits - 2, bits - 1, bits, bits + 1, min(2 * bits, int(info.max)), int(info.max)]
    if dt in SIGNED:
        vals += [-1, -2, -bits, int(info.min)]
    return np.unique(np.array(vals, dtype=t))


def shift_cases(rng, combo, full):
    dt = combo["T"]
    t = np_type(dt)
    e, s = edge_values(dt), shift_amounts(dt)
    yield Case([e.reshape(-1, 1), s.reshape(1, -1)], f"edges x amounts [{len(e)},1]x[1,{len(s)}]")
    bits = np.dtype(t).itemsize * 8
    low = -3 if dt in SIGNED else 0

    def amounts(shape):
        return rng.integers(low, bits + 3, size=shape, endpoint=True).astype(t)

    for sx, sy in (BINARY_SHAPES_FULL if full else BINARY_SHAPES):
        yield Case([random_values(rng, dt, sx), amounts(sy)], f"random {shape_str(sx)}x{shape_str(sy)}")
    yield Case([random_values(rng, dt, (3,)), amounts((4,))], "incompatible [3]x[4]")


CATALOGUE = [
    binary("BitwiseAnd"), binary("BitwiseOr"), binary("BitwiseXor"),
    unary("Invert"), unary("PopulationCount"),
    OpSpec("LeftShift", shift_cases), OpSpec("RightShift", shift_cases),
]
