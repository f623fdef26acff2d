"""The "control" family of the differential harness: TensorFlow 2's functional control flow,
StatelessIf and StatelessWhile, as tf.cond and tf.while_loop write them (branch, cond and
body functions in the graph's library). Imported by fidelity_catalogue (CATALOGUE).

The runtime has no kernel for them: importing a graph lowers them to Switch/Merge and loop
frames (graph/lower_functional_ops.h), so the forward cases check the lowering, and the
gradient cases compare AddSymbolicGradients through the lowered graph (TensorFlow 1's
gradients of conditionals and loops, graph/gradients/control_flow_grad.cc and
while_grad.cc) with tf.gradients through TensorFlow 2's own (an If's intermediates passed as
Optionals, a While's through TensorList accumulators). The arithmetic inside is correctly
rounded (products and sums) or elementwise transcendental, so forward values agree within
the transcendental tolerance (a loop's, compounded over its iterations); loops run 0, 1 and several times, conditionals take either
branch, and they nest both ways, with a TensorArray written in a loop.
"""
import numpy as np
import tensorflow as tf

from fidelity_catalogue import TRANSCENDENTAL, Case, OpSpec, Tolerance, random_values, shape_str

tf.compat.v1.enable_control_flow_v2()  # the harness's graphs are TensorFlow 1 graphs

FLOAT_COMBOS = [{"T": "float"}, {"T": "double"}]
# tanh or sin (8 ulps each side) feeding the next iteration, up to six times.
LOOPED = Tolerance("ulps", 64, "transcendental functions (8 ulps) chained through the loop's iterations")


def dtype_of(combo):
    return combo["T"]


def if_cases(rng, combo, full):
    dt = dtype_of(combo)
    for shape in [(3,), (2, 2), (0,), ()]:
        x = random_values(rng, dt, shape, low=-2, high=2)
        for p in (True, False):
            yield Case([x, np.array(p)], f"{shape_str(shape)} pred {p}", aux=[1], build=if_build)
    yield Case([random_values(rng, dt, (5,), low=-2, high=2), np.array(True)], "pred fed", build=if_build)
    yield Case([random_values(rng, dt, (4,), low=-2, high=2), np.array(False)], "a loop in a branch", aux=[1],
               build=loop_in_cond_build)


def if_build(op, ts, attrs):
    x, p = ts
    return tf.cond(p, lambda: tf.sin(x) * x - 1.0, lambda: tf.exp(x * 0.5) + x * x)


def loop_in_cond_build(op, ts, attrs):
    x, p = ts
    grow = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x + 1.0), [0, x])[1]
    return tf.cond(p, lambda: x * 2.0, lambda: grow)


def while_cases(rng, combo, full):
    dt = dtype_of(combo)
    for shape in [(3,), (2, 2), (0,)]:
        x = random_values(rng, dt, shape, low=-1, high=1)
        for n in (0, 1, 4):
            yield Case([x, np.array(n, dtype=np.int32)], f"{shape_str(shape)} {n} iterations", aux=[1],
                       build=while_build)
    yield Case([random_values(rng, dt, (3,), low=-1, high=1), np.array(5, dtype=np.int32)], "n fed",
               build=while_build)
    yield Case([random_values(rng, dt, (4,), low=-1, high=1), np.array(6, dtype=np.int32)], "a conditional inside",
               aux=[1], build=cond_in_loop_build)
    yield Case([random_values(rng, dt, (4, 3), low=-1, high=1), random_values(rng, dt, (3, 3), low=-0.5, high=0.5)],
               "an RNN writing a TensorArray", build=tensor_array_build)


def while_build(op, ts, attrs):
    x, n = ts
    return tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.tanh(a) * x + 0.5), [0, x])[1]


def cond_in_loop_build(op, ts, attrs):
    x, n = ts

    def body(k, acc):
        term = tf.cond(tf.equal(k % 3, 0), lambda: tf.sin(acc) * x, lambda: acc * acc - x)
        return k + 1, term
    return tf.while_loop(lambda k, acc: k < n, body, [0, x])[1]


def tensor_array_build(op, ts, attrs):
    xs, w = ts
    steps = tf.shape(xs)[0]
    inputs = tf.TensorArray(xs.dtype, size=steps).unstack(xs)
    outs = tf.TensorArray(xs.dtype, size=steps)

    def body(t, h, outs):
        h = tf.tanh(tf.linalg.matvec(w, h) + inputs.read(t))
        return t + 1, h, outs.write(t, h)
    _, h, outs = tf.while_loop(lambda t, h, o: t < steps, body, [0, tf.zeros(tf.shape(w)[:1], xs.dtype), outs])
    return [outs.stack(), h]


CATALOGUE = [
    OpSpec("StatelessIf", if_cases, tolerance=TRANSCENDENTAL, combos=FLOAT_COMBOS, label_attr="T"),
    OpSpec("StatelessWhile", while_cases, tolerance=LOOPED, combos=FLOAT_COMBOS, label_attr="T"),
]
