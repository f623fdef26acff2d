"""The "training" family of the differential harness: the optimizer updates ApplyGradientDescent,
ApplyMomentum, ApplyAdam and their Resource* forms, over every dtype our kernels claim.
Imported by fidelity_catalogue (CATALOGUE).

An update changes variables, which neither side can feed, so each case is a small graph: its
variables (resource variables, or reference variables for the Apply* forms) assigned the case's
first inputs, the update after the assignments, and the variables read after the update; the
rest of the inputs (rates, gradients) are the update's own. The assignments run in the same
step, so a step run again (fidelity_tool re-runs the rest of a failed step) updates the same
values. A gradient of another shape than the variable, and a rate that is not a scalar, are
refused on both sides.

Each update is a fixed sequence of IEEE operations (+ - * / and sqrt) in TensorFlow's order
(training_ops.cc). half and bfloat16 round each step to the type on both sides: exact. float
and double: our compiler contracts a product and the sum it feeds into one fused multiply-add
(TensorFlow's Eigen, built without FMA, rounds both), so each output is within a few eps of
the magnitudes of its terms (TRAINING_BOUND; cancellation makes it more than a few ulps of the
result). complex64 and complex128 likewise, on the terms' moduli, compared norm-wise; their
Adam's vector and scalar forms (kernels/cpu/training_ops.cc) meet at the edge values. None has
a gradient on either side.
"""
import inspect

import numpy as np
import tensorflow as tf

from fidelity_catalogue import Case, OpSpec, Tolerance, cast, complex_too, random_values, shape_str

raw = tf.raw_ops

SHAPES = [(), (0,), (7,), (3, 5), (17,), (4100,)]


def update_build(op_name, n_vars, ref, shape):
    """Variables from the first n_vars inputs, op on them and the other inputs, the variables
    read back. ref: reference variables (VariableV2 and Assign) of the case's shape."""
    def build(op, ts, attrs):
        graph = tf.compat.v1.get_default_graph()
        dtype = ts[0].dtype
        names = list(inspect.signature(op).parameters)[:len(ts)]
        if ref:
            variables = [raw.VariableV2(shape=shape, dtype=dtype, shared_name=graph.unique_name("var"))
                         for _ in range(n_vars)]
            assigns = [raw.Assign(ref=v, value=t, validate_shape=False) for v, t in zip(variables, ts)]
        else:
            variables = [raw.VarHandleOp(dtype=dtype, shape=tf.TensorShape(None), shared_name=graph.unique_name("var"))
                         for _ in range(n_vars)]
            assigns = [raw.AssignVariableOp(resource=v, value=t) for v, t in zip(variables, ts)]
        with tf.control_dependencies(assigns):
            update = op(**dict(zip(names, variables + list(ts[n_vars:]))), **attrs)
        with tf.control_dependencies([update]):
            if ref:
                return [raw.Identity(input=v) for v in variables]
            return [raw.ReadVariableOp(resource=v, dtype=dtype) for v in variables]
    return build


TRAINING_BOUND = Tolerance("bound", 0, "half and bfloat16 exact; float and double within 4 eps of the terms' "
                                       "magnitudes (fused multiply-adds here, two roundings there)")


def magnitudes(op, x):
    """Per element, the largest over the op's outputs of 4 (sum of |terms|) plus the errors of
    the outputs it reads (in eps units), from the float64 inputs x."""
    op = op.replace("Resource", "")
    a = np.abs
    if op == "ApplyGradientDescent":
        var, alpha, delta = x
        return 4 * (a(var) + a(alpha * delta))
    if op == "ApplyMomentum":
        var, accum, lr, grad, mom = x
        accum1 = accum * mom + grad
        e_accum = 4 * (a(accum * mom) + a(grad))
        plain = 4 * (a(var) + a(accum1 * lr)) + a(lr) * e_accum
        nesterov = 4 * (a(var) + a(grad * lr) + a(accum1 * mom * lr)) + a(mom * lr) * e_accum
        return np.maximum(e_accum, np.maximum(plain, nesterov))
    var, m, v, b1p, b2p, lr, b1, b2, eps, grad = x
    alpha = lr * np.sqrt(1 - b2p) / (1 - b1p)
    m1 = m + (grad - m) * (1 - b1)
    v1 = v + (grad * grad - v) * (1 - b2)
    e_m = 4 * (a(m) + a((grad - m) * (1 - b1)))
    e_v = 4 * (a(v) + (grad * grad + a(v)) * (1 - b2))
    den = np.sqrt(a(v1)) + eps
    # sqrt halves v1's relative error; tiny v1 (where that is large) leaves eps to dominate.
    e_den = 0.5 * e_v / np.maximum(np.sqrt(a(v1)), 1e-300) + 4 * den
    plain_u = a(m1 * alpha) / den
    plain = 4 * (a(var) + plain_u) + a(alpha) * e_m / den + plain_u * e_den / den
    nest_u = (a(grad * (1 - b1)) + a(m1 * b1)) * a(alpha) / den
    nest = 4 * (a(var) + nest_u) + a(alpha * b1) * e_m / den + nest_u * e_den / den
    return np.maximum(np.maximum(e_m, e_v), np.maximum(plain, nest))


