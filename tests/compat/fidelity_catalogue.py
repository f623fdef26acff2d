"""What the differential harness (tf_fidelity_compat.py) runs: inputs, tolerances, and per op the cases.

An op joins the harness with one entry in CATALOGUE, usually one line:

    unary("Sqrt", EXACT)                                 # every dtype our kernels claim for T
    binary("Pow", POW, int_rhs=(0, 10))
    OpSpec("Softmax", softmax_cases, SOFTMAX)            # a generator of its own

A generator gets (rng, combo, full), combo being one type-attr combination our CPU kernels
claim (fidelity_tool kernels), e.g. {"T": "float", "Tidx": "int64"}, and yields Cases: the
input arrays (every input is a graph input the harness makes a placeholder or a constant
of), which inputs are "aux" (axes, shapes, permutations: constants in the usual fed graph),
the attrs, and a tag saying what the case probes. The harness builds the node with
tf.raw_ops, so attrs are TensorFlow's names.

Tolerances (why each): see the Tolerance section below.
"""
import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import ml_dtypes
import numpy as np

# ---- dtypes and values -------------------------------------------------------------------

NP_TYPES = {
    "float": np.float32, "double": np.float64, "half": np.float16, "bfloat16": ml_dtypes.bfloat16,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "bool": np.bool_,
    "complex64": np.complex64, "complex128": np.complex128,
}
FLOATS = ("float", "double", "half", "bfloat16")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTS = SIGNED + UNSIGNED
NUMERIC = FLOATS + INTS
REAL_TYPES = NUMERIC + ("bool",)  # the real dtypes the harness generates values for
COMPLEX = ("complex64", "complex128")  # and the complex ones (ops that ask for them: accept=)


def complex_too(combo):
    """An OpSpec's accept= for ops whose complex kernels the harness compares too."""
    return all(v in REAL_TYPES + COMPLEX for v in combo.values())


def np_type(dt):
    return NP_TYPES[dt]


def finfo(dt):
    return ml_dtypes.finfo(np_type(dt)) if dt == "bfloat16" else np.finfo(np_type(dt))


def cast(values, dt):
    """Python or float64 values as dtype dt; out-of-range floats become +-inf (no warnings)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values, dtype=np.float64 if dt in FLOATS else None).astype(np_type(dt))


def edge_values(dt):
    """The values where implementations part: signed zeros, denormals, +-inf, NaN, the largest
    and smallest finite values, halves (rounding), integer extremes, the thresholds where
    float32/float64 exp overflows or underflows and where Relu6 clips."""
    t = np_type(dt)
    if dt == "bool":
        return np.array([False, True])
    if dt in COMPLEX:
        # The part type's edges as real parts, each paired with several others as imaginary parts.
        e = edge_values(complex_part(dt))
        return np.concatenate([make_complex(e, np.roll(e, k), dt) for k in (0, 1, 7, 13)])
    if dt in INTS:
        info = np.iinfo(t)
        vals = [0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.min, info.min + 1]
        if dt in SIGNED:
            vals += [-1, -2, -3, -7, -100]
        return np.unique(np.array(vals, dtype=t))
    fi = finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.0, 6.0, 7.0, 20.0, -20.0, 100.0, -100.0,
            math.pi, 1e-7, -1e-7, float(fi.tiny), -float(fi.tiny), float(fi.smallest_subnormal),
            -float(fi.smallest_subnormal), float(fi.tiny) * 0.75, float(fi.max), -float(fi.max),
            math.inf, -math.inf, math.nan]
    if dt == "float":
        vals += [88.5, 88.72, 89.0, -87.5, -103.5, -104.0, 1e30, -1e30, 16777217.0]
    if dt == "double":
        vals += [709.5, 710.0, -745.0, -746.0, 1e300, -1e300, 9007199254740993.0]
    out = cast(vals, dt)
    return out


def complex_part(dt):
    """The type of a complex dtype's parts."""
    return "float" if dt == "complex64" else "double"


def make_complex(re, im, dt):
    """re + i im as complex dtype dt, the parts set as they are (re + 1j * im would turn an
    infinite im into a NaN real part)."""
    out = np.empty(np.shape(re), dtype=np_type(dt))
    out.real = re
    out.imag = im
    return out


def sprinkle(rng, values, dt, fraction=0.06):
    """`values` with about `fraction` of its entries replaced by edge values, at random places
    (so edges land inside vectorised bodies and tails, not only in scalar code)."""
    flat = values.reshape(-1).copy()
    if flat.size == 0:
        return values
    edges = edge_values(dt)
    k = max(1, int(flat.size * fraction))
    places = rng.choice(flat.size, size=min(k, flat.size), replace=False)
    flat[places] = rng.choice(edges, size=places.size)
    return flat.reshape(values.shape)


def random_values(rng, dt, shape, low=None, high=None, edges=False):
    """Random values of dtype dt: floats a mixture of N(0, 3), magnitudes 10^U(-6, 6) of either
    sign and small integers; integers mostly in [-100, 100] (or [low, high]) and some over the
    whole range; with edges=True some entries replaced by edge values."""
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    t = np_type(dt)
    if dt in COMPLEX:
        part = complex_part(dt)
        out = make_complex(random_values(rng, part, shape, low, high), random_values(rng, part, shape, low, high), dt)
        return sprinkle(rng, out, dt) if edges else out
    if dt == "bool":
        out = rng.random(n) < 0.5
    elif dt in FLOATS:
        if low is not None:
            out = rng.uniform(low, high, n)
        else:
            pick = rng.random(n)
            normal = rng.normal(0.0, 3.0, n)
            wide = np.where(rng.random(n) < 0.5, -1.0, 1.0) * 10.0 ** rng.uniform(-6, 6, n)
            small = rng.integers(-8, 9, n).astype(np.float64)
            out = np.where(pick < 0.6, normal, np.where(pick < 0.85, wide, small))
        out = cast(out, dt)
    else:
        info = np.iinfo(t)
        lo = max(info.min, -100 if low is None else low)
        hi = min(info.max, 100 if high is None else high)
        out = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if dt != "uint64" else np.uint64).astype(t)
        if low is None and n > 0:
            wide = rng.integers(info.min, info.max, n, endpoint=True, dtype=t)
            out = np.where(rng.random(n) < 0.25, wide, out).astype(t)
    out = out.reshape(shape)
    return sprinkle(rng, out, dt) if edges else out


# ---- tolerances --------------------------------------------------------------------------
#
# EXACT: bit for bit, the sign of zero included, any NaN for a NaN. Integers, booleans and
#   data movement have one right answer; so have the IEEE operations that are correctly
#   rounded (+ - * /, sqrt, floor, ceil, rint, min, max, abs, neg) and functions built from a
#   fixed sequence of them (FloorMod's fmod-and-adjust, SquaredDifference's (x-y)*(x-y),
#   Relu, Sign, Cast): any other answer is a bug, whatever path computed it.
# ULPS(n): within n units in the last place, infinities equal, NaN where TensorFlow has NaN,
#   the sign of zero not compared. For functions TensorFlow computes with polynomial or
#   rational approximations (Eigen's exp, log, tanh, logistic ...): neither side is
#   correctly rounded, so the same answer cannot be asked, but both are accurate to a few
#   ulps (TensorFlow's own tests ask 1e-6 relative, about 8 float32 ulps).
# SUM_BOUND: a sum of n terms in another order: |ours - TensorFlow's| <= 2 n eps sum|terms|
#   (the textbook bound of recursive summation, doubled: either side may be that far off),
#   or within 4 ulps. Where the bound itself overflows or the terms hold inf or NaN, only
#   NaN-ness and the sign of infinities are compared (the rest depends on the order).

@dataclass(frozen=True)
class Tolerance:
    kind: str              # "exact", "ulps" or "bound"
    ulps: int = 0
    reason: str = ""


