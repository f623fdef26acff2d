#!/usr/bin/env python3
"""TensorFlow's own Python client drives tensoract-node over gRPC, unchanged, with TensorFlow's
results.

Usage: tf_grpc_client_compat.py TENSORACT_NODE WORK_DIR

Starts tensoract-node processes with --grpc-master (token mode, loopback) and runs
tf.compat.v1 programs against them with tf.compat.v1.Session("grpc://127.0.0.1:PORT"):
list_devices, variables and their initializer, training steps of a small regression,
a FIFOQueue fed by a QueueRunner, a Saver's save and restore (and TensorFlow restoring what
tensoract saved), partial_run, make_callable, errors raised as TensorFlow's exception
classes, reset,
and a two-task cluster (a ps holding the variables, the client on the worker's master).
Each program also runs in TensorFlow itself (a local Session); values must match within
1e-5. Bad requests (garbage bytes, an unknown method, an oversized message) sent with
grpcio get gRPC's status codes, and the node keeps serving.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import os
import shutil
import subprocess
import sys
import time

from compat_util import free_ports

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

try:
    import numpy as np
    import tensorflow as tf
    import grpc
except ImportError as e:
    print("tf_grpc_client_compat: skipped: %s" % e)
    sys.exit(77)

tf1 = tf.compat.v1
tf1.disable_eager_execution()
TOKEN = "tf-grpc-client-compat-token-0123456789abcdef"


class Nodes:
    """tensoract-node processes of one cluster; each task serves gRPC on a port of its own."""

    def __init__(self, node_bin, work, jobs, extra=()):
        self.procs = []
        names = [(job, i) for job, n in jobs for i in range(n)]
        ports = free_ports(2 * len(names))
        spec = ";".join("%s=%s" % (job, ",".join("127.0.0.1:%d" % ports[names.index((job, i))] for i in range(n)))
                        for job, n in jobs)
        self.grpc = {}
        env = dict(os.environ, TENSORACT_CLUSTER_TOKEN=TOKEN)
        for k, (job, i) in enumerate(names):
            grpc_port = ports[len(names) + k]
            log = open(os.path.join(work, "%s%d.log" % (job, i)), "w")
            self.procs.append(subprocess.Popen(
                [node_bin, "--cluster", spec, "--job", job, "--task", str(i), "--threads", "2",
                 "--grpc-master", str(grpc_port), *extra], stdout=log, stderr=subprocess.STDOUT, env=env))
            self.grpc[(job, i)] = "grpc://127.0.0.1:%d" % grpc_port
        self.logs = [os.path.join(work, "%s%d.log" % name) for name in names]
        deadline = time.time() + 30
        for log in self.logs:
            while "ready" not in open(log).read():
                if time.time() > deadline or any(p.poll() is not None for p in self.procs):
                    self.stop()
                    sys.exit("tf_grpc_client_compat: a node did not start:\n" + open(log).read())
                time.sleep(0.05)

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def close(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-5, atol=1e-5):
        sys.exit("tf_grpc_client_compat: %s differs:\ntensoract  %s\ntensorflow %s" % (what, a, b))


def training(target, ps_device=None):
    """A linear regression trained for 20 steps; losses and final weights."""
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(0)
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        y = tf1.placeholder(tf.float32, [None, 1], name="y")
        with tf.device(ps_device):
            w = tf1.get_variable("w", initializer=tf.constant([[0.1], [-0.2], [0.3]]))
            b = tf1.get_variable("b", initializer=tf.constant([0.0]))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
        xs = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
        ys = (xs @ np.array([[1.0], [2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)
        with tf1.Session(target, graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            losses = [sess.run([loss, train], {x: xs, y: ys})[0] for _ in range(20)]
            return {"losses": losses, "w": sess.run(w), "b": sess.run(b)}


def queues(target):
    """A FIFOQueue filled by a QueueRunner thread, drained by dequeue_many."""
    g = tf.Graph()
    with g.as_default():
        q = tf1.FIFOQueue(32, [tf.float32], shapes=[[2]])
        counter = tf1.get_variable("counter", initializer=tf.constant(0.0), use_resource=False)
        bump = tf1.assign_add(counter, 1.0)
        enqueue = q.enqueue(tf.stack([bump, bump * 10]))
        # One enqueuing thread: with two, TensorFlow's own run races on the ref variable's
        # read (it dequeued 4 twice and no 3 in one CI run), so the rows are not comparable.
        qr = tf1.train.QueueRunner(q, [enqueue])
        batch = q.dequeue_many(6)
        with tf1.Session(target, graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            coord = tf1.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            got = np.concatenate([sess.run(batch) for _ in range(3)])
            coord.request_stop()
            sess.run(q.close(cancel_pending_enqueues=True))
            coord.join(threads, stop_grace_period_secs=10)
            return {"rows": np.sort(got[:, 1] / 10.0), "pairs_agree": np.allclose(got[:, 0] * 10, got[:, 1])}


def saver(target, path):
    """Saves variables, changes them, restores them; returns the three readings."""
    g = tf.Graph()
    with g.as_default():
        v = tf1.get_variable("v", initializer=tf.constant([1.0, 2.0, 3.0]))
        step = tf1.get_variable("step", initializer=tf.constant(7, tf.int64))
        change = tf.group(tf1.assign(v, v * 10), tf1.assign_add(step, 1))
        s = tf1.train.Saver()
        with tf1.Session(target, graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            saved = s.save(sess, path)
            sess.run(change)
            changed = sess.run([v, step])
            s.restore(sess, saved)
            return {"changed_v": changed[0], "changed_step": changed[1], "restored": sess.run(v),
                    "restored_step": sess.run(step), "prefix": saved}


def restore_in_tensorflow(prefix):
    g = tf.Graph()
    with g.as_default():
        v = tf1.get_variable("v", shape=[3])
        step = tf1.get_variable("step", shape=[], dtype=tf.int64)
        with tf1.Session(graph=g) as sess:
            tf1.train.Saver().restore(sess, prefix)
            return sess.run([v, step])


def callables(target):
    g = tf.Graph()
    with g.as_default():
        a = tf1.placeholder(tf.float32, [None], name="a")
        b = tf1.placeholder(tf.float32, [None], name="b")
        out = tf.add(a * 2.0, b, name="out")
        with tf1.Session(target, graph=g) as sess:
            f = sess.make_callable([out, a], [a, b])
            return [f(np.array([1, 2], np.float32), np.array([10, 20], np.float32)) for _ in range(3)]


def partial_runs(target):
    """A partial run: a random draw fetched first, then values computed from it and feeds."""
    g = tf.Graph()
    with g.as_default():
        a = tf1.placeholder(tf.float32, [2], name="a")
        b = tf1.placeholder(tf.float32, [2], name="b")
        r = tf.random.uniform([2], name="r")
        c = tf.add(a, r, name="c")
        d = tf.multiply(c, b, name="d")
        with tf1.Session(target, graph=g) as sess:
            h = sess.partial_run_setup([r, c, d], [a, b])
            first = sess.partial_run(h, r)
            second = sess.partial_run(h, c, feed_dict={a: [10.0, 20.0]})
            third = sess.partial_run(h, d, feed_dict={b: [2.0, 3.0]})
            expect_error(tf.errors.InvalidArgumentError, lambda: sess.partial_run(h, d), "",
                         "a partial run after its last fetch")
            return {"c_minus_r": second - first, "d_over_c": third / second}


def expect_error(cls, fn, words, what):
    try:
        fn()
    except cls as e:
        if words not in str(e):
            sys.exit("tf_grpc_client_compat: %s: the error does not say '%s': %s" % (what, words, e))
        return
    except Exception as e:  # noqa: BLE001 -- any other class is the failure reported
        sys.exit("tf_grpc_client_compat: %s raised %s, not %s: %s" % (what, type(e).__name__, cls.__name__, e))
    sys.exit("tf_grpc_client_compat: %s did not fail" % what)


def errors_and_reset(target):
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [2], name="x")
        v = tf1.get_variable("kept", initializer=tf.constant(5.0))
        with tf.control_dependencies([tf1.assert_positive(x, message="x has bad values")]):
            checked = tf.identity(x)
        with tf1.Session(target, graph=g) as sess:
            sess.run(v.initializer)
            expect_error(tf.errors.InvalidArgumentError, lambda: sess.run(checked, {x: [1.0, -2.0]}),
                         "x has bad values", "a failing Assert")
            expect_error(ValueError, lambda: sess.run(checked, {x: [1.0, 2.0, 3.0]}), "shape", "a feed of the wrong shape")
            h = sess.partial_run_setup([checked], [x])
            expect_error(tf.errors.InvalidArgumentError, lambda: sess.partial_run(h, checked),
                         "can't be computed from the feeds", "a partial run's fetch before its feed")
            close(sess.run(v), 5.0, "a variable before reset")
    tf1.Session.reset(target)
    with g.as_default():
        with tf1.Session(target, graph=g) as sess:
            expect_error(tf.errors.FailedPreconditionError, lambda: sess.run(v), "kept", "a variable after reset")


def bad_requests(address):
    """Raw gRPC calls a TensorFlow client would never send."""
    channel = grpc.insecure_channel(address, options=[("grpc.max_send_message_length", 1 << 30)])
    raw = lambda method: channel.unary_unary(method, request_serializer=None, response_deserializer=None)
    cases = [("/tensorflow.MasterService/RunStep", b"\xff\xff\xff\xff", grpc.StatusCode.INVALID_ARGUMENT),
             ("/tensorflow.MasterService/CloseSession", b"\x0a\x03abc", grpc.StatusCode.ABORTED),
             ("/tensorflow.WorkerService/RegisterGraph", b"", grpc.StatusCode.UNIMPLEMENTED),
             ("/tensorflow.MasterService/CreateSession", b"\x0a" + b"\x80" * 5, grpc.StatusCode.INVALID_ARGUMENT),
             ("/tensorflow.MasterService/RunStep", b"\x0a" + b"x" * (300 << 20), grpc.StatusCode.RESOURCE_EXHAUSTED)]
    for method, body, code in cases:
        try:
            raw(method)(body, timeout=30)
        except grpc.RpcError as e:
            if e.code() != code:
                sys.exit("tf_grpc_client_compat: %s with %d bytes: %s, not %s (%s)" %
                         (method, len(body), e.code(), code, e.details()))
            continue
        sys.exit("tf_grpc_client_compat: %s with %d bytes succeeded" % (method, len(body)))
    channel.close()


def expect_refused(channel, who):
    """ListDevices on `channel` must fail UNAVAILABLE: the TLS handshake refused `who`."""
    import grpc
    try:
        channel.unary_unary("/tensorflow.MasterService/ListDevices")(b"", timeout=30)
        sys.exit("tf_grpc_client_compat: %s was answered" % who)
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.UNAVAILABLE:
            sys.exit("tf_grpc_client_compat: %s got %s, not UNAVAILABLE" % (who, e.code()))


def tls_master(node_bin, work):
    """--grpc-tls-cert/--grpc-tls-key: a client trusting the certificate is answered (TensorFlow's
    own client speaks plaintext only; grpcio's raw call stands in), a plaintext one is not; with
    --grpc-tls-ca, only a client presenting a certificate that CA signed."""
    cert, key = os.path.join(work, "master.pem"), os.path.join(work, "master.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    nodes = Nodes(node_bin, work, [("worker", 1)], extra=("--grpc-tls-cert", cert, "--grpc-tls-key", key))
    try:
        address = nodes.grpc[("worker", 0)][len("grpc://"):]
        secure = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=open(cert, "rb").read()))
        devices = secure.unary_unary("/tensorflow.MasterService/ListDevices")(b"", timeout=30)
        if b"/job:worker/replica:0/task:0/device:CPU:0" not in devices:
            sys.exit("tf_grpc_client_compat: ListDevices over TLS: %r" % devices[:200])
        expect_refused(grpc.insecure_channel(address), "a plaintext client of a TLS master")
    finally:
        nodes.stop()

    # --grpc-tls-ca: mutual TLS, for clients that can present a certificate the CA signed.
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    certs = os.path.join(work, "grpc_certs")
    subprocess.run(["bash", os.path.join(repo, "bootstrap", "make-cluster-certs.sh"), certs, "master", "client"],
                   check=True, capture_output=True)
    pem = lambda name: open(os.path.join(certs, name), "rb").read()
    nodes = Nodes(node_bin, work, [("worker", 1)],
                  extra=("--grpc-tls-cert", os.path.join(certs, "master.pem"), "--grpc-tls-key",
                         os.path.join(certs, "master.key"), "--grpc-tls-ca", os.path.join(certs, "ca.pem")))
    try:
        address = nodes.grpc[("worker", 0)][len("grpc://"):]
        name = [("grpc.ssl_target_name_override", "master")]  # the certificate names the task, not the address
        member = grpc.secure_channel(address, grpc.ssl_channel_credentials(pem("ca.pem"), pem("client.key"),
                                                                           pem("client.pem")), options=name)
        devices = member.unary_unary("/tensorflow.MasterService/ListDevices")(b"", timeout=30)
        if b"/job:worker/replica:0/task:0/device:CPU:0" not in devices:
            sys.exit("tf_grpc_client_compat: ListDevices over mutual TLS: %r" % devices[:200])
        anonymous = grpc.secure_channel(address, grpc.ssl_channel_credentials(pem("ca.pem")), options=name)
        expect_refused(anonymous, "a client without a certificate of a mutual-TLS master")
    finally:
        nodes.stop()


def main():
    node_bin, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    nodes = Nodes(node_bin, work, [("worker", 1)])
    try:
        target = nodes.grpc[("worker", 0)]
        g = tf.Graph()
        with g.as_default(), tf1.Session(target, graph=g) as sess:
            devices = [d.name for d in sess.list_devices()]
        if devices != ["/job:worker/replica:0/task:0/device:CPU:0"]:
            sys.exit("tf_grpc_client_compat: list_devices: %s" % devices)

        ours, theirs = training(target), training("")
        close(ours["losses"], theirs["losses"], "training losses")
        close(ours["w"], theirs["w"], "trained weights")
        close(ours["b"], theirs["b"], "trained bias")

        ours, theirs = queues(target), queues("")
        if not ours["pairs_agree"]:
            sys.exit("tf_grpc_client_compat: a dequeued row's two values come from different enqueues")
        close(ours["rows"], theirs["rows"], "rows dequeued")

        ours = saver(target, os.path.join(work, "ckpt", "model"))
        theirs = saver("", os.path.join(work, "tf_ckpt", "model"))
        for key in ("changed_v", "changed_step", "restored", "restored_step"):
            close(ours[key], theirs[key], "saver: " + key)
        restored = restore_in_tensorflow(ours["prefix"])
        close(restored[0], theirs["restored"], "TensorFlow restoring tensoract's checkpoint")
        close(restored[1], theirs["restored_step"], "TensorFlow restoring tensoract's checkpoint (step)")

        ours, theirs = partial_runs(target), partial_runs("")
        close(ours["c_minus_r"], theirs["c_minus_r"], "a partial run's feed plus its earlier draw")
        close(ours["d_over_c"], theirs["d_over_c"], "a partial run's last fetch")

        for a, b in zip(callables(target), callables("")):
            close(a[0], b[0], "a callable's first fetch")
            close(a[1], b[1], "a callable's second fetch")

        errors_and_reset(target)
        bad_requests(target[len("grpc://"):])
        # Still serving after all of that.
        close(training(target)["w"], training("")["w"], "training after bad requests")
    finally:
        nodes.stop()

    nodes = Nodes(node_bin, work, [("ps", 1), ("worker", 1)])
    try:
        ours = training(nodes.grpc[("worker", 0)], ps_device="/job:ps/task:0")
        theirs = training("")
        close(ours["losses"], theirs["losses"], "training with the variables on a ps")
        close(ours["w"], theirs["w"], "weights trained on a ps")
    finally:
        nodes.stop()
    tls_master(node_bin, work)
    print("tf_grpc_client_compat: passed (list_devices, training, queue runners, Saver, partial runs, callables, errors, "
          "reset, bad requests, ps + worker, TLS)")


if __name__ == "__main__":
    main()
