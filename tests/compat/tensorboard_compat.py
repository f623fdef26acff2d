#!/usr/bin/env python3
"""Our summaries and event files, read by TensorFlow and TensorBoard.

Usage: tensorboard_compat.py SUMMARY_TOOL FASHION_MNIST WORK_DIR

1. Summary ops: a graph of TensorFlow's summary ops (histograms of floats and integers,
   empty and with a NaN; images in uint8 and float, with negative values, NaN and
   infinity, 1, 3 and 4 channels, max_images 1 and 2, a custom bad_color; a tensor
   summary with plugin metadata; merges, one with a duplicate tag) runs in TensorFlow and,
   through summary_tool, here. Every summary must be TensorFlow's (images compared by their
   decoded pixels: PNG encoders may compress differently), every error its error code.
2. The main job's event file (fashion_mnist --logdir) read by TensorBoard's
   EventAccumulator: loss and accuracy scalars every N steps, weight histograms, input
   images, the graph, a traced step's run metadata.
3. A TensorBoard server started on loopback serves those scalars over its HTTP API.
4. A truncated and a corrupted copy of that file: our reader (summary_tool read) and
   TensorBoard's report the damage at the same offset.

Exits 77 (ctest: skipped) when TensorFlow or TensorBoard cannot be imported.
"""
import glob
import io
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

from compat_util import Checks, skip_without  # noqa: E402
with skip_without('tensorflow or tensorboard', 'bootstrap/install-deps.sh installs both'):
    import numpy as np
    import tensorflow as tf
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.util import tb_logging

from tensorflow.core.framework import summary_pb2

tf1 = tf.compat.v1


check = Checks()


def summary_graph():
    """TensorFlow's summary ops on fixed inputs; returns (graph, fetch names)."""
    graph = tf.Graph()
    fetches = []
    with graph.as_default():
        def add(t):
            fetches.append(t.name)
        values = tf1.constant([0.0, 1.0, -2.5, 3.0, 1e-13, 100.0, 7.25e9, -4e-7], name="values")
        add(tf.raw_ops.HistogramSummary(tag="hist/float", values=values, name="hist_float"))
        add(tf.raw_ops.HistogramSummary(tag="hist/int", values=tf1.constant([[3, -7], [0, 1 << 20]]), name="hist_int"))
        add(tf.raw_ops.HistogramSummary(tag="hist/empty", values=tf1.constant([], tf.float32), name="hist_empty"))
        add(tf.raw_ops.HistogramSummary(tag="hist/nan", values=tf1.constant([1.0, float("nan")]), name="hist_nan"))
        add(tf.raw_ops.HistogramSummary(tag="hist/inf", values=tf1.constant([float("inf")]), name="hist_inf"))
        rng = np.random.RandomState(7)
        signed = rng.uniform(-3, 2, size=(2, 5, 4, 1)).astype(np.float32)
        signed[0, 1, 2, 0] = np.nan
        add(tf.raw_ops.ImageSummary(tag="img/signed", tensor=tf1.constant(signed), max_images=3, name="img_signed"))
        positive = rng.uniform(0, 0.4, size=(1, 3, 6, 3)).astype(np.float64)
        positive[0, 2, 5, 1] = np.inf
        add(tf.raw_ops.ImageSummary(tag="img/rgb", tensor=tf1.constant(positive), max_images=1, name="img_rgb"))
        rgba = rng.uniform(-1, 1, size=(3, 2, 2, 4)).astype(np.float32)
        rgba[1, 0, 0, 3] = -np.inf
        add(tf.raw_ops.ImageSummary(tag="img/rgba", tensor=tf1.constant(rgba), max_images=2,
                                    bad_color=tf.make_tensor_proto(np.array([1, 2, 3, 4], np.uint8)), name="img_rgba"))
        raw = rng.randint(0, 256, size=(4, 3, 5, 1)).astype(np.uint8)
        add(tf.raw_ops.ImageSummary(tag="img/bytes", tensor=tf1.constant(raw), max_images=2, name="img_bytes"))
        add(tf.raw_ops.ImageSummary(tag="img/zeros", tensor=tf.zeros([1, 2, 2, 1]), name="img_zeros"))
        add(tf.raw_ops.ImageSummary(tag="img/bad", tensor=tf.zeros([2, 2, 2]), name="img_bad"))
        metadata = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars", content=b"\x01"),
            display_name="shown", summary_description="a tensor summary")
        add(tf.raw_ops.TensorSummaryV2(tag="tensor", tensor=tf1.constant([[1.5, -2.0]]),
                                       serialized_summary_metadata=metadata.SerializeToString(), name="tensor_v2"))
        add(tf.raw_ops.TensorSummaryV2(tag="strings", tensor=tf1.constant(["a", "bc"]),
                                       serialized_summary_metadata=b"", name="tensor_strings"))
        scalar = tf.raw_ops.ScalarSummary(tags=["s/a", "s/b"], values=[1.0, 2.5], name="scalars")
        add(tf.raw_ops.MergeSummary(inputs=[scalar, graph.get_tensor_by_name("hist_float:0"),
                                            graph.get_tensor_by_name("img_bytes:0")], name="merged"))
        add(tf.raw_ops.MergeSummary(inputs=[scalar, scalar], name="merged_duplicate"))
        add(tf.raw_ops.MergeSummary(inputs=[tf1.constant(["not a summary \xff"])], name="merged_garbage"))
    return graph, fetches