EXACT = Tolerance("exact", 0, "one right answer: integers, data movement, correctly rounded IEEE operations")
TRANSCENDENTAL = Tolerance("ulps", 8, "polynomial approximations on both sides (Eigen's): within 8 ulps (TensorFlow's tests: 1e-6 relative)")
# Erfc: TensorFlow's float erfc (Eigen's) drifts to ~15 ulps from the true value in the far
# tail (erfc(8.664) = 1.62514e-34: TensorFlow's is 1.7e-6 relative off, ours, the C
# library's, 1.1e-7 against double precision's erfc); elsewhere both are within 8.
ERFC_TAIL = Tolerance("ulps", 32, "TensorFlow's float erfc is ~15 ulps off the true value beyond x = 8.5 (ours within 1)")
# Rsqrt, Reciprocal: TensorFlow's Eigen computes them from the processor's estimate refined by
# one Newton step (its float Reciprocal(1) is 0.99999994): up to 2 ulps off; ours are
# correctly rounded divisions (and square roots): at most 1 ulp apart from the truth.
NEWTON_REFINED = Tolerance("ulps", 4, "TensorFlow refines a hardware estimate by one Newton step (2 ulps), ours divides (1 ulp)")
# Elu: exp(x) - 1 on both sides (TensorFlow's formula), which near 0 is accurate to an
# absolute eps, not a relative one: |difference| <= 4 eps where x < 0.
EXP_MINUS_ONE = Tolerance("bound", 8, "exp(x) - 1 near 0 (both sides): 4 eps absolute")
# Pow: TensorFlow's double pow (Eigen's) loses accuracy as |y ln x| grows (136 ulps at
# 0.9756^21778; ours is the C library's, within 1 ulp): (8 + 2 |y ln x|) ulps relative.
POW = Tolerance("bound", 8, "TensorFlow's pow error grows with |y ln x|: (8 + 2|y ln x|) eps relative")
# LRN: m^-beta for a beta other than 1 and 0.5 is exp(-beta log m) on both sides, whose
# rounding grows with |beta log m| (12 ulps apart at m ~ 1e5, beta 0.75).
LRN_POWER = Tolerance("ulps", 32, "m^-beta as exp(-beta log m) on both sides: its error grows with |beta log m|")
# Igamma, Igammac and their derivatives: series and continued fractions truncated at ~eps on
# both sides (Eigen's Cephes ports, TensorFlow's newer Eigen apart), whose errors grow with a
# (double: 687 ulps apart at P(255.4, 7.84) = 3.7e-281, where ours is within 2 ulps of the true
# value by mpmath and TensorFlow's 130 off). Ours compute float in double and round once.
INCOMPLETE_GAMMA = Tolerance("ulps", 1024, "truncated series and continued fractions on both sides: 1e-13 (double), 6e-5 (float) relative")
SUM_BOUND = Tolerance("bound", 4, "sums in another order: 2 n eps sum|terms| (recursive summation's bound, both sides)")
SOFTMAX = Tolerance("bound", 8, "exp (8 ulps), a sum in another order and a division: (16 + 2 n) eps relative")

# ---- cases and op specs ------------------------------------------------------------------


@dataclass
class Case:
    inputs: List[np.ndarray]
    tag: str                                  # what the case probes, e.g. "edges 35", "bcast [3,1]x[1,4]"
    attrs: Dict[str, object] = field(default_factory=dict)
    aux: Sequence[int] = ()                   # inputs that are constants in the "fed" graph
    build: Optional[Callable] = None          # (tf_raw_op, tensors, attrs) -> output(s); None: by arg name
    bound: Optional[Callable] = None          # for SUM_BOUND/SOFTMAX: inputs -> |error| bound per output element
    ulps: Optional[int] = None                # overrides the spec's tolerance's ulps for this case
    # The condition number that amplifies rounding in this case's gradient (a factorisation's
    # or a solve's: both sides' errors in L^-1 or A^-1 grow with it), multiplying the
    # harness's chained gradient bound; 1 for everything whose gradient is not a solve.
    grad_kappa: float = 1.0
    # Inputs that are constants in every mode: TensorFlow's shape function refuses to build the
    # node without knowing their length (SpaceToBatchND's block_shape), and a fed placeholder's
    # declared shape does not reach our run-time graph (its _Arg has no _output_shapes).
    always_const: Sequence[int] = ()


@dataclass
class OpSpec:
    op: str
    cases: Callable                           # (rng, combo, full) -> iterable of Case
    tolerance: Tolerance = EXACT
    # Which claimed dtypes to test: a predicate on the combo. Default: every attr real.
    accept: Callable = lambda combo: all(v in REAL_TYPES for v in combo.values())
    # The table's row for a combo: label(combo), else combo[label_attr], else the first attr's.
    label: Optional[Callable] = None
    label_attr: Optional[str] = None
    # A claimed combination beyond the first of each label gets this many cases (index types).
    secondary_cases: int = 3
    # (inputs, combo, output shape) -> a boolean mask of the output elements whose values are
    # compared; None: all of them.
    comparable: Optional[Callable] = None
    # Each case in a graph and session of its own on both sides, run once: a stateful op
    # whose values depend on how often its node ran in the session (the seeded random ops).
    own_session: bool = False
    # The combinations to run, for an op without kernels of its own (If and While, which the
    # runtime lowers to Switch/Merge and frames); None: those the kernel registry claims.
    combos: Optional[List[dict]] = None

    def row(self, combo):
        if self.label is not None:
            return self.label(combo)
        if self.label_attr is not None:
            return combo[self.label_attr]
        return next(iter(combo.values()), "-") if combo else "-"

    def other_attrs(self, combo):
        """The combo's values besides the row's (index types and the like)."""
        key = self.label_attr or next(iter(combo), None)
        return [v for k, v in combo.items() if k != key] if self.label is None else []


