#!/usr/bin/env python3
"""Dense accuracy sweeps of the transcendental functions: ours and TensorFlow 2.21's kernels,
each measured in ulps against a reference computed in a wider type (issue 32).

Usage: accuracy_sweep.py ACCURACY_SWEEP_TOOL WORK_DIR [--full] [--ops Exp,Log] [--markdown FILE]

For every op below and every dtype our CPU kernels claim (float, double, half, bfloat16),
both runtimes compute the same dense inputs, each op and dtype as one large fed tensor (so
the vectorised and threaded paths run, as on a model's tensors): ours through a session
(accuracy_sweep_tool), TensorFlow's through tf.compat.v1.Session on the same GraphDef, oneDNN
off (TF_ENABLE_ONEDNN_OPTS=0: its own kernels are the reference).

Inputs:
  float     every 2^k-th bit pattern of the finite range, both signs (k = 13; --full: 8), the
            special values, and dense stretches (evenly spaced values, and consecutive bit
            patterns) where the approximations change: around 0, at the overflow and
            underflow thresholds, at the ops' range switches (each op's regions in OPS)
  double    a seeded random sample of 2^16 points (--full: 2^21): half uniform random bit
            patterns over the finite range, half uniform in the op's regions, plus the specials
  half, bfloat16   every bit pattern
  binary ops (Atan2, Pow): the outer product of two axes built the same way (bit-pattern
            samples, specials, small integers and halves, a stretch around 1)

The reference is numpy's function applied to the input in long double for double (x86's
80-bit extended: a 64-bit significand, 11 bits more) and in double for the narrower dtypes
(29 bits more than float, and several times faster); erf, which numpy lacks, is summed in
that type (its everywhere-positive series below 4, the continued fraction of erfc above;
within 0.006 ulp of double against mpmath). An error is |result - reference| in units of
the last place of the reference in the op's dtype (below the smallest normal, the ulp there).

Denormals: both runtimes run their kernels with FTZ and DAZ, so a denormal float, double or
bfloat16 input is taken as a zero of its sign (the reference is computed at that zero), and
a denormal result counts as a zero of its sign (a flushed result is exact when the reference
is below the smallest normal). Half's denormals are not flushed (both compute half in
float, where they are normal), so half inputs are taken as they are.

Special values: where the reference is NaN, infinite or an exact (signed) zero, the results
must be that value exactly; the table counts such points and the mismatches on each side.
A finite reference that overflows the dtype counts by ulps (an infinite result is right
where the reference rounds to it).

The bar, per op and dtype (check() below): wherever TensorFlow is within BOUND ulps (the
catalogue's TRANSCENDENTAL, 8), ours is too, and ours' largest error there is at most
TensorFlow's plus 1 ulp (MARGIN; 2 ulps, FAITHFUL, are always fine); where TensorFlow is
further off, ours is at most TensorFlow's worst there plus MARGIN; within BOUND everywhere
where TensorFlow has no kernel for the dtype; and no special value where ours differs from
the reference and TensorFlow's does not. The exit status is 1 when a row misses it, 77
(ctest: skipped) when TensorFlow cannot be imported, else 0.

2026-11-27 on the 2-vCPU AVX-512 Xeon: about 17 s (13.4 million points); --full (about 190
million) a few minutes.
"""
import argparse
import os
import subprocess
import sys
import time

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads: its own kernels are the reference
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat_util import skip_without  # noqa: E402

with skip_without("tensorflow"):
    import ml_dtypes
    import numpy as np
    import tensorflow as tf

tf1 = tf.compat.v1
LD = np.longdouble
BOUND = 8.0    # ulps: the catalogue's TRANSCENDENTAL tolerance
MARGIN = 1.0   # ulps ours may exceed TensorFlow's maximum by (its kernels and ours round differently)
FAITHFUL = 2.0  # ulps always acceptable (TensorFlow's own correctly rounded ops are 0.5 off)