def tf_results(graph, fetches):
    """fetch index -> Summary, or error code name."""
    results = {}
    with tf1.Session(graph=graph) as sess:
        for i, name in enumerate(fetches):
            try:
                s = summary_pb2.Summary()
                s.ParseFromString(sess.run(name))
                results[i] = s
            except tf.errors.OpError as e:
                results[i] = type(e).__name__
    return results


ERROR_CLASS_TO_CODE = {
    "InvalidArgumentError": "INVALID_ARGUMENT", "NotFoundError": "NOT_FOUND", "UnknownError": "UNKNOWN",
    "InternalError": "INTERNAL", "FailedPreconditionError": "FAILED_PRECONDITION",
}


def decoded(image):
    return tf.io.decode_png(image.encoded_image_string).numpy()


def same_value(ours, theirs):
    if ours.tag != theirs.tag or ours.WhichOneof("value") != theirs.WhichOneof("value"):
        return False, f"tag/kind {ours.tag}/{ours.WhichOneof('value')} vs {theirs.tag}/{theirs.WhichOneof('value')}"
    if ours.metadata != theirs.metadata:
        return False, f"metadata {ours.metadata} vs {theirs.metadata}"
    if ours.HasField("image"):
        a, b = ours.image, theirs.image
        if (a.height, a.width, a.colorspace) != (b.height, b.width, b.colorspace):
            return False, f"image header {(a.height, a.width, a.colorspace)} vs {(b.height, b.width, b.colorspace)}"
        pa, pb = decoded(a), decoded(b)
        if pa.shape != pb.shape or not np.array_equal(pa, pb):
            return False, f"pixels {pa.ravel().tolist()} vs {pb.ravel().tolist()}"
        return True, ""
    if ours != theirs:
        return False, f"{ours} vs {theirs}"
    return True, ""