# The shapes elementwise cases use. The vectorised paths start at 16 elements (8 or 16
# lanes), the threaded ones at 16 KiB (4096 float32).
UNARY_SHAPES = [(), (0,), (1,), (7,), (3, 5), (17,), (2, 0, 3), (4100,)]
UNARY_SHAPES_FULL = UNARY_SHAPES + [(1, 1, 1), (33, 65), (65537,), (3, 4, 5, 6)]
BINARY_SHAPES = [((), ()), ((5,), ()), ((), (5,)), ((0,), (0,)), ((0,), (1,)), ((0, 3), (3,)), ((1,), (7,)),
                 ((7,), (7,)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((17,), (17,)),
                 ((4100,), (4100,)), ((64, 70), (70,)), ((1, 4100), (3, 1))]
BINARY_SHAPES_FULL = BINARY_SHAPES + [((33, 65), (33, 65)), ((65537,), ()), ((5, 1, 7), (1, 6, 1)),
                                      ((2, 3, 4, 5), (3, 1, 5)), ((1,), ())]


def shape_str(s):
    return "[" + ",".join(map(str, s)) + "]"


def tiled_edges(rng, dt, size):
    """Edge values shuffled and repeated to `size` entries."""
    e = edge_values(dt)
    return rng.permutation(np.resize(e, size))


def elementwise_unary_cases(low=None, high=None, attrs=None):
    """Edge values (alone, and spread through a vector that takes the threaded path) and
    random values over UNARY_SHAPES; low/high narrow the random values' range (not the edges);
    attrs go to every case."""
    a = dict(attrs or {})

    def gen(rng, combo, full):
        dt = next(iter(combo.values()))
        e = edge_values(dt)
        yield Case([e], f"edges {len(e)}", attrs=a)
        yield Case([tiled_edges(rng, dt, 5000)], "edges tiled [5000]", attrs=a)
        for shape in (UNARY_SHAPES_FULL if full else UNARY_SHAPES):
            yield Case([random_values(rng, dt, shape, low, high)], "random " + shape_str(shape), attrs=a)
        yield Case([random_values(rng, dt, (257,), low, high, edges=True)], "random+edges [257]", attrs=a)
        if full:
            for _ in range(4):
                yield Case([random_values(rng, dt, (4099,), low, high, edges=True)], "random+edges [4099]", attrs=a)
    return gen


def elementwise_binary_cases(int_rhs=None, int_lhs=None, nonzero_int_rhs=False, float_rhs=None):
    """Every pair of edge values (as an outer product [n,1]x[1,n] and as two flat vectors), and
    random values over BINARY_SHAPES (broadcasting, empty, scalar, threaded), one pair of
    incompatible shapes. int_rhs/int_lhs: ranges for integer operands (Pow's exponents);
    nonzero_int_rhs: integer divisions (a zero divisor is its own case, an error)."""
    def gen(rng, combo, full):
        dt = next(iter(combo.values()))
        is_int = dt in INTS
        e = edge_values(dt)
        ex, ey = e, e
        if is_int and nonzero_int_rhs:
            ey = e[e != 0]
        if is_int and int_rhs is not None:
            ey = np.arange(int_rhs[0], int_rhs[1] + 1).astype(np_type(dt))
        if float_rhs is not None and dt in FLOATS:
            ey = np.concatenate([ey, cast(float_rhs, dt)])
        yield Case([ex.reshape(-1, 1), ey.reshape(1, -1)], f"edge pairs [{len(ex)},1]x[1,{len(ey)}]")
        gx, gy = np.meshgrid(ex, ey, indexing="ij")
        yield Case([gx.reshape(-1), gy.reshape(-1)], f"edge pairs flat [{gx.size}]")

        def rhs(shape):
            if is_int and int_rhs is not None:
                return rng.integers(int_rhs[0], int_rhs[1], size=shape, endpoint=True).astype(np_type(dt))
            v = random_values(rng, dt, shape)
            if is_int and nonzero_int_rhs:
                v = np.where(v == 0, np_type(dt)(1), v).astype(np_type(dt))
            return v

        def lhs(shape):
            if is_int and int_lhs is not None:
                return rng.integers(int_lhs[0], int_lhs[1], size=shape, endpoint=True).astype(np_type(dt))
            return random_values(rng, dt, shape)

        for sx, sy in (BINARY_SHAPES_FULL if full else BINARY_SHAPES):
            yield Case([lhs(sx), rhs(sy)], f"random {shape_str(sx)}x{shape_str(sy)}")
        if dt in FLOATS:
            yield Case([random_values(rng, dt, (257,), edges=True), random_values(rng, dt, (257,), edges=True)],
                       "random+edges [257]x[257]")
        yield Case([lhs((3,)), rhs((4,))], "incompatible [3]x[4]")
        if is_int and nonzero_int_rhs:
            yield Case([lhs((20,)), np.where(np.arange(20) == 13, 0, rhs((20,))).astype(np_type(dt))],
                       "zero divisor [20]")
        if is_int and int_rhs is not None and int_rhs[0] >= 0 and dt in SIGNED:
            yield Case([lhs((5,)), np.array([2, 1, -1, 0, 3], dtype=np_type(dt))], "negative exponent [5]")
    return gen


def unary(op, tolerance=EXACT, low=None, high=None, attrs=None, **kw):
    return OpSpec(op, elementwise_unary_cases(low, high, attrs), tolerance, **kw)


def binary(op, tolerance=EXACT, **kw):
    spec_kw = {k: kw.pop(k) for k in ("accept", "label") if k in kw}
    return OpSpec(op, elementwise_binary_cases(**kw), tolerance, **spec_kw)


def logical_cases(unary_op):
    def gen(rng, combo, full):
        if unary_op:
            yield Case([np.array([False, True])], "both")
            for shape in UNARY_SHAPES:
                yield Case([random_values(rng, "bool", shape)], "random " + shape_str(shape))
            return
        b = np.array([False, True])
        yield Case([b.reshape(2, 1), b.reshape(1, 2)], "truth table")
        for sx, sy in BINARY_SHAPES:
            yield Case([random_values(rng, "bool", sx), random_values(rng, "bool", sy)],
                       f"random {shape_str(sx)}x{shape_str(sy)}")
        yield Case([random_values(rng, "bool", (3,)), random_values(rng, "bool", (4,))], "incompatible [3]x[4]")
    return gen


def cast_cases(rng, combo, full):
    src, dst = combo["SrcT"], combo["DstT"]
    yield Case([edge_values(src)], "edges", attrs={"DstT": dst})
    yield Case([tiled_edges(rng, src, 4100)], "edges tiled [4100]", attrs={"DstT": dst})
    for shape in [(), (0,), (7,), (17,), (4100,)]:
        yield Case([random_values(rng, src, shape)], "random " + shape_str(shape), attrs={"DstT": dst})
    if src in FLOATS and dst in INTS:
        # In range of the destination: the values a program relies on.
        info = np.iinfo(np_type(dst))
        lo, hi = max(float(info.min), -1e6), min(float(info.max), 1e6)
        yield Case([cast(rng.uniform(lo, hi, 257), src)], "in range [257]", attrs={"DstT": dst})


# Reductions: (shape, axes, keep_dims) cases; axes a list (a vector) or an int (a scalar).
REDUCTION_CASES = [
    ((), [], False), ((), [0], False), ((5,), [0], False), ((5,), [-1], True), ((0,), [0], False),
    ((0, 3), [0], False), ((3, 0), [1], True), ((3, 4), [0], False), ((3, 4), [1], False), ((3, 4), [0, 1], False),
    ((3, 4), [1, 0], True), ((3, 4), [], False), ((3, 4), 1, False), ((2, 3, 4), [0, 2], False),
    ((2, 3, 4), [1], True), ((2, 3, 4), [-1, -3], False), ((17, 33), [0], False), ((17, 33), [1], False),
    ((64, 300), [0], False), ((64, 300), [1], True), ((5000,), [0], False), ((300, 64), [0, 1], False),
    ((3, 4), [0, 0], False), ((3, 4), [1, -1], False), ((3, 4), [2], False), ((3, 4), [-3], False),
]


def reduction_cases(bool_input=False, int_range=None):
    def gen(rng, combo, full):
        dt = "bool" if bool_input else combo["T"]
        idx = combo["Tidx"]
        for shape, axes, keep in REDUCTION_CASES:
            x = random_values(rng, dt, shape) if int_range is None or dt not in INTS else \
                rng.integers(int_range[0], int_range[1], size=shape).astype(np_type(dt))
            yield Case([x, np.array(axes, dtype=np_type(idx))], f"{shape_str(shape)} axes {axes} keep={keep}",
                       attrs={"keep_dims": keep}, aux=[1], bound=sum_bound_of_reduction)
        # Edge values: NaN and infinities must reach the result whatever the path (threaded too).
        for shape, axes in [((5, 7), [1]), ((5, 7), [0]), ((40, 300), [1]), ((40, 300), [0]), ((12000,), [0])]:
            x = random_values(rng, dt, shape, edges=True)
            yield Case([x, np.array(axes, dtype=np_type(idx))], f"edges {shape_str(shape)} axes {axes}",
                       attrs={"keep_dims": False}, aux=[1], bound=sum_bound_of_reduction)
        if dt in INTS:
            info = np.iinfo(np_type(dt))
            x = np.full((4, 9), info.max - 3, dtype=np_type(dt))
            yield Case([x, np.array([1], dtype=np_type(idx))], "near max (overflowing sums)",
                       attrs={"keep_dims": False}, aux=[1])
    return gen


def reduced_axes(x, axes):
    if x.ndim == 0:
        return ()
    return tuple(sorted(set(int(a) % x.ndim for a in np.atleast_1d(axes).astype(np.int64))))


def order_dependent(total, dt_max, out_shape):
    """`total` (a bound) as +inf where a sum of terms whose magnitudes add up to more than the
    dtype's largest value may overflow in one order and not another; NaN stays NaN."""
    total = np.asarray(total, dtype=np.float64)
    return np.where(total > dt_max, np.inf, total).reshape(out_shape) if total.size else total


def sum_bound_of_reduction(inputs, attrs, outputs):
    x, axes = inputs
    x64 = np.abs(x).astype(np.float64) if np.iscomplexobj(x) else x.astype(np.float64)  # |z| bounds both parts
    ax = reduced_axes(x, axes)
    n = max(1, int(np.prod([x.shape[a] for a in ax])) if ax else 1)
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(np.abs(x64), axis=ax, keepdims=bool(attrs.get("keep_dims")))
    return 2 * n * order_dependent(total, float(finfo_of(x.dtype).max), outputs[0].shape)


def prod_bound(inputs, attrs, outputs):
    x, axes = inputs
    ax = reduced_axes(x, axes)
    n = max(1, int(np.prod([x.shape[a] for a in ax])) if ax else 1)
    fi = finfo_of(x.dtype)
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        mags = np.abs(x).astype(np.float64)  # complex: the moduli
        big = np.prod(np.maximum(mags, 1.0), axis=ax, keepdims=bool(attrs.get("keep_dims")))
        small = np.prod(np.where(mags == 0, 1.0, np.minimum(mags, 1.0)), axis=ax, keepdims=bool(attrs.get("keep_dims")))
        bound = 2 * n * np.abs(outputs[0]).astype(np.float64)
        # A partial product may overflow or underflow before the rest brings it back.
        risky = (big > fi.max) | (small < fi.tiny)
        nan_terms = np.any(np.isnan(x), axis=ax, keepdims=bool(attrs.get("keep_dims")))
    return np.where(nan_terms, np.nan, np.where(risky, np.inf, bound)).reshape(outputs[0].shape)


def mean_bound(inputs, attrs, outputs):
    x, axes = inputs
    ax = reduced_axes(x, axes)
    n = max(1, int(np.prod([x.shape[a] for a in ax])) if ax else 1)
    b = sum_bound_of_reduction(inputs, attrs, outputs)
    with np.errstate(invalid="ignore"):
        # the division's rounding too, where the sum's bound is a number (NaN and inf keep
        # their meaning: "NaN required", "order decides")
        return np.where(np.isfinite(b), b / n + 4 * np.abs(outputs[0].astype(np.float64)), b)


def elu_bound(inputs, attrs, outputs):
    x = inputs[0].astype(np.float64)
    return np.where(x < 0, 4.0, 0.0)


def pow_bound(inputs, attrs, outputs):
    x, y = (np.broadcast_to(a.astype(np.float64), outputs[0].shape) for a in inputs)
    ref = outputs[0].astype(np.float64)
    with np.errstate(all="ignore"):
        b = (8 + 2 * np.abs(y * np.log(np.abs(x)))) * np.abs(ref)
    return np.where(np.isfinite(b), b, 0.0)


def not_at_denormal_inputs(inputs, combo, shape):
    """Log: every element but those of denormal inputs. TensorFlow's answer there depends on
    where the element sits: its vectorised loop reads the denormal as zero (DAZ: -inf), its
    scalar tail calls std::log on the bits (-103.97 for 1e-45, NaN for -1e-45). Ours is -inf
    wherever it sits (tests/kernels/fidelity_regression_test.cc)."""
    x = inputs[0]
    fi = finfo("float" if x.dtype == np.float32 else "double")
    with np.errstate(invalid="ignore"):
        return ~((x != 0) & (np.abs(x) < fi.tiny))


def cast_comparable(inputs, combo, shape):
    """Float to integer: only inputs whose truncation the destination holds. C++ leaves the
    rest undefined, and TensorFlow's own results for them depend on where the element sits
    (its vectorised loop saturates, its scalar tail wraps: 300.0 to uint8 is 255 or 44)."""
    if combo["SrcT"] not in FLOATS + COMPLEX or combo["DstT"] not in INTS:
        return np.ones(shape, dtype=bool)
    info = np.iinfo(np_type(combo["DstT"]))
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.real(inputs[0]).astype(np.float64))  # a complex one casts its real part
        return (t >= float(info.min)) & (t <= float(info.max))


