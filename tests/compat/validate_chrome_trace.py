#!/usr/bin/env python3
"""Checks that files are Chrome trace-event JSON that Perfetto and chrome://tracing can open.

usage: validate_chrome_trace.py TRACE.json [TRACE.json ...]

What it checks, per file (the Trace Event Format's object form, as actors/chrome_trace.cc
writes it): strict JSON in UTF-8; an object with a "traceEvents" list; every event an
object with a string "ph", integer "pid" and "tid", numeric "ts"; "X" events with a
numeric "dur" >= 0 and a string "name"; every flow start ("s") with exactly one matching
finish ("f") of the same id and category, not earlier than it; a process_name metadata
event for every pid used. Prints a summary per file; exits 0 when every file passes, 1
otherwise. Python's standard library only.
"""
import collections
import json
import math
import sys


def _reject_constant(name):
    # Python's json accepts NaN and Infinity; JSON (and the viewers) do not.
    raise ValueError(f"non-JSON number {name}")


def validate(path):
    """Returns (errors, summary) for one trace file."""
    errors = []
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        root = json.loads(text, parse_constant=_reject_constant)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return [f"not readable as JSON: {e}"], ""
    if not isinstance(root, dict):
        return ["the top level is not an object"], ""
    events = root.get("traceEvents")
    if not isinstance(events, list):
        return ['no "traceEvents" list'], ""

    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    def is_num(v):
        return (isinstance(v, (int, float)) and not isinstance(v, bool)
                and math.isfinite(v))

    phases = collections.Counter()
    pids_used = set()
    process_names = {}
    flow_starts = {}   # (cat, id) -> ts
    flow_finishes = {}
    for i, e in enumerate(events):
        where = f"event {i}"
        if not isinstance(e, dict):
            errors.append(f"{where}: not an object")
            continue
        ph = e.get("ph")
        if not isinstance(ph, str) or not ph:
            errors.append(f"{where}: no string ph")
            continue
        phases[ph] += 1
        for field, ok in (("pid", is_int), ("tid", is_int), ("ts", is_num)):
            if not ok(e.get(field)):
                errors.append(f"{where} ({ph}): {field} missing or not a number: {e.get(field)!r}")
        if "name" in e and not isinstance(e["name"], str):
            errors.append(f"{where} ({ph}): name is not a string")
        if "cat" in e and not isinstance(e["cat"], str):
            errors.append(f"{where} ({ph}): cat is not a string")
        pid = e.get("pid")
        if ph == "M":
            if e.get("name") == "process_name":
                name = (e.get("args") or {}).get("name")
                if not isinstance(name, str):
                    errors.append(f"{where}: process_name without a string args.name")
                else:
                    process_names[pid] = name
            continue
        pids_used.add(pid)
        if ph == "X":
            if not isinstance(e.get("name"), str):
                errors.append(f"{where} (X): no string name")
            dur = e.get("dur")
            if not is_num(dur) or dur < 0:
                errors.append(f"{where} (X) {e.get('name')!r}: dur missing or negative: {dur!r}")
            if "args" in e and not isinstance(e["args"], dict):
                errors.append(f"{where} (X): args is not an object")
        elif ph in ("s", "f"):
            key = (e.get("cat"), e.get("id"))
            if e.get("id") is None:
                errors.append(f"{where} ({ph}): flow event without an id")
                continue
            table = flow_starts if ph == "s" else flow_finishes
            if key in table:
                errors.append(f"{where} ({ph}): flow id {key[1]!r} (cat {key[0]!r}) used twice")
            table[key] = e.get("ts")

    for key, ts in sorted(flow_starts.items(), key=lambda kv: repr(kv[0])):
        if key not in flow_finishes:
            errors.append(f"flow id {key[1]!r} (cat {key[0]!r}) starts but never finishes")
        elif is_num(ts) and is_num(flow_finishes[key]) and flow_finishes[key] < ts:
            errors.append(f"flow id {key[1]!r} (cat {key[0]!r}) finishes before it starts")
    for key in sorted(set(flow_finishes) - set(flow_starts), key=repr):
        errors.append(f"flow id {key[1]!r} (cat {key[0]!r}) finishes but never starts")
    for pid in sorted(p for p in pids_used if p not in process_names and is_int(p)):
        errors.append(f"pid {pid} has no process_name metadata event")

    devices = ", ".join(f"{p}={process_names[p]}" for p in sorted(process_names))
    summary = (f"{len(events)} events: {phases.get('X', 0)} slices, "
               f"{len(flow_starts)} flows, {phases.get('M', 0)} metadata; "
               f"{len(process_names)} processes ({devices})")
    return errors, summary


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    failed = False
    for path in argv[1:]:
        errors, summary = validate(path)
        if errors:
            failed = True
            print(f"{path}: INVALID")
            for line in errors[:50]:
                print(f"  {line}")
            if len(errors) > 50:
                print(f"  ... and {len(errors) - 50} more")
        else:
            print(f"{path}: ok, {summary}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