def check(err, tf_err, bound):
    """Whether ours meets the bar, and the bar as a table cell. Where TensorFlow is within
    the bound (every point when it has no kernel), ours must be too, and its largest error
    there at most TensorFlow's plus MARGIN (FAITHFUL always being fine). Where TensorFlow is
    not (its bugs: Atan2 of denormals, Reciprocal near the largest float, float Pow near 1
    with huge exponents; and the cancellation in Elu's and Selu's exp(x) - 1 near 0), ours
    may be as far off as TensorFlow's worst there, plus MARGIN."""
    within = np.ones_like(err, bool) if tf_err is None else tf_err <= bound
    limit = bound if tf_err is None or not within.any() else min(max(tf_err[within].max() + MARGIN, FAITHFUL), bound)
    ok = not within.any() or err[within].max() <= limit
    cell = f"{limit:.3g}"
    if not within.all():
        beyond = tf_err[~within].max() + MARGIN
        ok = ok and err[~within].max() <= max(beyond, bound)
        cell += f" ({beyond:.3g} at {int((~within).sum())})"
    return ok, cell


class Format:
    """A floating-point dtype: numpy type, significand bits, smallest normal exponent."""

    def __init__(self, name, np_type, tf_type, precision, emin, daz):
        self.name, self.np_type, self.tf_type = name, np_type, tf_type
        self.precision, self.emin, self.daz = precision, emin, daz
        self.bits = np.dtype(np_type).itemsize * 8
        self.uint = {16: np.uint16, 32: np.uint32, 64: np.uint64}[self.bits]
        # The reference's type: long double for double; double for the narrower types, where
        # its 29 extra bits are plenty and numpy computes it several times faster.
        self.work = LD if name == "double" else np.float64
        self.min_normal = self.work(2.0) ** emin

    def widen(self, a):
        """a (of this dtype) in the reference's type."""
        with np.errstate(invalid="ignore"):  # NaNs convert quietly
            if self.np_type in (np.float16, ml_dtypes.bfloat16):
                return a.astype(np.float32).astype(self.work)
            return a.astype(self.work)

    def round(self, r):
        """The reference r rounded to this dtype, back in the reference's type."""
        with np.errstate(over="ignore", invalid="ignore"):
            if self.np_type == ml_dtypes.bfloat16:
                # Through double, then bfloat16: double rounding is harmless at 8 bits of 53.
                return r.astype(np.float64).astype(self.np_type).astype(np.float32).astype(self.work)
            return r.astype(self.np_type).astype(np.float32 if self.bits == 16 else self.np_type).astype(self.work)

    def flush(self, v):
        """Denormals as zeros of their sign (v in the reference's type)."""
        return np.where(np.abs(v) < self.min_normal, np.copysign(self.work(0), v), v)

    def ulp(self, r):
        _, e = np.frexp(np.abs(r))  # |r| = m 2^e with m in [0.5, 1)
        e = np.maximum(e.astype(np.int64) - 1, self.emin)
        return np.ldexp(self.work(1), (e - (self.precision - 1)).astype(np.int32))


FORMATS = {
    "float": Format("float", np.float32, tf.float32, 24, -126, True),
    "double": Format("double", np.float64, tf.float64, 53, -1022, True),
    "half": Format("half", np.float16, tf.float16, 11, -14, False),
    "bfloat16": Format("bfloat16", ml_dtypes.bfloat16, tf.bfloat16, 8, -126, True),
}

# ---- references, in long double (double for the narrower dtypes) ----------------------------
SQRT_PI = np.sqrt(LD("3.14159265358979323846264338327950288"))  # not np.pi: a double
SELU_SCALE = LD("1.0507009873554804934193349852946")
SELU_SCALE_ALPHA = LD("1.7580993408473768599402175208123")


