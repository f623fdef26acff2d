#!/usr/bin/env python3
"""Turns the outputs run_front_page.sh saved into the README's "where it stands" table.

    front_page.py DIR MACHINE DATE

DIR holds one file per topic (training.txt, eager.txt, serving.txt, data_plane.txt,
models.txt, grpc.txt, gpu.txt), each the output of that topic's benchmark script. Every
ratio is speed against the peer measured in the same run: above 1.0x, tensoract is faster.
A topic whose file is missing or holds no figure prints "not run" and why.
"""
import os
import re
import statistics
import sys


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def training(text):
    # | model | batch | threads | ours | torch | tf | ratio |
    cells = []
    for m in re.finditer(r"^\| (mlp|cnn) \| (\d+) \| (\d+) \| [^|]+\|[^|]+\|[^|]+\| ([0-9.]+x|n/a) \|", text, re.M):
        cells.append("%s %s (batch %s)" % (m.group(1).upper(), m.group(4), m.group(2)))
    return "vs the faster of PyTorch and TensorFlow: " + ", ".join(cells) if cells else None


def eager(text):
    # "ratio NAME: tensoract takes 0.88x the peer's time": speed is its inverse.
    names = {"eager add vs libtorch": "eager Add vs libtorch",
             "tape step vs libtorch": "tape step vs libtorch",
             "Function call vs TF C API TF_SessionRun": "Function call vs TensorFlow's C API"}
    cells = []
    for m in re.finditer(r"^ratio (.+?): tensoract takes ([0-9.]+)x", text, re.M):
        if m.group(1) in names and float(m.group(2)) > 0:
            cells.append("%s %.2fx" % (names[m.group(1)], 1 / float(m.group(2))))
    return ", ".join(cells) if cells else None


def session_run(text):
    m = re.search(r"^ratio Session::Run vs TF C API TF_SessionRun: tensoract takes ([0-9.]+)x", text, re.M)
    return "vs TensorFlow's C API `TF_SessionRun`: %.2fx" % (1 / float(m.group(1))) if m else None


def serving(text):
    cells = []
    for m in re.finditer(r"^ratio \((\d+) clients\): over HTTP ([0-9.]+)x, over gRPC ([0-9.]+)x, in-process ([0-9.]+)x",
                         text, re.M):
        cells.append("%s client%s: REST %sx, gRPC %sx, in-process %sx" %
                     (m.group(1), "" if m.group(1) == "1" else "s", m.group(2), m.group(3), m.group(4)))
    return "vs TensorFlow from Python: " + "; ".join(cells) if cells else None


def data_plane(text):
    cells = []
    for m in re.finditer(r"^\| (1MB|64MB|4B) \|.*\| ([0-9.]+)x faster \|$", text, re.M):
        cells.append("%s %sx" % (m.group(1).replace("MB", " MiB").replace("4B", "4-byte round trip"), m.group(2)))
    return "vs TensorFlow's gRPC: " + ", ".join(cells) if cells else None


def models(text):
    # "ratio MODEL batch B (peer ms / tensoract ms): tensorflow 2.55x onnxruntime 0.82x ..."
    per = {}
    for m in re.finditer(r"^ratio (\S+) batch (\d+) \(peer ms / tensoract ms\):(.*)$", text, re.M):
        for engine, ratio in re.findall(r"(\S+) ([0-9.]+)x", m.group(3)):
            per.setdefault((engine, int(m.group(2))), []).append(float(ratio))
    if not per:
        return None
    models_run = len({m.group(1) for m in re.finditer(r"^ratio (\S+) batch", text, re.M)})
    cells = []
    for engine in sorted({e for e, _ in per}):
        batches = sorted(b for e, b in per if e == engine)
        cells.append("%s %s" % (engine, ", ".join("%.2fx (batch %d)" % (statistics.median(per[(engine, b)]), b)
                                                 for b in batches)))
    return "medians over %d models: %s" % (models_run, "; ".join(cells))


def grpc(text):
    lat = re.search(r"latency tensorflow/tensoract ([0-9.]+)x", text)
    train = re.search(r"training tensoract/tensorflow ([0-9.]+)x", text)
    if not lat and not train:
        return None
    cells = []
    if lat:
        cells.append("Session.run %sx" % lat.group(1))
    if train:
        cells.append("MLP training %sx" % train.group(1))
    return "vs `tf.distribute.Server`: " + ", ".join(cells)


def gpu(text):
    figure = training(text)
    return figure.replace("vs the faster of PyTorch and TensorFlow", "vs PyTorch on the GPU") if figure else None


TOPICS = [
    ("training, Fashion-MNIST", "training.txt", training, "bash tests/bench/run_train_bench.sh"),
    ("eager op, tape, Function", "eager.txt", eager, "bash tests/bench/run_eager_overhead.sh"),
    ("Session::Run overhead", "eager.txt", session_run, "bash tests/bench/run_eager_overhead.sh"),
    ("serving a SavedModel", "serving.txt", serving, "bash tests/bench/run_serving_bench.sh"),
    ("data plane", "data_plane.txt", data_plane, "bash tests/bench/run_recv_tensor_bench.sh"),
    ("real models (Keras zoo)", "models.txt", models, "bash tests/bench/run_model_zoo_bench.sh"),
    ("TensorFlow's client over `grpc://`", "grpc.txt", grpc, "bash tests/bench/run_grpc_client_bench.sh"),
    ("GPU", "gpu.txt", gpu, "DEVICE=gpu bash tests/bench/run_train_bench.sh"),
]


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: front_page.py DIR MACHINE DATE")
    out_dir, machine, date = sys.argv[1:]
    print("| topic | figure (speed against the peer, same run) | machine, date | command |")
    print("|---|---|---|---|")
    for topic, name, parse, command in TOPICS:
        text = read(os.path.join(out_dir, name))
        figure = parse(text) if text else None
        if figure is None:
            why = "no output" if text is None else (text.strip().splitlines() or ["empty output"])[-1][:100]
            figure = "not run here (%s)" % why
        print("| %s | %s | %s, %s | `%s` |" % (topic, figure, machine, date, command))


if __name__ == "__main__":
    main()
