"""The stateless random ops in the differential harness (fidelity_catalogue's family "random").

A stateless op's numbers are a function of its inputs (a seed pair, or a Philox key, counter
and algorithm), so TensorFlow's are the only right ones: every value is compared bit for bit
(EXACT). The cases cover empty, odd and large shapes (100003 values take the threaded path,
whose per-group generator offsets must be TensorFlow's), seeds at the extremes of their type,
bounds for the integer ops (the whole range, one value, refusals), every refusal TensorFlow's
kernels and shape functions make, and graphs that TensorFlow's Python writes
(tf.random.stateless_uniform and the like: StatelessRandomGetKeyCounter feeding a V2 op).
"""
import numpy as np

from fidelity_catalogue import EXACT, Case, OpSpec, np_type, shape_str

SHAPES = [(), (0,), (1,), (3,), (7,), (2, 3, 5), (3, 0, 2), (4097,), (100003,)]
U64_MAX = np.iinfo(np.uint64).max
PHILOX, THREEFRY, AUTO_SELECT = 1, 2, 3
REFUSAL_ROWS = ("float", "int64")  # the dtypes whose rows get the refusal cases


def seed_pairs(dt):
    info = np.iinfo(np_type(dt))
    pairs = [(0, 0), (1, 2), (info.max, info.min), (info.min, info.max), (info.max, info.max)]
    if info.min < 0:
        pairs += [(-1, -1), (12345, -987654321 if info.bits > 31 else -98765)]
    return pairs


def arr(values, dt):
    return np.array(values, dtype=np_type(dt) if isinstance(dt, str) else dt)


# ---- V1: (shape, seed[, minval, maxval]) ----------------------------------------------------


def v1_cases(bounds=None):
    """bounds(dtype) -> [(minval, maxval)]: the integer op's bounds; None: no bounds inputs."""
    def gen(rng, combo, full):
        dt, it, st = combo["dtype"], combo["T"], combo["Tseed"]
        seeds = seed_pairs(st)
        pairs = bounds(dt) if bounds else [None]

        def case(shape, seed, tag, b=None, shape_values=None):
            ins = [arr(shape if shape_values is None else shape_values, it), arr(seed, st)]
            if bounds:
                b = b if b is not None else pairs[0]
                ins += [arr(b[0], dt), arr(b[1], dt)]
                tag += f" bounds {b[0]},{b[1]}"
            return Case(ins, tag, aux=[0])

        for i, shape in enumerate(SHAPES):
            s = seeds[i % len(seeds)]
            yield case(shape, s, f"{shape_str(shape)} seed {s}", pairs[i % len(pairs)])
        for s in seeds:
            yield case((5,), s, f"[5] seed {s}")
        for _ in range(2):
            info = np.iinfo(np_type(st))
            s = tuple(int(v) for v in rng.integers(info.min, info.max, size=2, dtype=np_type(st), endpoint=True))
            yield case((9,), s, f"[9] random seed {s}")
        for b in pairs[1:]:
            yield case((4097,), (7, 8), "[4097] seed (7, 8)", b)
        if dt not in REFUSAL_ROWS:
            return  # the refusals do not depend on dtype: one row's are enough
        yield case((3,), (1, 2, 3), "seed of 3 refused")
        yield case((2, -1), (1, 2), "negative size refused")
        yield case(None, (1, 2), "shape not a vector refused", shape_values=[[2]])
        if bounds:
            yield case((4,), (1, 2), "minval == maxval refused", (5, 5))
            yield case((4,), (1, 2), "minval > maxval refused", (6, -6))
            yield case((0,), (1, 2), "empty: any bounds", (5, 5))
            yield Case([arr([4], it), arr((1, 2), st), arr([1], dt), arr(9, dt)], "minval not a scalar refused",
                       aux=[0])
    return gen


