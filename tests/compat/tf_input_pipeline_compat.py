#!/usr/bin/env python3
"""A TensorFlow 1 input pipeline that TensorFlow writes loads and trains here.

Usage: tf_input_pipeline_compat.py QUEUE_GRAPH_TOOL WORK_DIR

TensorFlow 2.21 (tf.compat.v1, graph mode) builds the classic TF1 program: file names
through string_input_producer(num_epochs=8), a FixedLengthRecordReader (header skipped),
decode_raw, slicing, tf.train.shuffle_batch with two enqueue threads, a linear model
trained by gradient descent, and the queue runners in the QUEUE_RUNNERS collection. It
trains it itself until the input's OutOfRange, then writes the GraphDef and a spec of the
queue runners and ops, and queue_graph_tool trains the same graph here under a
MonitoredSession. Both must take the same number of steps over the same number of
examples (every record of every epoch exactly once), and both must have learnt the data
(the shuffled orders differ, so the losses they end at differ too).

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import os
import subprocess
import sys

from compat_util import skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf

tf1 = tf.compat.v1
RECORDS, EPOCHS, BATCH = 200, 8, 10


def write_data(path):
    rng = np.random.RandomState(0)
    x = rng.randint(0, 256, size=(RECORDS, 4)).astype(np.float64)
    y = np.clip(np.round(x @ np.array([0.3, -0.2, 0.5, 0.1]) + 40), 0, 255)
    records = np.concatenate([x, y[:, None]], axis=1).astype(np.uint8)
    with open(path, "wb") as f:
        f.write(b"HDR")  # a header the reader skips
        f.write(records.tobytes())
    return records.astype(np.float32) / 255.0


def build(data_path, records):
    graph = tf.Graph()
    with graph.as_default():
        files = tf1.train.string_input_producer([data_path], num_epochs=EPOCHS, shuffle=False)
        reader = tf1.FixedLengthRecordReader(record_bytes=5, header_bytes=3)
        _, value = reader.read(files)
        record = tf.cast(tf1.decode_raw(value, tf.uint8), tf.float32) / 255.0
        x = tf.reshape(record[:4], [4])
        y = tf.reshape(record[4:], [1])
        xb, yb = tf1.train.shuffle_batch([x, y], batch_size=BATCH, capacity=100, min_after_dequeue=20,
                                         num_threads=2, seed=7)
        w = tf1.get_variable("w", [4, 1], initializer=tf1.zeros_initializer())
        b = tf1.get_variable("b", [1], initializer=tf1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb), name="loss")
        step = tf1.train.get_or_create_global_step()
        tf1.train.GradientDescentOptimizer(0.2).minimize(loss, global_step=step, name="train")
        all_x = tf.constant(records[:, :4])
        all_y = tf.constant(records[:, 4:])
        tf.reduce_mean(tf.square(tf.matmul(all_x, w) + b - all_y), name="full_loss")
        tf1.global_variables_initializer()
        tf1.local_variables_initializer()
    return graph, xb


def train_in_tensorflow(graph, batch):
    runners = graph.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)
    with tf1.Session(graph=graph) as sess:
        sess.run(graph.get_operation_by_name("init"))
        sess.run(graph.get_operation_by_name("init_1"))
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(sess, coord)
        steps = examples = 0
        try:
            while not coord.should_stop():
                out, _ = sess.run([batch, graph.get_operation_by_name("train")])
                steps += 1
                examples += out.shape[0]
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads)
        full = sess.run("full_loss:0")
    return runners, steps, examples, float(full)


def main():
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "records.bin")
    records = write_data(data)
    graph, batch = build(data, records)
    runners, steps, examples, full = train_in_tensorflow(graph, batch)
    print(f"tensorflow: {steps} steps, {examples} examples, full-data loss {full:.6f}")
    graph_path = os.path.join(work, "input_pipeline.pb")
    with open(graph_path, "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    spec = os.path.join(work, "input_pipeline.spec")
    with open(spec, "w") as f:
        for r in runners:
            d = r.to_proto()
            f.write(f"runner {d.queue_name} {d.close_op_name} {d.cancel_op_name} {' '.join(d.enqueue_op_name)}\n")
        f.write("init init\nlocal_init init_1\ntrain train\n")
        f.write(f"batch {batch.name}\nfetch full_loss\n")
    result = subprocess.run([tool, graph_path, spec], capture_output=True, text=True, timeout=240)
    print(result.stdout, result.stderr)
    if result.returncode != 0:
        print("FAILED: queue_graph_tool failed")
        return 1
    got = dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)
    ours_steps, ours_examples = int(got["steps"]), int(got["examples"])
    ours_full = float(got["fetch"].split()[1])
    print(f"tensoract:  {ours_steps} steps, {ours_examples} examples, full-data loss {ours_full:.6f}")
    failures = []
    if (ours_steps, ours_examples) != (steps, examples):
        failures.append("steps or examples differ")
    if examples != RECORDS * EPOCHS // BATCH * BATCH:
        failures.append("TensorFlow itself did not read every record")
    initial = float(np.mean(np.square(records[:, 4])))
    # Plain SGD on differently shuffled batches ends at different points near the optimum
    # (TensorFlow's own runs here ended between 0.0004 and 0.033): both must have learnt,
    # to a fifth of the initial loss at most.
    if not full < initial / 5:
        failures.append(f"TensorFlow itself did not learn ({full}, initial {initial})")
    if not ours_full < initial / 5:
        failures.append(f"loss {ours_full} is not learnt like TensorFlow's {full} (initial {initial})")
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