def erf_ld(x):
    """erf in x's type (long double or double): below 4, 2/sqrt(pi) exp(-x^2) sum x^(2n+1) 2^n / (2n+1)!! (every
    term positive, so no cancellation); above, 1 - erfc with erfc's continued fraction."""
    W = x.dtype.type
    a = np.abs(x)
    out = np.empty_like(x)
    small = a < 4
    s = a[small]
    term, total, s2 = s.copy(), s.copy(), s * s
    n = 0
    while True:
        term = term * 2 * s2 / (2 * n + 3)
        total += term
        n += 1
        if n > 20 and not np.any(term > total * W(np.finfo(W).eps / 100)):
            break
    out[small] = 2 / W(SQRT_PI) * np.exp(-s2) * total
    big = a[~small]
    with np.errstate(over="ignore", invalid="ignore"):
        frac = np.zeros_like(big)  # erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
        for k in range(120, 0, -1):
            frac = (W(k) / 2) / (big + frac)
        erfc = np.exp(-big * big) / W(SQRT_PI) / (big + frac)
    out[~small] = np.where(np.isinf(big), W(1), 1 - erfc)
    return np.copysign(out, x)


def softplus_ld(x):
    with np.errstate(over="ignore"):
        return np.where(x > 0, x + np.log1p(np.exp(-np.abs(x))), np.log1p(np.exp(np.minimum(x, 0))))


def sigmoid_ld(x):
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def selu_ld(x):
    W = x.dtype.type
    return np.where(x < 0, W(SELU_SCALE_ALPHA) * np.expm1(np.minimum(x, 0)), W(SELU_SCALE) * x)


def elu_ld(x):
    return np.where(x < 0, np.expm1(np.minimum(x, 0)), x)


class Op:
    def __init__(self, name, ref, regions, args=("x",), bound=BOUND):
        self.name, self.ref, self.regions, self.args, self.bound = name, ref, regions, args, bound

    @property
    def binary(self):
        return len(self.args) == 2


# Where each op's approximation changes or its result leaves the normal range (float32
# values; the other dtypes use the parts inside their range).
AROUND_ZERO = (-1e-3, 1e-3)
OPS = [
    Op("Exp", np.exp, [(-104.0, -87.0), (88.0, 89.0), (-1.0, 1.0), AROUND_ZERO, (-746.0, -708.0), (709.0, 710.0)]),
    Op("Expm1", np.expm1, [(-1.0, 1.0), AROUND_ZERO, (88.0, 89.0), (-20.0, -15.0), (-0.7, -0.2), (0.2, 0.7)]),
    Op("Log", np.log, [(0.5, 2.0), (0.999, 1.001), (1e-38, 1e-36), (3e38, 3.4028234e38), (1e-307, 1e-305)]),
    Op("Log1p", np.log1p, [(-1.0, -0.99), (-0.5, 0.5), (-1e-4, 1e-4), (0.4, 0.45)]),
    Op("Tanh", np.tanh, [(-10.0, 10.0), (-0.01, 0.01), (7.5, 9.5), (-0.7, -0.5), (18.0, 20.0)]),
    Op("Sigmoid", sigmoid_ld, [(-20.0, 20.0), (-104.0, -80.0), (15.0, 18.0), (-12.0, -5.0), (-0.1, 0.1)]),
    Op("Softplus", softplus_ld, [(-20.0, 20.0), (-16.0, -12.0), (12.0, 16.0), (-104.0, -85.0), (-40.0, -32.0), (32.0, 40.0)],
       args=("features",)),
    Op("Sin", np.sin, [(-10.0, 10.0), AROUND_ZERO, (1e4, 1e5), (1e30, 1e31), (105000.0, 105100.0)]),
    Op("Cos", np.cos, [(-10.0, 10.0), AROUND_ZERO, (1e4, 1e5), (1e30, 1e31), (1.56, 1.58)]),
    Op("Erf", erf_ld, [(-5.0, 5.0), AROUND_ZERO, (0.8, 0.9), (2.0, 2.5), (3.5, 4.5), (5.5, 6.5)]),
    Op("Sqrt", np.sqrt, [(0.5, 4.0), (1e-38, 1e-37), (1e38, 3.4028234e38)]),
    Op("Rsqrt", lambda x: 1 / np.sqrt(x), [(0.5, 4.0), (1e-38, 1e-37), (1e38, 3.4028234e38)]),
    Op("Reciprocal", lambda x: 1 / x, [(0.5, 4.0), (1e-38, 1e-37), (8e37, 3.4028234e38)]),
    Op("Elu", elu_ld, [(-20.0, 1.0), AROUND_ZERO, (-104.0, -87.0), (-1.0, -0.1)], args=("features",)),
    Op("Selu", selu_ld, [(-20.0, 1.0), AROUND_ZERO, (-104.0, -87.0), (-1.0, -0.1)], args=("features",)),
    Op("Atan2", lambda y, x: np.arctan2(y, x), [(-4.0, 4.0)], args=("y", "x")),
    Op("Pow", np.power, [(0.5, 2.0), (0.99, 1.01)], args=("x", "y")),
]


