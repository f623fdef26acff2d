"""The differential harness's "math_census" family (fidelity_catalogue.FAMILIES): two ops the
op census found missing, CumulativeLogsumexp and DenseBincount.

CumulativeLogsumexp: both sides run TensorFlow's LogSumExp reducer in order along the axis
(min and max that drop a NaN element, log1p(exp(mi - ma)) + ma); exp and log1p are the C
library's here and may be Eigen's there, so each step may round differently: the bound is
16 n (|out| + 1) eps, n the axis length (each of the n steps adds a few eps of the running
value and of the log1p term, at most 1 in size).

DenseBincount: counts, and sums of small integer weights, are exact in any order.
"""
import numpy as np

from fidelity_catalogue import EXACT, FLOATS, Case, OpSpec, Tolerance, np_type, random_values, shape_str

LOGSUMEXP_BOUND = Tolerance("bound", 8, "a running log-sum-exp of n steps, exp and log1p within a few ulps on "
                                        "each side: 16 n (|out| + 1) eps")


def logsumexp_bound(n):
    def bound(inputs, attrs, outputs):
        out = np.abs(outputs[0].astype(np.float64))
        with np.errstate(invalid="ignore"):
            b = 16.0 * max(n, 1) * (out + 1.0)
        return np.where(np.isfinite(b), b, np.inf)
    return bound


def logsumexp_values(rng, dt, shape, edges=False):
    # Moderate magnitudes, as log-probabilities are; edges bring +-inf, NaN and the extremes.
    x = random_values(rng, dt, shape, -30, 30)
    if edges:
        x = random_values(rng, dt, shape, edges=True)
    return x


def cumulative_logsumexp_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tidx"])
    for shape, axis in [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((3, 5), -1), ((2, 3, 4), 1), ((0, 3), 0),
                        ((1000,), 0), ((40, 30), 1)]:
        n = shape[axis] if shape else 1
        for exclusive, reverse in [(False, False), (True, False), (False, True), (True, True)]:
            yield Case([logsumexp_values(rng, dt, shape), np.array(axis, dtype=it)],
                       f"{shape_str(shape)} axis {axis} exclusive={exclusive} reverse={reverse}",
                       attrs={"exclusive": exclusive, "reverse": reverse}, aux=[1], bound=logsumexp_bound(n))
    for reverse in (False, True):
        yield Case([logsumexp_values(rng, dt, (5, 9), edges=True), np.array(1, dtype=it)], f"edges reverse={reverse}",
                   attrs={"exclusive": False, "reverse": reverse}, aux=[1], bound=logsumexp_bound(9))
    yield Case([logsumexp_values(rng, dt, (3, 4)), np.array(2, dtype=it)], "axis out of range",
               attrs={"exclusive": False, "reverse": False}, aux=[1])
    yield Case([logsumexp_values(rng, dt, (3, 4)), np.array(-3, dtype=it)], "axis -3",
               attrs={"exclusive": False, "reverse": False}, aux=[1])


def counts_weights(rng, dt, shape, weighted):
    if not weighted:
        return np.zeros((0,), dtype=np_type(dt))
    return rng.integers(0, 5, size=shape).astype(np_type(dt))


def dense_bincount_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tidx"])
    for shape, size, weighted in [((5,), 5, False), ((5,), 5, True), ((2, 3), 4, True), ((2, 3), 4, False),
                                  ((0,), 3, False), ((2, 0), 3, True), ((3000,), 40, True), ((40, 70), 50, False),
                                  ((7,), 0, False), ((6,), 10, True), ((), 4, False)]:
        arr = rng.integers(0, size + 3, size=shape).astype(it)
        w = counts_weights(rng, dt, shape, weighted)
        for binary in (False, True):
            yield Case([arr, np.array(size, dtype=it), w],
                       f"{shape_str(shape)} size {size}" + (" weighted" if weighted else "") + (" binary" if binary else ""),
                       attrs={"binary_output": binary}, aux=[1])
    none = np.zeros((0,), dtype=np_type(dt))
    yield Case([np.array([1, -1, 2], dtype=it), np.array(4, dtype=it), none], "a negative value",
               attrs={"binary_output": False}, aux=[1])
    yield Case([np.array([[1, 2], [-3, 2]], dtype=it), np.array(4, dtype=it), none], "a negative value in a row",
               attrs={"binary_output": False}, aux=[1])
    yield Case([np.array([1, 2], dtype=it), np.array(-1, dtype=it), none], "negative size",
               attrs={"binary_output": False}, aux=[1])
    yield Case([np.array([1, 2], dtype=it), np.array(4, dtype=it), counts_weights(rng, dt, (3,), True)],
               "weights of another shape", attrs={"binary_output": False}, aux=[1])
    yield Case([np.zeros((1, 2, 2), dtype=it), np.array(4, dtype=it), none], "rank 3",
               attrs={"binary_output": False}, aux=[1])


CATALOGUE = [
    OpSpec("CumulativeLogsumexp", cumulative_logsumexp_cases, LOGSUMEXP_BOUND),
    OpSpec("DenseBincount", dense_bincount_cases, EXACT, label_attr="T"),
]
