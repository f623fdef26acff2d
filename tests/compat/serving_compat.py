#!/usr/bin/env python3
"""tensoract-serve answers TensorFlow Serving's REST API with TensorFlow's own results.

Usage: serving_compat.py TENSORACT_SERVE WORK_DIR

TensorFlow 2.21 writes the models into version directories:
  - a Keras MLP (tf.saved_model.save) under mlp/1,
  - a tf.Module with two signatures ("serving_default" returning two outputs, "add" on a
    scalar) under module/1,
  - a TensorFlow 1 SavedModelBuilder model over serialized tf.Examples with predict,
    classify and regress signatures under tf1/1.
tensoract-serve starts on port 0 (the port is read from its stdout) and real HTTP requests
(urllib) check: model status and metadata; predict in row and columnar format against
TensorFlow's outputs (1e-5 relative); classify and regress against TensorFlow's session;
8 threads predicting at once; bad requests (malformed JSON, wrong dtype, wrong shape,
unknown signature, unknown model and version, wrong method, bad paths), each answered with
TensorFlow Serving's status code and error text while the server keeps answering; a
version 2 written while the server runs is picked up without a restart (its status, its
predictions), and a broken version 3 leaves version 2 serving with the error in the status.
SIGTERM stops the server cleanly. Every wait has a deadline.

The same models over TensorFlow Serving's gRPC API (--port): tensorflow-serving-api's own
PredictionServiceStub and ModelServiceStub call Predict (both signatures, output_filter),
Classify and Regress (with a context), GetModelMetadata and GetModelStatus, against the same
TensorFlow results, and bad requests get TensorFlow Serving's status codes. Skipped, with a
line saying so, where tensorflow-serving-api is not installed.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from compat_util import Checks, skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf

tf1 = tf.compat.v1
SERVE, WORK = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(11)


check = Checks()


def close(ours, theirs, rtol=1e-5, atol=1e-6):
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    return ours.shape == theirs.shape and np.allclose(ours, theirs, rtol=rtol, atol=atol)


# ------------------------------------------------------------------ the models

def keras_mlp(seed):
    tf.keras.utils.set_random_seed(seed)
    return tf.keras.Sequential([tf.keras.Input((12,)), tf.keras.layers.Dense(16, activation="relu"),
                                tf.keras.layers.Dense(4, activation="softmax")])


def save_version(model, base, version):
    """Writes a version as a server must see it appear: complete, under its final name at once."""
    tmp = os.path.join(WORK, f"tmp_{os.path.basename(base)}_{version}")
    shutil.rmtree(tmp, ignore_errors=True)
    tf.saved_model.save(model, tmp)
    os.makedirs(base, exist_ok=True)
    os.rename(tmp, os.path.join(base, str(version)))


def serving_outputs(model_dir, signature, inputs):
    fn = tf.saved_model.load(model_dir).signatures[signature]
    return {k: v.numpy() for k, v in fn(**{k: tf.constant(v) for k, v in inputs.items()}).items()}


class Module(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = tf.Variable(2.5)
        self.offset = tf.Variable([1.0, -1.0, 0.5])

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def transform(self, x):
        return {"scaled": x * self.scale + self.offset, "total": tf.reduce_sum(x, axis=1)}

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def add(self, x):
        return x + self.scale


def example(x, k=None):
    feature = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=x))}
    if k is not None:
        feature["k"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[k]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def tf1_model(d):
    """predict, classify and regress signatures over serialized tf.Examples; returns a
    function that runs a signature in TensorFlow's own session."""
    graph = tf.Graph()
    with graph.as_default():
        serialized = tf1.placeholder(tf.string, [None], name="tf_example")
        feats = tf1.io.parse_example(serialized, {"x": tf1.io.FixedLenFeature([4], tf.float32),
                                                  "k": tf1.io.FixedLenFeature([], tf.int64, default_value=1)})
        w = tf1.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="W")
        b = tf1.Variable([0.1, 0.2, 0.3], name="b")
        logits = tf1.matmul(feats["x"], w) + b * tf1.cast(tf1.expand_dims(feats["k"], 1), tf.float32)
        scores = tf1.nn.softmax(logits, name="scores")
        classes = tf1.tile(tf1.constant([["cat", "dog", "emu"]]), [tf1.shape(scores)[0], 1])
        total = tf1.reduce_sum(logits, axis=1, keepdims=True)
        sigs = tf1.saved_model.signature_def_utils
        with tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(d)
            builder.add_meta_graph_and_variables(
                s, ["serve"],
                signature_def_map={
                    "serving_default": sigs.predict_signature_def({"examples": serialized}, {"scores": scores}),
                    "classify": sigs.classification_signature_def(serialized, classes, scores),
                    "regress": sigs.regression_signature_def(serialized, total)})
            builder.save()

    def run(signature, batch):
        with tf.Graph().as_default(), tf1.Session() as s:
            meta = tf1.saved_model.load(s, ["serve"], d)
            sig = meta.signature_def[signature]
            (inp,) = sig.inputs.values()
            names = sorted(sig.outputs)
            return dict(zip(names, s.run([sig.outputs[n].name for n in names], {inp.name: batch})))
    return run