# ---- inputs --------------------------------------------------------------------------------
def specials(fmt):
    info = np.finfo(fmt.np_type)
    tiny_denormal = np.array([1], fmt.uint).view(fmt.np_type)[0]
    vals = [0.0, np.inf, np.nan, 1.0, 0.5, 2.0, float(info.max), float(info.smallest_normal), float(tiny_denormal),
            float(info.smallest_normal) * 0.5]
    return np.array(vals + [-v for v in vals], np.float64).astype(fmt.np_type)


def bit_sample(fmt, step):
    """Every step-th bit pattern of the positive finite range, and its negatives."""
    top = int(np.array([np.inf], fmt.np_type).view(fmt.uint)[0])
    pos = np.arange(0, top, step, dtype=np.uint64).astype(fmt.uint).view(fmt.np_type)
    return np.concatenate([pos, -pos])


def region_points(fmt, lo, hi, n, rng):
    info = np.finfo(fmt.np_type)
    lo, hi = max(lo, -float(info.max)), min(hi, float(info.max))
    if lo >= hi:
        return np.zeros(0, fmt.np_type)
    with np.errstate(over="ignore"):
        if fmt.name == "double":
            return rng.uniform(lo, hi, n).astype(np.float64)
        even = np.linspace(lo, hi, n // 2).astype(fmt.np_type)
        # Consecutive patterns from the middle of the stretch: every float there, for n/2 of them.
        mid = np.array([(lo + hi) / 2], fmt.np_type)
        start = mid.view(fmt.uint)[0].astype(np.int64) - n // 4
        pats = np.arange(max(start, 0), max(start, 0) + n // 2, dtype=np.int64)
        consecutive = pats.astype(fmt.uint).view(fmt.np_type)
        if mid[0] < 0:  # patterns of negatives grow away from zero: take the mirrored ones
            consecutive = -(np.abs(mid).view(fmt.uint)[0].astype(np.int64) - n // 4 + np.arange(n // 2)).astype(
                fmt.uint).view(fmt.np_type)
        return np.concatenate([even, consecutive])


def unary_inputs(op, fmt, full, rng):
    if fmt.bits == 16:
        return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(fmt.np_type)
    if fmt.name == "float":
        base = bit_sample(fmt, 1 << (8 if full else 13))
        per_region = 1 << (16 if full else 12)
    else:
        n = 1 << (21 if full else 16)
        pats = rng.integers(0, np.iinfo(np.int64).max, n // 2, dtype=np.int64).astype(np.uint64).view(np.float64)
        base = np.where(np.isfinite(pats), pats, 1.0)
        per_region = max(n // 2 // len(op.regions), 2)
    parts = [base, specials(fmt)] + [region_points(fmt, lo, hi, per_region, rng) for lo, hi in op.regions]
    return np.concatenate(parts).astype(fmt.np_type)


def axis(op, fmt, full, rng):
    """One axis of a binary op's grid."""
    if fmt.bits == 16:
        return bit_sample(fmt, 1 << (5 if full else 7))
    count = 1 << (10 if full else 8)
    top = int(np.array([np.inf], fmt.np_type).view(fmt.uint)[0])
    sample = bit_sample(fmt, top // count)
    small = np.array([k / 2 for k in range(-11, 12)] + [3.0, 10.0, 1e-3, 100.0, 1e10, 31.0, 32.0], np.float64)
    eps = float(np.finfo(fmt.np_type).eps)
    near_one = 1 + eps * np.arange(-20, 21) * (1 << (0 if fmt.name == "float" else 24))
    stretch = [region_points(fmt, lo, hi, 1 << (7 if full else 5), rng) for lo, hi in op.regions]
    return np.unique(np.concatenate([sample, specials(fmt), small.astype(fmt.np_type), near_one.astype(fmt.np_type)] +
                                    stretch).astype(fmt.np_type))


def binary_inputs(op, fmt, full, rng):
    a = axis(op, fmt, full, rng)
    b = axis(op, fmt, full, np.random.default_rng(rng.integers(1 << 30)))
    first, second = np.meshgrid(a, b, indexing="ij")
    return first.ravel().astype(fmt.np_type), second.ravel().astype(fmt.np_type)


# ---- errors --------------------------------------------------------------------------------
def reference(op, fmt, inputs):
    args = [fmt.widen(v) for v in inputs]
    if fmt.daz:
        args = [fmt.flush(v) for v in args]
    with np.errstate(all="ignore"):
        return op.ref(*args)


def errors_of(fmt, ref, result):
    """Per point: the error in ulps (0 on special points), and whether a special point is wrong."""
    a = fmt.widen(result)
    a_flushed = fmt.flush(a)  # a denormal result may be a zero of its sign (exact for half too)
    special = np.isnan(ref) | np.isinf(ref) | (ref == 0)
    with np.errstate(all="ignore"):
        same_special = np.where(np.isnan(ref), np.isnan(a),
                                (a_flushed == ref) & (np.signbit(a_flushed) == np.signbit(ref)))
        ref_d = fmt.round(ref)
        ulp = fmt.ulp(ref)
        err = np.minimum(np.abs(a - ref), np.abs(a_flushed - fmt.flush(ref))) / ulp
        err = np.where(np.isinf(a), np.where(a == ref_d, 0, np.inf), err)
        err = np.where(np.isnan(a), np.inf, err)
    err = np.where(special, 0, err).astype(np.float64)
    return err, special & ~same_special, special


def where(inputs, i):
    return "(" + ", ".join(f"{float(v[i]):.9g}" for v in inputs) + ")"


# ---- runs ----------------------------------------------------------------------------------
def node_prefix(op, fmt):
    return f"{op.name}_{fmt.name}"


def build_graph(rows):
    graph = tf.Graph()
    with graph.as_default():
        for op, fmt, _ in rows:
            p = node_prefix(op, fmt)
            placeholders = {a: tf1.placeholder(fmt.tf_type, [None], name=f"{p}_{a}") for a in op.args}
            getattr(tf.raw_ops, op.name)(**placeholders, name=f"{p}_out")
    return graph


def run_tensorflow(graph, row):
    op, fmt, inputs = row
    p = node_prefix(op, fmt)
    feeds = {graph.get_tensor_by_name(f"{p}_{a}:0"): v for a, v in zip(op.args, inputs)}
    try:
        with tf1.Session(graph=graph) as sess:
            return sess.run(graph.get_tensor_by_name(f"{p}_out:0"), feeds)
    except (tf.errors.NotFoundError, tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as e:
        return str(e).splitlines()[0]


def run_ours(tool, graph, rows, work):
    """Our results for rows (one session and step for all), by node prefix."""
    keep = {node_prefix(op, fmt) for op, fmt, _ in rows}
    gd = graph.as_graph_def()
    mine = tf1.GraphDef()
    mine.versions.CopyFrom(gd.versions)
    for node in gd.node:
        if node.name.rsplit("_", 1)[0] in keep:
            mine.node.add().CopyFrom(node)
    path = os.path.join(work, "graph.pb")
    with open(path, "wb") as f:
        f.write(mine.SerializeToString())
    args = [tool, "run", path]
    for op, fmt, inputs in rows:
        p = node_prefix(op, fmt)
        for a, v in zip(op.args, inputs):
            v.tofile(os.path.join(work, f"{p}_{a}.bin"))
            args.append(f"feed:{p}_{a}={os.path.join(work, p + '_' + a + '.bin')}")
        args.append(f"fetch:{p}_out={os.path.join(work, p + '_out.bin')}")
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"accuracy_sweep_tool failed ({done.returncode}): {done.stderr.strip()}")
    return {node_prefix(op, fmt): np.fromfile(os.path.join(work, node_prefix(op, fmt) + "_out.bin"), fmt.np_type)
            for op, fmt, _ in rows}


def claims(tool, ops):
    pairs = [f"{op.name}:{fmt}" for op in ops for fmt in FORMATS]
    out = subprocess.run([tool, "claims"] + pairs, capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.split()[1] == "1"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tool")
    parser.add_argument("work_dir")
    parser.add_argument("--full", action="store_true", help="the denser sweep (minutes)")
    parser.add_argument("--ops", help="comma-separated op names (default: all)")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--markdown", help="also write the table as markdown to this file")
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    ops = [op for op in OPS if not args.ops or op.name in args.ops.split(",")]
    claimed = claims(args.tool, ops)
    rng = np.random.default_rng(args.seed)
    started = time.time()

    rows, unclaimed = [], []
    for op in ops:
        for fmt in FORMATS.values():
            if f"{op.name}:{fmt.name}" not in claimed:
                unclaimed.append(f"{op.name}:{fmt.name}")
                continue
            inputs = binary_inputs(op, fmt, args.full, rng) if op.binary else (unary_inputs(op, fmt, args.full, rng),)
            rows.append((op, fmt, inputs))
    graph = build_graph(rows)
    # Ours in batches of at most 256 MiB of inputs, one session and step each.
    ours, batch, size = {}, [], 0
    for row in rows + [None]:
        if row is None or (batch and size + sum(v.nbytes for v in row[2]) > (256 << 20)):
            ours.update(run_ours(args.tool, graph, batch, args.work_dir))
            batch, size = [], 0
        if row is not None:
            batch.append(row)
            size += sum(v.nbytes for v in row[2])

    header = ["op", "dtype", "points", "ours: max ulp (at)", "TensorFlow: max ulp (at)", "specials: ours/TF wrong",
              "bar (where TF > 8 ulps: bar at points)"]
    table, failures = [], []
    for op, fmt, inputs in rows:
        ref = reference(op, fmt, inputs)
        mine = ours[node_prefix(op, fmt)]
        theirs = run_tensorflow(graph, (op, fmt, inputs))
        err, wrong, special = errors_of(fmt, ref, mine)
        i = int(np.argmax(err))
        ours_cell = f"{err[i]:.3g} {where(inputs, i)}"
        if isinstance(theirs, str):
            tf_cell, tf_err, tf_wrong = "no kernel", None, np.zeros_like(wrong)
        else:
            tf_err, tf_wrong, _ = errors_of(fmt, ref, theirs)
            j = int(np.argmax(tf_err))
            tf_cell = f"{tf_err[j]:.3g} {where(inputs, j)}"
        ok, bar_cell = check(err, tf_err, op.bound)
        bad_specials = wrong & ~tf_wrong
        if not ok or bad_specials.any():
            detail = "" if ok else f"max {err[i]:.3g} ulps at {where(inputs, i)} misses the bar ({bar_cell})"
            if bad_specials.any():
                k = int(np.argmax(bad_specials))
                detail += (f"; special value wrong at {where(inputs, k)}: ours {float(mine[k])!r}, "
                           f"reference {float(fmt.round(ref[k:k + 1])[0])!r}")
            failures.append(f"{op.name} {fmt.name}: {detail.lstrip('; ')}")
            bar_cell += " FAIL"
        table.append([op.name, fmt.name, str(len(ref)), ours_cell, tf_cell,
                      f"{int(special.sum())}: {int(wrong.sum())}/{int(tf_wrong.sum())}", bar_cell])

    widths = [max(len(r[c]) for r in [header] + table) for c in range(len(header))]
    line = lambda r: "  ".join(cell.ljust(w) for cell, w in zip(r, widths))  # noqa: E731
    print(line(header))
    for r in table:
        print(line(r))
    if unclaimed:
        print(f"no kernel here (not swept): {', '.join(unclaimed)}")
    print(f"{len(rows)} op/dtype rows, {sum(len(r[2][0]) for r in rows)} points, {time.time() - started:.1f} s"
          f"{' (--full)' if args.full else ''}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
            for r in table:
                f.write("| " + " | ".join(r) + " |\n")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
