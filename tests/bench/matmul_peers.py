"""The best BLAS here for an n x n float32 matmul: PyTorch (MKL/oneDNN) and NumPy.

  python3 matmul_peers.py --threads N [sizes...]
"""
import argparse
import os
import time

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=1)
p.add_argument("sizes", type=int, nargs="*", default=[256, 512, 1024, 2048])
args = p.parse_args()
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = str(args.threads)
import numpy as np


def rate(fn, n):
    fn()
    reps = 200 if n <= 512 else (40 if n <= 1024 else 10)
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return 2.0 * n ** 3 * reps / (time.perf_counter() - start) / 1e9


for n in args.sizes:
    a = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
    b = np.random.default_rng(2).standard_normal((n, n), dtype=np.float32)
    out = np.empty((n, n), np.float32)
    print(f"numpy {np.__version__} matmul n={n} threads {args.threads}: {rate(lambda: np.matmul(a, b, out=out), n):.1f} GFLOP/s")
    try:
        import torch
        torch.set_num_threads(args.threads)
        ta, tb, tout = torch.from_numpy(a), torch.from_numpy(b), torch.empty(n, n)
        print(f"pytorch {torch.__version__} matmul n={n} threads {args.threads}: "
              f"{rate(lambda: torch.mm(ta, tb, out=tout), n):.1f} GFLOP/s")
    except ImportError:
        print("pytorch: not installed (bootstrap/install-deps.sh --peers)")
