"""What the compat scripts share: TensorFlow imported or the test skipped, and checks counted.

    from compat_util import Checks, skip_without
    with skip_without("tensorflow"):
        import tensorflow as tf
    check = Checks()
    check(ours == theirs, "the same loss")
    sys.exit(check.summary())
"""
import contextlib
import json
import os
import re
import socket
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # before TensorFlow loads: its start-up chatter off

SKIPPED = 77  # the scripts' ctest SKIP_RETURN_CODE


@contextlib.contextmanager
def skip_without(what="tensorflow", hint="bootstrap/install-deps.sh installs tensorflow-cpu"):
    """Imports in the block that fail end the script as skipped, saying what is missing."""
    try:
        yield
    except ImportError as e:
        print(f"SKIPPED: {what} cannot be imported ({e}); {hint}", flush=True)
        sys.exit(SKIPPED)


def free_ports(n):
    """n distinct ports nothing listens on now: each socket is held until all are bound
    (released one by one, the kernel can hand out the same port twice)."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Checks:
    """check(condition, what) prints "ok" or "FAIL" and what, and keeps the failures."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what, detail=""):
        condition = bool(condition)
        shown = f"{what}: {detail}" if detail and not condition else what
        print(("ok   " if condition else "FAIL ") + shown, flush=True)
        if not condition:
            self.failures.append(shown)
        return condition

    def summary(self, passed="all checks passed"):
        """Prints the outcome; the script's exit status (1 when a check failed)."""
        if self.failures:
            print(f"{len(self.failures)} check(s) failed:")
            for f in self.failures:
                print("  " + f)
            return 1
        print(passed)
        return 0


def run_saved_model_signature(run, model_dir, signature, inputs, feed_dir, tag_set="serve", timeout=300):
    """Runs one SavedModel signature through tensoract-run (`run`); inputs {key: np.ndarray,
    or a list of bytes for a string tensor}, written as TensorProto files into feed_dir.
    Returns (code, {output key: np.ndarray}) or (code, message): the step's error code, the
    load error's (tensoract-run prints it on stderr and exits 1), TIMEOUT or CRASH."""
    import numpy as np  # the callers' imports, after skip_without
    import tensorflow as tf
    args = [run, "--saved-model", model_dir, "--signature", signature, "--tag-set", tag_set, "--json"]
    for i, (key, value) in enumerate(inputs.items()):
        path = os.path.join(feed_dir, f"feed_{i}.pb")
        dtype = tf.string if isinstance(value, list) else None
        with open(path, "wb") as f:
            f.write(tf.make_tensor_proto(value, dtype=dtype).SerializeToString())
        args += ["--feed-proto", f"{key}={path}"]
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", f"tensoract-run took over {timeout} s"
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if not lines:
        m = re.search(r"^tensoract-run: ([A-Z_]+): (.*)$", p.stderr, re.M)
        if p.returncode == 1 and m:
            return m.group(1), m.group(2)
        return "CRASH", f"exit {p.returncode}: {p.stderr.strip()[-500:]}"
    step = json.loads(lines[0])
    if step["code"] != "OK":
        return step["code"], step.get("message", "")
    out = {}
    for f in step["fetches"]:
        values = f["values"]
        if f["dtype"] == "string":
            out[f["name"]] = np.array([v.encode("latin-1") if isinstance(v, str) else v for v in values],
                                      dtype=object).reshape(f["shape"])
        else:
            out[f["name"]] = np.array(values, dtype=np.float64).reshape(f["shape"])
    return "OK", out
