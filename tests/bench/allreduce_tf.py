#!/usr/bin/env python3
"""TensorFlow's side of the all-reduce benchmark: one MultiWorkerMirroredStrategy worker
(CommunicationImplementation.RING, collectives over gRPC), run in its lab namespace by
run_allreduce_bench.sh, one process per task, all at once.

    python3 allreduce_tf.py --task 0 --addresses 10.77.3.1:2300,10.77.3.2:2300 \
        --sizes 4096,1048576 --rounds 5

Each size: a float32 variable of S bytes all-reduced (MEAN) by a tf.function; the first
call is warm-up, then `rounds` timed calls. Prints "tensorflow <bytes> <median_ms>" per
size: the collective makes every member wait for all, so the slowest member's median is
the round's time (the driver takes the maximum over tasks).
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--task", type=int, required=True)
    p.add_argument("--addresses", required=True)
    p.add_argument("--sizes", default="4096,65536,1048576,16777216,67108864")
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    addresses = a.addresses.split(",")
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": addresses},
                                          "task": {"type": "worker", "index": a.task}})
    import tensorflow as tf  # after TF_CONFIG
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    for size in [int(s) for s in a.sizes.split(",")]:
        # Outside the strategy's scope: this worker's own values (a mirrored variable would
        # start as worker 0's everywhere).
        v = tf.Variable(tf.fill([size // 4], float(a.task + 1)))

        @tf.function
        def step():
            def fn():
                return tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, tf.identity(v))
            return strategy.run(fn)

        r = step()  # warm-up: the group forms, the graph traces
        expected = sum(range(1, len(addresses) + 1)) / len(addresses)
        got = float(strategy.experimental_local_results(r)[0][0])
        if abs(got - expected) > 1e-4:
            print("allreduce_tf: wrong result %f, expected %f" % (got, expected), file=sys.stderr)
            sys.exit(1)
        times = []
        for _ in range(a.rounds):
            t = time.perf_counter()
            r = step()
            float(strategy.experimental_local_results(r)[0][0])  # waits for the result
            times.append(time.perf_counter() - t)
        times.sort()
        print("tensorflow %d %.3f" % (size, 1e3 * times[len(times) // 2]), flush=True)


if __name__ == "__main__":
    main()
