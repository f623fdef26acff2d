#!/usr/bin/env python3
"""tensoract-node and tensoract-inspect as real processes on loopback.

Usage: node_process_test.py TENSORACT_NODE TENSORACT_INSPECT WORK_DIR

Starts nodes on ephemeral ports (port 0 in the cluster spec; the port is read from the
ready line), inspects them with the right and a wrong cluster token, starts a second node
on a port in use, and stops nodes with SIGTERM. Every wait has a deadline, so a hang fails
the test instead of blocking CI; every node started is killed on the way out.
"""
import os
import re
import selectors
import signal
import subprocess
import sys
import time

FAILURES = []
NODES = []
READY = re.compile(r"^tensoract-node ready: (\S+) on ([^ ]+):(\d+); data plane: (\S+)$")
DEADLINE_S = 20  # any single step; a healthy one takes well under a second


def check(what, condition, detail=""):
    if not condition:
        FAILURES.append(f"{what}: {detail}")
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    return condition


def start_node(node, work, name, *args, env=None):
    """Starts a node; its stdout is a pipe (for the ready line), its stderr a file."""
    err = open(os.path.join(work, name + ".stderr"), "w+")
    proc = subprocess.Popen([node, *args], stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    proc.stderr_file = err
    NODES.append(proc)
    return proc


def wait_ready(proc, deadline_s=DEADLINE_S):
    """The ready line's (task, host, port), or None if the node exits or the deadline passes."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if not sel.select(timeout=max(0.0, end - time.monotonic())):
            break
        line = proc.stdout.readline()
        if not line:
            return None  # exited before it was ready
        m = READY.match(line.rstrip("\n"))
        if m:
            return m.group(1), m.group(2), int(m.group(3))
    return None


def node_stderr(proc):
    proc.stderr_file.flush()
    with open(proc.stderr_file.name) as f:
        return f.read()


def wait_for_log(proc, text, deadline_s=DEADLINE_S):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if text in node_stderr(proc):
            return True
        time.sleep(0.05)
    return False


def run(*args, env=None, timeout=DEADLINE_S):
    """(exit code, stdout, stderr, seconds); exit code None when the deadline passed."""
    t0 = time.monotonic()
    try:
        out = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, env=env)
        return out.returncode, out.stdout, out.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or "", e.stderr or "", time.monotonic() - t0


def stop(proc, deadline_s=5):
    """Sends SIGTERM; the exit code, or None when the node outlived the deadline."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        return None


def env_with(**extra):
    env = {k: v for k, v in os.environ.items() if k != "TENSORACT_CLUSTER_TOKEN"}
    env.update(extra)
    return env


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    node, inspect, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    token = os.path.join(work, "cluster.token")
    wrong = os.path.join(work, "wrong.token")
    with open(token, "w") as f:
        f.write("correct horse battery staple\n")
    with open(wrong, "w") as f:
        f.write("incorrect horse\n")
    clean = env_with()
    cluster = "ps = 127.0.0.1:1 ; worker = 127.0.0.1:2, 127.0.0.1:0"

    # A node from flags, on an ephemeral port.
    a = start_node(node, work, "a", "--cluster", cluster, "--job", "worker", "--task", "1",
                   "--token-file", token, "--threads", "2", env=clean)
    ready = wait_ready(a)
    if not check("node prints its ready line", ready is not None,
                 f"exit {a.poll()}, stderr: {node_stderr(a)}"):
        return
    task, host, port = ready
    check("the ready line names the task and loopback", task == "/job:worker/replica:0/task:1"
          and host == "127.0.0.1" and port > 0, str(ready))
    address = f"127.0.0.1:{port}"

    rc, out, err, secs = run(inspect, address, "--token-file", token, env=clean)
    check("inspect with the cluster token prints the worker's state", rc == 0
          and "worker /job:worker/replica:0/task:1" in out and "device:CPU:0" in out,
          f"rc {rc}, out {out!r}, err {err!r}")

    rc, out, err, secs = run(inspect, address, env=env_with(TENSORACT_CLUSTER_TOKEN="correct horse battery staple"))
    check("inspect takes the token from TENSORACT_CLUSTER_TOKEN", rc == 0 and task in out,
          f"rc {rc}, err {err!r}")

    rc, out, err, secs = run(inspect, address, "--token-file", wrong, env=clean)
    check("inspect with a wrong token is refused", rc not in (0, None)
          and "refused: wrong cluster token" in err and out == "", f"rc {rc}, out {out!r}, err {err!r}")
    check("the node logs the refusal with the peer's address",
          wait_for_log(a, "refused a control connection from 127.0.0.1"), node_stderr(a))

    rc, out, err, secs = run(inspect, address, env=clean)
    check("inspect without any token says so", rc not in (0, None) and "no cluster token" in err,
          f"rc {rc}, err {err!r}")

    # A port in use: another node on the same one fails with a clear message, soon.
    b = start_node(node, work, "b", "--cluster", f"worker=127.0.0.1:{port}", "--job", "worker",
                   "--task", "0", "--token-file", token, env=clean)
    try:
        rc_b = b.wait(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        rc_b = None
    check("a second node on the same port exits non-zero", rc_b not in (0, None), f"rc {rc_b}")
    check("... saying it cannot listen there", f"cannot listen on 127.0.0.1:{port}" in node_stderr(b),
          node_stderr(b))

    # The same task from a config file (flags win over it: --listen here).
    conf = os.path.join(work, "worker0.conf")
    with open(conf, "w") as f:
        f.write("# one worker\ncluster = worker=127.0.0.1:0\njob = worker\ntask = 0\n"
                "token_file = cluster.token   # next to this file\nlisten = 0.0.0.0\n")
    c = start_node(node, work, "c", "--config", conf, "--listen", "127.0.0.1", env=clean)
    ready_c = wait_ready(c)
    check("a node from a config file gets ready", ready_c is not None
          and ready_c[0] == "/job:worker/replica:0/task:0" and ready_c[1] == "127.0.0.1",
          f"{ready_c}, stderr: {node_stderr(c)}")
    if ready_c:
        rc, out, err, secs = run(inspect, f"127.0.0.1:{ready_c[2]}", "--token-file", token, env=clean)
        check("... and answers inspect", rc == 0 and "/job:worker/replica:0/task:0" in out, err)
        # A frozen node (SIGSTOP): inspect gives up at its deadline instead of hanging.
        c.send_signal(signal.SIGSTOP)
        rc, out, err, secs = run(inspect, f"127.0.0.1:{ready_c[2]}", "--token-file", token,
                                 "--timeout-ms", "1000", env=clean)
        c.send_signal(signal.SIGCONT)
        check("inspect of a frozen node fails at its deadline", rc == 1 and "DEADLINE_EXCEEDED" in err
              and secs < 8, f"rc {rc} after {secs:.2f}s, err {err!r}")

    # SIGTERM: a clean exit, soon.
    t0 = time.monotonic()
    rc_a = stop(a)
    check("SIGTERM stops the node with exit 0 within 5 s", rc_a == 0,
          f"rc {rc_a} after {time.monotonic() - t0:.2f}s, stderr: {node_stderr(a)}")
    check("SIGTERM also stops the config-file node", stop(c) == 0, node_stderr(c))

    # Nothing listening: inspect fails quickly instead of hanging.
    rc, out, err, secs = run(inspect, address, "--token-file", token, "--timeout-ms", "2000", env=clean)
    check("inspect of a stopped node fails within its deadline", rc not in (0, None)
          and "UNAVAILABLE" in err and secs < 10, f"rc {rc} after {secs:.2f}s, err {err!r}")

    # A port that accepts and never speaks BASP: inspect gives up at its deadline.
    import socket
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(1)
    rc, out, err, secs = run(inspect, f"127.0.0.1:{mute.getsockname()[1]}", "--token-file", token,
                             "--timeout-ms", "1000", env=clean)
    mute.close()
    check("inspect of a port that never answers fails at its deadline", rc not in (0, None)
          and secs < 8, f"rc {rc} after {secs:.2f}s, err {err!r}")

    # Refusing to start: no token, bad spec, task out of range, bad flag.
    cases = [
        ("no token", ["--cluster", "worker=127.0.0.1:0", "--job", "worker", "--task", "0"], 1,
         "refusing to start: FAILED_PRECONDITION: no cluster token"),
        ("a spec without a port", ["--cluster", "worker=127.0.0.1", "--job", "worker", "--task", "0"], 2,
         "job 'worker', task 0: '127.0.0.1' has no port"),
        ("a bad port number", ["--cluster", "worker=127.0.0.1:99999", "--job", "worker", "--task", "0"], 2,
         "bad port '99999'"),
        ("a duplicate job", ["--cluster", "worker=h:1;worker=h:2", "--job", "worker", "--task", "0"], 2,
         "job 'worker' appears twice"),
        ("a task out of range", ["--cluster", "worker=h:1", "--job", "worker", "--task", "1"], 2,
         "task 1 of job 'worker' is out of range"),
        ("an unknown flag", ["--cluster", "worker=h:1", "--jbo", "worker"], 2, "unknown flag '--jbo'"),
        ("an IPv6 address to listen on", ["--cluster", "worker=h:1", "--job", "worker", "--task", "0",
                                          "--listen", "::1"], 2, "--listen: '::1' is not an IPv4 address"),
        ("a host name to listen on", ["--cluster", "worker=h:1", "--job", "worker", "--task", "0",
                                      "--listen", "localhost"], 2, "--listen: 'localhost' is not an IPv4 address"),
        ("0.0.0.0 to announce", ["--cluster", "worker=h:1", "--job", "worker", "--task", "0", "--listen", "0.0.0.0",
                                 "--advertise", "0.0.0.0"], 2, "--advertise: '0.0.0.0' is not an address peers"),
    ]
    for what, args, want_rc, want_err in cases:
        rc, out, err, secs = run(node, *args, env=clean)
        check(f"a node with {what} refuses to start", rc == want_rc and want_err in err and out == "",
              f"rc {rc}, err {err!r}")

    # An address that is not this host's (TEST-NET-1): the data plane cannot listen, and the
    # node refuses to start rather than run without one.
    rc, out, err, secs = run(node, "--cluster", "worker=127.0.0.1:0", "--job", "worker", "--task", "0",
                             "--listen", "192.0.2.1", "--token-file", token, env=clean)
    check("a node that cannot listen where told refuses to start", rc == 1 and "refusing to start" in err
          and "192.0.2.1" in err and out == "", f"rc {rc}, err {err!r}")


if __name__ == "__main__":
    try:
        main()
    finally:
        for proc in NODES:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    if FAILURES:
        print(f"{len(FAILURES)} failed:\n" + "\n".join(FAILURES))
        sys.exit(1)
    print("all passed")