# ------------------------------------------------------------------ the server

class Server:
    def __init__(self, name, base, *extra):
        self.name = name
        self.proc = subprocess.Popen([SERVE, "--model_name", name, "--model_base_path", base, "--rest_api_port", "0",
                                      "--port", "0", "--file_system_poll_wait_seconds", "0.5", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=lambda: [lines.put(l) for l in self.proc.stdout], daemon=True).start()
        threading.Thread(target=lambda: [self.stderr.append(l) for l in self.proc.stderr], daemon=True).start()
        deadline = time.time() + 120
        self.port = None
        self.grpc = None
        while time.time() < deadline and self.port is None:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                break
            if line.startswith("Running gRPC ModelServer at "):
                self.grpc = line.split()[4]
            if line.startswith("Exporting HTTP/REST API at:"):
                self.port = int(line.split(":")[2].split()[0])
        if self.port is None:
            self.kill()
            raise RuntimeError(f"tensoract-serve for {name} printed no port: {''.join(self.stderr)[-2000:]}")
        self.url = f"http://127.0.0.1:{self.port}"

    def request(self, method, path, body=None, raw=None, timeout=60, content_type="application/json"):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            try:
                return e.code, json.loads(text)
            except ValueError:
                return e.code, text

    def status(self, path=""):
        return self.request("GET", f"/v1/models/{self.name}{path}")

    def predict(self, body, version=None):
        v = f"/versions/{version}" if version else ""
        return self.request("POST", f"/v1/models/{self.name}{v}:predict", body)

    def wait_for(self, what, cond, seconds=60):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                if cond():
                    return True
            except (OSError, KeyError, IndexError, TypeError):
                pass
            time.sleep(0.2)
        check(False, f"{what} within {seconds} s")
        return False

    def stop(self):
        """SIGTERM: the server must exit 0, promptly."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)


def version_states(status_body):
    return {int(v["version"]): (v["state"], v["status"]["error_code"], v["status"]["error_message"])
            for v in status_body.get("model_version_status", [])}


def expect_error(server, what, code, text, method, path, body=None, raw=None, exact=True):
    got_code, got = server.request(method, path, body=body, raw=raw)
    message = got.get("error", "") if isinstance(got, dict) else str(got)
    ok = got_code == code and (message == text if exact else text in message)
    check(ok, f"{what}: HTTP {got_code} {message[:200]!r}" + ("" if ok else f" (wanted {code} {text[:200]!r})"))
    alive_code, _ = server.status()
    check(alive_code == 200, f"the server still answers after: {what}")


# ------------------------------------------------------------------ the checks

def mlp_checks(servers):
    base = os.path.join(WORK, "models", "mlp")
    v1, v2 = keras_mlp(1), keras_mlp(2)
    save_version(v1, base, 1)
    d1 = os.path.join(base, "1")
    key = next(iter(tf.saved_model.load(d1).signatures["serving_default"].structured_input_signature[1]))
    x = rng.standard_normal((5, 12)).astype(np.float32)
    want1 = serving_outputs(d1, "serving_default", {key: x})
    (out_key,) = want1.keys()

    server = Server("mlp", base)
    servers.append(server)
    code, body = server.status()
    check(code == 200 and version_states(body) == {1: ("AVAILABLE", "OK", "")}, f"status of version 1: {code} {body}")
    code, body = server.status("/versions/1")
    check(code == 200 and version_states(body) == {1: ("AVAILABLE", "OK", "")}, "status of /versions/1")
    code, body = server.status("/metadata")
    sig = body.get("metadata", {}).get("signature_def", {}).get("signature_def", {}).get("serving_default", {})
    check(code == 200 and body["model_spec"] == {"name": "mlp", "signature_name": "", "version": "1"}
          and sig.get("method_name") == "tensorflow/serving/predict"
          and sig["inputs"][key]["dtype"] == "DT_FLOAT"
          and [d["size"] for d in sig["inputs"][key]["tensor_shape"]["dim"]] == ["-1", "12"]
          and out_key in sig["outputs"], f"metadata names the signature, its dtypes and shapes")

    code, body = server.predict({"instances": x.tolist()})
    check(code == 200 and close(body["predictions"], want1[out_key]), f"row-format predict equals TensorFlow's ({code})")
    code, body = server.predict({"signature_name": "serving_default", "inputs": x.tolist()})
    check(code == 200 and close(body["outputs"], want1[out_key]), f"columnar predict equals TensorFlow's ({code})")
    code, body = server.predict({"inputs": {key: x[:2].tolist()}}, version=1)
    check(code == 200 and close(body["outputs"], want1[out_key][:2]), "columnar predict by input key, /versions/1")
    # What `curl -d @request.json` sends: a form's content type, here with a body over 8 KiB.
    big = np.tile(x, (40, 1))
    code, body = server.request("POST", "/v1/models/mlp:predict", {"instances": big.tolist()},
                                content_type="application/x-www-form-urlencoded")
    check(code == 200 and close(body["predictions"], np.tile(want1[out_key], (40, 1))),
          f"a 200-instance request sent as a form (curl -d) is answered ({code})")

    # 8 threads at once, each with its own batches.
    results = []

    def worker(i):
        local = np.random.default_rng(100 + i)
        for _ in range(6):
            xb = local.standard_normal((1 + local.integers(8), 12)).astype(np.float32)
            want = v1(xb).numpy()
            c, b = server.predict({"instances": xb.tolist()})
            results.append(c == 200 and close(b["predictions"], want))
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    check(not any(t.is_alive() for t in threads) and len(results) == 48 and all(results),
          f"8 threads predicting at once all get TensorFlow's outputs ({sum(results)}/48)")

    # Bad requests: TensorFlow Serving's status and text, and the server keeps answering.
    p = "/v1/models/mlp:predict"
    expect_error(server, "malformed JSON", 400,
                 "JSON Parse error: Missing a comma or ']' after an array element. at offset: 18",
                 "POST", p, raw=b'{"instances": [[1]')
    expect_error(server, "empty body", 400, "JSON Parse error: The document is empty", "POST", p, raw=b"")
    expect_error(server, "no instances or inputs", 400, "Missing 'inputs' or 'instances' key", "POST", p,
                 body={"signature_name": "serving_default"})
    expect_error(server, "wrong dtype", 400,
                 "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: \"a\" "
                 "Type: String is not of expected type: float", "POST", p, body={"instances": [["a"] * 12]})
    expect_error(server, "ragged instances", 400,
                 "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: Expecting tensor size: "
                 "12 but got: 11", "POST", p, body={"instances": [[0.0] * 12, [0.0] * 11]})
    expect_error(server, "wrong shape", 400, "has shape [2,11]", "POST", p,
                 body={"instances": [[0.0] * 11, [0.0] * 11]}, exact=False)
    expect_error(server, "unknown signature", 400, 'Serving signature name: "nope" not found in signature def',
                 "POST", p, body={"signature_name": "nope", "instances": [[0.0] * 12]})
    expect_error(server, "unknown model", 404, "Servable not found for request: Latest(nope)", "POST",
                 "/v1/models/nope:predict", body={"instances": [[0.0] * 12]})
    expect_error(server, "unknown version", 404, "Servable not found for request: Specific(mlp, 7)", "POST",
                 "/v1/models/mlp/versions/7:predict", body={"instances": [[0.0] * 12]})
    expect_error(server, "status of an unknown model", 404, "Could not find any versions of model nope", "GET",
                 "/v1/models/nope")
    expect_error(server, "status of an unknown version", 404, "Could not find version 7 of model mlp", "GET",
                 "/v1/models/mlp/versions/7")
    expect_error(server, "metadata of an unknown model", 404, "Servable not found for request: Latest(nope)", "GET",
                 "/v1/models/nope/metadata")
    expect_error(server, "an unknown verb", 400, "Malformed request: POST /v1/models/mlp:explain", "POST",
                 "/v1/models/mlp:explain", body={})
    expect_error(server, "a version label", 400, "Unrecognized servable version label: stable", "POST",
                 "/v1/models/mlp/labels/stable:predict", body={"instances": [[0.0] * 12]})
    # TensorFlow Serving's default: the signature's shape decides (Keras names its input "inputs").
    expect_error(server, "classify on a predict signature", 400,
                 "Expected classification signature outputs to contain at least one of \"classes\" or \"scores\""
                 if key == "inputs" else "No classification inputs found in SignatureDef: ",
                 "POST", "/v1/models/mlp:classify", body={"examples": [{"x": 1.0}]}, exact=False)
    expect_error(server, "signature_name not a string", 400,
                 "not formatted correctly. 'signature_name' key must be a string value.", "POST", p,
                 body={"signature_name": 1, "instances": [[0.0] * 12]}, exact=False)
    code, _ = server.request("POST", p, raw=b'{"instances": ' + b"[" * 100000)
    check(code == 400, f"a body nested 100000 deep is refused ({code})")
    alive, _ = server.status()
    check(alive == 200, "the server still answers after a deeply nested body")

    # A new version, written while the server runs, is picked up: status and predictions.
    save_version(v2, base, 2)
    want2 = v2(x).numpy()
    server.wait_for("version 2 serving",
                    lambda: version_states(server.status()[1]).get(2, ("",))[0] == "AVAILABLE")
    code, body = server.predict({"instances": x.tolist()})
    check(code == 200 and close(body["predictions"], want2) and not close(body["predictions"], want1[out_key]),
          "predictions come from version 2 without a restart")
    server.wait_for("version 1 unloaded (END)",
                    lambda: version_states(server.status()[1]).get(1) == ("END", "OK", ""))
    code, body = server.predict({"instances": x.tolist()}, version=1)
    check(code == 404, f"version 1 is no longer served ({code})")

    # A broken version 3: version 2 keeps serving, the status says why 3 is not.
    broken = os.path.join(WORK, "tmp_broken")
    shutil.rmtree(broken, ignore_errors=True)
    os.makedirs(broken)
    with open(os.path.join(broken, "saved_model.pb"), "wb") as f:
        f.write(b"\x0a\xff\xff not a SavedModel")
    os.rename(broken, os.path.join(base, "3"))
    server.wait_for("version 3 reported as failed",
                    lambda: version_states(server.status()[1]).get(3, ("", "OK"))[1] != "OK")
    states = version_states(server.status()[1])
    check(states.get(2, ("",))[0] == "AVAILABLE" and states.get(3, ("",))[0] == "END",
          f"version 2 keeps serving beside the failed version 3: {states}")
    code, body = server.predict({"instances": x.tolist()})
    check(code == 200 and close(body["predictions"], want2), "predictions still come from version 2")

    rc = server.stop()
    check(rc == 0, f"SIGTERM stops the server with exit status 0 ({rc})")


def module_checks(servers):
    base = os.path.join(WORK, "models", "module")
    m = Module()
    m.scale.assign(3.0)
    tmp = os.path.join(WORK, "tmp_module")
    shutil.rmtree(tmp, ignore_errors=True)
    tf.saved_model.save(m, tmp, signatures={"serving_default": m.transform, "add": m.add})
    os.makedirs(base, exist_ok=True)
    os.rename(tmp, os.path.join(base, "1"))
    d = os.path.join(base, "1")
    x = rng.standard_normal((4, 3)).astype(np.float32)
    want = serving_outputs(d, "serving_default", {"x": x})
    want_add = serving_outputs(d, "add", {"x": np.float32(1.5)})

    server = Server("module", base)
    servers.append(server)
    code, body = server.predict({"instances": x.tolist()})
    preds = body.get("predictions", []) if code == 200 else []
    check(code == 200 and len(preds) == 4 and sorted(preds[0]) == ["scaled", "total"]
          and close([p["scaled"] for p in preds], want["scaled"]) and close([p["total"] for p in preds], want["total"]),
          f"row format with two outputs: one object per example ({code})")
    code, body = server.predict({"inputs": {"x": x.tolist()}})
    check(code == 200 and close(body["outputs"]["scaled"], want["scaled"])
          and close(body["outputs"]["total"], want["total"]), "columnar format with two outputs: an object")
    code, body = server.predict({"signature_name": "add", "inputs": 1.5})
    check(code == 200 and close(body["outputs"], want_add["output_0"]), f"the second signature on a scalar ({body})")
    # Row format stacks instances into a batch, which a scalar input cannot take.
    expect_error(server, "a scalar signature in row format", 400, "input 'x' has shape [1] but signature 'add' wants []",
                 "POST", "/v1/models/module:predict", body={"signature_name": "add", "instances": [1.5]})
    code, body = server.status("/metadata")
    sigs = body["metadata"]["signature_def"]["signature_def"]
    check({"serving_default", "add"} <= set(sigs), f"metadata lists both signatures: {sorted(sigs)}")
    module_grpc_checks(server, x, want, want_add)
    rc = server.stop()
    check(rc == 0, f"SIGTERM stops the module server ({rc})")


def tf1_checks(servers):
    base = os.path.join(WORK, "models", "tf1")
    os.makedirs(base, exist_ok=True)
    run_tf = tf1_model(os.path.join(base, "1"))
    feats = [([1, 2, 3, 4], None), ([0.5, -1, 2, 0], 3), ([0, 0, 0, 1], -2)]
    batch = [example(x, k) for x, k in feats]
    json_examples = [dict({"x": [float(v) for v in x]}, **({"k": k} if k is not None else {})) for x, k in feats]

    server = Server("tf1", base)
    servers.append(server)
    want = run_tf("classify", batch)
    code, body = server.request("POST", "/v1/models/tf1:classify",
                                {"signature_name": "classify", "examples": json_examples})
    ok = code == 200 and len(body["results"]) == 3
    if ok:
        for i, result in enumerate(body["results"]):
            labels = [c[0] for c in result]
            ok = ok and labels == [s.decode() for s in want["classes"][i]] and close([c[1] for c in result],
                                                                                     want["scores"][i])
    check(ok, f"classify gives TensorFlow's labels and scores ({code})")
    want = run_tf("regress", batch)
    code, body = server.request("POST", "/v1/models/tf1:regress", {"signature_name": "regress",
                                                                    "examples": json_examples})
    check(code == 200 and close(body["results"], want["outputs"].reshape(-1)),
          f"regress gives TensorFlow's values ({code})")
    # The context's features go into every example (k from the context where an example has none).
    with_context = [example(x, k if k is not None else 5) for x, k in feats]
    want = run_tf("regress", with_context)
    code, body = server.request("POST", "/v1/models/tf1:regress",
                                {"signature_name": "regress", "context": {"k": 5},
                                 "examples": json_examples})
    check(code == 200 and close(body["results"], want["outputs"].reshape(-1)),
          f"regress with a context ({code})")
    want = run_tf("serving_default", batch)
    code, body = server.predict({"instances": [{"b64": __import__("base64").b64encode(e).decode()} for e in batch]})
    check(code == 200 and close(body["predictions"], want["scores"]),
          f"predict on serialized examples sent as b64 ({code})")
    expect_error(server, "regress on a classify signature", 400, "Expected one output Tensor.", "POST",
                 "/v1/models/tf1:regress", body={"signature_name": "classify", "examples": json_examples})
    expect_error(server, "classify without examples", 400, "When method is classify, key 'examples' is expected",
                 "POST", "/v1/models/tf1:classify", body={"signature_name": "classify"}, exact=False)
    expect_error(server, "classify with an unknown signature", 400, "No signature was found with the name: nope",
                 "POST", "/v1/models/tf1:classify", body={"signature_name": "nope", "examples": json_examples})
    tf1_grpc_checks(server, feats, run_tf)
    rc = server.stop()
    check(rc == 0, f"SIGTERM stops the tf1 server ({rc})")

    # With TensorFlow Serving's --enable_signature_method_name_check, the method decides.
    server = Server("tf1", base, "--enable_signature_method_name_check")
    servers.append(server)
    expect_error(server, "classify on a predict signature (method name check)", 400,
                 "Expected classification signature method_name to be tensorflow/serving/classify. Was: "
                 "tensorflow/serving/predict", "POST", "/v1/models/tf1:classify", body={"examples": json_examples})
    server.stop()


# ------------------------------------------------------------------ the gRPC API

def grpc_apis():
    """TensorFlow Serving's client modules, or None (the gRPC checks are then skipped)."""
    try:
        import grpc
        from tensorflow_serving.apis import (classification_pb2, get_model_metadata_pb2, get_model_status_pb2,
                                             model_service_pb2_grpc, predict_pb2, prediction_service_pb2_grpc,
                                             regression_pb2)
    except ImportError as e:
        print(f"serving_compat: gRPC checks skipped: {e} (bootstrap/install-deps.sh installs tensorflow-serving-api)")
        return None
    return dict(grpc=grpc, predict=predict_pb2, classification=classification_pb2, regression=regression_pb2,
                metadata=get_model_metadata_pb2, status=get_model_status_pb2,
                prediction=prediction_service_pb2_grpc, model=model_service_pb2_grpc)


def grpc_error(call, request, code, text):
    """Whether `call(request)` fails with gRPC status `code` and a message containing `text`."""
    api = grpc_apis()
    try:
        call(request, timeout=60)
    except api["grpc"].RpcError as e:
        return e.code() == code and text in e.details()
    return False


def module_grpc_checks(server, x, want, want_add):
    api = grpc_apis()
    if api is None:
        return
    grpc = api["grpc"]
    channel = grpc.insecure_channel(server.grpc)
    stub = api["prediction"].PredictionServiceStub(channel)
    request = api["predict"].PredictRequest()
    request.model_spec.name = "module"
    request.inputs["x"].CopyFrom(tf.make_tensor_proto(x))
    response = stub.Predict(request, timeout=60)
    check(set(response.outputs) == {"scaled", "total"}
          and close(tf.make_ndarray(response.outputs["scaled"]), want["scaled"])
          and close(tf.make_ndarray(response.outputs["total"]), want["total"])
          and response.model_spec.version.value == 1 and response.model_spec.signature_name == "serving_default",
          "gRPC Predict: both outputs, TensorFlow's values, the version and signature that answered")
    request.output_filter.append("total")
    response = stub.Predict(request, timeout=60)
    check(set(response.outputs) == {"total"} and close(tf.make_ndarray(response.outputs["total"]), want["total"]),
          "gRPC Predict with an output_filter computes only that output")
    scalar = api["predict"].PredictRequest()
    scalar.model_spec.name = "module"
    scalar.model_spec.signature_name = "add"
    scalar.inputs["x"].CopyFrom(tf.make_tensor_proto(np.float32(1.5)))
    response = stub.Predict(scalar, timeout=60)
    check(close(tf.make_ndarray(response.outputs["output_0"]), want_add["output_0"]), "gRPC Predict, second signature")
    meta = api["metadata"].GetModelMetadataRequest()
    meta.model_spec.name = "module"
    meta.metadata_field.append("signature_def")
    response = stub.GetModelMetadata(meta, timeout=60)
    sigs = api["metadata"].SignatureDefMap()
    response.metadata["signature_def"].Unpack(sigs)
    check({"serving_default", "add"} <= set(sigs.signature_def), f"gRPC metadata: {sorted(sigs.signature_def)}")
    status = api["status"].GetModelStatusRequest()
    status.model_spec.name = "module"
    response = api["model"].ModelServiceStub(channel).GetModelStatus(status, timeout=60)
    check(len(response.model_version_status) == 1 and response.model_version_status[0].state == 30
          and response.model_version_status[0].version == 1, "gRPC GetModelStatus: version 1 AVAILABLE")
    # Bad requests, each with TensorFlow Serving's code; the server keeps answering.
    bad = api["predict"].PredictRequest()
    bad.model_spec.name = "nope"
    check(grpc_error(stub.Predict, bad, grpc.StatusCode.NOT_FOUND, "Servable not found for request: Latest(nope)"),
          "gRPC Predict of an unknown model: NOT_FOUND")
    bad.model_spec.name = "module"
    bad.model_spec.signature_name = "nope"
    check(grpc_error(stub.Predict, bad, grpc.StatusCode.INVALID_ARGUMENT, "nope"),
          "gRPC Predict with an unknown signature: INVALID_ARGUMENT")
    bad = api["predict"].PredictRequest()
    bad.model_spec.name = "module"
    bad.inputs["x"].CopyFrom(tf.make_tensor_proto(x.astype(np.int32)))
    check(grpc_error(stub.Predict, bad, grpc.StatusCode.INVALID_ARGUMENT, ""), "gRPC Predict of the wrong dtype")
    request.output_filter[:] = ["nope"]
    check(grpc_error(stub.Predict, request, grpc.StatusCode.INVALID_ARGUMENT, "output tensor alias not found"),
          "gRPC Predict with an output_filter naming no output")
    meta.metadata_field[:] = ["nope"]
    check(grpc_error(stub.GetModelMetadata, meta, grpc.StatusCode.INVALID_ARGUMENT, "is not supported"),
          "gRPC metadata of an unknown field")
    raw = channel.unary_unary("/tensorflow.serving.PredictionService/Predict")
    check(grpc_error(raw, b"\xff\xff\xff", grpc.StatusCode.INVALID_ARGUMENT, "cannot parse"),
          "gRPC Predict of bytes that are no PredictRequest")
    response = stub.Predict(scalar, timeout=60)
    check(close(tf.make_ndarray(response.outputs["output_0"]), want_add["output_0"]), "gRPC still answers after those")
    channel.close()


def tf1_grpc_checks(server, feats, run_tf):
    api = grpc_apis()
    if api is None:
        return
    channel = api["grpc"].insecure_channel(server.grpc)
    stub = api["prediction"].PredictionServiceStub(channel)
    batch = [example(x, k) for x, k in feats]
    request = api["classification"].ClassificationRequest()
    request.model_spec.name = "tf1"
    request.model_spec.signature_name = "classify"
    for e in batch:
        request.input.example_list.examples.add().ParseFromString(e)
    response = stub.Classify(request, timeout=60)
    want = run_tf("classify", batch)
    ok = len(response.result.classifications) == 3
    for i, row in enumerate(response.result.classifications if ok else []):
        ok = ok and [c.label for c in row.classes] == [s.decode() for s in want["classes"][i]] and close(
            [c.score for c in row.classes], want["scores"][i])
    check(ok, "gRPC Classify gives TensorFlow's labels and scores")
    # A context: k from it where an example has none.
    with_context = [example(x, k if k is not None else 5) for x, k in feats]
    want = run_tf("regress", with_context)
    request = api["regression"].RegressionRequest()
    request.model_spec.name = "tf1"
    request.model_spec.signature_name = "regress"
    for e in batch:
        request.input.example_list_with_context.examples.add().ParseFromString(e)
    request.input.example_list_with_context.context.features.feature["k"].int64_list.value.append(5)
    response = stub.Regress(request, timeout=60)
    check(close([r.value for r in response.result.regressions], want["outputs"].reshape(-1)),
          "gRPC Regress with a context gives TensorFlow's values")
    empty = api["regression"].RegressionRequest()
    empty.model_spec.name = "tf1"
    check(grpc_error(stub.Regress, empty, api["grpc"].StatusCode.INVALID_ARGUMENT, "Input is empty"),
          "gRPC Regress without examples")
    channel.close()


def tls_checks(servers):
    """The gRPC API over TLS (--grpc_tls_cert, --grpc_tls_key): a client trusting the
    certificate is answered, a plaintext one is not."""
    api = grpc_apis()
    if api is None:
        return
    cert, key = os.path.join(WORK, "server.pem"), os.path.join(WORK, "server.key")
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                           "-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext",
                           "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert],
                          capture_output=True, text=True)
    if made.returncode != 0:
        check(False, f"openssl made a certificate: {made.stderr[-500:]}")
        return
    server = Server("module", os.path.join(WORK, "models", "module"), "--grpc_tls_cert", cert, "--grpc_tls_key", key)
    servers.append(server)
    grpc = api["grpc"]
    request = api["status"].GetModelStatusRequest()
    request.model_spec.name = "module"
    secure = grpc.secure_channel(server.grpc, grpc.ssl_channel_credentials(root_certificates=open(cert, "rb").read()))
    response = api["model"].ModelServiceStub(secure).GetModelStatus(request, timeout=60)
    check(len(response.model_version_status) == 1, "gRPC over TLS: a client trusting the certificate is answered")
    plain = grpc.insecure_channel(server.grpc)
    check(grpc_error(api["model"].ModelServiceStub(plain).GetModelStatus, request, grpc.StatusCode.UNAVAILABLE, ""),
          "gRPC over TLS: a plaintext client is not answered")
    secure.close()
    plain.close()
    server.stop()


