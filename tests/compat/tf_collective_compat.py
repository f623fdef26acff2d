#!/usr/bin/env python3
"""TensorFlow 2's collective ops, in a graph TensorFlow writes, give TensorFlow's values here.

Usage: tf_collective_compat.py TENSORACT_RUN WORK_DIR

One tf.compat.v1 graph places a member of each collective on each of three CPU devices
(and a second group on two of them): CollectiveReduceV2 with every merge op (Add, Mul,
Min, Max) and final op (Id, Div) in float32, float64, int32 and int64, on tensors small
enough for recursive doubling and one large enough for the ring; CollectiveGatherV2; and
CollectiveBcastSendV2 with its receivers. TensorFlow runs it in a Session with three CPU
devices; tensoract-run (--cpu-devices 3) runs the GraphDef TensorFlow wrote, twice in one
session (the same instances, step after step). Integers must match exactly, floats within
1e-6 relative (the members' sums may be taken in another order).

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    import numpy as np
    import tensorflow as tf
except ImportError as e:
    print(f"SKIPPED: tensorflow cannot be imported ({e}); bootstrap/install-deps.sh installs tensorflow-cpu")
    sys.exit(77)

tf1 = tf.compat.v1
raw = tf.raw_ops


def build():
    """The graph and the names of the tensors to compare."""
    rng = np.random.default_rng(7)
    graph = tf.Graph()
    fetches = []
    with graph.as_default():
        instance = [0]

        def next_instance():
            instance[0] += 1
            return instance[0]

        def reduce_case(name, make, dtype, merge, final, members=3, group=1):
            key = next_instance()
            values = [make(i).astype(dtype) for i in range(members)]
            for i in range(members):
                with tf.device("/device:CPU:%d" % i):
                    x = tf.constant(values[i], name="%s_x%d" % (name, i))
                    raw.CollectiveReduceV2(input=x, group_size=members, group_key=group, instance_key=key,
                                           ordering_token=[], merge_op=merge, final_op=final,
                                           name="%s_%d" % (name, i))
                    fetches.append("%s_%d:0" % (name, i))

        small = lambda i: rng.standard_normal((4, 33))
        reduce_case("add_div", small, np.float32, "Add", "Div")
        reduce_case("add_id", small, np.float32, "Add", "Id")
        reduce_case("max", small, np.float32, "Max", "Id")
        reduce_case("min", small, np.float32, "Min", "Id")
        reduce_case("mul", lambda i: 1 + 0.1 * rng.standard_normal((17,)), np.float32, "Mul", "Id")
        reduce_case("f64", small, np.float64, "Add", "Div")
        reduce_case("i32", lambda i: rng.integers(-1000, 1000, (5, 3)), np.int32, "Add", "Id")
        reduce_case("i64_div", lambda i: rng.integers(0, 1 << 40, (7,)), np.int64, "Add", "Div")
        reduce_case("i64_max", lambda i: rng.integers(-1 << 40, 1 << 40, (7,)), np.int64, "Max", "Id")
        # 1.2 MB: the ring, in chunks and pieces.
        reduce_case("ring", lambda i: rng.standard_normal((300000,)), np.float32, "Add", "Div")
        # A second group, of two members.
        reduce_case("pair", small, np.float32, "Add", "Div", members=2, group=2)

        key = next_instance()
        for i in range(3):
            with tf.device("/device:CPU:%d" % i):
                x = tf.constant(rng.standard_normal((2, 3)).astype(np.float32), name="gather_x%d" % i)
                raw.CollectiveGatherV2(input=x, group_size=3, group_key=1, instance_key=key, ordering_token=[],
                                       name="gather_%d" % i)
                fetches.append("gather_%d:0" % i)
        key = next_instance()
        with tf.device("/device:CPU:2"):
            v = tf.constant(rng.integers(0, 100, (2, 2)).astype(np.int32), name="bcast_x")
            raw.CollectiveBcastSendV2(input=v, group_size=3, group_key=1, instance_key=key, name="bcast_2")
        for i in (0, 1):
            with tf.device("/device:CPU:%d" % i):
                raw.CollectiveBcastRecvV2(group_size=3, group_key=1, instance_key=key, shape=[2, 2], T=tf.int32,
                                          name="bcast_%d" % i)
        fetches += ["bcast_0:0", "bcast_1:0", "bcast_2:0"]
    return graph, fetches


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    run_tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    graph, fetches = build()
    with tf1.Session(graph=graph, config=tf1.ConfigProto(device_count={"CPU": 3})) as session:
        expected = session.run(fetches)
    path = os.path.join(work, "collectives.pbtxt")
    tf.io.write_graph(graph.as_graph_def(), work, "collectives.pbtxt", as_text=True)
    step = "fetch=" + ",".join(fetches)
    out = subprocess.run([run_tool, "--graph", path, "--cpu-devices", "3", "--json", "--run", step, "--run", step],
                         capture_output=True, text=True, timeout=240)
    lines = [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode != 0 or len(lines) != 2:
        print("tensoract-run failed:", out.returncode, out.stdout[-2000:], out.stderr[-2000:])
        return 1
    failures = 0
    for run in lines:
        if run["code"] != "OK":
            print("run %d: %s %s" % (run["run"], run["code"], run.get("message", "")))
            return 1
        for name, want, got in zip(fetches, expected, run["fetches"]):
            values = np.array(got["values"], dtype=want.dtype).reshape(got["shape"])
            if values.shape != want.shape:
                print("%s: shape %s, TensorFlow's %s" % (name, values.shape, want.shape))
                failures += 1
            elif want.dtype.kind == "f":
                if not np.allclose(values, want, rtol=1e-6, atol=1e-6):
                    print("%s: max difference %g" % (name, np.max(np.abs(values - want))))
                    failures += 1
            elif not np.array_equal(values, want):
                print("%s: differs from TensorFlow's" % name)
                failures += 1
    print("%d collective outputs compared over 2 runs, %d differ from TensorFlow's" % (len(fetches), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
