#!/usr/bin/env python3
"""How fast the peers serve the Keras model zoo of issue 54: TensorFlow, ONNX Runtime and
OpenVINO timing each model's serving signature, as written by model_zoo_export.py.

Usage: model_zoo_peers.py ZOO_DIR [--models A,B] [--batches 1,32] [--engines E,...]
                                  [--runs 20] [--seconds 0] [--warmup 5]

Engines:
  tensorflow        the SavedModel's serving_default, TensorFlow's defaults (oneDNN on: the
                    variable TF_ENABLE_ONEDNN_OPTS is removed from its environment)
  onnxruntime       converted by tf2onnx (opset 17) from the SavedModel, CPU provider
  openvino-f32      openvino.convert_model reading the SavedModel, INFERENCE_PRECISION_HINT f32
  openvino-default  the same with OpenVINO's default precision (bf16 where the CPU has it:
                    the line names the precision it chose)

Each engine runs in its own process (TensorFlow's oneDNN setting is fixed at import, and no
engine's thread pools should slow another's) with every core this process may use. The
time is the median of the calls made over --seconds (at least --runs of them) after --warmup:
run_model_zoo_bench.sh passes its own --seconds, the window tensoract's saved_model_latency
times, so that a peer's median sees the machine's noisy moments as often as ours (on a
shared VM, a burst of 10 calls landed in a quiet 20 ms where 3 s did not). Inputs are already
in the engine's format,
outputs fetched to host arrays. OpenVINO compiles the model with the batch fixed (its usual
way of serving one shape); TensorFlow and ONNX Runtime keep the batch dimension open.

One line per (model, batch, engine):
  model_zoo: <model> batch <b> <engine> <ms> ms
or "... <engine> skipped (<why>)" when an engine is not installed or cannot run the model:
the script never fails for a peer. After each engine's times, a line
  model_zoo_check: <model> batch <b> <engine> max abs diff vs tensorflow <x>
says that its outputs are TensorFlow's (a wrong conversion is not timed unnoticed).

tf2onnx 1.17 has no converter for TensorFlow's Erfc, which exact GELU (Keras' "gelu") is
made of since TensorFlow 2.x: it writes an ONNX file that ONNX Runtime refuses ("No Op
registered for Erfc"). The conversion here registers one, 1 - Erf(x), before converting.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)
ENGINES = ("tensorflow", "onnxruntime", "openvino-f32", "openvino-default")
CORES = len(os.sched_getaffinity(0))


class Skip(Exception):
    """An engine that cannot run a model, and why; reported as skipped."""


def line(model, batch, engine, what):
    print(f"model_zoo: {model} batch {batch} {engine} {what}", flush=True)


# ------------------------------------------------------------------ one engine, one model

def timed(call, runs, warmup, seconds):
    for _ in range(warmup):
        call()
    times = []
    end = time.perf_counter() + seconds
    while len(times) < runs or time.perf_counter() < end:
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def tensorflow_runner(info, model_dir):
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(CORES)
    serve = tf.saved_model.load(model_dir).signatures["serving_default"]
    key = info["input_key"]

    def prepare(x):
        feed = {key: tf.constant(x)}
        return lambda: [v.numpy() for _, v in sorted(serve(**feed).items())]
    return prepare, f"tensorflow {tf.__version__}"


def onnx_path(model_dir, work):
    """The SavedModel converted to ONNX (opset 17), made once: (path, None) or (None, why)."""
    path = os.path.join(work, "model.onnx")
    if os.path.exists(path):
        return path, None
    log = os.path.join(work, "tf2onnx.log")
    with open(log, "w") as f:
        p = subprocess.run([sys.executable, HERE, "--tf2onnx", model_dir, path], stdout=f, stderr=subprocess.STDOUT,
                           env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    with open(log) as f:
        errors = [ln.split(" - ERROR - ")[-1].strip() for ln in f if " - ERROR - " in ln or "Error" in ln]
    # tf2onnx exits 0 after "Unsupported ops", leaving a file ONNX Runtime refuses.
    unsupported = [e for e in errors if e.startswith("Unsupported ops")]
    if p.returncode != 0 or not os.path.exists(path) or unsupported:
        if os.path.exists(path):
            os.remove(path)
        why = "; ".join(unsupported or errors[-2:]) or f"exit {p.returncode}"
        return None, f"tf2onnx failed: {why} (see {log})"
    return path, None


def onnxruntime_runner(info, model_dir):
    import onnxruntime as ort
    path, why = onnx_path(model_dir, os.path.dirname(model_dir))
    if path is None:
        raise Skip(why)
    options = ort.SessionOptions()
    options.intra_op_num_threads = CORES
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    (inp,) = session.get_inputs()

    def prepare(x):
        return lambda: session.run(None, {inp.name: x})
    return prepare, f"onnxruntime {ort.__version__}"


def openvino_runner(precision):
    def runner(info, model_dir):
        import openvino as ov
        core = ov.Core()
        config = {"INFERENCE_NUM_THREADS": CORES}
        if precision:
            config["INFERENCE_PRECISION_HINT"] = precision

        model = ov.convert_model(model_dir)

        def prepare(x):
            model.reshape({model.inputs[0]: list(x.shape)})
            compiled = core.compile_model(model, "CPU", config)
            request = compiled.create_infer_request()
            prepare.chosen = compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
            return lambda: [request.infer({0: x})[o] for o in compiled.outputs]
        return prepare, f"openvino {ov.__version__}"
    return runner


RUNNERS = {"tensorflow": tensorflow_runner, "onnxruntime": onnxruntime_runner,
           "openvino-f32": openvino_runner("f32"), "openvino-default": openvino_runner(None)}


def as_float_array(np, output):
    """An output as numpy numbers that compare and save: bfloat16 (ml_dtypes' type from
    TensorFlow, a raw 2-byte void from other engines) widened to float32 exactly."""
    a = np.asarray(output)
    if a.dtype.name == "bfloat16":
        return a.astype(np.float32)
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return a


def worker(engine, model_dir, batches, runs, warmup, seconds):
    """Times one engine on one exported model; prints its lines. Never fails."""
    import numpy as np
    d = os.path.dirname(model_dir)
    with open(os.path.join(d, "zoo.json")) as f:
        info = json.load(f)
    name = info["model"]
    try:
        prepare, version = RUNNERS[engine](info, model_dir)
    except ImportError as e:
        for b in batches:
            line(name, b, engine, f"skipped (not installed: {e})")
        return
    except Skip as e:
        for b in batches:
            line(name, b, engine, f"skipped ({e})")
        return
    except Exception as e:  # noqa: BLE001: a peer that cannot take the model is reported, not fatal
        for b in batches:
            line(name, b, engine, f"skipped ({type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''})")
        return
    print(f"# {name}: {version}, {CORES} threads", flush=True)
    for b in batches:
        x = np.load(os.path.join(d, f"input_b{b}.npy"))
        try:
            call = prepare(x)
            outputs = call()
            ms = timed(call, runs, warmup, seconds)
        except Exception as e:  # noqa: BLE001
            line(name, b, engine, f"skipped ({type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''})")
            continue
        label = engine
        if engine == "openvino-default":
            label = f"{engine}({getattr(prepare, 'chosen', '?')})"
        line(name, b, label, f"{ms:.2f} ms")
        outputs = [as_float_array(np, o) for o in outputs]
        reference = os.path.join(d, f"tensorflow_b{b}.npz")
        if engine == "tensorflow":
            np.savez(reference, *outputs)
        elif os.path.exists(reference):
            with np.load(reference) as ref:
                want = [ref[f"arr_{i}"] for i in range(len(ref.files))]
            diff = max((float(np.abs(o.astype(np.float64) - w).max()) for o, w in zip(outputs, want)
                        if o.shape == w.shape), default=float("nan"))
            if len(outputs) != len(want) or any(o.shape != w.shape for o, w in zip(outputs, want)):
                diff = float("nan")  # shapes differ: no comparison means something is off
            print(f"model_zoo_check: {name} batch {b} {label} max abs diff vs tensorflow {diff:.3g}", flush=True)


def tf2onnx_convert(model_dir, out):
    """tf2onnx's command line, with a converter for Erfc (see the module's docstring)."""
    import numpy as np
    from tf2onnx import convert, utils
    from tf2onnx.handler import tf_op

    @tf_op("Erfc")
    class Erfc:  # noqa: F841: registered by the decorator
        @classmethod
        def version_9(cls, ctx, node, **kwargs):
            dtype = utils.map_onnx_to_numpy_type(ctx.get_dtype(node.input[0]))
            one = ctx.make_const(utils.make_name("one"), np.array(1, dtype=dtype))
            erf = ctx.make_node("Erf", [node.input[0]], op_name_scope=node.name)
            node.type = "Sub"
            ctx.replace_inputs(node, [one.output[0], erf.output[0]])

    sys.argv = ["tf2onnx.convert", "--saved-model", model_dir, "--tag", "serve", "--signature_def", "serving_default",
                "--opset", "17", "--output", out]
    convert.main()


# ------------------------------------------------------------------ all of them

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("zoo", metavar="ZOO_DIR", help="as model_zoo_export.py writes it")
    p.add_argument("--models", help="only these (comma-separated); all in ZOO_DIR by default")
    p.add_argument("--batches", default="1,32")
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--seconds", type=float, default=0, help="time each engine for at least this long")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--timeout", type=int, default=1800, help="seconds for one engine on one model")
    args = p.parse_args()
    models = args.models.split(",") if args.models else sorted(
        m for m in os.listdir(args.zoo) if os.path.exists(os.path.join(args.zoo, m, "zoo.json")))
    engines = args.engines.split(",")
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        sys.exit(f"unknown engines {unknown} (known: {', '.join(ENGINES)})")
    # TensorFlow first: the others compare their outputs with the ones it leaves.
    engines.sort(key=lambda e: e != "tensorflow")
    env = {k: v for k, v in os.environ.items() if k != "TF_ENABLE_ONEDNN_OPTS"}
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    for model in models:
        model_dir = os.path.join(args.zoo, model, "saved_model")
        for engine in engines:
            cmd = [sys.executable, HERE, "--worker", engine, model_dir, args.batches, str(args.runs), str(args.warmup),
                   str(args.seconds)]
            try:
                p = subprocess.run(cmd, env=env, stdout=sys.stdout, stderr=subprocess.PIPE, text=True,
                                   timeout=args.timeout)
            except subprocess.TimeoutExpired:
                line(model, args.batches, engine, f"skipped (over {args.timeout} s)")
                continue
            if p.returncode != 0:  # the worker died (a peer's crash, out of memory): reported, not fatal
                tail = [ln for ln in p.stderr.splitlines() if ln.strip()][-1:] or [f"exit {p.returncode}"]
                line(model, args.batches, engine, f"skipped (worker exit {p.returncode}: {tail[0][:300]})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        engine, model_dir, batches, runs, warmup, seconds = sys.argv[2:8]
        worker(engine, model_dir, [int(b) for b in batches.split(",")], int(runs), int(warmup), float(seconds))
    elif len(sys.argv) > 1 and sys.argv[1] == "--tf2onnx":
        tf2onnx_convert(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