def argminmax_cases(rng, combo, full):
    dt, idx = combo["T"], combo["Tidx"]
    if combo.get("output_type") in ("int16", "uint16"):
        # First, so that these combinations' few cases keep it: indices past the output
        # type's range wrap (TensorFlow casts Eigen's index to it).
        x = np.zeros((2, 40001), dtype=np_type(dt))
        x[0, 40000] = 1
        x[1, 7] = 1
        yield Case([x, np.array(1, dtype=np_type(idx))], "index past int16 [2,40001] axis 1", aux=[1])
    for shape, axis in [((5,), 0), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 1), ((17, 33), 1),
                        ((64, 300), 0), ((5000,), 0), ((0, 3), 1), ((3, 0), 1), ((3, 4), 2), ((), 0)]:
        yield Case([random_values(rng, dt, shape), np.array(axis, dtype=np_type(idx))],
                   f"{shape_str(shape)} axis {axis}", aux=[1])
    for shape, axis in [((5, 7), 1), ((40, 300), 0), ((12000,), 0)]:
        yield Case([random_values(rng, dt, shape, edges=True), np.array(axis, dtype=np_type(idx))],
                   f"edges {shape_str(shape)} axis {axis}", aux=[1])
    # Ties: the first index wins.
    yield Case([np.array([[1, 3, 3, 0], [2, 2, 2, 2]], dtype=np_type(dt)), np.array(1, dtype=np_type(idx))],
               "ties", aux=[1])


def softmax_bound(inputs, attrs, outputs):
    n = inputs[0].shape[-1] if inputs[0].ndim else 1
    return (16 + 2 * n) * np.abs(outputs[0].astype(np.float64))


def log_softmax_bound(inputs, attrs, outputs):
    x = inputs[0].astype(np.float64)
    n = x.shape[-1] if x.ndim else 1
    with np.errstate(invalid="ignore", over="ignore"):
        shifted = np.abs(x - np.max(x, axis=-1, keepdims=True)) if x.size else x
    return (16 + 2 * n) * (np.abs(outputs[0].astype(np.float64)) + shifted + 1.0)


def softmax_cases(log):
    bound = log_softmax_bound if log else softmax_bound

    def gen(rng, combo, full):
        dt = combo["T"]
        for shape, scale in [((1, 1), 1), ((3, 5), 1), ((2, 17), 10), ((7,), 3), ((2, 3, 4), 1), ((0, 5), 1),
                             ((4, 1000), 30), ((64, 300), 5), ((3, 0), 1), ((), 1)]:
            x = cast(random_values(rng, "double", shape, -1, 1) * scale, dt)
            yield Case([x], f"{shape_str(shape)} scale {scale}", bound=bound)
        rows = cast([[0.0, 1.0, -math.inf, 2.0], [math.inf, 1.0, 0.0, -1.0], [math.nan, 0.0, 1.0, 2.0],
                     [-math.inf] * 4, [1e30, -1e30, 0.0, 1.0], [88.0, 89.0, 90.0, -100.0],
                     [-0.0, 0.0, -0.0, 0.0], [1e-40, -1e-40, 0.0, 1e-45]], dt)
        yield Case([rows], "edge rows", bound=bound)
        yield Case([np.resize(rows, (8, 40))], "edge rows [8,40]", bound=bound)
    return gen