def int_bounds(dt):
    info = np.iinfo(np_type(dt))
    return [(0, 10), (-5, 5), (int(info.min), int(info.max)), (int(info.max) - 1, int(info.max)),
            (-3, -2), (int(info.min), int(info.min) + 3), (0, 1 << (info.bits - 2))]


# ---- V2: (shape, key, counter, alg[, minval, maxval]) -------------------------------------


def key_counters(rng):
    return [([0], [0, 0]), ([1], [2, 3]), ([U64_MAX], [U64_MAX, U64_MAX]), ([U64_MAX], [U64_MAX - 5, 0]),
            ([int(rng.integers(0, U64_MAX, dtype=np.uint64, endpoint=True))],
             [int(v) for v in rng.integers(0, U64_MAX, size=2, dtype=np.uint64, endpoint=True)])]


def v2_cases(bounds=None, tf_written=None):
    """tf_written: functions (tf, shape, seed, dtype) -> output, TensorFlow Python's way of
    drawing these numbers (a StatelessRandomGetKeyCounter and this op), run as cases."""
    def gen(rng, combo, full):
        dt, it = combo["dtype"], combo["Tshape"]
        pairs = bounds(dt) if bounds else [None]

        def case(shape, key, counter, alg, tag, b=None, shape_values=None):
            ins = [arr(shape if shape_values is None else shape_values, it), arr(key, np.uint64),
                   arr(counter, np.uint64), arr(alg, np.int32)]
            if bounds:
                b = b if b is not None else pairs[0]
                ins += [arr(b[0], dt), arr(b[1], dt)]
                tag += f" bounds {b[0]},{b[1]}"
            return Case(ins, tag + f" alg {np.array(alg).tolist()}", aux=[0])

        kcs = key_counters(rng)
        for i, shape in enumerate(SHAPES):
            key, counter = kcs[i % len(kcs)]
            yield case(shape, key, counter, PHILOX if i % 2 else AUTO_SELECT,
                       f"{shape_str(shape)} key {key} counter {counter}", pairs[i % len(pairs)])
        for key, counter in kcs:
            yield case((6,), key, counter, PHILOX, f"[6] key {key} counter {counter}")
        for b in pairs[1:]:
            yield case((4097,), [7], [8, 9], PHILOX, "[4097]", b)
        # Counters longer than two words: the first two count.
        yield case((5,), [1], [2, 3, 4], PHILOX, "counter of 3")
        for f in tf_written or ():
            for shape, seed in [((5,), (1, 2)), ((3, 7), (-1, 2**40)), ((4097,), (0, 0))]:
                yield Case([arr(shape, it), arr(seed, np.int64)], f"TensorFlow-written {f.__name__} "
                           f"{shape_str(shape)} seed {seed}", aux=[0],
                           build=lambda raw, ts, attrs, f=f, dt=dt: f(ts[0], ts[1], np_type(dt)))
        if dt not in REFUSAL_ROWS:
            return  # the refusals do not depend on dtype: one row's are enough
        # Refusals: the algorithm (ThreeFry has no CPU kernel; 0 and 4 are no algorithm), the
        # key's and counter's shapes. TensorFlow asks for a counter at least `alg` long.
        for alg in (THREEFRY, 0, 4, -1):
            yield case((5,), [1], [2, 3], alg, "unsupported algorithm")
            yield case((0,), [1], [2, 3], alg, "empty, unsupported algorithm")
        yield case((5,), [1, 2], [2, 3], PHILOX, "key of 2 refused")
        yield case((5,), [1], [2], THREEFRY, "ThreeFry counter of 1")
        yield case((5,), [1], [2], PHILOX, "Philox counter of 1")
        yield case((5,), [1], [], AUTO_SELECT, "counter of 0 refused")
        yield case((5,), [1], [2, 3], [PHILOX], "alg not a scalar refused")
        yield case((2, -1), [1], [2, 3], PHILOX, "negative size refused")
        yield case(None, [1], [2, 3], PHILOX, "shape not a vector refused", shape_values=[[2]])
        if bounds:
            yield case((4,), [1], [2, 3], PHILOX, "minval == maxval refused", (5, 5))
            yield case((4,), [1], [2, 3], THREEFRY, "minval > maxval before the algorithm", (6, -6))
            yield case((0,), [1], [2, 3], PHILOX, "empty: any bounds", (5, 5))
    return gen


