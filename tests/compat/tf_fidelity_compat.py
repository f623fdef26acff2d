#!/usr/bin/env python3
"""The differential harness: every op it knows, every dtype our CPU kernels claim, computed by
TensorFlow 2.21 and here, compared.

Usage: tf_fidelity_compat.py FIDELITY_TOOL WORK_DIR [--full | --quick] [--ops Add,Sum] [--seed N]
                             [--seeds N] [--modes fed,unknown,const] [--markdown FILE] [--verbose]
                             [--gradients on|off|only] [--gradient-dtypes float,double,complex64,complex128]
                             [--gpu] [--gpu-results DIR]

--gpu and --gpu-results compare the GPU's kernels with the CPU's on a GPU machine (see "the
GPU against the CPU" below and tests/gpu/run-on-device.sh).

For each op of fidelity_catalogue.CATALOGUE and each type-attr combination our CPU kernel
registry claims (`fidelity_tool kernels`), the catalogue's generator makes cases: random
shapes with 0, 1 and odd sizes, broadcasting pairs, sizes that take the vectorised (>= 16
elements) and threaded (>= 16 KiB) paths, and edge values (signed zeros, denormals, +-inf,
NaN, integer extremes). Each case is one node whose inputs become, in three GraphDefs:

  fed      placeholders of static shape (the case's "aux" inputs, such as axes, constants)
  unknown  placeholders of unknown shape, every input fed (but a case's always_const inputs:
           TensorFlow cannot build the node without their length)
  const    constants: both runtimes' constant folding computes the node

The GraphDefs are built once (with TensorFlow, tf.raw_ops) and both sides run the same bytes:
TensorFlow imports them (tf.import_graph_def validates them as graph construction does) and
runs them in a tf.compat.v1.Session with oneDNN off (TF_ENABLE_ONEDNN_OPTS=0: the reference
is TensorFlow's own kernels; oneDNN is an optional vendor backend with its own rounding);
fidelity_tool runs them on one tensoract server. Many cases share a graph and a step, since a
new step signature costs a few milliseconds on either side: ours run first (fidelity_tool
learns which kinds of case fail and runs those alone), then TensorFlow's, where the cases
that failed here run one by one and a failing shared step is split in halves. Outcomes must
agree:

  * refusals: the same error code, at the same stage ("create": the graph is refused,
    "run": the step fails). A dtype TensorFlow has no CPU kernel for is reported, not failed.
  * values: the same dtypes and shapes, and the values within the op's tolerance
    (fidelity_catalogue: bit-exact for integers, booleans, data movement and correctly
    rounded IEEE operations; a stated ulp count or error bound for the rest; NaN where
    TensorFlow has NaN).

It prints the differences (the first three per op and dtype; all with --verbose, and all in
WORK_DIR/differences.json), a table per op and dtype (runs, agreeing, accepted, differing),
the dtypes TensorFlow computes that our kernels do not claim, and exits 1 when a difference
is not in ACCEPTED below, 0 otherwise; 77 (ctest: skipped) when TensorFlow cannot be
imported. --full runs larger shapes and four seeds; --quick (the quick test tier,
bootstrap/run-tests.sh without --full) keeps every op, dtype and mode but at most
QUICK_CASE_COUNT cases of each combination.
WORK_DIR/cases.txt names each case id (fidelity_tool's FIDELITY_TOOL_TRACE=1 prints ids).

Gradients (--gradients on, the default; "only" skips the forward cases): for every catalogue
op with a gradient here (graph/gradients) or in TensorFlow, and its float, double, complex64
and complex128 combinations, a sample of its cases (GRAD_CASES per op and dtype, inputs of at most
GRAD_MAX_ELEMENTS: edge values, broadcasting pairs, reductions with keep_dims, ...). Each
float output y_i gets a random upstream gradient g_i (fed), and both sides compute
d(sum_i y_i * g_i)/dx for each float input x of the same forward GraphDef: TensorFlow with
tf.gradients(ys, xs, grad_ys) in graphs built as a program would build them (placeholders of
unknown or static shape, constants), we with AddSymbolicGradients, which fidelity_tool adds
to the imported forward graph (a manifest line's GRADS file names each case's xs, ys and
g_i). The same three modes run; outcomes must agree as above (an x no path reaches is None on
both sides; "No gradient defined" is NOT_FOUND at stage "gradient"), the values within the
gradient tolerances (ELEMENTWISE and CHAINED below: a few eps of the terms' magnitudes, not
of the result, since gradients cancel). An op with a gradient on one side only is a row of
the gradient table with its note ("no gradient here", "no gradient in TensorFlow"), not a
failure. The gradient table (op, dtype, runs, agree, accepted, differ) follows the forward
one, and --markdown writes both; WORK_DIR/gradients/ holds its files and differences.json.
The sample adds about 2,100 cases x 3 modes, some 60 s. --gradient-dtypes half,bfloat16
compares those (not by default: 15 of 3,258 runs differ today, TensorFlow's half Selu
cancelling near 0 as its float one does at -FLT_MIN, a half Log gradient at denormals, half
convolution gradients of infinities). Complex gradients follow TensorFlow's convention (a
product's gradient conjugates the other factor): complex inputs are differentiated, complex
outputs get complex upstream gradients (both parts N(0, 1)), and each part of a complex
gradient is compared as a float of the part type against the bound its family computes from
the moduli.
"""
import argparse
import copy
import inspect
import json
import math
import os
import re
import struct
import subprocess
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads: its own kernels are the reference
try:
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework import kernels as tf_kernels
    from tensorflow.python.framework import op_def_registry
    from tensorflow.python.framework import ops as tf_ops
except ImportError as e:
    print(f"SKIPPED: tensorflow cannot be imported ({e}); bootstrap/install-deps.sh installs tensorflow-cpu")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity_catalogue as cat  # noqa: E402