def training_bound(op):
    def bound(inputs, attrs, outputs):
        out = outputs[0]
        if np.iscomplexobj(out):
            # Complex: the terms' moduli (|z| bounds both parts).
            x = [np.abs(np.asarray(i)).astype(np.float64) for i in inputs]
            nan_out = np.isnan(out.real) | np.isnan(out.imag)
        else:
            x = [np.asarray(i, dtype=np.float64) for i in inputs]
            nan_out = np.isnan(out.astype(np.float64))
        with np.errstate(all="ignore"):
            b = np.broadcast_to(magnitudes(op, x), out.shape)
            # Where TensorFlow's output is NaN ours must be (a NaN term is NaN in any order);
            # elsewhere infinite or NaN terms (another output's) leave the value to the order.
            return np.where(nan_out, np.nan, np.where(np.isfinite(b), b, np.inf))
    return bound


def scalars(dt, values):
    return [cast(v, dt) for v in values]


def update_cases(op_name, n_vars, rates, positive=()):
    """Cases of an update with n_vars variables (those in `positive` non-negative: Adam's v),
    its scalar rates (in the op's order, after the variables; the gradient last but for
    Momentum's, which comes before momentum: `grad_at`)."""
    ref = not op_name.startswith("Resource")
    grad_at = {"ApplyGradientDescent": 1, "ApplyMomentum": 1, "ApplyAdam": 6}[op_name.replace("Resource", "")]

    def inputs(rng, dt, shape, grad_shape=None, rate_shape=(), edges=False):
        vs = [random_values(rng, dt, shape, edges=edges) for _ in range(n_vars)]
        # (A complex v stays complex: its square root is the complex one.)
        vs = [np.abs(v) if i in positive and not np.iscomplexobj(v) else v for i, v in enumerate(vs)]
        rest = [np.full(rate_shape, r, dtype=r.dtype) for r in scalars(dt, rates)]
        rest.insert(grad_at, random_values(rng, dt, shape if grad_shape is None else grad_shape, edges=edges))
        return vs + rest

    def gen(rng, combo, full):
        dt = combo["T"]
        bound = training_bound(op_name) if dt in ("float", "double", "complex64", "complex128") else None
        for shape in SHAPES:
            yield Case(inputs(rng, dt, shape), shape_str(shape), build=update_build(op_name, n_vars, ref, shape),
                       bound=bound)
        yield Case(inputs(rng, dt, (257,), edges=True), "edges [257]", build=update_build(op_name, n_vars, ref, (257,)),
                   bound=bound)
        yield Case(inputs(rng, dt, (3, 5), grad_shape=(5, 3)), "grad [5,3] for [3,5]",
                   build=update_build(op_name, n_vars, ref, (3, 5)))
        yield Case(inputs(rng, dt, (4,), rate_shape=(2,)), "rates of shape [2]",
                   build=update_build(op_name, n_vars, ref, (4,)))
    return gen


def nesterov(cases):
    """The cases twice: without and with use_nesterov."""
    def gen(rng, combo, full):
        for c in cases(rng, combo, full):
            for flag in (False, True):
                yield Case(c.inputs, f"{c.tag} nesterov={flag}", attrs={"use_nesterov": flag}, build=c.build,
                           bound=c.bound)
    return gen


CATALOGUE = []
for prefix in ("", "Resource"):
    CATALOGUE += [
        OpSpec(prefix + "ApplyGradientDescent", update_cases(prefix + "ApplyGradientDescent", 1, [0.01]),
               TRAINING_BOUND, accept=complex_too),
        OpSpec(prefix + "ApplyMomentum", nesterov(update_cases(prefix + "ApplyMomentum", 2, [0.01, 0.9])),
               TRAINING_BOUND, accept=complex_too),
        OpSpec(prefix + "ApplyAdam",
               nesterov(update_cases(prefix + "ApplyAdam", 3, [0.81, 0.999 * 0.999, 0.01, 0.9, 0.999, 1e-3],
                                     positive=(2,))), TRAINING_BOUND, accept=complex_too),
    ]