def uniform(shape, seed, dtype):
    import tensorflow as tf
    return tf.random.stateless_uniform(shape, seed, dtype=dtype)


def uniform_between(shape, seed, dtype):
    import tensorflow as tf
    return tf.random.stateless_uniform(shape, seed, minval=-2.5, maxval=4.0, dtype=dtype)


def normal(shape, seed, dtype):
    import tensorflow as tf
    return tf.random.stateless_normal(shape, seed, dtype=dtype)


def truncated_normal(shape, seed, dtype):
    import tensorflow as tf
    return tf.random.stateless_truncated_normal(shape, seed, dtype=dtype)


def uniform_int(shape, seed, dtype):
    import tensorflow as tf
    return tf.random.stateless_uniform(shape, seed, minval=-7, maxval=1000, dtype=dtype)


def uniform_full_int(shape, seed, dtype):
    import tensorflow as tf
    return tf.random.stateless_uniform(shape, seed, minval=None, maxval=None, dtype=dtype)


# ---- StatelessMultinomial: (logits, num_samples, seed) -------------------------------------


def multinomial_cases(rng, combo, full):
    """TensorFlow splits the rows among its threads when a batch costs over 10000 of its cycle
    estimate (50 (num_samples log2(classes) + classes) per row), and then its numbers depend
    on its thread count (kernels/cpu/stateless_multinomial_op.cc): the batches stay below."""
    dt, st = combo["T"], combo["Tseed"]
    from fidelity_catalogue import edge_values, random_values

    def case(logits, n, seed, tag):
        return Case([logits, arr(n, np.int32), arr(seed, st)], f"{shape_str(logits.shape)} x{n} seed {seed} " + tag,
                    aux=[1])

    for (b, c), n, seed in [((1, 1), 3, (1, 2)), ((2, 3), 5, (-1, -1)), ((3, 5), 10, (7, 8)), ((4, 7), 0, (1, 2)),
                            ((0, 3), 5, (1, 2)), ((1, 40), 30, (3, 4)), ((5, 2), 20, (0, 0))]:
        yield case(random_values(rng, dt, (b, c), -4, 4), n, seed, "random")
    e = edge_values(dt)
    yield case(e.reshape(1, -1), 8, (5, 6), "edges")
    inf = np.array(np.inf).astype(np_type(dt))
    yield case(np.array([[-inf, -inf, -inf], [inf, 0, 1], [np.nan, 2, 2]]).astype(np_type(dt)), 6, (5, 6),
               "infinities and NaN")
    if dt not in REFUSAL_ROWS:
        return
    yield case(random_values(rng, dt, (2, 3)), -1, (1, 2), "negative num_samples refused")
    yield case(random_values(rng, dt, (2, 0)), 3, (1, 2), "no classes refused")
    yield case(random_values(rng, dt, (2, 0)), 0, (1, 2), "no classes, no samples refused")
    yield case(random_values(rng, dt, (6,)), 3, (1, 2), "logits not a matrix refused")
    yield Case([random_values(rng, dt, (2, 3)), arr(3, np.int32), arr((1, 2, 3), st)], "seed of 3 refused", aux=[1])


# ---- Poisson: StatelessRandomPoisson (shape, seed, lam), RandomPoissonV2 (shape, rate) -----

# Rates on both sides of the algorithms' switch at 10 (Knuth's below, Hörmann's at and above).
POISSON_RATES = [0, 0.5, 3, 9.99, 10, 11.9, 12, 50, 1e4, -2.5]
POISSON_SEEDS = {"seed": 87654321, "seed2": 1234}


