#!/usr/bin/env python3
"""A graph TensorFlow 2's MultiWorkerMirroredStrategy writes runs on two tensoract-nodes with
TensorFlow's values.

Usage: tf_mwms_compat.py TENSORACT_RUN TENSORACT_NODE WORK_DIR

Two TensorFlow worker processes (TF_CONFIG, MultiWorkerMirroredStrategy over gRPC on
loopback) each trace and run a tf.function whose replica step all-reduces a sum and a
packed pair of means (MultiWorkerMirroredStrategy concatenates them into one
CollectiveReduceV2 and splits the result) and all-gathers a tensor (CollectiveGatherV2).
Each writes its function's graph, the values of what the graph captures (the collective's
instance key; its ordering token, a resource, is fed as a handle naming nothing) and its
results. Then two tensoract-node processes form the same cluster (worker 0 and 1, token
mode), and tensoract-run runs each worker's graph through its own node's master, both at
once, as each TensorFlow worker ran its own. Every output must match within 1e-6.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import json
import os
import subprocess
import sys
import time

from compat_util import free_ports

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def worker(task, ports, out_path):
    """One TensorFlow worker: trace, run, and write what tensoract needs."""
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["127.0.0.1:%d" % p for p in ports]},
                                          "task": {"type": "worker", "index": task}})
    import numpy as np
    import tensorflow as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()

    @tf.function(input_signature=[tf.TensorSpec([4, 3], tf.float32)])
    def step(x):
        def replica(x):
            ctx = tf.distribute.get_replica_context()
            w = tf.constant([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]])
            total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.matmul(x, w))
            means = ctx.all_reduce(tf.distribute.ReduceOp.MEAN, [tf.reduce_sum(x, axis=0), tf.square(x[0])])
            gathered = ctx.all_gather(x[:2] * 3.0, axis=0)
            return total, means[0], means[1], gathered
        return strategy.run(replica, args=(x,))

    x = (np.arange(12, dtype=np.float32).reshape(4, 3) - 5.0) * (task + 1) / 4.0
    results = [r.numpy().tolist() for r in step(tf.constant(x))]
    cf = step.get_concrete_function()
    feeds = [{"name": cf.inputs[0].name, "dtype": "float", "shape": list(x.shape), "values": x.ravel().tolist()}]
    # What the graph captures: by value (the ordering tokens' resources), and at call time
    # (the collectives' instance keys: closures TensorFlow calls on every call).
    captured = list(zip(cf.graph.internal_captures, cf.captured_inputs))
    for placeholder, closure in zip(cf.graph.deferred_internal_captures, cf.graph.deferred_external_captures):
        captured.append((placeholder, tf.convert_to_tensor(closure())))
    for placeholder, value in captured:
        if value.dtype == tf.resource:
            feeds.append({"name": placeholder.name, "dtype": "resource", "shape": [], "values": []})
        else:
            v = value.numpy().reshape(placeholder.shape)  # a key may come as [1] for a scalar
            feeds.append({"name": placeholder.name, "dtype": v.dtype.name, "shape": list(v.shape),
                          "values": np.ravel(v).tolist()})
    graph_path = out_path + ".pbtxt"
    with open(graph_path, "w") as f:
        f.write(str(cf.graph.as_graph_def()))
    with open(out_path, "w") as f:
        json.dump({"graph": graph_path, "feeds": feeds, "fetches": [t.name for t in cf.outputs],
                   "results": results}, f)


def feed_arg(feed):
    shape = "x".join(str(d) for d in feed["shape"])
    values = ",".join(repr(float(v)) if feed["dtype"].startswith("float") else str(int(v)) for v in feed["values"])
    return "feed=%s=%s:%s@%s" % (feed["name"], feed["dtype"], values, shape)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), [int(p) for p in sys.argv[3].split(",")], sys.argv[4])
        return 0
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    try:
        import numpy as np
        import tensorflow  # noqa: F401
    except ImportError as e:
        print(f"SKIPPED: tensorflow cannot be imported ({e}); bootstrap/install-deps.sh installs tensorflow-cpu")
        return 77
    run_tool, node_binary, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)

    tf_ports = free_ports(2)
    outs = [os.path.join(work, "worker%d.json" % t) for t in range(2)]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", str(t), ",".join(map(str, tf_ports)), outs[t]],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for t in range(2)]
    for p in procs:
        out, _ = p.communicate(timeout=240)
        if p.returncode != 0:
            print("TensorFlow worker failed:", out[-3000:])
            return 1
    written = [json.load(open(o)) for o in outs]

    token_file = os.path.join(work, "cluster.token")
    with open(token_file, "w") as f:
        f.write("mwms-compat-token-%d\n" % os.getpid())
    ports = free_ports(2)
    spec = "worker=" + ",".join("127.0.0.1:%d" % p for p in ports)
    logs = [os.path.join(work, "node%d.log" % t) for t in range(2)]
    nodes = [subprocess.Popen([node_binary, "--cluster", spec, "--job", "worker", "--task", str(t), "--threads", "1",
                               "--token-file", token_file], stdout=open(logs[t], "w"), stderr=subprocess.STDOUT)
             for t in range(2)]
    try:
        for t, n in enumerate(nodes):
            deadline = time.time() + 20
            while "tensoract-node ready" not in open(logs[t]).read():
                if n.poll() is not None or time.time() > deadline:
                    print("tensoract-node %d did not start:" % t, open(logs[t]).read()[-2000:])
                    return 1
                time.sleep(0.05)
        runs = []
        for t in range(2):
            step = " ".join([feed_arg(f) for f in written[t]["feeds"]] + ["fetch=" + ",".join(written[t]["fetches"])])
            runs.append(subprocess.Popen([run_tool, "--graph", written[t]["graph"], "--server",
                                          "tensoract://127.0.0.1:%d" % ports[t], "--token-file", token_file, "--json",
                                          "--run", step], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        failures = 0
        for t, r in enumerate(runs):
            out, err = r.communicate(timeout=120)
            lines = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
            if r.returncode != 0 or not lines or lines[0]["code"] != "OK":
                print("worker %d: tensoract-run failed (%d): %s %s" % (t, r.returncode, out[-2000:], err[-2000:]))
                for i in range(2):
                    print("node %d's log:" % i, open(logs[i]).read()[-2000:])
                return 1
            for name, want, got in zip(written[t]["fetches"], written[t]["results"], lines[0]["fetches"]):
                want = np.array(want, dtype=np.float32)
                values = np.array(got["values"], dtype=np.float32).reshape(got["shape"])
                if values.shape != want.shape or not np.allclose(values, want, rtol=1e-6, atol=1e-6):
                    print("worker %d, %s: %s, TensorFlow's %s" % (t, name, values.tolist(), want.tolist()))
                    failures += 1
        print("2 workers x %d outputs of a MultiWorkerMirroredStrategy step, %d differ from TensorFlow's"
              % (len(written[0]["fetches"]), failures))
        return 1 if failures else 0
    finally:
        for n in nodes:
            n.terminate()
        for n in nodes:
            try:
                n.wait(timeout=10)
            except subprocess.TimeoutExpired:
                n.kill()


if __name__ == "__main__":
    sys.exit(main())
