#!/usr/bin/env python3
"""The peer of the serving benchmark: TensorFlow's own SavedModel, loaded with
tf.saved_model.load and its serving signature called from Python threads, one request
(the body file's instances as one batch) per call, no HTTP. Prints the same line as
serving_bench.

Usage: serving_tf.py MODEL_DIR BODY_FILE CLIENTS REQUESTS_PER_CLIENT
"""
import json
import os
import sys
import threading
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf


def main():
    model_dir, body, clients, per_client = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    fn = tf.saved_model.load(model_dir).signatures["serving_default"]
    (key,) = fn.structured_input_signature[1].keys()
    with open(body) as f:
        x = tf.constant(np.array(json.load(f)["instances"], np.float32))
    for _ in range(20):  # warm-up: the first calls trace and allocate
        fn(**{key: x})
    latencies = [[] for _ in range(clients)]

    def client(i):
        for _ in range(per_client):
            t0 = time.perf_counter()
            fn(**{key: x})["output_0"].numpy()
            latencies[i].append(time.perf_counter() - t0)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    all_lat = np.sort(np.concatenate([np.array(l) for l in latencies])) * 1e6
    n = len(all_lat)
    print(f"tensorflow saved_model from python: {clients} clients, {n} requests, {n / elapsed:.1f} requests/s, "
          f"p50 {all_lat[n // 2]:.0f} us, p99 {all_lat[min(n - 1, int(n * 0.99))]:.0f} us")


if __name__ == "__main__":
    main()