def compare_summary_ops(tool, work):
    graph, fetches = summary_graph()
    pb = os.path.join(work, "summaries.pb")
    with open(pb, "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    theirs = tf_results(graph, fetches)
    logdir = os.path.join(work, "summary_ops")
    out = subprocess.run([tool, "run", pb, logdir] + fetches, capture_output=True, text=True, timeout=120)
    check(out.returncode == 0, f"summary_tool run exits 0 ({out.stderr.strip()})")
    errors = {}
    for line in out.stdout.splitlines():
        m = re.match(r"error (\d+) (\S+) (.*)", line)
        if m:
            errors[int(m.group(1))] = (m.group(2), m.group(3))
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    check(len(files) == 1, f"one event file in {logdir}")
    ours = {}
    events = list(tf1.train.summary_iterator(files[0]))
    check(events[0].file_version == "brain.Event:2", "the first event names the format")
    for e in events[1:]:
        ours[e.step] = e.summary
    for i, name in enumerate(fetches):
        t = theirs[i]
        if isinstance(t, str):
            code = ERROR_CLASS_TO_CODE.get(t, t)
            got = errors.get(i)
            check(got is not None and got[0] == code, f"{name}: fails with {code} as TensorFlow's ({got})")
            continue
        o = ours.get(i)
        if o is None:
            check(False, f"{name}: TensorFlow gives a summary, we gave {errors.get(i)}")
            continue
        ok = len(o.value) == len(t.value)
        why = f"{len(o.value)} values vs {len(t.value)}"
        for a, b in zip(o.value, t.value):
            if ok:
                ok, why = same_value(a, b)
        check(ok, f"{name}: the summary TensorFlow computes ({why})" if not ok else f"{name}: the summary TensorFlow computes")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_main_job(fashion_mnist, work):
    logdir = os.path.join(work, "main_job")
    cmd = [fashion_mnist, "--epochs", "1", "--train-examples", "1280", "--checkpoint-dir", "", "--logdir", logdir,
           "--summary-every", "4"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    check(out.returncode == 0, f"fashion_mnist --logdir runs ({out.stderr[-300:]})")
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    check(len(files) == 1, "the main job writes one event file")
    acc = event_accumulator.EventAccumulator(logdir, size_guidance={
        event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0, event_accumulator.IMAGES: 0})
    acc.Reload()
    tags = acc.Tags()
    check(set(tags["scalars"]) == {"loss", "accuracy"}, f"scalars loss and accuracy ({tags['scalars']})")
    loss = acc.Scalars("loss")
    steps = [s.step for s in loss]
    check(steps[:4] == [0, 4, 8, 10] and steps[-1] == 16, f"loss every 4 steps and at the traced step ({steps})")
    check(all(np.isfinite(s.value) and s.value > 0 for s in loss), "loss values are positive numbers")
    check(loss[-1].value < loss[0].value, f"loss falls ({loss[0].value} -> {loss[-1].value})")
    accuracy = [s.value for s in acc.Scalars("accuracy")]
    check(all(0 <= a <= 1 for a in accuracy), "accuracy within [0, 1]")
    check(set(tags["histograms"]) == {"dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"},
          f"a histogram per weight ({tags['histograms']})")
    kernel = acc.Histograms("dense/kernel")[0].histogram_value
    check(kernel.num == 784 * 256 and sum(kernel.bucket) == kernel.num, f"dense/kernel's histogram counts {kernel.num}")
    check(set(tags["images"]) == {"images/image/0", "images/image/1", "images/image/2"}, f"images ({tags['images']})")
    image = acc.Images("images/image/0")[0]
    pixels = tf.io.decode_png(image.encoded_image_string).numpy()
    check(pixels.shape == (28, 28, 1) and pixels.max() == 255, f"a 28x28 grey input image ({pixels.shape})")
    graph = acc.Graph()
    names = {n.name for n in graph.node}
    check("dense/MatMul" in names and "summaries/merged" in names, f"the graph ({len(names)} nodes)")
    check(tags["run_metadata"] == ["step_10"], f"the traced step's run metadata ({tags['run_metadata']})")
    metadata = acc.RunMetadata("step_10")
    traced = {n.node_name for d in metadata.step_stats.dev_stats for n in d.node_stats}
    check("dense/Relu" in traced and "loss/value" in traced and len(traced) > 20,
          f"run metadata times the graph's nodes ({len(traced)})")
    relu = [n for d in metadata.step_stats.dev_stats for n in d.node_stats if n.node_name == "dense/Relu"]
    relu_bytes = relu[0].memory[0].total_bytes if relu and relu[0].memory else 0
    check(relu_bytes == 64 * 256 * 4, f"and the memory of their outputs (dense/Relu: {relu_bytes} bytes)")
    return logdir, files[0], [(s.step, s.value) for s in loss]


def check_tensorboard_server(logdir, loss):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--host", "127.0.0.1",
                               "--port", str(port), "--reload_interval", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}/data/plugin/scalars/scalars?run=.&tag=loss"
        deadline = time.time() + 90
        body, last = None, None
        while time.time() < deadline and body is None:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    data = json.loads(r.read())
                    if data:
                        body = data
            except Exception as e:  # not up yet, or not loaded yet
                last = e
                time.sleep(0.5)
        check(body is not None, f"TensorBoard serves our loss on 127.0.0.1:{port} ({last})")
        if body is not None:
            served = [(row[1], row[2]) for row in body]  # [wall_time, step, value]
            ok = len(served) == len(loss) and all(a[0] == b[0] and abs(a[1] - b[1]) < 1e-6 for a, b in zip(served, loss))
            check(ok, f"TensorBoard's loss is the one we wrote ({served[:3]}... vs {loss[:3]}...)")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


class Captured(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def check_damage(tool, event_file, work):
    data = open(event_file, "rb").read()
    out = subprocess.run([tool, "read", event_file], capture_output=True, text=True, timeout=60)
    check(out.returncode == 0 and out.stdout.startswith("events "), f"our reader reads the whole file ({out.stdout.strip()})")
    cases = {"truncated": data[:-100], "corrupted": data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF]) +
             data[len(data) // 2 + 1:]}
    logger = tb_logging.get_logger()
    for kind, damaged in cases.items():
        path = os.path.join(work, kind, "events.out.tfevents.0000000000.damaged")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(damaged)
        ours = subprocess.run([tool, "read", path], capture_output=True, text=True, timeout=60)
        m = re.search(rf"{kind} record at offset (\d+)", ours.stderr)
        check(ours.returncode == 1 and "DATA_LOSS" in ours.stderr and m is not None,
              f"our reader: {kind} file is DataLoss naming the offset ({ours.stderr.strip()})")
        handler = Captured()
        logger.addHandler(handler)
        level = logger.level
        logger.setLevel(logging.DEBUG)
        try:
            for _ in event_file_loader.EventFileLoader(path).Load():
                pass
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        theirs = [re.search(rf"{kind} record at (\d+)", line) for line in handler.lines]
        theirs = [t for t in theirs if t]
        check(bool(theirs), f"TensorBoard's reader: {kind} record ({handler.lines})")
        if theirs and m:
            check(theirs[0].group(1) == m.group(1), f"both name offset {m.group(1)} ({theirs[0].group(1)})")


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    tool, fashion_mnist, work = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    compare_summary_ops(tool, work)
    logdir, event_file, loss = check_main_job(fashion_mnist, work)
    check_tensorboard_server(logdir, loss)
    check_damage(tool, event_file, work)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