tf1 = tf.compat.v1
CODE_NAMES = {getattr(tf.errors, n): n for n in (
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS")}
MODES = ("fed", "unknown", "const")
BATCH = 400  # cases per graph and step

# ---- accepted differences ------------------------------------------------------------------
# A disagreement matching an entry (op, dtype row, case tag and mode, as regular expressions)
# is counted as accepted, not as a failure. Each says why. Keep this list short: a difference
# is fixed, or it is here with its reason; "FINDING, not fixed:" marks one that is ours to fix.


@dataclass
class Accepted:
    op: str            # regular expressions, matched in full against: the op,
    row: str           # the table's dtype column,
    tag: str           # the case's tag,
    mode: str          # fed, unknown or const,
    kind: str          # the difference: stage, outcome or values (see compare),
    reason: str
    combo: str = ".*"  # and the type attrs, "T=float,Tidx=int16"
    used: int = 0
    when: Callable = None  # and, when given, this predicate of the case record


ACCEPTED = [
    # TensorFlow's own results are wrong; ours are kept.
    Accepted("Igamma|Igammac|IgammaGradA|RandomGammaGrad", r"float", r".*", ".*", "values",
             "TensorFlow's float incomplete gamma kernels lose accuracy that ours, computed in double, "
             "keep (true values by mpmath at 40 digits): Igammac(1e-7, 0.5) is -2.4e-7 there (true "
             "5.5977e-8, ours 5.5977e-8), Igamma(41905.15, 40128.9) 7.19e-19 (true and ours 6.776e-19), "
             "Igamma(1.18e-38, 0.5) 0 (true and ours 1), RandomGammaGrad(1, 100) -0 (true and ours 5.19)"),
    Accepted("Igamma|Igammac|IgammaGradA", r"double", r".*", ".*", "values",
             "where a is tiny (cancellation) or above ~700, both sides' truncated series lose up to "
             "~2e-10 relative, each its own way (Igammac(1e-7, 1e-7): true 1.5540868092e-6, ours and "
             "TensorFlow's 1.5e-10 and 1.4e-10 off; IgammaGradA(152835, 145329): ours 2.5e-11 off, "
             "TensorFlow's 2.1e-10); and TensorFlow flushes a denormal x to 0 (Igammac(1e-7, 5e-324) "
             "is 1 there, true and ours 7.44e-5)"),
    Accepted("Round", r"u?int(8|16|32|64)", r".*", r".*", "values",
             "TensorFlow 2.21's integer Round returns zeros; we return the input, the only sensible "
             "rounding of an integer"),
    Accepted("Arg(Max|Min)", r".*", r".*", "unknown", "outcome",
             "TensorFlow 2.21's ArgMax/ArgMin kernels read a fed int16 `dimension` as int32 "
             "(\"Expected dimension in the range [-2, 2), but got -849412095\"); we read the int16",
             combo=r".*Tidx=int16.*"),
    Accepted("Arg(Max|Min)", r".*", r".*", "fed|const", "outcome|stage",
             "TensorFlow 2.21's ArgMax/ArgMin shape function reads a constant int16 `dimension` as "
             "int64, past its 2 bytes (\"Dimension (139863202398209) must be in the range [-2, 2)\", "
             "a different number each run); we read the int16",
             combo=r".*Tidx=int16.*"),
    Accepted("Log", r"bfloat16", r"edges.*", ".*", "values",
             "TensorFlow 2.21's bfloat16 Log of the denormal 8.8e-39 is -104 (the true log is -88.6, "
             "and its Log of the denormal 9.2e-41 is -inf, as DAZ reads a denormal); ours is -inf for "
             "both, as its float Log and ours read them"),
    Accepted("Range", r"half", r".*", "const", "stage|outcome",
             "TensorFlow 2.21's Range shape function has no case for half (\"Unsupported dtype19\") "
             "and refuses every constant half Range when the graph is built; fed, its kernel computes "
             "it, and ours does in both"),
    Accepted("LRN", r"half", r"random.*", ".*", "values",
             "TensorFlow's half LRN squares and sums in half (a square past 65504 is inf: its "
             "normaliser, and with it whole windows, become NaN or 0); ours sums in float and rounds "
             "each output once, as its float LRN does"),
    Accepted("Zeta", r"float|double", r"(edge pairs|random).*", ".*", "values",
             "NOT YET MATCHED (issue 52): Debian's Eigen 3.4 zeta, which ours calls, gives NaN or "
             "other values where TensorFlow's newer Eigen gives 0 or NaN: exponents beyond ~90 "
             "(float) or 1e300 (double), and a negative q (zeta(100, -87.5): ours 2.5e30, "
             "TensorFlow's 0); between 0 < q and moderate exponents both agree within 8 ulps"),
    Accepted("Polygamma", r"float", r"random.*", ".*", "values",
             "polygamma(6, -257452.23) in float: both sides run Eigen's float zeta series, whose "
             "terms cancel for a large negative x; the two builds' instruction choices (FMA) "
             "leave the results 1e-5 relative apart (-4.12094e-31 and -4.12089e-31)"),
    Accepted("Erf", r"double", r"(edges|random\+edges).*", ".*", "values",
             "TensorFlow 2.21's double Erf is NaN for |x| >= 1e300 and +-inf (its Eigen erf, "
             "unsupported/Eigen/src/SpecialFunctions/SpecialFunctionsImpl.h generic_fast_erf<double>::run, "
             "a rational function of x^2 whose terms overflow to inf / inf); ours is +-1"),
    Accepted("Atan2", r"float|double", r"(edge pairs|random\+edges).*", ".*", "values",
             "TensorFlow's atan2 of a zero and a denormal is +-pi/4 or +-3pi/4 (its Eigen patan2, "
             "Eigen/src/Core/GenericPacketMath.h: x_and_y_are_same = pcmp_eq(pabs(x), pabs(y)) "
             "compares the two as equal under DAZ and takes the diagonal's angle); ours reads the "
             "denormal as zero, as DAZ does, and gives C's atan2 of two zeros (0 or pi)"),
    Accepted("OnesLike", r"uint32|uint64", r".*", "const", "values",
             "TensorFlow's constant folding makes OnesLike of a uint32 or uint64 constant zeros "
             "(fed, its kernel gives ones, as ours)"),
    Accepted("Reshape", r".*", r"\[2,3\] -> \[-1, -1\]", "const", "outcome",
             "TensorFlow's graph optimizer removes a Reshape to a shape with two -1 of the input's "
             "rank as a no-op, so the constant graph returns the input; fed, TensorFlow refuses it "
             "as we do"),
    # Gradients (the harness's gradient mode): TensorFlow's own gradient functions are wrong.
    Accepted("ConcatV2", r".*", r".*", ".*", "grad-.*",
             "TensorFlow 2.21's ConcatV2 gradient cannot be built for an int64 axis (its "
             "_ConcatGradHelper takes FloorMod of the int64 axis and an int32 rank: \"Input 'y' of "
             "'FloorMod' Op has type int32 that does not match type int64\"); ours builds and runs it",
             combo=r".*Tidx=int64.*"),
    Accepted("SoftmaxCrossEntropyWithLogits", r".*", r"\[4,7\] \[(1,)?7\]|\[1,7\] \[4,7\]|\[4,1\] \[4,6\]", ".*",
             "grad-.*",
             "logits and labels that broadcast against each other: TensorFlow's gradient keeps the "
             "broadcast shape for the broadcast input (tf.gradients refuses it where shapes are known, "
             "returns it where not) and its backprop term's BatchMatMul refuses [4,1] logits; ours "
             "computes both gradients at the broadcast shape and sums each back to its input's shape "
             "(tests/actors/gradient_fidelity_test.cc)"),
    Accepted("DepthwiseConv2dNativeBackprop(Input|Filter)", r".*", r"strides 1x2", "fed|const", "grad-stage",
             "TensorFlow's gradient of a depthwise backprop with unequal strides computes a wrong "
             "shape, which tf.gradients refuses when the graph is built; ours builds it and the "
             "depthwise kernels refuse the step (unequal strides, TensorFlow's kernels too), with "
             "the same code"),
]

ACCEPTED += [
    Accepted("Prod", r"float|double", r".*axes \[0, 0\].*", r"fed|const", "grad-stage",
             "the gradient of a Prod over a repeated axis (whose forward both sides refuse at run): "
             "TensorFlow's gradient function fails while building, reshaping static shapes; ours builds "
             "and the step fails; both InvalidArgument"),
]
# Complex arithmetic (kernels/cpu/cwise_complex.cc follows TensorFlow's vector and scalar forms;
# these are the edges where TensorFlow's own results are wrong or path-dependent).
ACCEPTED += [
    Accepted("Log|Xlogy", r"complex.*", r"edge.*|random\+edges.*", ".*", "values",
             "TensorFlow's vector complex log (Eigen's plog_complex) gives a NaN real part where |z|^2 "
             "over- or underflows: log(1e30 - 104i) is NaN - 1.04e-28i there, truly 69.0776 - 1.04e-28i "
             "(ours); log(1.2e-38 + 1.2e-38i) NaN + 0.785i there, truly -86.99 + 0.785i (ours)"),
    Accepted("Exp", r"complex64", r"edges.*", ".*", "values",
             "TensorFlow's complex64 vector exp (Eigen's pexp_complex) computes exp(re) before it "
             "multiplies by cos and sin, so it overflows where the result is finite: exp(89 + 89i) is "
             "inf + inf i there, truly 2.2905e38 + 3.9e38... (ours: std::exp, the true value; the "
             "imaginary part overflows on both sides)"),
    Accepted("Sign", r"complex.*", r"edges.*|random\+edges.*", ".*", "values",
             "a complex with one NaN part: TensorFlow's vector sign divides by Eigen's hypot, whose "
             "max/min take the number over the NaN (sign(88.5 + NaN i) = 0.7071 + NaN i there); ours "
             "NaN + NaN i, as C's cabs and std::sign give"),
    Accepted("DivNoNan", r"complex.*", r"edge pairs.*", ".*", "values",
             "an infinite numerator over a denormal divisor: ours reads the denormal as zero (the kernels "
             "run with denormals-are-zero, as TensorFlow's other kernels) and returns 0; TensorFlow's "
             "complex DivNoNan sees it nonzero and gives NaN"),
    Accepted("Prod", r"complex.*", r"edges.*", ".*", "values",
             "products of complex numbers with infinite and NaN parts: which part comes out inf and which "
             "NaN depends on the order of the products and on each product's form (TensorFlow's vector "
             "form, ac - bd, makes NaN of inf * (1 + 0i); C's recovers the infinity); both non-finite"),
    Accepted("Div|RealDiv|Xdivy", r"complex.*", r".*", "const", "values",
             "in const mode TensorFlow's grappler folds the complex division with another evaluation of "
             "the broadcast than its own kernel at run time (signed zeros and last bits differ: -0/2.5 "
             "is -0 - 0i folded, -0 + 0i at run time); ours is the run-time form, and fed and unknown "
             "modes agree exactly"),
]
# Complex gradients (--gradient-dtypes complex64,complex128): the forward differences above,
# met again inside the gradient functions, and grappler's reassociation of a constant product.
ACCEPTED += [
    Accepted("Exp", r"complex64", r"edges.*|random\+edges.*", ".*", "grad-values",
             "the complex64 Exp difference above (TensorFlow's vector exp overflows exp(re) first) in "
             "its gradient, math_grad.py's _ExpGrad line 748: grad * conj(y), y Exp's output"),
    Accepted("Expm1", r"complex64", r"edges.*|random\+edges.*", ".*", "grad-values",
             "the same complex64 vector exp in Expm1's gradient, math_grad.py's _Expm1Grad: "
             "grad * conj(exp(x))"),
    Accepted("DivNoNan", r"complex.*", r"edge pairs.*", ".*", "grad-values",
             "the complex DivNoNan difference above (a denormal divisor is zero here, nonzero there) in "
             "its gradient, math_grad.py's _DivNoNanGrad line 1506: grad * div_no_nan(div_no_nan(-x, y), "
             "y), x and y conjugated; here 0 where y is denormal, NaN there"),
    Accepted("Pow", r"complex.*", r".*", "const", "grad-values",
             "in const mode TensorFlow's grappler reassociates math_grad.py's _PowGrad line 1528, "
             "grad * cy * pow(cx, cy - 1), as grad * (cy * pow(cx, cy - 1)) with the constant product "
             "folded; where pow overflows, which part of the product is inf and which NaN depends on "
             "that order (with grappler's constant folding and arithmetic optimizer off, TensorFlow "
             "gives ours); fed and unknown modes agree"),
]
ACCEPTED += [Accepted(**a) for a in cat.FAMILY_ACCEPTED]  # the op families' own (fidelity_catalogue)

def denormal_inputs(r, dtypes=("float64",)):
    """Whether an input of the case, of one of `dtypes`, holds a denormal."""
    for a in r.case.inputs:
        if a.dtype.name in dtypes:
            with np.errstate(invalid="ignore"):
                x = np.abs(a.astype(np.float64))
            if ((x > 0) & (x < float(np.finfo(a.dtype).tiny))).any():
                return True
    return False


# The GPU's kernels against our CPU's (--gpu-results), differences each with its reason.
ACCEPTED_GPU = [
    Accepted(r".*", r".*double.*", r".*", r".*", r"values|grad-values",
             "a double denormal input: the CPU's kernels read it as zero (DAZ, as TensorFlow's), the GPU as "
             "its value, since NVIDIA GPUs flush no doubles (TensorFlow's GPU kernels differ from its CPU ones "
             "alike); float kernels of ours flush as the CPU does (nvcc -ftz=true)",
             when=denormal_inputs),
    Accepted(r"MatMul|BatchMatMul.*|Conv2D.*", r"float", r".*", r".*", r"values|grad-values",
             "a float denormal input to cuBLAS or cuDNN, which do not flush it (TensorFlow's GPU matrix "
             "products and convolutions alike)",
             when=lambda r: denormal_inputs(r, ("float32",))),
    Accepted(r"Conv2D|Conv2DBackpropInput|Conv2DBackpropFilter", r"float", r".*", r".*", r"values|grad-values",
             "cuDNN picks TF32 tensor-core algorithms for float convolutions (10-bit products), as TensorFlow "
             "allows by default on Ampere and later GPUs"),
    Accepted(r"SparseSoftmaxCrossEntropyWithLogits", r".*", r"label out of range.*", r".*", r"outcome|grad-outcome",
             "an int64 label out of range: the CPU refuses the step, the GPU gives NaN rows, as TensorFlow's "
             "GPU kernel does (checking would copy the labels to the host each step; int32 labels, in host "
             "memory, are checked)"),
    Accepted(r"BiasAdd|BiasAddGrad", r".*", r".*NCHW", r".*", r"outcome|grad-outcome",
             "FINDING: the GPU's BiasAdd and BiasAddGrad took NHWC only (Unimplemented, naming the node); "
             "NCHW was written after the twenty-second session's GPU time was spent and has not run on a GPU: "
             "drop this entry once a GPU run of the harness shows it agreeing"),
    Accepted(r"BatchMatMulV2", r".*", r"\[2,1,3,4\]x\[5,4,2\].*", r".*", r"outcome|grad-outcome",
             "FINDING, not fixed: the GPU's BatchMatMul broadcasts only a batch of one (Unimplemented, naming "
             "the node); general batch broadcasting would need a pointer array per step"),
    Accepted(r"Conv2D.*", r".*", r"\[1,3,3,2\]\*\[4,4,2,3\] SAME.*|.*EXPLICIT.*|grouped.*|NCHW|input_sizes of 2|"
             r"filter of out depth 0|\[2,4,4,0\].*", r".*", r"outcome|grad-outcome",
             "FINDING, not fixed: the GPU's convolutions refuse padding that differs before and after (SAME "
             "with an odd total, asymmetric EXPLICIT: Unimplemented, naming the node), grouped convolutions "
             "and NCHW; of the empty shapes, an input of depth 0 runs where the CPU refuses it and a filter of "
             "out depth 0 fails in cuDNN (Internal). TensorFlow's pad the input and give cuDNN a group count"),
    Accepted(r"Conv2D.*", r"double", r".*", r".*", r"outcome|grad-outcome",
             "FINDING, not fixed: cuDNN has no NHWC double algorithms for the convolution gradients (Internal, "
             "naming the node); TensorFlow's GPU kernels transpose to NCHW for them"),
]

# ---- cases ---------------------------------------------------------------------------------


@dataclass
class Record:
    id: int
    spec: object
    combo: dict
    row: str
    case: object
    attrs: dict
    fetches: list = field(default_factory=list)       # tensor names of the outputs
    build_error: str = ""                               # TensorFlow could not even make the node


def op_arg_names(op):
    """tf.raw_ops' names of the op's inputs (its Python names: Sum's reduction_indices is axis)."""
    params = list(inspect.signature(getattr(tf.raw_ops, op)).parameters)
    return params[:len(op_def_registry.get(op).input_arg)]


def explicit_type_attrs(op, combo):
    """The combo's attrs that tf.raw_ops takes as arguments (those no input's type implies)."""
    op_def = op_def_registry.get(op)
    implied = {a.type_attr for a in op_def.input_arg} | {a.type_list_attr for a in op_def.input_arg}
    return {k: tf.as_dtype(cat.np_type(v)) if v != "bool" else tf.bool for k, v in combo.items() if k not in implied}


# --quick (bootstrap/run-tests.sh's default; CI runs the whole sweep): each op and type
# combination keeps this many of its cases, spread from the first (random) to the last (edge
# values, refusals). 3, 1 and 2 instead of 4, 2 and 3: a shard's 140 s became ~110 on the
# Zen 3, a newcomer's test run a minute shorter.
QUICK_CASE_COUNT = 3
QUICK_SECONDARY_CASES = 1  # and the other combinations of a row (secondary_cases, usually 3) this many
QUICK_GRAD_CASES = 2
QUICK_CASES = 0  # 0: every case


def make_records(claimed, ops, full, seeds):
    """Every case of every catalogue op for every claimed combination, for each seed (the
    edge-value cases, the same for every seed, once)."""
    records = []
    seen = set()
    for seed in seeds:
        for spec in cat.CATALOGUE:
            if ops and spec.op not in ops:
                continue
            make_spec_records(spec, claimed, full, seed, records, seen)
    return records


def spec_combos(spec, claimed):
    """The type-attr combinations to run: the spec's own (an op lowered, without kernels), else
    those our kernel registry claims."""
    return spec.combos if spec.combos is not None else claimed.get(spec.op, [])


def make_spec_records(spec, claimed, full, seed, records, seen):
    """Records of one op's cases for one seed, skipping those already in `seen`."""
    combos = [c for c in spec_combos(spec, claimed) if spec.accept(c)]
    if spec.op in ("LogicalAnd", "LogicalOr", "LogicalNot") and spec.op in claimed:
        combos = [{}]
    # Per row, the combination whose other type attrs are int32 (the usual index type)
    # first: it gets every case, the others a few.
    combos.sort(key=lambda c: sum(v != "int32" for v in spec.other_attrs(c)))
    seen_rows = set()
    for combo in combos:
        row = spec.row(combo)
        secondary = row in seen_rows
        seen_rows.add(row)
        rng = np.random.default_rng([seed, zlib_crc(spec.op), zlib_crc(json.dumps(combo, sort_keys=True))])
        cases = list(spec.cases(rng, combo, full))
        if secondary:
            keep = min(spec.secondary_cases, QUICK_SECONDARY_CASES) if QUICK_CASES else spec.secondary_cases
            step = max(1, len(cases) // keep)
            cases = cases[::step][:keep]
        elif QUICK_CASES and len(cases) > QUICK_CASES:
            # --quick: a cross-section from the first (random) cases to the last (edge values
            # and refusals), evenly spread.
            cases = [cases[i] for i in sorted(set(np.linspace(0, len(cases) - 1, QUICK_CASES).round().astype(int)))]
        attrs_from_combo = explicit_type_attrs(spec.op, combo)
        for case in cases:
            attrs = dict(attrs_from_combo)
            attrs.update(case.attrs)
            fingerprint = (spec.op, json.dumps(combo, sort_keys=True), case.tag, repr(sorted(attrs.items())),
                           tuple(a.tobytes() for a in case.inputs))
            if fingerprint in seen:
                continue
            seen.add(fingerprint)
            records.append(Record(len(records), spec, combo, row, case, attrs))


def zlib_crc(text):
    return zlib.crc32(text.encode())


# ---- graphs --------------------------------------------------------------------------------


def tf_dtype(arr):
    return tf.as_dtype(arr.dtype)


def build_template(records):
    """One graph holding every record's node, inputs as unknown-shape placeholders named
    c<id>/in<i>. Returns its GraphDef."""
    graph = tf.Graph()
    with graph.as_default():
        for r in records:
            with graph.name_scope(f"c{r.id}/"):
                phs = [tf1.placeholder(tf_dtype(a), shape=a.shape if i in r.case.always_const else None, name=f"in{i}")
                       for i, a in enumerate(r.case.inputs)]
                raw = getattr(tf.raw_ops, r.spec.op)
                try:
                    if r.case.build is not None:
                        out = r.case.build(raw, phs, r.attrs)
                    else:
                        out = raw(**dict(zip(op_arg_names(r.spec.op), phs)), **r.attrs)
                except (TypeError, ValueError, tf.errors.OpError) as e:
                    r.build_error = f"{type(e).__name__}: {e}"
                    continue
                outs = [out] if isinstance(out, tf.Tensor) else list(out)
                r.fetches = [t.name for t in outs]
    return graph.as_graph_def()


def case_of_node(name):
    # A gradient function that records on a tape of its own (FusedBatchNormGradV3's) names
    # its nodes "gradient_tape/c<id>/...".
    m = re.match(r"(?:gradient_tape/)?c(\d+)/", name)
    return int(m.group(1)) if m else -1


def variant(template, by_id, mode):
    """The template with each record's placeholders made what `mode` says; returns the
    GraphDef and the feeds {case id: {tensor name: array}}."""
    gd = tf1.GraphDef()
    gd.CopyFrom(template)
    feeds = defaultdict(dict)
    for node in gd.node:
        if node.op != "Placeholder":
            continue
        m = re.match(r"c(\d+)/in(\d+)$", node.name)
        if not m:
            continue
        r = by_id[int(m.group(1))]
        i = int(m.group(2))
        arr = r.case.inputs[i]
        const = mode == "const" or (mode == "fed" and i in r.case.aux) or i in r.case.always_const
        if const:
            dtype = node.attr["dtype"].type
            node.op = "Const"
            node.ClearField("attr")
            node.attr["dtype"].type = dtype
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(arr))
        else:
            if mode == "fed":
                shape = node.attr["shape"].shape
                shape.Clear()
                for d in arr.shape:
                    shape.dim.add().size = d
            feeds[r.id][node.name + ":0"] = arr
    return gd, feeds


def nodes_by_case(gd):
    """{case id: [(position in gd, node)]}: each case's nodes, found once per GraphDef (a
    subset per import attempt scanned all of them again)."""
    index = defaultdict(list)
    for position, n in enumerate(gd.node):
        index[case_of_node(n.name)].append((position, n))
    return index


def subset(gd, index, ids):
    """The cases `ids` of `gd` (their nodes in gd's order); `index` is nodes_by_case(gd)."""
    out = tf1.GraphDef()
    out.versions.CopyFrom(gd.versions)
    out.library.CopyFrom(gd.library)
    out.node.extend(n for _, n in sorted((e for i in ids for e in index.get(i, ())), key=lambda e: e[0]))
    return out


# ---- running in TensorFlow ------------------------------------------------------------------


@dataclass
class Outcome:
    code: str                      # "OK" or an error code name
    stage: str = ""                # "create" or "run" for errors
    message: str = ""
    outputs: list = None

    def brief(self):
        if self.code == "OK":
            return "OK " + ", ".join("none" if o is None else f"{o.dtype}{list(o.shape)}" for o in self.outputs)
        return f"{self.code} at {self.stage}: {core_message(self.message)}"


def core_message(message):
    """The line of an error message that says what went wrong (TensorFlow's session errors
    open with "Graph execution error:" and where the node was defined)."""
    noise = re.compile(r"(Graph execution error|Detected at node|File |Node: |\[\[)")
    lines = [l.strip() for l in message.splitlines() if l.strip()]
    return next((l for l in lines if not noise.match(l)), lines[0] if lines else "")[:220]


def tf_error_outcome(e, stage):
    if isinstance(e, tf.errors.OpError):
        return Outcome(CODE_NAMES.get(e.error_code, str(e.error_code)), stage, e.message)
    # Graph construction and import report a shape function's InvalidArgument as ValueError.
    return Outcome("INVALID_ARGUMENT", stage, str(e))


def import_cases(gd, ids, outcomes):
    """A graph with the nodes of the cases `ids` that TensorFlow accepts; the refused ones get
    their outcome ("create"). Returns (graph, accepted ids)."""
    ids = set(ids)
    index = nodes_by_case(gd)
    while ids:
        graph = tf.Graph()
        try:
            with graph.as_default():
                tf.import_graph_def(subset(gd, index, ids), name="")
            return graph, ids
        except (ValueError, tf.errors.OpError) as e:
            named = [int(m) for m in re.findall(r"\bc(\d+)/", str(e)) if int(m) in ids]
            if named:
                outcomes[named[0]] = tf_error_outcome(e, "create")
                ids.discard(named[0])
                continue
            for cid in list(ids):  # nothing names a case: import each alone
                try:
                    with tf.Graph().as_default():
                        tf.import_graph_def(subset(gd, index, {cid}), name="")
                except (ValueError, tf.errors.OpError) as e1:
                    outcomes[cid] = tf_error_outcome(e1, "create")
                    ids.discard(cid)
    return None, ids


def run_tensorflow(gd, feeds, records, expect_errors):
    """{case id: Outcome} for the records of one GraphDef variant. The cases of
    `expect_errors` (those that failed here) are imported and run one by one: a TensorFlow
    step that fails says nothing about its other fetches, and splitting a big step costs a
    new executor per part (about 6 ms each)."""
    outcomes = {}
    by_id = {r.id: r for r in records}
    normal = [r.id for r in records if r.id not in expect_errors]
    alone = [r.id for r in records if r.id in expect_errors]
    for ids, one_by_one in ((normal, False), (alone, True)):
        graph, ids = import_cases(gd, ids, outcomes)
        if not ids:
            continue
        with tf1.Session(graph=graph) as sess:
            def run(group):
                fetches = [by_id[c].fetches for c in group]
                feed = {}
                for c in group:
                    feed.update(feeds.get(c, {}))
                try:
                    values = sess.run(fetches, feed)
                except tf.errors.OpError as e:
                    if len(group) == 1:
                        outcomes[group[0]] = tf_error_outcome(e, "run")
                        return
                    half = len(group) // 2
                    run(group[:half])
                    run(group[half:])
                    return
                for c, vals in zip(group, values):
                    outcomes[c] = Outcome("OK", outputs=[np.asarray(v) for v in vals])
            if one_by_one:
                for c in sorted(ids):
                    run([c])
            else:
                run(sorted(ids))
    return outcomes


# ---- running here --------------------------------------------------------------------------


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def run_step_request(case_id, key, feeds, fetches):
    """A RunStepRequest (messages/master.proto): feed = 2, fetch = 3, request_id = 8 (the case's
    id); session_handle = 1 carries the case's key (fidelity_tool: cases that fail alike)."""
    out = bytearray(field_bytes(1, key.encode()))
    for name, arr in feeds.items():
        named = field_bytes(1, name.encode()) + field_bytes(2, tf.make_tensor_proto(arr).SerializeToString())
        out += field_bytes(2, named)
    for f in fetches:
        out += field_bytes(3, f.encode())
    out += varint(8 << 3 | 0) + varint(case_id)
    return bytes(out)


def write_batch(work, name, gd, feeds, records, grads=""):
    """Our side's files of one batch and its manifest line; `grads` (gradient batches) the
    text of fidelity_tool's gradient spec file."""
    graph_path = os.path.join(work, name + ".pb")
    cases_path = os.path.join(work, name + ".cases")
    with open(graph_path, "wb") as f:
        f.write(gd.SerializeToString())
    with open(cases_path, "wb") as f:
        for r in records:
            req = run_step_request(r.id, f"{r.spec.op}|{r.case.tag}", feeds.get(r.id, {}), r.fetches)
            f.write(struct.pack("<I", len(req)) + req)
    if grads:
        grads_path = os.path.join(work, name + ".grads")
        with open(grads_path, "w") as f:
            f.write(grads)
        return f"{graph_path} {cases_path} 0 {grads_path}\n"
    return f"{graph_path} {cases_path} 0\n"


def outcome_of(d):
    """The Outcome of one of fidelity_tool's JSON lines, parsed."""
    if d["code"] != "OK":
        return Outcome(d["code"], d.get("stage", ""), d.get("message", ""))
    outs = []
    for o in d["outputs"]:
        if o["dtype"] == "none":  # a gradient no path reaches (tf.gradients' None)
            outs.append(None)
            continue
        t = cat.np_type(o["dtype"]) if o["dtype"] in cat.NP_TYPES else None
        if t is None:
            outs.append(np.array([]))
            continue
        outs.append(np.frombuffer(bytes.fromhex(o["hex"]), dtype=t).reshape(o["shape"]))
    return Outcome("OK", outputs=outs)


def read_ours(lines):
    """{case id: Outcome} from fidelity_tool's JSON lines."""
    outcomes = {}
    for line in lines:
        d = json.loads(line)
        outcomes[d["id"]] = outcome_of(d)
    return outcomes


# ---- comparing -----------------------------------------------------------------------------


def ordered_bits(a):
    """Floats as integers whose difference counts ulps (sign-magnitude to two's complement)."""
    ints = {8: np.int64, 4: np.int32, 2: np.int16}[a.dtype.itemsize]
    i = a.view(ints).astype(np.int64)
    magnitude = i & np.int64((1 << (8 * a.dtype.itemsize - 1)) - 1)
    return np.where(i < 0, -magnitude, magnitude)


def eps(dtype):
    """The epsilon of a float dtype, or of a complex dtype's parts."""
    size = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
    return float(cat.finfo("bfloat16" if dtype.name == "bfloat16" else {2: "half", 4: "float", 8: "double"}[size]).eps)


def denormals_as_zeros(a):
    """`a` with its denormals replaced by zeros of their sign. Both runtimes run kernels with
    FTZ and DAZ set, so the next kernel reads a denormal output as that zero; whether an op
    passes a denormal through (a sign flip, a select, a copy) or produces the zero (arithmetic
    under FTZ) is the instruction an implementation picks, not the math: TensorFlow's Neg
    keeps 1e-45, its Maximum(-2.5, 1e-45) is 0, its Sign(-1e-45) is +1e-45."""
    t = np.finfo(a.dtype).tiny if a.dtype.name != "bfloat16" else float(cat.finfo("bfloat16").tiny)
    with np.errstate(invalid="ignore"):
        small = (a != 0) & (np.abs(a.astype(np.float64)) < float(t))
    if not small.any():
        return a
    out = a.copy()
    out[small] = np.copysign(np.zeros(1, dtype=a.dtype), a[small])
    return out


def float_mismatches(ours, ref, tol, bound, scale=1):
    """A boolean mask of the elements that disagree; `scale` multiplies the tolerance (the
    GPU against the CPU)."""
    ours, ref = denormals_as_zeros(ours), denormals_as_zeros(ref)
    o = ours.astype(np.float64)
    r = ref.astype(np.float64)
    o_nan, r_nan = np.isnan(o), np.isnan(r)
    if tol.kind == "exact":
        same_bits = ours.view(f"u{ours.dtype.itemsize}") == ref.view(f"u{ref.dtype.itemsize}")
        return (o_nan != r_nan) | (~o_nan & ~r_nan & ~same_bits)
    ulps = np.abs(ordered_bits(ours) - ordered_bits(ref))
    tol = cat.Tolerance(tol.kind, tol.ulps * scale)
    # Infinities only where TensorFlow has the same one (a result one ulp past the largest
    # float is not "close" to it).
    close = (ulps <= tol.ulps) & (np.isinf(o) == np.isinf(r))
    if tol.kind == "bound" and bound is not None:
        # The bound is NaN where a NaN term makes the result NaN whatever the order, +inf where
        # the order decides (infinite terms, or sums that may overflow): anything goes there.
        b = np.broadcast_to(np.asarray(bound, dtype=np.float64), o.shape)
        with np.errstate(invalid="ignore", over="ignore"):
            within = np.abs(o - r) <= scale * b * eps(ours.dtype)
        # Equal values agree whatever the bound (the same infinity where an inf input made it NaN).
        return np.where(np.isnan(b), ~((o_nan & r_nan) | (o == r)),
                        np.where(np.isinf(b), False, (o_nan != r_nan) | (~o_nan & ~r_nan & ~(close | within))))
    return (o_nan != r_nan) | (~o_nan & ~r_nan & ~close)


# Ops whose complex results are a sum of reals per part, compared part by part.
PARTWISE = {"Sum", "Mean", "AddN", "Cumsum", "BiasAddGrad", "SegmentSum", "SegmentMean", "UnsortedSegmentSum"}


def part_inputs(r, take):
    """The case's inputs with each complex one replaced by one part (np.real or np.imag)."""
    return [take(x) if np.iscomplexobj(x) else x for x in r.case.inputs]


def compare(r, ours, ref, scale=1):
    """None when `ours` agrees with TensorFlow's `ref`, else (kind, what differs): kind
    "stage" (the same error code, one refusing the graph, the other the step), "outcome"
    (an error against a result, or another code) or "values" (dtypes, shapes or values)."""
    if ref.code != "OK" or ours.code != "OK":
        if ref.code == ours.code and ref.stage == ours.stage:
            return None
        kind = "stage" if ref.code == ours.code else "outcome"
        return kind, f"TensorFlow: {ref.brief()}\n      here: {ours.brief()}"
    if len(ours.outputs) != len(ref.outputs):
        return "values", f"{len(ours.outputs)} outputs, TensorFlow {len(ref.outputs)}"
    for k, (o, t) in enumerate(zip(ours.outputs, ref.outputs)):
        if o.dtype != t.dtype or o.shape != t.shape:
            return "values", f"output {k}: {o.dtype}{list(o.shape)}, TensorFlow {t.dtype}{list(t.shape)}"
        if o.size == 0:
            continue
        tol = r.spec.tolerance
        if o.dtype.kind in "iub":
            bad = o != t
        elif o.dtype.kind == "c":
            # Complex: both parts compared as floats of the part type (exact tolerances only).
            part = np.float32 if o.dtype == np.complex64 else np.float64
            o2 = np.ascontiguousarray(o).view(part).reshape(o.shape + (2,))
            t2 = np.ascontiguousarray(t).view(part).reshape(t.shape + (2,))
            bound_fn = cat.BOUNDS.get(r.spec.op) or r.case.bound
            if tol.kind == "bound" and bound_fn and r.spec.op in PARTWISE:
                # Sums of complex numbers are two sums of reals: each part against its own bound.
                bounds = [bound_fn(part_inputs(r, take), r.attrs, [take(t)]) for take in (np.real, np.imag)]
                bad = float_mismatches(o2, t2, tol, np.stack(bounds, axis=-1), scale).any(axis=-1)
            else:
                bad = float_mismatches(o2, t2, tol, None, scale).any(axis=-1)
            if tol.kind != "exact" and r.spec.op not in PARTWISE:
                # Or norm-wise, as complex functions' accuracy is measured: |ours - TensorFlow's|
                # within the tolerance's ulps of |TensorFlow's| (a part that cancels, as log|z|
                # where |z| is near 1, has few correct digits of its own on either side), or
                # within the op's bound computed on the moduli (products: |z| bounds both
                # parts; an infinite bound, where the product of moduli overflows, lets any
                # order's result stand, as for real products).
                with np.errstate(invalid="ignore", over="ignore"):
                    err = np.abs(o.astype(np.complex128) - t.astype(np.complex128))
                    near = np.isfinite(err) & (err <= tol.ulps * scale * np.finfo(part).eps *
                                               np.abs(t.astype(np.complex128)))
                    if tol.kind == "bound" and bound_fn:
                        b = np.asarray(bound_fn(r.case.inputs, r.attrs, [t]), dtype=np.float64)
                        near |= (np.isfinite(err) & (err <= scale * b * np.finfo(part).eps)) | np.isposinf(b)
                    if r.spec.op in ("Log", "Xlogy"):
                        # log|z| from a rounded |z| is off by ~eps absolutely, not relatively (near
                        # |z| = 1 it cancels to nothing): x log(z) within ulps eps (|x| + |result|).
                        x = np.abs(r.case.inputs[0]) if r.spec.op == "Xlogy" else 1.0
                        allow = tol.ulps * scale * np.finfo(part).eps * (x + np.abs(t.astype(np.complex128)))
                        near |= np.isfinite(err) & (err <= np.broadcast_to(allow, err.shape))
                bad = bad & ~near
        else:
            bound_fn = cat.BOUNDS.get(r.spec.op) or r.case.bound
            bound = bound_fn(r.case.inputs, r.attrs, [t]) if (tol.kind == "bound" and bound_fn) else None
            if r.case.ulps is not None:
                tol = cat.Tolerance(tol.kind, r.case.ulps)
            bad = float_mismatches(o, t, tol, bound, scale)
        if r.spec.comparable is not None:
            bad = bad & r.spec.comparable(r.case.inputs, r.combo, o.shape)
        if bad.any():
            return "values", describe_values(r, k, o, t, bad)
    return None


def describe_values(r, k, o, t, bad):
    idx = np.argwhere(bad)
    lines = [f"output {k}: {len(idx)} of {o.size} values differ ({r.spec.tolerance.kind}"
             f"{'' if r.spec.tolerance.kind == 'exact' else ' ' + str(r.spec.tolerance.ulps)})"]
    try:
        ins = np.broadcast_arrays(*r.case.inputs) if len(r.case.inputs) > 1 else [r.case.inputs[0]]
        ins = [a for a in ins if a.shape == o.shape]
    except ValueError:
        ins = []
    for pos in idx[:4]:
        pos = tuple(pos)
        at = "".join(f" in{j}={fmt(a[pos])}" for j, a in enumerate(ins))
        lines.append(f"  at {list(pos)}:{at} here {fmt(o[pos])}, TensorFlow {fmt(t[pos])}")
    return "\n".join(lines)


def fmt(v):
    v = np.asarray(v)
    if v.dtype.kind == "f" or v.dtype.name == "bfloat16":
        f = float(v)
        return repr(f) if not (f == 0 and math.copysign(1, f) < 0) else "-0.0"
    return str(v.item() if hasattr(v, "item") else v)


def accepted_for(r, mode, kind, accepted=ACCEPTED):
    combo = ",".join(f"{k}={v}" for k, v in r.combo.items())
    for a in accepted:
        if re.fullmatch(a.op, r.spec.op) and re.fullmatch(a.row, r.row) and re.fullmatch(a.tag, r.case.tag) \
                and re.fullmatch(a.mode, mode) and re.fullmatch(a.combo, combo) and re.fullmatch(a.kind, kind) \
                and (a.when is None or a.when(r)):
            return a
    return None


def no_tf_kernel(o):
    """TensorFlow has no CPU kernel for the dtype (we claim one: not a disagreement)."""
    return o.code != "OK" and ("No OpKernel was registered" in o.message or
                               (o.code == "UNIMPLEMENTED" and "not supported" in o.message))


# ---- gradients -----------------------------------------------------------------------------
#
# For each catalogue op with a gradient on either side and each float or double combination
# our kernels claim, a sample of the op's cases (the smaller ones: edge values, broadcasting
# pairs, reductions with keep_dims ...): y = op(x...), an upstream gradient g_i of each float
# output y_i (random, fed), and d(sum_i y_i * g_i)/dx for each float input x. TensorFlow's
# side is tf.gradients(ys, xs, grad_ys=gs) in the graph that holds the forward node (its
# gradient nodes under "c<id>/gradients/"); ours is the same GraphDef without those nodes,
# to which fidelity_tool adds AddSymbolicGradients'. Both run in the three modes (the g_i
# always fed). Outcomes must agree as the forward ones do (an x no path reaches: None on
# both sides); where one side has no gradient for the op at all, the table says so.

GRAD_TYPES = ["float", "double", "complex64", "complex128"]  # --gradient-dtypes (half, bfloat16 on request)
NP_NAMES = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
            "complex64": "complex64", "complex128": "complex128"}


def differentiable(dtype_name):
    """Whether an input of this numpy or TensorFlow dtype name is differentiated."""
    return dtype_name in {NP_NAMES[t] for t in GRAD_TYPES}


def differentiated_output(dtype):
    """Whether a forward output of this TensorFlow dtype gets an upstream gradient: every
    float one (a float loss of complex inputs, Real's), a complex one when complex gradients
    are compared."""
    return dtype.is_floating or (dtype.is_complex and differentiable(dtype.name))


def upstream_gradient(rng, shape, dtype):
    """A random upstream gradient: N(0, 1), both parts drawn for a complex one."""
    if dtype.is_complex:
        return (rng.normal(0.0, 1.0, shape) + 1j * rng.normal(0.0, 1.0, shape)).astype(dtype.as_numpy_dtype)
    return rng.normal(0.0, 1.0, shape).astype(dtype.as_numpy_dtype)
GRAD_CASES = 6             # sampled cases per op and dtype row (--quick: 3)
GRAD_MAX_ELEMENTS = 1500   # the largest input a sampled case has
GRAD_BATCH = 150


def tf_gradient_kind(op):
    """"yes" (TensorFlow registers a gradient function), "none" (ops.NotDifferentiable) or ""."""
    try:
        return "none" if tf_ops._gradient_registry.lookup(op) is None else "yes"
    except LookupError:
        return ""


def gradient_plan(op, ours):
    """"compare", "no gradient here", "no gradient in TensorFlow", or "" where neither side
    differentiates the op. A registered "no gradient" (ours: REGISTER_NO_GRADIENT_OP) facing a
    gradient function on the other side is compared: TensorFlow's FloorDiv gradient returns
    None as our none does."""
    theirs, mine = tf_gradient_kind(op), ours.get(op, "")
    if theirs == "yes" and not mine:
        return "no gradient here"
    if mine == "yes" and theirs != "yes":
        return "no gradient in TensorFlow"
    return "compare" if "yes" in (theirs, mine) else ""


def grad_combo(combo):
    floats = [v for v in combo.values() if v in cat.FLOATS + cat.COMPLEX]
    return bool(floats) and all(v in GRAD_TYPES for v in floats)


@dataclass
class GradRecord(Record):
    g: list = field(default_factory=list)          # the upstream gradients, one per float output,
    g_known: bool = False                          # of the output's shape (else a scalar: the forward fails)
    xs: list = field(default_factory=list)         # tensor names: the differentiated inputs,
    ys: list = field(default_factory=list)         # the float outputs,
    gs: list = field(default_factory=list)         # and the placeholders of g
    tf: dict = field(default_factory=dict)         # mode -> TfGradient


def make_grad_records(claimed, ours_grads, ops, full, seed, notes):
    """The sampled gradient cases; `notes` gets {(op, row): note} for ops with a gradient on
    one side only."""
    records = []
    for spec in cat.CATALOGUE:
        if ops and spec.op not in ops:
            continue
        combos = [c for c in spec_combos(spec, claimed) if spec.accept(c) and grad_combo(c)]
        if not combos:
            continue
        plan = gradient_plan(spec.op, ours_grads)
        if plan != "compare":
            for c in combos:
                if plan:
                    notes[(spec.op, spec.row(c))] = plan
            continue
        made = []
        make_spec_records(spec, {spec.op: combos}, full, seed, made, set())
        by_row = defaultdict(list)
        for r in made:
            if any(differentiable(a.dtype.name) for a in r.case.inputs) and \
                    max((a.size for a in r.case.inputs), default=0) <= GRAD_MAX_ELEMENTS:
                by_row[r.row].append(r)
        for row, rs in by_row.items():
            picks = sorted(set(np.linspace(0, len(rs) - 1, min(GRAD_CASES, len(rs))).round().astype(int)))
            for i in picks:
                r = rs[i]
                records.append(GradRecord(len(records), r.spec, r.combo, r.row, r.case, r.attrs))
    return records


def forward_outputs(r):
    """The forward node's output shapes: computed eagerly, or where the op fails, as
    TensorFlow's shape inference gives them from constant inputs (a Gather with an index out
    of range has a shape); None when neither says."""
    raw = getattr(tf.raw_ops, r.spec.op)

    def make(ins):
        out = r.case.build(raw, ins, r.attrs) if r.case.build is not None else \
            raw(**dict(zip(op_arg_names(r.spec.op), ins)), **r.attrs)
        return [out] if isinstance(out, tf.Tensor) else list(out)
    try:
        return [tuple(o.shape) for o in make([tf.constant(a) for a in r.case.inputs])]
    except Exception:  # noqa: BLE001 (any refusal: the graph's outcome says which)
        pass
    try:
        with tf.Graph().as_default():
            outs = make([tf.constant(a) for a in r.case.inputs])
            if all(o.shape.is_fully_defined() for o in outs):
                return [tuple(o.shape.as_list()) for o in outs]
    except Exception:  # noqa: BLE001
        pass
    return None


@dataclass
class TfGradient:
    """TensorFlow's gradient graph of a case in one mode: what to fetch, or why there is none."""
    fetches: list = field(default_factory=list)    # the gradients' tensor names (the non-None ones)
    none_at: list = field(default_factory=list)    # tf.gradients' None, by x
    outcome: Outcome = None                        # the graph could not be built: the case's outcome


def build_grad_graph(records, mode, rng=None, with_gradients=True, complex_rng=None):
    """One graph of every record's forward node and TensorFlow's gradients of it, its inputs
    made as `mode` says (unknown: placeholders of unknown shape; fed: of static shape, the aux
    inputs constants; const: constants), as a program would build it, so that TensorFlow's
    gradient functions see the shapes they would see there (Mean's divisor is a constant
    only for known shapes). Each record gets its TfGradient for the mode in r.tf. With `rng`
    (the first call, mode unknown) each record also learns its tensor names and draws its
    upstream gradients (from `complex_rng` for a case with a complex input or output, so that
    the real cases draw the same gradients whichever dtypes are compared). Without
    `with_gradients`, the same graph without TensorFlow's gradients: our side's forward graph
    (tf.gradients rewrites TensorFlow 2's If and While nodes in place, giving them outputs for
    its gradients). Returns the GraphDef."""
    shapes = {r.id: forward_outputs(r) for r in records} if rng is not None else {}  # eagerly, before the graph
    graph = tf.Graph()
    with graph.as_default():
        for r in records:
            with graph.name_scope(f"c{r.id}/"):
                ins = []
                for i, a in enumerate(r.case.inputs):
                    if mode == "const" or (mode == "fed" and i in r.case.aux) or i in r.case.always_const:
                        ins.append(tf.constant(a, name=f"in{i}"))
                    else:
                        ins.append(tf1.placeholder(tf_dtype(a), shape=a.shape if mode == "fed" else None,
                                                   name=f"in{i}"))
                raw = getattr(tf.raw_ops, r.spec.op)
                try:
                    out = r.case.build(raw, ins, r.attrs) if r.case.build is not None else \
                        raw(**dict(zip(op_arg_names(r.spec.op), ins)), **r.attrs)
                except (TypeError, ValueError, tf.errors.OpError) as e:
                    if rng is not None:
                        r.build_error = f"{type(e).__name__}: {e}"
                    elif with_gradients:  # the shapes or constants make TensorFlow refuse the forward node
                        r.tf[mode] = TfGradient(outcome=tf_error_outcome(e, "create"))
                    continue
                outs = [out] if isinstance(out, tf.Tensor) else list(out)
                ys = [(k, t) for k, t in enumerate(outs) if differentiated_output(t.dtype)]
                xs = [p for p in ins if differentiable(p.dtype.name)]
                if rng is not None:
                    if not ys or not xs:
                        r.build_error = "skip"  # nothing to differentiate (not counted)
                        continue
                    known = shapes[r.id]
                    r.g_known = known is not None
                    touches_complex = any(np.iscomplexobj(a) for a in r.case.inputs) or \
                        any(y.dtype.is_complex for _, y in ys)
                    draw = complex_rng if complex_rng is not None and touches_complex else rng
                    r.g = [upstream_gradient(draw, known[k], y.dtype) if known is not None
                           else np.ones((), y.dtype.as_numpy_dtype) for k, y in ys]
                    r.xs, r.ys = [p.name for p in xs], [y.name for _, y in ys]
                    r.gs = [f"c{r.id}/g{k}:0" for k, _ in ys]
                gs = [tf1.placeholder(y.dtype, shape=g.shape if mode == "fed" and r.g_known else None, name=f"g{k}")
                      for (k, y), g in zip(ys, r.g)]
                if not with_gradients:
                    continue
                with graph.name_scope("gradients"):
                    try:
                        grads = tf.gradients([y for _, y in ys], xs, grad_ys=gs)
                        grads = [None if d is None else tf.convert_to_tensor(d) for d in grads]
                    except LookupError as e:
                        r.tf[mode] = TfGradient(outcome=Outcome("NOT_FOUND", "gradient", str(e)))
                        continue
                    except (TypeError, ValueError, tf.errors.OpError) as e:
                        r.tf[mode] = TfGradient(outcome=tf_error_outcome(e, "gradient"))
                        continue
                r.tf[mode] = TfGradient([d.name for d in grads if d is not None], [d is None for d in grads])
    return graph.as_graph_def()


def grad_variant(template, records, by_id, mode):
    """Our side's forward GraphDef for `mode` (variant() of the unknown-shape forward graph,
    built without TensorFlow's gradients) and the feeds of both sides (the upstream gradients
    always fed, of static shape in "fed" and "const")."""
    gd, feeds = variant(template, by_id, mode)
    for node in gd.node:
        m = re.match(r"c(\d+)/g(\d+)$", node.name)
        if not m or node.op != "Placeholder":
            continue
        r = by_id[int(m.group(1))]
        arr = r.g[r.gs.index(node.name + ":0")]
        if mode in ("fed", "const") and r.g_known:  # TensorFlow's const graph is its fed one's
            shape = node.attr["shape"].shape
            shape.Clear()
            for d in arr.shape:
                shape.dim.add().size = d
        feeds[r.id][node.name + ":0"] = arr
    ours = tf1.GraphDef()
    ours.versions.CopyFrom(gd.versions)
    ours.library.CopyFrom(gd.library)
    ours.node.extend(n for n in gd.node if not re.match(r"c\d+/gradients/", n.name))
    return ours, feeds


def grad_spec_text(records):
    return "".join(f"{r.id}\t{' '.join(r.xs)}\t{' '.join(r.ys)}\t{' '.join(r.gs)}\n" for r in records)


def with_nones(o, none_at):
    """TensorFlow's outcome with None where it has no gradient (fetched are only the others)."""
    if o.code != "OK":
        return o
    it = iter(o.outputs)
    return Outcome("OK", outputs=[None if n else next(it) for n in none_at])


def grad_stage(o):
    """An error building the gradient graph is a refusal of the graph ("create"), as when
    TensorFlow's import refuses the gradient nodes it built without shapes; only "no gradient
    defined" keeps its own stage."""
    return o.stage if o.stage != "gradient" or o.code == "NOT_FOUND" else "create"


def grad_terms(r, k, out_size):
    """How many terms one element of x_k's gradient may sum: the forward output's elements per
    element of x_k (broadcasting reduces them back), or the longest dimension of any input
    (a matmul's inner products, a softmax row)."""
    xk = [a for a in r.case.inputs if differentiable(a.dtype.name)][k]
    longest = max((d for a in r.case.inputs for d in a.shape), default=1)
    return max(1, out_size // max(1, xk.size), longest)


def compare_grad(r, ours, ref, scale=1):
    """None when our gradients agree with TensorFlow's, else (kind, what differs)."""
    if ref.code != "OK" or ours.code != "OK":
        if ref.code == ours.code and grad_stage(ref) == grad_stage(ours):
            return None
        kind = "grad-stage" if ref.code == ours.code else "grad-outcome"
        return kind, f"TensorFlow: {ref.brief()}\n      here: {ours.brief()}"
    if len(ours.outputs) != len(ref.outputs):
        return "grad-values", f"{len(ours.outputs)} gradients, TensorFlow {len(ref.outputs)}"
    out_size = max((g.size for g in r.g if g is not None), default=1)
    for k, (o, t) in enumerate(zip(ours.outputs, ref.outputs)):
        if o is None or t is None:
            if o is None and t is None:
                continue
            return "grad-none", f"d/d{r.xs[k]}: {'none' if o is None else 'a gradient'} here, " \
                                f"{'none' if t is None else 'a gradient'} in TensorFlow"
        if o.dtype != t.dtype or o.shape != t.shape:
            return "grad-values", f"d/d{r.xs[k]}: {o.dtype}{list(o.shape)}, TensorFlow {t.dtype}{list(t.shape)}"
        if o.size == 0:
            continue
        family = grad_family(r)
        bound = family.bound(r, k, t, out_size)
        tol = cat.Tolerance("bound", family.ulps)
        if o.dtype.kind == "c":
            # Complex: each part compared as a float of the part type, against the bound the
            # family gives from the moduli (|z| bounds both parts).
            part = np.float32 if o.dtype == np.complex64 else np.float64
            o2 = np.ascontiguousarray(o).view(part).reshape(o.shape + (2,))
            t2 = np.ascontiguousarray(t).view(part).reshape(t.shape + (2,))
            b2 = np.broadcast_to(np.asarray(bound, dtype=np.float64), t.shape)[..., None]
            bad = float_mismatches(o2, t2, tol, np.broadcast_to(b2, t2.shape), scale).any(axis=-1)
        else:
            bad = float_mismatches(o, t, tol, bound, scale)
        if bad.any():
            return "grad-values", describe_grad(r, k, o, t, bad, family, bound)
    return None


def describe_grad(r, k, o, t, bad, family, bound):
    idx = np.argwhere(bad)
    lines = [f"d/d{r.xs[k]}: {len(idx)} of {o.size} values differ (within {family.ulps} ulps or the "
             f"{family.name} bound)"]
    for pos in idx[:4]:
        pos = tuple(pos)
        lines.append(f"  at {list(pos)}: here {fmt(o[pos])}, TensorFlow {fmt(t[pos])}, bound "
                     f"{float(np.broadcast_to(bound, o.shape)[pos]) * eps(o.dtype):.3g}")
    return "\n".join(lines)


# Gradient tolerances. A gradient is a chain of ops (the forward op's output, its gradient
# kernel or the ops its gradient function builds, sums over broadcast dimensions), so each
# side's rounding errors are bounded by a few eps times the magnitudes of the terms, not of
# the result: a gradient that cancels (1 - tanh(x)^2 for large x, a softmax row's
# dy - sum(dy * y)) is accurate to eps absolute, not relative. Two families:
#
# ELEMENTWISE (the catalogue's unary ops: dx_i from x_i, y_i and g_i alone): within 8 ulps
#   (the forward's TRANSCENDENTAL accuracy), or |ours - TensorFlow's| <= 32 (|dx_i| + |g_i|)
#   eps element by element: y_i is within 8 ulps on either side and the gradient kernels
#   combine it with g_i in up to four roundings (TanhGrad's g (1 - y y): 2 |y| 8 ulps of y
#   times |g|, 16 eps |g|, doubled for either side).
# CHAINED (the rest): within 8 ulps, or norm-wise: |ours - TensorFlow's| <= 16 n eps max|dx|
#   over the gradient tensor, n the most terms one element sums (the forward output's
#   elements per element of x, a matmul's inner dimension, a softmax row): recursive
#   summation's n eps bound on each side, with terms no larger than the largest gradient
#   element times the few roundings of the ops in the chain; times the case's grad_kappa
#   where the gradient solves with an ill-conditioned matrix (Cholesky's L^-1).


@dataclass(frozen=True)
class GradFamily:
    name: str
    ulps: int
    bound: Callable   # (record, x index, TensorFlow's gradient, forward size) -> bound in eps per element


def magnitudes(a):
    """|a| as float64: the moduli of a complex array."""
    return np.abs(a).astype(np.float64) if np.iscomplexobj(a) else np.abs(a.astype(np.float64))


def elementwise_bound(r, k, t, out_size):
    g = magnitudes(r.g[0])
    g = np.broadcast_to(g, t.shape) if g.size in (1, t.size) else np.zeros(t.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        b = 32 * (magnitudes(t) + g.reshape(t.shape))
    return np.where(np.isfinite(b), b, 0.0)


def chained_bound(r, k, t, out_size):
    t64 = magnitudes(t)
    finite = np.isfinite(t64)
    scale = float(np.max(np.abs(t64[finite]))) if finite.any() else 0.0
    return np.full(t.shape, 16 * grad_terms(r, k, out_size) * scale * r.case.grad_kappa)


ELEMENTWISE = GradFamily("elementwise", 8, elementwise_bound)
CHAINED = GradFamily("chained", 8, chained_bound)


def grad_family(r):
    return ELEMENTWISE if r.spec.cases.__qualname__.startswith("elementwise_unary_cases") else CHAINED


def run_gradients(args, claimed, ops, seeds, modes):
    """Builds, runs and compares the gradient cases. Returns (table {(op, row): counts},
    notes {(op, row): note}, differences, timing text)."""
    started = time.time()
    ours_grads = json.loads(subprocess.run([args.tool, "gradients"], check=True, capture_output=True,
                                           text=True).stdout)
    notes = {}
    records = []
    for seed in seeds:
        for r in make_grad_records(claimed, ours_grads, ops, args.full, seed, notes):
            r.id = len(records)
            records.append(r)
    by_id = {r.id: r for r in records}
    rng = np.random.default_rng([seeds[0], 99])
    complex_rng = np.random.default_rng([seeds[0], 99, 64])
    work = os.path.join(args.work, "gradients")
    os.makedirs(work, exist_ok=True)
    batches = []
    manifest = ""
    for b in range(0, len(records), GRAD_BATCH):
        group = records[b:b + GRAD_BATCH]
        template = build_grad_graph(group, "unknown", rng, complex_rng=complex_rng)
        runnable = [r for r in group if not r.build_error]
        # TensorFlow's gradient graphs are built twice (tf.gradients costs some 14 ms a case):
        # on placeholders of unknown shape, and of static shape with the aux inputs constant;
        # the const mode's is the latter with its placeholders made constants (TensorFlow's
        # gradient functions read static shapes and constant axes, which are the same there).
        fed_gd = build_grad_graph(runnable, "fed") if {"fed", "const"} & set(modes) else None
        forward = build_grad_graph(runnable, "unknown", with_gradients=False)
        for mode in modes:
            if mode == "unknown":
                gd = template
            elif mode == "fed":
                gd = fed_gd
            else:
                gd, _ = variant(fed_gd, by_id, "const")
                for r in runnable:
                    r.tf["const"] = r.tf.get("fed")
            ours_gd, feeds = grad_variant(forward, runnable, by_id, mode)
            name = f"g{b // GRAD_BATCH}_{mode}"
            manifest += write_batch(work, name, ours_gd, feeds, runnable, grad_spec_text(runnable))
            batches.append((name, mode, gd, feeds, runnable))
    manifest_path = os.path.join(work, "manifest.txt")
    ours_path = os.path.join(work, "ours.jsonl")
    with open(manifest_path, "w") as f:
        f.write(manifest)
    built = time.time()
    with open(os.path.join(work, "cases.txt"), "w") as f:
        f.writelines(f"c{r.id} {r.spec.op} {json.dumps(r.combo)} {r.case.tag}\n" for r in records)
    tool = subprocess.run([args.tool, "run", manifest_path, ours_path], stderr=subprocess.PIPE, text=True)
    if tool.returncode != 0:
        raise RuntimeError(f"fidelity_tool exited {tool.returncode} on the gradient cases: {tool.stderr[-2000:]}")
    ours_done = time.time()
    ours = {}
    with open(ours_path) as f:
        lines = f.readlines()
    at = 0
    for name, mode, gd, feeds, runnable in batches:
        chunk = lines[at:at + len(runnable)]
        at += len(runnable)
        for cid, o in read_ours(chunk).items():
            ours[(mode, cid)] = o
    if args.gpu_results:
        pairs = read_device_pairs(os.path.join(args.gpu_results, "gradients.jsonl.xz"), batches)
        GPU_REPORTS.append(compare_gpu("Gradients", records, modes, pairs, compare_grad, args.verbose))
    theirs = {}
    for name, mode, gd, feeds, runnable in batches:
        on_tf = []
        for r in runnable:
            t = r.tf.get(mode) or TfGradient(outcome=Outcome("UNKNOWN", "create", "not built"))
            if t.outcome is not None:
                theirs[(mode, r.id)] = t.outcome
            else:
                on_tf.append(copy.copy(r))
                on_tf[-1].fetches = t.fetches
        failed_here = {r.id for r in on_tf if ours.get((mode, r.id)) is None or ours[(mode, r.id)].code != "OK"}
        for cid, o in run_tensorflow(gd, feeds, on_tf, failed_here).items():
            theirs[(mode, cid)] = with_nones(o, by_id[cid].tf[mode].none_at)

    table = defaultdict(lambda: {"runs": 0, "agree": 0, "accepted": 0, "differ": 0, "no_tf_kernel": 0})
    differences = []
    shown = defaultdict(int)
    for r in records:
        if r.build_error:  # nothing to differentiate, or the forward run reports it as NOT BUILT
            continue
        key = (r.spec.op, r.row)
        row = table[key]
        for mode in modes:
            ref, mine = theirs.get((mode, r.id)), ours.get((mode, r.id))
            row["runs"] += 1
            if ref is None or mine is None:
                diff = ("grad-outcome", f"no outcome ({'TensorFlow' if ref is None else 'here'})")
            elif no_tf_kernel(ref):
                row["no_tf_kernel"] += 1
                continue
            else:
                diff = compare_grad(r, mine, ref)
            if diff is None:
                row["agree"] += 1
                continue
            kind, text = diff
            acc = accepted_for(r, mode, kind)
            if acc is not None:
                acc.used += 1
                row["accepted"] += 1
                continue
            row["differ"] += 1
            differences.append({"op": r.spec.op, "dtype": r.row, "combo": r.combo, "mode": mode,
                                "tag": r.case.tag, "kind": kind, "difference": text})
            if args.verbose or shown[key] < 3:
                shown[key] += 1
                print(f"DIFFERS (gradient) {r.spec.op} {r.row} [{mode}] {r.case.tag} ({json.dumps(r.combo)})\n"
                      f"    {text}")
    with open(os.path.join(work, "differences.json"), "w") as f:
        json.dump(differences, f, indent=1)
    timing = (f"{len(records)} gradient cases x {len(modes)} modes in {time.time() - started:.0f} s (graphs "
              f"{built - started:.0f} s, here {ours_done - built:.0f} s, TensorFlow {time.time() - ours_done:.0f} s)")
    return table, notes, differences, timing


def print_grad_table(table, notes):
    """Prints the gradient table; returns its Markdown lines and the totals."""
    print()
    header = f"{'gradient of':<18} {'dtype':<16} {'runs':>6} {'agree':>6} {'accepted':>8} {'differ':>6}  note"
    print(header)
    print("-" * len(header))
    totals = {"runs": 0, "agree": 0, "accepted": 0, "differ": 0, "no_tf_kernel": 0}
    by_op = defaultdict(lambda: {"rows": [], "runs": 0, "agree": 0, "accepted": 0, "differ": 0, "note": ""})
    for key in sorted(set(table) | set(notes)):
        op, row = key
        c = table.get(key, {"runs": 0, "agree": 0, "accepted": 0, "differ": 0, "no_tf_kernel": 0})
        note = notes.get(key, "")
        if c["no_tf_kernel"]:
            note = f"TensorFlow has no CPU kernel ({c['no_tf_kernel']} runs)"
        print(f"{op:<18} {row:<16} {c['runs']:>6} {c['agree']:>6} {c['accepted']:>8} {c['differ']:>6}  {note}")
        by_op[op]["rows"].append(row)
        by_op[op]["note"] = by_op[op]["note"] or notes.get(key, "")
        for k in totals:
            totals[k] += c[k]
            if k in by_op[op]:
                by_op[op][k] += c[k]
    print("-" * len(header))
    print(f"{'total':<18} {len(table):<16} {totals['runs']:>6} {totals['agree']:>6} {totals['accepted']:>8} "
          f"{totals['differ']:>6}")
    md = ["| gradient of | dtypes | runs | agree | accepted | differ | no gradient |",
          "|---|---|---:|---:|---:|---:|---|"]
    for op, c in sorted(by_op.items()):
        md.append(f"| {op} | {', '.join(c['rows'])} | {c['runs']} | {c['agree']} | {c['accepted']} | "
                  f"{c['differ']} | {c['note']} |")
    md.append(f"| **total: {sum(1 for c in by_op.values() if c['runs'])} ops compared** | {len(table)} op/dtype "
              f"rows | {totals['runs']} | {totals['agree']} | {totals['accepted']} | {totals['differ']} | "
              f"{sum(1 for c in by_op.values() if c['note'])} ops one-sided |")
    return md, totals


# ---- main ----------------------------------------------------------------------------------


def run_forward(args, claimed, ops, seeds, modes, started):
    """The forward cases: built, run on both sides, compared and tabled. Returns (Markdown
    lines, timing text, totals), None when fidelity_tool failed."""
    records = make_records(claimed, ops, args.full, seeds)
    missing = [s.op for s in cat.CATALOGUE if not spec_combos(s, claimed) and (not ops or s.op in ops)]
    by_id = {r.id: r for r in records}
    with open(os.path.join(args.work, "cases.txt"), "w") as f:  # for reading fidelity_tool's trace
        f.writelines(f"c{r.id} {r.spec.op} {json.dumps(r.combo)} {r.case.tag}\n" for r in records)

    # Build every batch's GraphDefs (a graph per batch and mode) and write our side's files.
    batches = []
    manifest = ""
    # Many cases share a graph and a step; a stateful op's cases (OpSpec.own_session) get one
    # each, so each runs once in a fresh session on both sides.
    shared = [r for r in records if not r.spec.own_session]
    groups = [shared[b:b + BATCH] for b in range(0, len(shared), BATCH)]
    groups += [[r] for r in records if r.spec.own_session]
    for g, group in enumerate(groups):
        template = build_template(group)
        runnable = [r for r in group if not r.build_error]
        for mode in modes:
            gd, feeds = variant(template, by_id, mode)
            name = f"b{g}_{mode}"
            manifest += write_batch(args.work, name, gd, feeds, runnable)
            batches.append((name, mode, gd, feeds, runnable))
    manifest_path = os.path.join(args.work, "manifest.txt")
    ours_path = os.path.join(args.work, "ours.jsonl")
    with open(manifest_path, "w") as f:
        f.write(manifest)
    built = time.time()
    # Here first: the cases that fail here are the ones TensorFlow is asked one by one.
    trace_path = os.path.join(args.work, "trace.txt")
    with open(trace_path, "w") as trace:
        tool = subprocess.run([args.tool, "run", manifest_path, ours_path], stderr=trace,
                              env=dict(os.environ, FIDELITY_TOOL_TRACE="1"))
    if tool.returncode != 0:
        # A kernel must never take the process down: name the cases of the last step.
        with open(trace_path) as f:
            trace_lines = f.read().splitlines()
        steps = [l for l in trace_lines if l.startswith("fidelity_tool: step of")]
        last = [int(i) for i in steps[-1].split(":")[2].split()] if steps else []
        print(f"FAILED: fidelity_tool exited {tool.returncode} ({trace_path}); its last step ran:")
        for cid in last[:20]:
            r = by_id[cid]
            print(f"  c{cid} {r.spec.op} {json.dumps(r.combo)} {r.case.tag}")
        print("\n".join(l for l in trace_lines[-5:] if not l.startswith("fidelity_tool: step of")))
        return None
    ours_done = time.time()
    # Our lines come in manifest order: batch by batch, mode by mode.
    ours = {}
    with open(ours_path) as f:
        lines = f.readlines()
    at = 0
    for name, mode, gd, feeds, runnable in batches:
        chunk = lines[at:at + len(runnable)]
        at += len(runnable)
        for cid, o in read_ours(chunk).items():
            ours[(mode, cid)] = o
    if args.gpu_results:
        pairs = read_device_pairs(os.path.join(args.gpu_results, "forward.jsonl.xz"), batches)
        GPU_REPORTS.append(compare_gpu("Forward", records, modes, pairs, compare, args.verbose))

    theirs = {}
    for name, mode, gd, feeds, runnable in batches:
        failed_here = {r.id for r in runnable if ours.get((mode, r.id)) is None or ours[(mode, r.id)].code != "OK"}
        for cid, o in run_tensorflow(gd, feeds, runnable, failed_here).items():
            theirs[(mode, cid)] = o
    tf_done = time.time()

    # Compare, row by row.
    table = defaultdict(lambda: {"runs": 0, "agree": 0, "accepted": 0, "differ": 0, "no_tf_kernel": 0})
    shown = defaultdict(int)
    differences = []
    unbuilt = []
    for r in records:
        key = (r.spec.op, r.row)
        if r.build_error:
            unbuilt.append(r)
            continue
        for mode in modes:
            ref, mine = theirs.get((mode, r.id)), ours.get((mode, r.id))
            row = table[key]
            row["runs"] += 1
            if ref is None or mine is None:
                diff = f"no outcome ({'TensorFlow' if ref is None else 'here'})"
            elif no_tf_kernel(ref):
                row["no_tf_kernel"] += 1
                continue
            else:
                diff = compare(r, mine, ref)
            if diff is None:
                row["agree"] += 1
                continue
            kind, diff = diff if isinstance(diff, tuple) else ("outcome", diff)
            acc = accepted_for(r, mode, kind)
            if acc is not None:
                acc.used += 1
                row["accepted"] += 1
                continue
            row["differ"] += 1
            differences.append({"op": r.spec.op, "dtype": r.row, "combo": r.combo, "mode": mode, "tag": r.case.tag,
                                "kind": kind, "difference": diff})
            if args.verbose or shown[key] < 3:
                shown[key] += 1
                print(f"DIFFERS {r.spec.op} {r.row} [{mode}] {r.case.tag} ({json.dumps(r.combo)})\n    {diff}")
    with open(os.path.join(args.work, "differences.json"), "w") as f:
        json.dump(differences, f, indent=1)
    # A case TensorFlow's Python cannot even make is the catalogue's bug: it fails the run.
    for r in unbuilt:
        print(f"NOT BUILT {r.spec.op} {r.row} {r.case.tag}: TensorFlow could not make the node: {r.build_error[:200]}")
        table[(r.spec.op, r.row)]["runs"] += 1
        table[(r.spec.op, r.row)]["differ"] += 1

    # The table.
    print()
    header = f"{'op':<18} {'dtype':<16} {'runs':>6} {'agree':>6} {'accepted':>8} {'differ':>6}  note"
    print(header)
    print("-" * len(header))
    totals = {"runs": 0, "agree": 0, "accepted": 0, "differ": 0, "no_tf_kernel": 0}
    by_op = defaultdict(lambda: {"rows": [], "runs": 0, "agree": 0, "accepted": 0, "differ": 0, "no_tf_kernel": 0})
    for (op, row), c in sorted(table.items()):
        note = f"TensorFlow has no CPU kernel ({c['no_tf_kernel']} runs)" if c["no_tf_kernel"] else ""
        print(f"{op:<18} {row:<16} {c['runs']:>6} {c['agree']:>6} {c['accepted']:>8} {c['differ']:>6}  {note}")
        by_op[op]["rows"].append(row)
        for k in totals:
            totals[k] += c[k]
            by_op[op][k] += c[k]
    # The Markdown summary: a line per op, its dtypes together.
    md = ["| op | dtypes | runs | agree | accepted | differ | TensorFlow has no kernel |",
          "|---|---|---:|---:|---:|---:|---:|"]
    for op, c in sorted(by_op.items()):
        rows = c["rows"] if len(c["rows"]) <= 13 else [f"{len(c['rows'])} pairs"]
        md.append(f"| {op} | {', '.join(rows)} | {c['runs']} | {c['agree']} | {c['accepted']} | {c['differ']} | "
                  f"{c['no_tf_kernel'] or ''} |")
    print("-" * len(header))
    print(f"{'total':<18} {len(table):<16} {totals['runs']:>6} {totals['agree']:>6} {totals['accepted']:>8} "
          f"{totals['differ']:>6}  {totals['no_tf_kernel']} runs where TensorFlow has no kernel")
    md.append(f"| **total: {len(by_op)} ops** | {len(table)} op/dtype rows | {totals['runs']} | {totals['agree']} | "
              f"{totals['accepted']} | {totals['differ']} | {totals['no_tf_kernel']} |")

    # What TensorFlow computes that our kernels do not claim (information, not failure).
    lacking = []
    for spec in cat.CATALOGUE:
        if ops and spec.op not in ops:
            continue
        ours_types = {v for c in claimed.get(spec.op, []) for v in list(c.values())[:1]}
        tf_types = set()
        for kd in tf_kernels.get_registered_kernels_for_op(spec.op).kernel:
            if kd.device_type != "CPU":
                continue
            for c in kd.constraint[:1]:
                tf_types |= {tf.dtypes.as_dtype(t).name for t in c.allowed_values.list.type}
        names = {"float32": "float", "float64": "double", "float16": "half"}
        tf_types = {names.get(t, t) for t in tf_types if names.get(t, t) in cat.REAL_TYPES}
        if tf_types - ours_types and spec.op not in ("LogicalAnd", "LogicalOr", "LogicalNot", "Any", "All"):
            lacking.append(f"{spec.op}: {', '.join(sorted(tf_types - ours_types))}")
    if lacking:
        print("\nDtypes TensorFlow's CPU kernels compute that ours do not claim (not compared):\n  " +
              "\n  ".join(lacking))
    if missing:
        print("\nOps of the catalogue with no kernel here (not compared): " + ", ".join(missing))
    for a in ACCEPTED:
        if a.used:
            print(f"\naccepted ({a.used} runs): {a.op} {a.row}: {a.reason}")
    timing = (f"{len(records)} cases x {len(modes)} modes in {time.time() - started:.0f} s "
              f"(graphs {built - started:.0f} s, here {ours_done - built:.0f} s, TensorFlow {tf_done - ours_done:.0f} s)")
    print("\n" + timing)
    return md, timing, totals


# ---- the GPU against the CPU ---------------------------------------------------------------
#
# With --gpu, the cases are those of the ops and type combinations that have a GPU kernel
# here as well as a CPU one (`fidelity_tool kernels --device gpu`). tests/gpu/run-on-device.sh
# packs the work directory and runs its manifests on a GPU machine twice, `fidelity_tool run
# --device cpu` and `--device gpu` (nodes with a GPU kernel placed there), and brings back
# forward.jsonl.xz and gradients.jsonl.xz: per case {"id", "same": true} where the two
# outcomes are the same bits, else {"cpu": outcome, "gpu": outcome}. --gpu-results DIR
# compares them case by case: the same outcomes, the same dtypes and shapes, and the values
# within GPU_SCALE times the op's tolerance (each side may be that far from the exact result:
# CUDA's libm is within 1-4 ulps where Eigen's polynomials are, cuBLAS and cuDNN sum in other
# orders). The table of each, and a failure for every difference not in ACCEPTED_GPU.

GPU_SCALE = 4
GPU_REPORTS = []   # (Markdown lines, runs that differ) of each comparison


def read_device_pairs(path, batches):
    """{(mode, case id): "same" or (GPU Outcome, CPU Outcome)} from run-on-device.sh's lines
    for `batches` (manifest order)."""
    import lzma
    with lzma.open(path, "rt") as f:
        lines = [json.loads(l) for l in f]
    if len(lines) != sum(len(b[4]) for b in batches):
        raise RuntimeError(f"{path} has {len(lines)} cases, these options make "
                           f"{sum(len(b[4]) for b in batches)}: run with the options the GPU's cases were made with")
    pairs, at = {}, 0
    for name, mode, gd, feeds, runnable in batches:
        for r, d in zip(runnable, lines[at:at + len(runnable)]):
            if d.get("same"):
                pairs[(mode, r.id)] = "same"
                continue
            pairs[(mode, r.id)] = (outcome_of(d["gpu"]), outcome_of(d["cpu"]))
        at += len(runnable)
    return pairs


def compare_gpu(title, records, modes, pairs, compare_fn, verbose):
    """Prints the GPU-against-CPU table; returns its Markdown lines and the runs that differ."""
    table = defaultdict(lambda: {"runs": 0, "agree": 0, "accepted": 0, "differ": 0})
    shown = defaultdict(int)
    for r in records:
        if r.build_error:
            continue
        key = (r.spec.op, r.row)
        for mode in modes:
            row = table[key]
            row["runs"] += 1
            pair = pairs.get((mode, r.id))
            if pair == "same":
                row["agree"] += 1
                continue
            diff = ("outcome", "no outcome") if pair is None else compare_fn(r, pair[0], pair[1], GPU_SCALE)
            if diff is None:
                row["agree"] += 1
                continue
            kind, text = diff
            acc = accepted_for(r, mode, kind, ACCEPTED_GPU)
            if acc is not None:
                acc.used += 1
                row["accepted"] += 1
                if verbose:
                    print(f"accepted on the GPU: {r.spec.op} {r.row} [{mode}] {r.case.tag}: {text.splitlines()[-1][:160]}")
                continue
            row["differ"] += 1
            if verbose or shown[key] < 3:
                shown[key] += 1
                print(f"DIFFERS on the GPU {r.spec.op} {r.row} [{mode}] {r.case.tag} ({json.dumps(r.combo)})\n"
                      f"    {text.replace('TensorFlow', 'CPU').replace(' here ', ' GPU ').replace('here:', 'GPU:')}")
    print(f"\n{title}: the GPU against the CPU (within {GPU_SCALE}x each op's tolerance)")
    header = f"{'op':<18} {'dtype':<16} {'runs':>6} {'agree':>6} {'accepted':>8} {'differ':>6}"
    print(header + "\n" + "-" * len(header))
    md = [f"{title}, the GPU against the CPU:", "", "| op | dtypes | runs | agree | accepted | differ |",
          "|---|---|---:|---:|---:|---:|"]
    totals = defaultdict(int)
    by_op = defaultdict(lambda: defaultdict(int))
    rows = defaultdict(list)
    for (op, dtype), c in sorted(table.items()):
        print(f"{op:<18} {dtype:<16} {c['runs']:>6} {c['agree']:>6} {c['accepted']:>8} {c['differ']:>6}")
        rows[op].append(dtype)
        for k, v in c.items():
            totals[k] += v
            by_op[op][k] += v
    for op, c in sorted(by_op.items()):
        md.append(f"| {op} | {', '.join(rows[op])} | {c['runs']} | {c['agree']} | {c['accepted']} | {c['differ']} |")
    md.append(f"| **total: {len(by_op)} ops** | {len(table)} rows | {totals['runs']} | {totals['agree']} | "
              f"{totals['accepted']} | {totals['differ']} |")
    print(f"{'total':<18} {len(table):<16} {totals['runs']:>6} {totals['agree']:>6} {totals['accepted']:>8} "
          f"{totals['differ']:>6}")
    return md, totals["differ"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tool")
    parser.add_argument("work")
    parser.add_argument("--full", action="store_true", help="more shapes, sizes and seeds")
    parser.add_argument("--quick", action="store_true",
                        help="every op, dtype and mode, but at most %d cases per combination (%d gradient cases)"
                        % (QUICK_CASE_COUNT, QUICK_GRAD_CASES))
    parser.add_argument("--ops", default="", help="comma-separated ops (default: the whole catalogue)")
    parser.add_argument("--shard", default="",
                        help="K/N: only the K-th of N interleaved slices of the catalogue's ops (K from 1), so "
                             "that N processes (ctest's shards) share the sweep")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--seeds", type=int, default=0, help="random seeds from --seed on (default 1, --full 4)")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--markdown", default="", help="also write the table as Markdown to this file")
    parser.add_argument("--verbose", action="store_true", help="every difference, not the first three per row")
    parser.add_argument("--gradients", choices=("on", "off", "only"), default="on",
                        help="also compare the ops' symbolic gradients (default), not, or only them")
    parser.add_argument("--gradient-dtypes", default=",".join(GRAD_TYPES),
                        help="the dtypes whose gradients are compared (half and bfloat16 too on request)")
    parser.add_argument("--gpu", action="store_true",
                        help="only the ops and dtypes with a GPU kernel too (the cases a GPU machine runs)")
    parser.add_argument("--gpu-results", default="",
                        help="a folder with fidelity_tool --device gpu's ours.jsonl (and gradients/ours.jsonl) "
                             "of this work folder's manifests: compare them with our CPU's")
    args = parser.parse_args()
    started = time.time()
    os.makedirs(args.work, exist_ok=True)
    global QUICK_CASES, GRAD_CASES
    if args.quick and not args.full:
        QUICK_CASES, GRAD_CASES = QUICK_CASE_COUNT, QUICK_GRAD_CASES
    modes = [m for m in args.modes.split(",") if m]
    ops = {o for o in args.ops.split(",") if o}
    if args.shard:
        k, n = (int(v) for v in args.shard.split("/"))
        if not 1 <= k <= n:
            parser.error(f"--shard {args.shard}: K must be between 1 and N")
        catalogue_ops = sorted({spec.op for spec in cat.CATALOGUE if not ops or spec.op in ops})
        ops = {o for i, o in enumerate(catalogue_ops) if i % n == k - 1}

    claimed = json.loads(subprocess.run([args.tool, "kernels"], check=True, capture_output=True, text=True).stdout)
    if args.gpu:
        on_gpu = json.loads(subprocess.run([args.tool, "kernels", "--device", "gpu"], check=True,
                                           capture_output=True, text=True).stdout)
        claimed = {op: [c for c in combos if c in on_gpu.get(op, [])] for op, combos in claimed.items()}
        claimed = {op: combos for op, combos in claimed.items() if combos}
        ops = ops or set(claimed)
    seeds = range(args.seed, args.seed + (args.seeds or (4 if args.full else 1)))
    result = None
    if args.gradients != "only":
        result = run_forward(args, claimed, ops, seeds, modes, started)
        if result is None:
            return 1
    md, timing, totals = result or ([], "", {"runs": 0, "agree": 0, "accepted": 0, "differ": 0})
    md = md + ["", timing] if timing else md
    grad_totals = {"runs": 0, "agree": 0, "accepted": 0, "differ": 0}
    GRAD_TYPES[:] = [t for t in args.gradient_dtypes.split(",") if t in NP_NAMES]
    if args.gradients != "off":
        table, notes, _, grad_timing = run_gradients(args, claimed, ops, list(seeds), modes)
        grad_md, grad_totals = print_grad_table(table, notes)
        for a in ACCEPTED:
            if a.used and a.kind.startswith("grad"):
                print(f"\naccepted ({a.used} gradient runs): {a.op} {a.row}: {a.reason}")
        print("\n" + grad_timing)
        md += ["", "Gradients (tf.gradients there, AddSymbolicGradients here, of the same forward graph):", ""]
        md += grad_md + ["", grad_timing]
    failed = False
    if totals["differ"]:
        print(f"FAILED: {totals['differ']} of {totals['runs']} runs differ from TensorFlow "
              f"(details above and in {os.path.join(args.work, 'differences.json')})")
        failed = True
    if grad_totals["differ"]:
        print(f"FAILED: {grad_totals['differ']} of {grad_totals['runs']} gradient runs differ from TensorFlow "
              f"(details above and in {os.path.join(args.work, 'gradients', 'differences.json')})")
        failed = True
    for md_lines, differ in GPU_REPORTS:
        md += [""] + md_lines
        failed = failed or differ > 0
    for a in ACCEPTED_GPU:
        if a.used:
            print(f"\naccepted on the GPU ({a.used} runs): {a.op} {a.row}: {a.reason}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(md) + "\n")
    if any(differ for _, differ in GPU_REPORTS):
        print("FAILED: runs on the GPU differ from the CPU (details above)")
    if failed:
        return 1
    print(f"OK: {totals['agree']} of {totals['runs']} runs agree with TensorFlow, {totals['accepted']} accepted; "
          f"gradients: {grad_totals['agree']} of {grad_totals['runs']} agree, {grad_totals['accepted']} accepted")
    return 0

if __name__ == "__main__":
    sys.exit(main())