def poisson_rates(rt, ot):
    """The rates a rate type holds (the integer types: the whole ones)."""
    rates = [r for r in POISSON_RATES if np.issubdtype(np_type(rt), np.floating) or float(r).is_integer()]
    return arr(rates, rt)


def poisson_label(combo):
    rt = combo.get("Rtype", combo.get("R"))
    return f"{rt}->{combo['dtype']}"


def stateless_poisson_cases(rng, combo, full):
    rt, ot, it, st = combo["Rtype"], combo["dtype"], combo["T"], combo["Tseed"]
    rates = poisson_rates(rt, ot)

    def case(shape, seed, lam, tag, shape_values=None):
        ins = [arr(shape if shape_values is None else shape_values, it), arr(seed, st), lam]
        return Case(ins, f"{shape_str(shape or ())} seed {seed} lam {shape_str(lam.shape)} " + tag, aux=[0])

    seeds = seed_pairs(st)
    yield case((3, rates.size), seeds[1], rates, "every rate")
    yield case((2, rates.size), seeds[2], rates, "every rate")
    yield case((5,), seeds[3], arr(3, rt), "scalar rate")
    yield case((2, 2, 3), seeds[4], arr([[0.5, 12, 3], [50, 9, 10]], rt), "rates [2,3]")
    yield case((450, 10), (7, 8), arr(np.arange(10) * 2 + 1, rt), "4500 outputs: threads")
    yield case((0, 3), (1, 2), arr([1, 2, 3], rt), "empty")
    if rt == "float":
        yield Case([arr((4, 3), it), arr((1, 2), np.int64)], "TensorFlow-written stateless_poisson [4,3]", aux=[0],
                   build=lambda raw, ts, attrs: stateless_poisson_tf(ts[0], ts[1], np_type(ot)))
    if np.issubdtype(np_type(rt), np.floating):
        # A NaN rate never ends in TensorFlow 2.21 (Hörmann's test is never true); refused here
        # (tests/kernels/random_poisson_test.cc), so not compared. +inf gives the output type's
        # infinity (0 for the integer types).
        yield case((4, 5), (3, 4), arr([np.inf, -np.inf, -0.0, 1e-30, 9.999], rt), "infinities, -0, tiny")
    if ot != REFUSAL_ROWS[0] or rt != "float":
        return
    yield case((3, 4), (1, 2), arr([1, 2, 3, 4, 5], rt), "shape not ending with lam's refused")
    yield case((4,), (1, 2), arr([[1, 2, 3, 4]], rt), "lam of higher rank refused")
    yield case((3,), (1, 2, 3), arr(1, rt), "seed of 3 refused")
    yield case((2, -1), (1, 2), arr(1, rt), "negative size refused")
    yield case(None, (1, 2), arr(1, rt), "shape not a vector refused", shape_values=[[2]])
    yield case((0,), (1, 2), arr([1, 2], rt), "empty output: lam not checked")


def stateless_poisson_tf(shape, seed, dtype):
    import tensorflow as tf
    return tf.random.stateless_poisson(shape, seed, lam=[0.5, 3.0, 15.0], dtype=dtype)


def poisson_drawless(inputs, combo, shape):
    """RandomPoissonV2's samples depend on how many times the node ran in its session (see
    fidelity_catalogue_linalg's stateful random ops), except a rate <= 0's, always 0. With
    the refusal cases left out (no step fails), all 645 runs (every rate and output type,
    three modes) agree with TensorFlow bit for bit, every value compared."""
    rate = inputs[1].astype(np.float64)
    return np.broadcast_to(rate <= 0, shape).copy() if shape else np.array(rate <= 0)


