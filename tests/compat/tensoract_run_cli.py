#!/usr/bin/env python3
"""tensoract-run's command line and output, the interface tf_graph_compat.py relies on.

Usage: tensoract_run_cli.py TENSORACT_RUN DATA_DIR

Needs no TensorFlow: runs the hand-written TF 1.x graphs of tests/data (whose values
TensorFlow confirms in tf_graph_compat.py) through several steps on one session, with
typed feeds, --json and --keep-going, and checks exit codes and errors for bad command
lines and bad graphs.
"""
import json
import os
import subprocess
import sys
import tempfile

FAILURES = []


def run(tool, *args):
    out = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout, out.stderr


def check(what, condition, detail=""):
    if not condition:
        FAILURES.append(f"{what}: {detail}")
    print(("ok   " if condition else "FAIL ") + what)


def json_steps(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tool, data = sys.argv[1], sys.argv[2]
    ref = os.path.join(data, "tf1_variables.pbtxt")
    res = os.path.join(data, "tf1_resource_variables.pbtxt")

    # The single-step form of the first version keeps working.
    rc, out, err = run(tool, "--graph", os.path.join(data, "matmul_add.pbtxt"), "--feed", "x=1,1,2,0@2x2",
                       "--fetch", "y")
    check("single step", rc == 0 and out == "y = Tensor<type: float shape: [2,2] values: [[14 26][12 24]]>\n",
          out + err)

    # Several steps on one session: the variable keeps its value between them.
    rc, out, err = run(tool, "--graph", ref, "--json", "--run", "target=init", "--run", "fetch=inc:0",
                       "--run", "target=inc", "--run", "feed=x=1,1,2,0@2x2 fetch=w/read:0,y fetch=IsVariableInitialized")
    steps = json_steps(out) if rc == 0 else []
    check("steps share a session", rc == 0 and len(steps) == 4, out + err)
    if len(steps) == 4:
        check("a target-only step fetches nothing", steps[0] == {"run": 0, "code": "OK", "fetches": []}, steps[0])
        check("assign_add's output is the new value", steps[1]["fetches"][0]["values"] == [2, 3, 4, 5], steps[1])
        w, y, inited = steps[3]["fetches"]
        check("the second update is seen", w == {"name": "w/read:0", "dtype": "float", "shape": [2, 2],
                                                 "values": [3, 4, 5, 6]}, w)
        check("y = x.w + b", y["values"] == [8.5, 9.5, 6.5, 7.5] and y["shape"] == [2, 2], y)
        check("bool fetches are JSON booleans", inited["values"] == [True] and inited["shape"] == [], inited)

    # Without --keep-going the first failing step ends the sequence, with exit status 1.
    rc, out, err = run(tool, "--graph", ref, "--json", "--run", "fetch=w/read", "--run", "target=init")
    steps = json_steps(out)
    check("a failing step stops the sequence", rc == 1 and len(steps) == 1 and
          steps[0]["code"] == "FAILED_PRECONDITION" and "w" in steps[0]["message"], out + err)
    # With --keep-going every step runs; the exit status still reports the failure.
    rc, out, err = run(tool, "--graph", ref, "--json", "--keep-going", "--run", "fetch=w/read",
                       "--run", "target=init", "--run", "fetch=w/read")
    steps = json_steps(out)
    check("--keep-going", rc == 1 and [s["code"] for s in steps] == ["FAILED_PRECONDITION", "OK", "OK"] and
          steps[2]["fetches"][0]["values"] == [1, 2, 3, 4] and "1 of 3 steps failed" in err, out + err)
    # Plain output names the step.
    rc, out, err = run(tool, "--graph", ref, "--run", "target=init", "--run", "fetch=b/read")
    check("plain output with --run", rc == 0 and out == "run 1: b/read = Tensor<type: float shape: [2] "
          "values: [0.5 -0.5]>\n", out + err)

    # Typed feeds, scalars, full precision, int64 beyond 2^53.
    rc, out, err = run(tool, "--graph", res, "--json", "--run", "target=init",
                       "--run", "feed=count/Read/ReadVariableOp=int64:9007199254740993@ "
                       "feed=x=0.1,0.2,1e-30,-3.4028235e38@2x2 feed=y/ReadVariableOp=1,0,0,1@2x2 "
                       "fetch=count/Read/ReadVariableOp,y")
    steps = json_steps(out)
    check("typed and scalar feeds", rc == 0 and len(steps) == 2, out + err)
    if len(steps) == 2:
        count, y = steps[1]["fetches"]
        check("int64 exact", count == {"name": "count/Read/ReadVariableOp", "dtype": "int64", "shape": [],
                                       "values": [9007199254740993]}, count)
        # float32 values printed with 9 significant digits read back to the same float (not a
        # denormal: y = x . I, and kernels flush denormals to zero, as TensorFlow's do).
        check("float32 in full precision", y["values"] == [0.100000001, 0.200000003, 1e-30,
                                                           -3.40282347e+38], y)
    rc, out, err = run(tool, "--graph", res, "--run", "feed=x=int32:1,2@1x2 fetch=y")
    check("a feed of the wrong dtype is a step error", rc == 1 and "int32" in err and "'x'" in err, out + err)
    for value, words in (("x=int32:1.5", "int32"), ("x=int8:300", "int8"), ("x=uint8:-1", "uint8"),
                         ("x=bool:yes", "bool"), ("x=quux:1", "quux"), ("x=1,2,3@2x2", "[2,2]"),
                         ("x=1,,2", "''"), ("x=1@2xz", "2xz"), ("=1", "=1"), ("x", "'x'")):
        rc, out, err = run(tool, "--graph", res, "--feed", value, "--fetch", "y")
        check(f"bad feed {value}", rc == 2 and words in err and "INVALID_ARGUMENT" in err, err)

    # Bad command lines: exit status 2, the culprit named.
    for args, words in ((["--graph", ref, "--run", "fetch=y", "--fetch", "y"], "--run"),
                        (["--graph", ref, "--run", "fetch=y frob=1"], "'frob'"),
                        (["--graph", ref, "--run", "fetch"], "'fetch'"),
                        (["--graph", ref, "--run", "fetch=a,,b"], "empty name"),
                        (["--graph", ref, "--bogus", "1"], "'--bogus'"),
                        (["--graph"], "'--graph'"),
                        (["--fetch", "y"], "one of --graph and --saved-model is required")):
        rc, out, err = run(tool, *args)
        check(f"bad command line {args[-2:]}", rc == 2 and words in err, err)
    rc, out, err = run(tool, "--help")
    check("--help", rc == 0 and "--run" in out and "--json" in out and "DTYPE" in out, out + err)

    # Bad graphs: exit status 1 with the file and the position or the node.
    with tempfile.TemporaryDirectory() as tmp:
        broken = os.path.join(tmp, "broken.pbtxt")
        with open(broken, "w") as f:
            f.write('node {\n  name: "a"\n  op: "NoOp"\n  input: b\n}\n')
        rc, out, err = run(tool, "--graph", broken, "--run", "target=a")
        check("a text syntax error", rc == 1 and broken in err and "line 4 column 10" in err, err)
        truncated = os.path.join(tmp, "truncated.pb")
        with open(os.path.join(data, "tf1_variables.pbtxt")) as f:
            text = f.read()
        with open(truncated, "wb") as f:
            f.write(b"\x0a\x40\x0a\x01x")  # a node field that promises 64 bytes and ends
        rc, out, err = run(tool, "--graph", truncated, "--fetch", "x")
        check("truncated binary", rc == 1 and "tensorflow.GraphDef" in err, err)
        rc, out, err = run(tool, "--graph", os.path.join(tmp, "missing.pb"), "--fetch", "x")
        check("a missing file", rc == 1 and "missing.pb" in err, err)
        unknown = os.path.join(tmp, "unknown.pbtxt")
        with open(unknown, "w") as f:
            f.write(text + 'node { name: "mystery" op: "FrobnicateV7" }\n')
        rc, out, err = run(tool, "--graph", unknown, "--run", "target=init")
        check("an unknown op", rc == 1 and "FrobnicateV7" in err and "mystery" in err, err)

    if FAILURES:
        sys.exit("\n".join(["tensoract-run failures:"] + FAILURES))


if __name__ == "__main__":
    main()