def matmul_bound(inputs, attrs, outputs):
    a, b = (np.abs(x).astype(np.float64) if np.iscomplexobj(x) else x.astype(np.float64) for x in inputs)
    if attrs.get("transpose_a"):
        a = a.T
    if attrs.get("transpose_b"):
        b = b.T
    k = max(1, a.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        return 2 * k * order_dependent(np.abs(a) @ np.abs(b), float(finfo_of(inputs[0].dtype).max),
                                       outputs[0].shape)


def matmul_cases(rng, combo, full):
    dt = combo["T"]
    for m, k, n, ta, tb in [(1, 1, 1, False, False), (2, 3, 4, False, False), (2, 3, 4, True, False),
                            (2, 3, 4, False, True), (2, 3, 4, True, True), (0, 3, 4, False, False),
                            (3, 0, 4, False, False), (3, 4, 0, False, False), (17, 33, 9, False, False),
                            (64, 70, 33, False, True), (5, 300, 7, True, False), (1, 257, 1, False, False)]:
        a = random_values(rng, dt, (k, m) if ta else (m, k))
        b = random_values(rng, dt, (n, k) if tb else (k, n))
        yield Case([a, b], f"{m}x{k}x{n} ta={ta} tb={tb}", attrs={"transpose_a": ta, "transpose_b": tb},
                   bound=matmul_bound)
    e = edge_values(dt)
    yield Case([e.reshape(-1, 1), e.reshape(1, -1)], "edge outer product", bound=matmul_bound)
    a = random_values(rng, dt, (9, 20), edges=True)
    yield Case([a, random_values(rng, dt, (20, 6), edges=True)], "random+edges 9x20x6", bound=matmul_bound)
    yield Case([random_values(rng, dt, (2, 3)), random_values(rng, dt, (4, 2))], "inner mismatch")


def select_cases(v2):
    def gen(rng, combo, full):
        dt = combo["T"]
        shapes = [((), (), ()), ((5,), (5,), (5,)), ((0,), (0,), (0,)), ((4100,), (4100,), (4100,)),
                  ((3, 4), (3, 4), (3, 4)), ((3,), (3, 4), (3, 4)), ((), (3, 4), (3, 4)), ((2,), (3,), (3,))]
        if v2:
            shapes += [((3, 1), (1, 4), ()), ((4,), (3, 4), (3, 1)), ((2, 1, 5), (3, 1), (5,))]
        for sc, st, se in shapes:
            c = random_values(rng, "bool", sc)
            yield Case([c, random_values(rng, dt, st, edges=dt in FLOATS), random_values(rng, dt, se)],
                       f"{shape_str(sc)} {shape_str(st)} {shape_str(se)}")
    return gen


def betainc_cases(rng, combo, full):
    # a, b > 0 and x in [0, 1] (plus the edges 0 and 1, and values outside: NaN on both sides);
    # one shape or scalars, and two different shapes, which both sides refuse.
    dt = np_type(combo["T"])

    def positive(shape):
        return (rng.uniform(0.05, 12.0, size=shape)).astype(dt)

    def unit(shape):
        x = rng.uniform(0.0, 1.0, size=shape).astype(dt)
        flat = x.reshape(-1)
        for i, v in enumerate([0.0, 1.0, -0.5, 1.5][:flat.size // 4]):
            flat[i] = v
        return x

    for sa, sb, sx in [((), (), ()), ((5,), (5,), (5,)), ((0,), (0,), (0,)), ((3, 4), (3, 4), (3, 4)),
                       ((), (), (3, 4)), ((3, 4), (), ()), ((), (2, 3), (2, 3)), ((4100,), (4100,), (4100,)),
                       ((2,), (3,), (3,))]:
        yield Case([positive(sa), positive(sb), unit(sx)], f"{shape_str(sa)} {shape_str(sb)} {shape_str(sx)}")


# ---- array ops: shape-driven; values are random (exact comparison) ----------------------

def index_type(combo, *names):
    for n in names:
        if n in combo:
            return np_type(combo[n])
    return np.int32


def reshape_cases(rng, combo, full):
    dt, it = combo["T"], index_type(combo, "Tshape")
    for shape, new in [((2, 3), [3, 2]), ((2, 3), [-1]), ((2, 3), [3, -1]), ((6,), [1, 2, 1, 3]), ((), [1]),
                       ((1,), []), ((0, 3), [-1, 3]), ((0, 3), [3, -1]), ((0,), [-1]), ((0,), [2, -1, 0]),
                       ((0, 3), [-1, 0]), ((2, 3), [4, -1]), ((2, 3), [-1, -1]), ((2, 3), [7]),
                       ((4100,), [41, -1]), ((2, 3), [-2, 3])]:
        yield Case([random_values(rng, dt, shape), np.array(new, dtype=it)],
                   f"{shape_str(shape)} -> {new}", aux=[1])


def transpose_cases(rng, combo, full):
    dt, it = combo["T"], index_type(combo, "Tperm")
    for shape, perm in [((), []), ((5,), [0]), ((2, 3), [1, 0]), ((2, 3), [0, 1]), ((2, 3, 4), [2, 0, 1]),
                        ((2, 3, 4), [1, 2, 0]), ((0, 3), [1, 0]), ((64, 70), [1, 0]), ((2, 3, 4, 5), [3, 1, 0, 2]),
                        ((2, 3), [-1, 0]), ((2, 3), [0, 0]), ((2, 3), [0]), ((2, 3), [2, 0])]:
        yield Case([random_values(rng, dt, shape), np.array(perm, dtype=it)], f"{shape_str(shape)} perm {perm}", aux=[1])


def slice_cases(rng, combo, full):
    dt, it = combo["T"], index_type(combo, "Index")
    for shape, begin, size in [((5,), [1], [3]), ((5,), [0], [-1]), ((5,), [5], [0]), ((3, 4), [1, 1], [2, -1]),
                               ((3, 4), [0, 0], [3, 4]), ((0, 4), [0, 1], [0, 2]), ((64, 70), [3, 5], [50, 60]),
                               ((5,), [3], [3]), ((5,), [-1], [1]), ((3, 4), [1], [1])]:
        yield Case([random_values(rng, dt, shape), np.array(begin, dtype=it), np.array(size, dtype=it)],
                   f"{shape_str(shape)} begin {begin} size {size}", aux=[1, 2])


STRIDED_SLICE_CASES = [
    # shape, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask
    ((10,), [1], [8], [2], 0, 0, 0, 0, 0), ((10,), [8], [1], [-3], 0, 0, 0, 0, 0), ((10,), [0], [0], [1], 1, 1, 0, 0, 0),
    ((10,), [-3], [-1], [1], 0, 0, 0, 0, 0), ((10,), [100], [-100], [-1], 0, 0, 0, 0, 0), ((10,), [3], [4], [1], 0, 0, 0, 0, 1),
    ((10,), [-1], [0], [1], 0, 0, 0, 0, 1), ((4, 5), [1, 0], [3, 5], [1, 2], 0, 0, 0, 0, 0),
    ((4, 5), [0, 2], [0, 3], [1, 1], 1, 1, 0, 0, 2), ((4, 5), [1], [2], [1], 0, 0, 0, 0, 1),
    ((2, 3, 4), [0, 1], [0, 2], [1, 1], 0, 0, 1, 0, 0), ((2, 3, 4), [0, 0], [0, 0], [1, 1], 0, 0, 0, 1, 0),
    ((2, 3, 4), [1, 0, 0], [2, 0, 0], [1, 1, 1], 0, 6, 0, 0, 1), ((0, 3), [0, 0], [0, 3], [1, 1], 1, 0, 0, 0, 0),
    ((10,), [2], [5], [0], 0, 0, 0, 0, 0), ((10,), [2], [5], [2], 0, 0, 0, 0, 1),
    ((10,), [20], [21], [1], 0, 0, 0, 0, 1), ((64, 70), [60, -1], [0, 0], [-3, -7], 0, 2, 0, 0, 0),
    ((4, 5), [1, 1], [3, 4], [1, 1], 0, 0, 3, 0, 0),
]


def strided_slice_cases(rng, combo, full):
    dt, it = combo["T"], index_type(combo, "Index")
    for shape, b, e, s, bm, em, elm, nam, sam in STRIDED_SLICE_CASES:
        attrs = {"begin_mask": bm, "end_mask": em, "ellipsis_mask": elm, "new_axis_mask": nam, "shrink_axis_mask": sam}
        yield Case([random_values(rng, dt, shape), np.array(b, dtype=it), np.array(e, dtype=it), np.array(s, dtype=it)],
                   f"{shape_str(shape)} {b}:{e}:{s} masks {bm},{em},{elm},{nam},{sam}", attrs=attrs, aux=[1, 2, 3])


def list_then_axis(raw_op, tensors, attrs):
    return raw_op(values=tensors[:-1], axis=tensors[-1], **attrs)


def concat_cases(rng, combo, full):
    dt, it = combo["T"], index_type(combo, "Tidx")
    for shapes, axis in [([(2, 3), (2, 4)], 1), ([(2, 3), (1, 3), (0, 3)], 0), ([(5,), (5,)], -1), ([(2, 3), (2, 3)], -2),
                         ([(0,), (0,)], 0), ([(64, 70), (64, 30)], 1), ([(2, 3), (3, 3)], 1), ([(2, 3), (2, 3)], 2),
                         ([(), ()], 0), ([(4100,), (1,), (7,)], 0)]:
        ins = [random_values(rng, dt, s) for s in shapes] + [np.array(axis, dtype=it)]
        yield Case(ins, f"{' '.join(map(shape_str, shapes))} axis {axis}", aux=[len(shapes)], build=list_then_axis)


def pack_cases(rng, combo, full):
    dt = combo["T"]
    for shapes, axis in [([(2, 3), (2, 3)], 0), ([(2, 3), (2, 3), (2, 3)], 2), ([(5,), (5,)], -1), ([(), ()], 0),
                         ([(0, 3), (0, 3)], 1), ([(2, 3), (2, 4)], 0), ([(2, 3), (2, 3)], 3), ([(4100,), (4100,)], 1)]:
        ins = [random_values(rng, dt, s) for s in shapes]
        yield Case(ins, f"{' '.join(map(shape_str, shapes))} axis {axis}", attrs={"axis": axis},
                   build=lambda raw_op, ts, attrs: raw_op(values=ts, **attrs))


def tile_cases(rng, combo, full):
    dt, it = combo["T"], index_type(combo, "Tmultiples")
    for shape, mult in [((2, 3), [2, 1]), ((2, 3), [1, 3]), ((5,), [0]), ((), []), ((0, 3), [2, 2]), ((3,), [1500]),
                        ((2, 3), [2]), ((2, 3), [-1, 1]), ((1, 1, 2), [3, 2, 1])]:
        yield Case([random_values(rng, dt, shape), np.array(mult, dtype=it)], f"{shape_str(shape)} x {mult}", aux=[1])


def pad_cases(rng, combo, full):
    dt, it = combo["T"], index_type(combo, "Tpaddings")
    for shape, pads in [((2, 3), [[1, 0], [0, 2]]), ((5,), [[0, 0]]), ((0, 3), [[1, 1], [0, 0]]),
                        ((2, 3), [[-1, 0], [0, 0]]), ((64, 70), [[3, 4], [5, 6]]), ((), np.zeros((0, 2))),
                        ((2, 3), [[1, 1]])]:
        yield Case([random_values(rng, dt, shape), np.array(pads, dtype=it).reshape(-1, 2)],
                   f"{shape_str(shape)} pads {np.array(pads).tolist()}", aux=[1])


def gather_cases(rng, combo, full):
    dt, ti, ta = combo["Tparams"], np_type(combo["Tindices"]), np_type(combo["Taxis"])
    for shape, idx, axis in [((5,), [0, 4, 2, 2], 0), ((5, 3), [[1, 0], [4, 4]], 0), ((5, 3), [2, 0], 1),
                             ((5, 3), [2, 0], -1), ((5, 3), [], 0), ((0, 3), [], 0), ((5,), [5], 0), ((5,), [-1], 0),
                             ((300, 70), list(range(299, -1, -7)), 0), ((5, 3), [1], 2), ((5,), 3, 0)]:
        yield Case([random_values(rng, dt, shape), np.array(idx, dtype=ti), np.array(axis, dtype=ta)],
                   f"{shape_str(shape)} indices {np.array(idx).shape} axis {axis}" + (" out of range" if idx == [5] or idx == [-1] else ""),
                   attrs={"batch_dims": 0}, aux=[2])


def one_hot_cases(rng, combo, full):
    dt, ti = combo["T"], np_type(combo["TI"])
    on, off = random_values(rng, dt, ()), random_values(rng, dt, ())
    for idx, depth, axis in [([0, 2, 1], 3, -1), ([0, 2, 1], 3, 0), ([[0, 5], [1, 2]], 4, 1), ([], 3, -1), ([1, 2], 0, -1),
                             ([0, 1], -1, -1), (2, 4, -1), (list(range(0, 200, 3)), 100, -1), ([1], 3, 3)]:
        info = np.iinfo(ti)
        if (np.array(idx) < info.min).any() or (np.array(idx) > info.max).any():
            continue
        yield Case([np.array(idx, dtype=ti), np.array(depth, dtype=np.int32), on, off],
                   f"indices {np.array(idx).shape} depth {depth} axis {axis}", attrs={"axis": axis}, aux=[1])
    if ti != np.uint8:
        yield Case([np.array([-1, 0, 7], dtype=ti), np.array(3, dtype=np.int32), on, off], "negative and too large",
                   attrs={"axis": -1}, aux=[1])


def range_cases(rng, combo, full):
    dt = combo["Tidx"]
    cases = [(0, 10, 1), (0, 10, 3), (10, 0, -2), (0, 0, 1), (5, 1, 1), (0, 10, 0), (-3, 4, 2)]
    if dt in FLOATS:
        cases += [(0.0, 1.0, 0.1), (0.5, -2.25, -0.75), (0.0, math.inf, 1.0), (0.0, 1.0, math.nan), (0.0, 1e30, 1e-30)]
    else:
        info = np.iinfo(np_type(dt))
        cases += [(int(info.min), int(info.max), int(info.max))]
        if dt == "int64":  # more elements than memory can hold: refused (int32's would be 8 GiB)
            cases += [(0, int(info.max), 1)]
    for start, limit, delta in cases:
        yield Case([cast(start, dt), cast(limit, dt), cast(delta, dt)], f"{start}:{limit}:{delta}")


def fill_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["index_type"])
    for dims in [[2, 3], [], [0, 4], [4100], [-1, 2]]:
        yield Case([np.array(dims, dtype=it), random_values(rng, dt, ())], f"dims {dims}", aux=[0])
    yield Case([np.array([2], dtype=it), random_values(rng, dt, (2,))], "non-scalar value", aux=[0])


def finfo_of(dtype):
    """The float limits of a float dtype, or of a complex dtype's parts."""
    size = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
    return finfo("bfloat16" if dtype.name == "bfloat16" else {2: "half", 4: "float", 8: "double"}[size])


def addn_bound(inputs, attrs, outputs):
    n = len(inputs)
    with np.errstate(over="ignore", invalid="ignore"):
        total = sum(np.abs(x.astype(np.float64)) for x in inputs)
    return 2 * n * order_dependent(total, float(finfo_of(inputs[0].dtype).max), outputs[0].shape)


def addn_cases(rng, combo, full):
    dt = combo["T"]
    build = lambda raw_op, ts, attrs: raw_op(inputs=ts, **attrs)  # noqa: E731
    for n, shape in [(1, (5,)), (2, (3, 4)), (3, (17,)), (4, (4100,)), (2, ()), (3, (0, 2)), (5, (2, 3, 4))]:
        ins = [random_values(rng, dt, shape, edges=(n == 3)) for _ in range(n)]
        yield Case(ins, f"{n} x {shape_str(shape)}", build=build)
    yield Case([random_values(rng, dt, (3,)), random_values(rng, dt, (4,))], "shape mismatch", build=build)


def bias_add_cases(rng, combo, full):
    dt = combo["T"]
    for shape, fmt in [((4, 3), "NHWC"), ((2, 5, 5, 7), "NHWC"), ((0, 3), "NHWC"), ((64, 70), "NHWC"),
                       ((2, 3, 4, 5), "NCHW"), ((2, 3), "NCHW"), ((3,), "NHWC"), ((2, 3, 4), "NCHW")]:
        c = shape[1] if fmt == "NCHW" and len(shape) > 2 else shape[-1]
        yield Case([random_values(rng, dt, shape, edges=dt in FLOATS), random_values(rng, dt, (c,))],
                   f"{shape_str(shape)} {fmt}", attrs={"data_format": fmt})
    yield Case([random_values(rng, dt, (4, 3)), random_values(rng, dt, (4,))], "bias length mismatch",
               attrs={"data_format": "NHWC"})


def lrn_cases(rng, combo, full):
    dt = combo["T"]
    for shape, attrs in [((1, 1, 1, 1), {}), ((1, 2, 2, 3), {"depth_radius": 1}),
                         ((2, 3, 3, 8), {"depth_radius": 2, "bias": 2.0, "alpha": 1e-4, "beta": 0.75}),
                         ((1, 2, 2, 16), {"depth_radius": 5, "beta": 1.0}), ((0, 2, 2, 3), {}),
                         ((3, 5, 5, 32), {"depth_radius": 2, "alpha": 0.1, "beta": 0.5}),
                         ((2, 2, 2, 6), {"depth_radius": 0, "bias": 0.5, "alpha": 2.0, "beta": 0.3})]:
        tag = " ".join(f"{k}={v}" for k, v in attrs.items())
        yield Case([random_values(rng, dt, shape)], f"random {shape_str(shape)} {tag}".strip(), attrs=attrs)
    yield Case([random_values(rng, dt, (2, 3))], "rank 2")


def clip_cases(rng, combo, full):
    dt = combo["T"]
    lo = cast(-2.5, dt) if dt in FLOATS else np.array(0, dtype=np_type(dt))
    hi = cast(3.5, dt) if dt in FLOATS else np.array(50, dtype=np_type(dt))
    if dt in COMPLEX:  # part by part: a box in the plane
        lo, hi = np.array(-2.5 - 1j, dtype=np_type(dt)), np.array(3.5 + 0.5j, dtype=np_type(dt))
    for shape in [(), (7,), (4100,), (3, 5), (0,)]:
        yield Case([random_values(rng, dt, shape), lo, hi], f"{shape_str(shape)} scalar bounds")
    yield Case([random_values(rng, dt, (6, 7), edges=dt in FLOATS), random_values(rng, dt, (6, 7)),
                random_values(rng, dt, (6, 7))], "[6,7] tensor bounds")
    yield Case([tiled_edges(rng, dt, 300), lo, hi], "edges [300]")
    yield Case([random_values(rng, dt, (6, 7)), random_values(rng, dt, (7,)), hi], "bounds of another shape")


def cumulative_bound(inputs, attrs, outputs):
    x, axis = inputs
    if x.ndim == 0:
        return np.zeros(outputs[0].shape)
    ax = int(axis) % x.ndim
    n = max(1, x.shape[ax])
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(np.abs(x.astype(np.float64)), axis=ax, keepdims=True)
    return 2 * n * order_dependent(np.broadcast_to(total, x.shape), float(finfo_of(x.dtype).max), x.shape)


def cumprod_bound(inputs, attrs, outputs):
    x, axis = inputs
    n = max(1, x.shape[int(axis) % x.ndim]) if x.ndim else 1
    return 2 * n * np.abs(outputs[0]).astype(np.float64)  # complex: the moduli, bounding both parts


def cumulative_cases(product):
    bound = cumprod_bound if product else cumulative_bound

    def gen(rng, combo, full):
        dt, it = combo["T"], np_type(combo["Tidx"])
        low, high = ((-2, 2) if dt in FLOATS else (-3, 3)) if product else (None, None)
        for shape, axis in [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((3, 5), -1), ((2, 3, 4), 1), ((0, 3), 0),
                            ((4100,), 0), ((64, 70), 1), ((5,), 1)]:
            for exclusive, reverse in [(False, False), (True, False), (False, True), (True, True)]:
                yield Case([random_values(rng, dt, shape, low, high), np.array(axis, dtype=it)],
                           f"{shape_str(shape)} axis {axis} exclusive={exclusive} reverse={reverse}",
                           attrs={"exclusive": exclusive, "reverse": reverse}, aux=[1], bound=bound)
        yield Case([random_values(rng, dt, (5, 9), low, high, edges=dt in FLOATS), np.array(1, dtype=it)],
                   "edges [5,9] axis 1", attrs={"exclusive": False, "reverse": False}, aux=[1], bound=bound)
    return gen


def reverse_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tidx"])
    for shape, axes in [((5,), [0]), ((3, 4), [1]), ((3, 4), [0, 1]), ((3, 4), []), ((2, 3, 4), [-1, 0]),
                        ((0, 3), [0]), ((64, 70), [0]), ((3, 4), [2]), ((3, 4), [0, 0])]:
        yield Case([random_values(rng, dt, shape), np.array(axes, dtype=it)], f"{shape_str(shape)} axes {axes}",
                   aux=[1])


def mirror_pad_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tpaddings"])
    for shape, pads, mode in [((5,), [[2, 1]], "REFLECT"), ((5,), [[2, 1]], "SYMMETRIC"),
                              ((3, 4), [[1, 2], [3, 0]], "REFLECT"), ((3, 4), [[3, 3], [4, 4]], "SYMMETRIC"),
                              ((3, 4), [[3, 0], [0, 0]], "REFLECT"), ((64, 70), [[5, 6], [7, 8]], "REFLECT"),
                              ((2, 3), [[-1, 0], [0, 0]], "SYMMETRIC")]:
        yield Case([random_values(rng, dt, shape), np.array(pads, dtype=it)], f"{shape_str(shape)} {pads} {mode}",
                   attrs={"mode": mode}, aux=[1])


def expand_dims_cases(rng, combo, full):
    dt, it = combo["T"], np_type(combo["Tdim"])
    for shape, dim in [((), 0), ((5,), 0), ((5,), 1), ((5,), -1), ((3, 4), -3), ((3, 4), 3), ((3, 4), -4)]:
        yield Case([random_values(rng, dt, shape), np.array(dim, dtype=it)], f"{shape_str(shape)} dim {dim}", aux=[1])


def squeeze_cases(rng, combo, full):
    dt = combo["T"]
    for shape, dims in [((1, 5, 1), []), ((1, 5, 1), [0]), ((1, 5, 1), [-1]), ((5,), []), ((1,), []),
                        ((1, 5, 1), [1]), ((1, 0, 1), [2])]:
        yield Case([random_values(rng, dt, shape)], f"{shape_str(shape)} dims {dims}", attrs={"axis": dims})  # raw_ops name of squeeze_dims


def l2_loss_bound(inputs, attrs, outputs):
    x = inputs[0].astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(x * x) / 2 if x.size else 0.0
    return 2 * max(1, x.size) * order_dependent(total, float(finfo_of(inputs[0].dtype).max), ())


def l2_loss_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(), (0,), (7,), (3, 5), (4100,), (64, 300)]:
        yield Case([random_values(rng, dt, shape)], shape_str(shape), bound=l2_loss_bound)
    yield Case([random_values(rng, dt, (257,), edges=True)], "random+edges [257]", bound=l2_loss_bound)


def batch_matmul_bound(inputs, attrs, outputs):
    a, b = (np.abs(x).astype(np.float64) if np.iscomplexobj(x) else x.astype(np.float64) for x in inputs)
    if attrs.get("adj_x"):
        a = np.swapaxes(a, -1, -2)
    if attrs.get("adj_y"):
        b = np.swapaxes(b, -1, -2)
    k = max(1, a.shape[-1])
    with np.errstate(over="ignore", invalid="ignore"):
        return 2 * k * order_dependent(np.abs(a) @ np.abs(b), float(finfo_of(inputs[0].dtype).max), outputs[0].shape)


def batch_matmul_cases(rng, combo, full):
    dt = combo["T"]
    for sa, sb, ax, ay in [((2, 3, 4), (2, 4, 5), False, False), ((2, 4, 3), (2, 4, 5), True, False),
                           ((3, 4), (2, 5, 4), False, True), ((1, 3, 4), (6, 4, 2), False, False),
                           ((2, 1, 3, 4), (5, 4, 2), False, False), ((0, 3, 4), (0, 4, 5), False, False),
                           ((2, 3, 0), (2, 0, 5), False, False), ((4, 33, 70), (4, 70, 9), False, False),
                           ((2, 3, 4), (3, 4, 5), False, False), ((2, 3, 4), (2, 5, 5), False, False)]:
        yield Case([random_values(rng, dt, sa), random_values(rng, dt, sb)],
                   f"{shape_str(sa)}x{shape_str(sb)} adj={ax},{ay}", attrs={"adj_x": ax, "adj_y": ay},
                   bound=batch_matmul_bound)


def not_bool(combo):
    return all(v in NUMERIC for v in combo.values())


def floats_only(combo):
    return all(v in FLOATS for v in combo.values())


def cast_label(combo):
    return f"{combo['SrcT']}->{combo['DstT']}"


CATALOGUE = [
    # Element-wise unary math.
    unary("Abs"), unary("Neg", accept=complex_too), unary("Sign", accept=complex_too), unary("Square", accept=complex_too), unary("Floor"), unary("Ceil"), unary("Round"),
    unary("Reciprocal", NEWTON_REFINED, accept=complex_too), unary("Sqrt", accept=complex_too), unary("Rsqrt", NEWTON_REFINED, accept=complex_too),
    unary("Exp", TRANSCENDENTAL, accept=complex_too), unary("Log", TRANSCENDENTAL, comparable=not_at_denormal_inputs, accept=complex_too), unary("Log1p", TRANSCENDENTAL, accept=complex_too),
    unary("Expm1", TRANSCENDENTAL, accept=complex_too), unary("Tanh", TRANSCENDENTAL, accept=complex_too), unary("Sigmoid", TRANSCENDENTAL, accept=complex_too),
    unary("Relu"), unary("Relu6"), unary("Elu", EXP_MINUS_ONE), unary("Softplus", TRANSCENDENTAL),
    # Element-wise binary math.
    binary("Add", accept=complex_too), binary("AddV2", accept=complex_too), binary("Sub", accept=complex_too), binary("Mul", accept=complex_too), binary("Div", nonzero_int_rhs=True, accept=complex_too),
    binary("RealDiv", nonzero_int_rhs=True, accept=complex_too), binary("FloorDiv", nonzero_int_rhs=True),
    binary("FloorMod", nonzero_int_rhs=True), binary("Maximum"), binary("Minimum"), binary("SquaredDifference", accept=complex_too),
    binary("Pow", POW, int_rhs=(0, 12), int_lhs=(-12, 12), float_rhs=[0.5, -0.5, 3.0, -3.0, 1e-3], accept=complex_too),
    # Comparisons and logic.
    binary("Equal", accept=complex_too), binary("NotEqual", accept=complex_too), binary("Less"), binary("LessEqual"), binary("Greater"), binary("GreaterEqual"),
    OpSpec("LogicalAnd", logical_cases(False), label=lambda c: "bool"),
    OpSpec("LogicalOr", logical_cases(False), label=lambda c: "bool"),
    OpSpec("LogicalNot", logical_cases(True), label=lambda c: "bool"),
    # Cast between every pair our kernels claim.
    OpSpec("Cast", cast_cases, label=cast_label, comparable=cast_comparable, accept=complex_too),
    # Reductions.
    OpSpec("Sum", reduction_cases(), SUM_BOUND, accept=complex_too),
    OpSpec("Mean", reduction_cases(), SUM_BOUND, accept=complex_too),
    OpSpec("Prod", reduction_cases(int_range=(-3, 4)), SUM_BOUND, accept=complex_too),
    OpSpec("Max", reduction_cases()), OpSpec("Min", reduction_cases()),
    OpSpec("Any", reduction_cases(bool_input=True), label=lambda c: "bool"),
    OpSpec("All", reduction_cases(bool_input=True), label=lambda c: "bool"),
    OpSpec("ArgMax", argminmax_cases), OpSpec("ArgMin", argminmax_cases),
    # Softmax, MatMul, Select.
    OpSpec("Softmax", softmax_cases(False), SOFTMAX), OpSpec("LogSoftmax", softmax_cases(True), SOFTMAX),
    OpSpec("MatMul", matmul_cases, SUM_BOUND, accept=complex_too),
    OpSpec("Select", select_cases(False), accept=complex_too),
    OpSpec("SelectV2", select_cases(True), accept=complex_too),
    # Array ops.
    OpSpec("Reshape", reshape_cases, accept=complex_too), OpSpec("Transpose", transpose_cases, accept=complex_too), OpSpec("Slice", slice_cases, accept=complex_too),
    OpSpec("StridedSlice", strided_slice_cases, accept=complex_too), OpSpec("ConcatV2", concat_cases, accept=complex_too), OpSpec("Pack", pack_cases, accept=complex_too),
    OpSpec("Tile", tile_cases, accept=complex_too), OpSpec("Pad", pad_cases, accept=complex_too), OpSpec("GatherV2", gather_cases, accept=complex_too),
    OpSpec("OneHot", one_hot_cases, accept=complex_too), OpSpec("Range", range_cases), OpSpec("Fill", fill_cases, accept=complex_too),
    # Ops added since (issue 32's missing ones), each a line or a small generator.
    unary("Sin", TRANSCENDENTAL, accept=complex_too), unary("Cos", TRANSCENDENTAL, accept=complex_too), unary("Erf", TRANSCENDENTAL),
    unary("Erfc", ERFC_TAIL),
    unary("Tan", TRANSCENDENTAL, accept=complex_too), unary("Asin", TRANSCENDENTAL, accept=complex_too), unary("Acos", TRANSCENDENTAL, accept=complex_too),
    unary("Atan", TRANSCENDENTAL, accept=complex_too), unary("Sinh", TRANSCENDENTAL, accept=complex_too), unary("Cosh", TRANSCENDENTAL, accept=complex_too),
    unary("Asinh", TRANSCENDENTAL, accept=complex_too), unary("Acosh", TRANSCENDENTAL, accept=complex_too), unary("Atanh", TRANSCENDENTAL, accept=complex_too),
    unary("Inv", NEWTON_REFINED, accept=complex_too), unary("Rint"), unary("Softsign"),
    unary("Ndtri", TRANSCENDENTAL, low=0.0, high=1.0), unary("Erfinv", TRANSCENDENTAL, low=-1.0, high=1.0),
    unary("Lgamma", TRANSCENDENTAL, low=-8.0, high=30.0), unary("Digamma", TRANSCENDENTAL, low=-8.0, high=30.0),
    binary("Polygamma", TRANSCENDENTAL), binary("Zeta", TRANSCENDENTAL),
    binary("Igamma", INCOMPLETE_GAMMA), binary("Igammac", INCOMPLETE_GAMMA), binary("IgammaGradA", INCOMPLETE_GAMMA),
    binary("RandomGammaGrad", INCOMPLETE_GAMMA), OpSpec("Betainc", betainc_cases, INCOMPLETE_GAMMA),
    OpSpec("LRN", lrn_cases, LRN_POWER),
    unary("IsNan"), unary("IsInf"), unary("IsFinite"),
    unary("Selu", EXP_MINUS_ONE), unary("LeakyRelu", attrs={"alpha": 0.2}),
    unary("ZerosLike", accept=complex_too), unary("OnesLike", accept=complex_too),
    binary("Atan2", TRANSCENDENTAL), binary("TruncateDiv", nonzero_int_rhs=True), binary("DivNoNan", accept=complex_too),
    binary("MulNoNan", accept=complex_too), binary("Xdivy", accept=complex_too), binary("Xlogy", TRANSCENDENTAL, accept=complex_too), binary("Xlog1py", TRANSCENDENTAL, accept=complex_too),
    OpSpec("AddN", addn_cases, SUM_BOUND, accept=complex_too), OpSpec("BiasAdd", bias_add_cases, accept=complex_too), OpSpec("ClipByValue", clip_cases, accept=complex_too),
    OpSpec("Cumsum", cumulative_cases(False), SUM_BOUND, accept=complex_too), OpSpec("Cumprod", cumulative_cases(True), SUM_BOUND, accept=complex_too),
    OpSpec("ReverseV2", reverse_cases, label_attr="T", accept=complex_too), OpSpec("MirrorPad", mirror_pad_cases, accept=complex_too),
    OpSpec("ExpandDims", expand_dims_cases, accept=complex_too), OpSpec("Squeeze", squeeze_cases, accept=complex_too),
    OpSpec("L2Loss", l2_loss_cases, SUM_BOUND), OpSpec("BatchMatMulV2", batch_matmul_cases, SUM_BOUND, accept=complex_too),
]

# Bounds by op for the "bound" tolerances (a case may bring its own).
BOUNDS = {"Prod": prod_bound, "Mean": mean_bound, "Elu": elu_bound, "Selu": elu_bound, "Pow": pow_bound,
          "AddN": addn_bound}

# ---- op families in their own files ------------------------------------------------------
# A family of ops (fidelity_catalogue_<family>.py) brings its own CATALOGUE list and may bring
# BOUNDS (op -> bound) and ACCEPTED (dicts of tf_fidelity_compat.Accepted's fields): imported
# here, after everything above is defined, so a family module imports what it uses from this
# one.
FAMILIES = ("nn", "nn3d", "segment", "depthwise", "random", "array_more", "linalg", "bitwise", "list", "control",
            "math_more", "image", "math_census", "training", "linalg_complex")
# The families' ACCEPTED entries (added below), after those of the ops above: where
# TensorFlow's result is wrong and ours is kept.
FAMILY_ACCEPTED = [
    dict(op="Selu", row=".*", tag=".*edges.*", mode=".*", kind="grad-values",
         reason="TensorFlow's Selu computes exp(x) - 1, which cancels to 0 for x in (-3e-8, 0) in float and "
                "(-1.1e-16, 0) in double (the edges' -FLT_MIN and -DBL_MIN), so its SeluGrad, which reads the "
                "output, takes the x >= 0 branch (scale); ours computes expm1 (tests/compat/accuracy_sweep.py: "
                "1.6 ulps, TensorFlow's 2^24), a negative output, and the true derivative scale * alpha * exp(x)"),
    dict(op="(Sum|Mean|Prod|Max|Min|EuclideanNorm)", row=".*", tag=".*", mode="unknown", kind="grad-outcome", combo=".*int64.*",
         reason="TensorFlow 2.21 cannot build these reductions' gradients for int64 axes of an input of unknown "
                "shape (math_ops.reduced_shape stitches the int64 axes with an int32 range: \"Tensors in "
                "list passed to 'indices' of 'DynamicStitch' Op have types [int64, int64] that do not match expected "
                "type int32\"); ours computes them"),
]


def _add_families():
    import importlib
    import importlib.util
    for family in FAMILIES:
        name = "fidelity_catalogue_" + family
        if importlib.util.find_spec(name) is None:
            continue
        module = importlib.import_module(name)
        CATALOGUE.extend(module.CATALOGUE)
        BOUNDS.update(getattr(module, "BOUNDS", {}))
        FAMILY_ACCEPTED.extend(getattr(module, "ACCEPTED", []))


# The families' ops that only move, select or rearrange elements: their complex kernels (a
# complex number is 8 or 16 bytes to them) are compared too, with the cases their real types get.
MOVES_ELEMENTS = {"Where", "GatherNd", "ScatterNd", "Split", "SplitV", "Unpack", "BroadcastTo", "DynamicPartition",
                  "DynamicStitch", "ParallelDynamicStitch", "Roll", "Reverse", "ReverseSequence", "Identity",
                  "Snapshot", "StopGradient", "PreventGradient", "Concat", "PadV2", "MirrorPadGrad", "SpaceToDepth",
                  "DepthToSpace", "Diag", "DiagPart", "MatrixDiag", "MatrixDiagPart", "MatrixDiagV3",
                  "MatrixDiagPartV3", "MatrixSetDiag", "MatrixSetDiagV3", "MatrixBandPart", "TensorScatterUpdate",
                  "SparseToDense", "Rank", "Shape", "ShapeN", "Size", "StridedSliceGrad",
                  # and the sums and products of the segment family, TensorScatterAdd/Sub and Einsum
                  "SegmentSum", "SegmentMean", "SegmentProd", "UnsortedSegmentSum", "UnsortedSegmentProd",
                  "TensorScatterAdd", "TensorScatterSub", "Einsum", "RandomShuffle", "Bitcast",
                  "TensorListConcat", "TensorListConcatLists", "TensorListConcatV2", "TensorListGather",
                  "TensorListGetItem", "TensorListPopBack", "TensorListPushBackBatch", "TensorListReserve",
                  "TensorListScatterIntoExistingList", "TensorListScatterV2", "TensorListSetItem", "TensorListSplit",
                  "TensorListStack", "PlaceholderWithDefault", "Gather"}


def _accept_complex_moves():
    for spec in CATALOGUE:
        if spec.op in MOVES_ELEMENTS and spec.combos is None:
            real_only = spec.accept
            # A complex combination is run where the same one with float in its place is.
            spec.accept = lambda combo, real_only=real_only: real_only(
                {k: "float" if v in COMPLEX else v for k, v in combo.items()})


_add_families()
_accept_complex_moves()