def random_poisson_cases(rng, combo, full):
    rt, ot, st = combo["R"], combo["dtype"], combo["S"]
    rates = poisson_rates(rt, ot)

    def case(shape, rate, tag, shape_values=None):
        return Case([arr(shape if shape_values is None else shape_values, st), rate],
                    f"{shape_str(shape or ())} rate {shape_str(rate.shape)} " + tag, attrs=dict(POISSON_SEEDS),
                    aux=[0])

    yield case((), arr(3, rt), "scalar")
    yield case((3,), rates, "every rate")
    yield case((2, 2), arr([[0, -1], [12, 0]], rt), "rates [2,2], two of them 0")
    yield case((0, 3), rates, "no samples")
    yield case((3,), arr(np.zeros((2, 0)), rt), "no rates")
    if np.issubdtype(np_type(rt), np.floating):
        yield case((4,), arr([np.inf, -np.inf, -0.0, 1e-30, 9.999], rt), "infinities, -0, tiny")
    if ot != REFUSAL_ROWS[0] or rt != "float":
        return
    yield case((2, -1), arr(1, rt), "negative size refused")
    yield case(None, arr(1, rt), "shape not a vector refused", shape_values=[[2]])


# ---- the key/counter ops ------------------------------------------------------------------


def key_counter_cases(rng, combo, full):
    st = combo["Tseed"]
    for s in seed_pairs(st):
        yield Case([arr(s, st)], f"seed {s}")
    yield Case([arr((1, 2, 3), st)], "seed of 3 refused")
    yield Case([arr(7, st)], "scalar seed refused")


def get_alg_cases(rng, combo, full):
    yield Case([], "Philox")


CATALOGUE = [
    OpSpec("StatelessRandomUniform", v1_cases(), label_attr="dtype"),
    OpSpec("StatelessRandomNormal", v1_cases(), label_attr="dtype"),
    OpSpec("StatelessTruncatedNormal", v1_cases(), label_attr="dtype"),
    OpSpec("StatelessRandomUniformInt", v1_cases(int_bounds), label_attr="dtype"),
    OpSpec("StatelessRandomUniformFullInt", v1_cases(), label_attr="dtype"),
    OpSpec("StatelessRandomUniformV2", v2_cases(tf_written=[uniform, uniform_between]), label_attr="dtype"),
    OpSpec("StatelessRandomNormalV2", v2_cases(tf_written=[normal]), label_attr="dtype"),
    OpSpec("StatelessTruncatedNormalV2", v2_cases(tf_written=[truncated_normal]), label_attr="dtype"),
    OpSpec("StatelessRandomUniformIntV2", v2_cases(int_bounds, tf_written=[uniform_int]), label_attr="dtype"),
    OpSpec("StatelessRandomUniformFullIntV2", v2_cases(tf_written=[uniform_full_int]), label_attr="dtype"),
    OpSpec("StatelessMultinomial", multinomial_cases, label_attr="T"),
    OpSpec("StatelessRandomPoisson", stateless_poisson_cases, label=poisson_label),
    OpSpec("RandomPoissonV2", random_poisson_cases, label=poisson_label, comparable=poisson_drawless),
    OpSpec("StatelessRandomGetKeyCounter", key_counter_cases, label_attr="Tseed"),
    OpSpec("StatelessRandomGetKeyCounterAlg", key_counter_cases, label_attr="Tseed"),
    OpSpec("StatelessRandomGetAlg", get_alg_cases, label=lambda combo: "-"),
]

ACCEPTED = [
    dict(op="Stateless(RandomUniform|RandomNormal|TruncatedNormal|RandomUniformInt|RandomUniformFullInt)V2",
         row=".*", tag="Philox counter of 1.*", mode=".*", kind="outcome",
         reason="TensorFlow 2.21 lets a Philox counter of one word through (it checks the counter "
                "against the algorithm's id, 1, not Philox's two words) and reads the second word past "
                "its end: different numbers each run. We refuse it (InvalidArgument)"),
]