def bfloat16_checks(servers):
    # --bfloat16_products: float products in bfloat16 where the CPU has the units (about 1e-2
    # from float's results), float's results where it has not.
    base = os.path.join(WORK, "models", "mlp_bf16")
    save_version(keras_mlp(3), base, 1)
    d1 = os.path.join(base, "1")
    key = next(iter(tf.saved_model.load(d1).signatures["serving_default"].structured_input_signature[1]))
    x = rng.standard_normal((64, 12)).astype(np.float32)
    want = serving_outputs(d1, "serving_default", {key: x})
    (out_key,) = want.keys()
    server = Server("mlp_bf16", base, "--bfloat16_products")
    servers.append(server)
    code, body = server.predict({"instances": x.tolist()})
    check(code == 200 and close(body["predictions"], want[out_key], rtol=3e-2, atol=3e-2),
          f"--bfloat16_products serves predictions within bfloat16's precision of TensorFlow's ({code})")
    server.stop()


def int8_checks(servers):
    # --int8_products: the convolutions multiply in 8-bit integers (dynamic quantization)
    # where oneDNN has integer kernels for the CPU: predictions within the quantization's
    # error of TensorFlow's; float's results elsewhere.
    tf.keras.utils.set_random_seed(5)
    model = tf.keras.Sequential([tf.keras.Input((8, 8, 4)),
                                 tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
                                 tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
                                 tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(4)])
    base = os.path.join(WORK, "models", "cnn_int8")
    save_version(model, base, 1)
    d1 = os.path.join(base, "1")
    key = next(iter(tf.saved_model.load(d1).signatures["serving_default"].structured_input_signature[1]))
    x = rng.uniform(0, 1, (16, 8, 8, 4)).astype(np.float32)
    want = serving_outputs(d1, "serving_default", {key: x})
    (out_key,) = want.keys()
    server = Server("cnn_int8", base, "--int8_products")
    servers.append(server)
    code, body = server.predict({"instances": x.tolist()})
    scale = float(np.max(np.abs(want[out_key])))
    check(code == 200 and close(body["predictions"], want[out_key], rtol=0, atol=3e-2 * scale),
          f"--int8_products serves predictions within the quantization's error of TensorFlow's ({code})")
    server.stop()


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    servers = []
    try:
        mlp_checks(servers)
        module_checks(servers)
        tf1_checks(servers)
        tls_checks(servers)
        bfloat16_checks(servers)
        int8_checks(servers)
    finally:
        for s in servers:
            s.kill()
    if check.failures:
        check.summary()
        for s in servers:
            tail = "".join(s.stderr)[-3000:]
            if tail:
                print(f"--- tensoract-serve {s.name} stderr (tail):\n{tail}")
        sys.exit(1)
    sys.exit(check.summary())


if __name__ == "__main__":
    main()
