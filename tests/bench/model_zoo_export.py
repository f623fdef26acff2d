#!/usr/bin/env python3
"""Writes the Keras model zoo of issue 54 (tests/compat/keras_zoo.py) for the benchmarks:
each model's SavedModel and the inputs to time it on.

Usage: model_zoo_export.py OUT_DIR [--size small|full] [--all | --names A,B] [--how export|saved_model]
                                   [--batches 1,32] [--policy mixed_bfloat16]

--policy sets Keras' global dtype policy before each model is built: mixed_bfloat16 is Keras'
documented way to use a CPU's bfloat16 units (float32 variables, every layer computing in
bfloat16), and exports graphs whose convolutions, activations and gates are bfloat16.

OUT_DIR/<model>/saved_model/       the SavedModel (serving_default takes one input)
OUT_DIR/<model>/input_b<N>.npy     a random batch of N (keras_zoo.sample_input, seed N: the
                                   same batches keras_zoo_compat.py checks)
OUT_DIR/<model>/zoo.json           {"model", "size", "how", "input_key", "output_keys"}

The representative set by default. Every engine then reads the same files, so none of the
peers (model_zoo_peers.py) needs Keras to know what to feed.
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))
import keras  # noqa: E402
import numpy as np  # noqa: E402
import keras_zoo  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", metavar="OUT_DIR")
    p.add_argument("--size", default="small", choices=["small", "full"])
    p.add_argument("--all", action="store_true", help="the whole zoo, not the representative set")
    p.add_argument("--names", help="these models (comma-separated)")
    p.add_argument("--how", default="export", choices=keras_zoo.HOWS)
    p.add_argument("--batches", default="1,32")
    p.add_argument("--policy", default="float32", help="Keras' global dtype policy (mixed_bfloat16)")
    args = p.parse_args()
    keras.mixed_precision.set_global_policy(args.policy)
    names = args.names.split(",") if args.names else None if args.all else keras_zoo.REPRESENTATIVE
    for m in keras_zoo.zoo(args.size, names):
        start = time.perf_counter()
        d = os.path.join(args.out, m.name)
        os.makedirs(d, exist_ok=True)
        model_dir = os.path.join(d, "saved_model")
        keras_zoo.export(m.build(), model_dir, args.how)
        key, outputs = keras_zoo.serving_keys(model_dir)
        for b in (int(b) for b in args.batches.split(",")):
            np.save(os.path.join(d, f"input_b{b}.npy"), keras_zoo.sample_input(m, b, seed=b))
        with open(os.path.join(d, "zoo.json"), "w") as f:
            json.dump({"model": m.name, "size": args.size, "how": args.how, "policy": args.policy, "input_key": key,
                       "output_keys": outputs, "input_shape": list(m.input_shape),
                       "input_dtype": m.input_dtype}, f)
        keras.backend.clear_session()  # the next model's memory and layer names start afresh
        print(f"model_zoo_export: {m.name} ({args.size}, {'x'.join(map(str, m.input_shape))} "
              f"{m.input_dtype}) in {time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
