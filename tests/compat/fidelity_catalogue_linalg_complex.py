"""The differential harness's complex factorisations and solves (fidelity_catalogue.FAMILIES:
"linalg_complex"): Cholesky, MatrixSolve, MatrixTriangularSolve, Qr and SelfAdjointEigV2 in
complex64 and complex128, the rows the "linalg" family (real types) leaves out. (Complex Svd
has no kernel here yet: Debian's Eigen 3.4 and TensorFlow's part at 1e-3 (complex64) and 1e-8
(complex128) in the singular vectors of a random 3x3 matrix, beyond rounding; not looked into.)

Both sides run Eigen's LLT, partial-pivoting LU, triangular solves, HouseholderQR,
SelfAdjointEigenSolver and BDCSVD on std::complex, so factors are compared as they are but
for the eigenvectors, which are unique only up to a phase: each column is turned so that its
largest entry is real and positive (both sides run those ops on their own factors). The
harness compares complex results norm-wise, |ours - TensorFlow's| against the bound times the
part's eps: 16 n kappa max|result|, as the real rows' bounds (fidelity_catalogue_linalg.py). What
TensorFlow's kernels fill a failed factor with is numeric_limits<std::complex>::quiet_NaN(),
which is 0 (Cholesky of a matrix that is not positive definite).
"""
import numpy as np
import tensorflow as tf

from fidelity_catalogue import COMPLEX, Case, OpSpec, cast, shape_str
from fidelity_catalogue_linalg import LU_BOUND, kappa_of

ONLY_COMPLEX = dict(accept=lambda combo: combo.get("T") in COMPLEX)


def cnormal(rng, shape, dt):
    return cast(rng.normal(0.0, 1.0, shape) + 1j * rng.normal(0.0, 1.0, shape), dt)


def hermitian_from_lower(a):
    return np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))


def bound_over(matrices_of):
    """16 n kappa max|result| part-eps, the worst over the batch's matrices (matrices_of(inputs,
    attrs) gives them as [count, n, n] complex128)."""
    def bound(inputs, attrs, outputs):
        t = outputs[0]
        mats = matrices_of(inputs, attrs)
        n = mats.shape[-1] if mats.ndim == 3 else 1
        scale = float(np.max(np.abs(t[np.isfinite(t)]))) if t.size and np.isfinite(t).any() else 0.0
        worst = max((kappa_of(m) for m in mats), default=1.0)
        return np.full(t.shape, 16 * max(n, 1) * worst * max(scale, 1.0))
    return bound


def square_of(transform=lambda a, attrs: a):
    def get(inputs, attrs):
        a = inputs[0].astype(np.complex128)
        if a.ndim < 2 or a.size == 0:
            return np.zeros((0, 1, 1), np.complex128)
        a = transform(a, attrs)
        return a.reshape(-1, a.shape[-2], a.shape[-1])
    return get


def hpd(rng, shape, dt):
    n = shape[-1]
    m = rng.normal(0.0, 1.0, shape) + 1j * rng.normal(0.0, 1.0, shape)
    return cast(m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n), dt)


def cholesky_comparable(inputs, combo, shape):
    """The lower triangle alone where the matrix is not positive definite: TensorFlow leaves
    the upper one unwritten there."""
    a = inputs[0].astype(np.complex128)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.size == 0:
        return np.ones(shape, dtype=bool)
    n = a.shape[-1]
    mask = np.ones((int(np.prod(a.shape[:-2], dtype=np.int64)), n, n), dtype=bool)
    for i, m in enumerate(hermitian_from_lower(a).reshape(-1, n, n)):
        try:
            np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            mask[i] = np.tril(np.ones((n, n), dtype=bool))
    return mask.reshape(shape)


def cholesky_cases(rng, combo, full):
    dt = combo["T"]
    b = bound_over(square_of(lambda a, attrs: hermitian_from_lower(a)))
    for shape in [(1, 1), (0, 0), (2, 2), (5, 4, 4), (17, 17)]:
        yield Case([hpd(rng, shape, dt)], shape_str(shape), bound=b)
    yield Case([cast(np.array([[4.0, 2.0 + 1j], [2.0 - 1j, 5.0]]) + np.triu(np.full((2, 2), 30j), 1), dt)],
               "upper triangle not read", bound=b)
    yield Case([cast(np.array([[1.0, 2.0], [2.0, 1.0]]), dt)], "not positive definite: 0", bound=b)
    yield Case([cnormal(rng, (2, 3), dt)], "2x3 not square refused")


def solve_cases(triangular):
    def gen(rng, combo, full):
        dt = combo["T"]
        for sa, sb in [((1, 1), (1, 1)), ((3, 3), (3, 4)), ((5, 4, 4), (5, 4, 2)), ((17, 17), (17, 3)),
                       ((0, 0), (0, 3))] + ([((3, 4, 4), (1, 4, 2))] if triangular else []):
            n = sa[-1]
            a = cast(rng.normal(0.0, 1.0, sa) + 1j * rng.normal(0.0, 1.0, sa) + (4.0 if triangular else n) * np.eye(n),
                     dt)
            rhs = cnormal(rng, sb, dt)
            for adjoint in (False, True):
                for lower in ((True, False) if triangular else (None,)):
                    attrs = {"adjoint": adjoint} if lower is None else {"lower": lower, "adjoint": adjoint}
                    tri = (lambda x, at: np.tril(x) if at.get("lower", True) else np.triu(x)) if triangular else \
                        (lambda x, at: x)
                    yield Case([a, rhs], f"{shape_str(sa)}\\{shape_str(sb)} {attrs}", attrs=attrs,
                               bound=bound_over(square_of(tri)))
        attrs = {"lower": True, "adjoint": False} if triangular else {"adjoint": False}
        yield Case([cast(np.array([[1.0, 2.0], [2.0, 4.0]]), dt), cast(np.ones((2, 1)), dt)],
                   "singular" + ("" if triangular else " refused"), attrs=attrs,
                   bound=bound_over(square_of()) if triangular else None)
    return gen


def general(rng, shape, dt):
    return cnormal(rng, shape, dt)


def pinned(x, tag, attrs, bound=None):
    """The input reshaped to its own shape in the graph: Qr's and Svd's gradients need the
    sizes when the graph is built (fidelity_catalogue_linalg.pinned_case)."""
    return Case([x], tag, attrs=attrs, bound=bound,
                build=lambda raw, t, a, shape=x.shape: raw(input=tf.reshape(t[0], shape), **a))


def factor_bound(inputs, attrs, outputs):
    a = inputs[0].astype(np.complex128)
    t = outputs[0]
    m, n = a.shape[-2], a.shape[-1]
    mats = a.reshape(-1, m, n)
    worst = 0.0
    for mat in mats:
        vals = np.linalg.svd(mat, compute_uv=False)
        gaps = list(np.abs(np.diff(vals)))
        if m != n or attrs.get("full_matrices"):
            gaps.append(float(np.min(vals)))
        gap = min(gaps) if gaps else np.inf
        norm = float(vals[0]) if vals.size else 0.0
        worst = max(worst, 16 * max(m, n) * max(kappa_of(mat), norm / gap if gap > 0 else np.inf) * max(norm, 1.0))
    return np.full(t.shape, worst)


def qr_cases(rng, combo, full):
    dt = combo["T"]
    for shape, fulls in [((1, 1), (False, True)), ((3, 3), (False, True)), ((4, 2), (False,)), ((2, 4), (False, True)),
                         ((5, 4, 3), (False,)), ((9, 17), (False, True))]:
        for full_matrices in fulls:
            yield pinned(general(rng, shape, dt), f"{shape_str(shape)} full_matrices={full_matrices}",
                         {"full_matrices": full_matrices}, bound=factor_bound)


def eig_phases_fixed(raw, tensors, attrs):
    """Each eigenvector turned so that its largest entry is real and positive (multiplied by
    the conjugate of that entry's phase)."""
    e, v = raw(input=tensors[0], **attrs)
    n = tf.shape(v)[-1]
    vt = tf.linalg.matrix_transpose(v)
    size = tf.math.real(vt) * tf.math.real(vt) + tf.math.imag(vt) * tf.math.imag(vt)  # |z|^2: no ComplexAbs here
    pivot = tf.reduce_sum(vt * tf.one_hot(tf.argmax(size, axis=-1), n, dtype=v.dtype), axis=-1)
    modulus = tf.sqrt(tf.math.real(pivot) * tf.math.real(pivot) + tf.math.imag(pivot) * tf.math.imag(pivot))
    return e, v * tf.expand_dims(tf.math.conj(pivot) / tf.cast(modulus, v.dtype), -2)


def eig_bound(inputs, attrs, outputs):
    a = hermitian_from_lower(inputs[0].astype(np.complex128))
    t = outputs[0]
    n = a.shape[-1]
    worst = 0.0
    for mat in a.reshape(-1, n, n):
        vals = np.linalg.eigvalsh(mat)
        norm = float(np.max(np.abs(vals))) if vals.size else 0.0
        gap = float(np.min(np.diff(vals))) if vals.size > 1 else np.inf
        worst = max(worst, 16 * n * max(norm, 1.0) * (1.0 if t.ndim == a.ndim - 1 else max(1.0, norm / gap)))
    return np.full(t.shape, worst)


def eig_cases(rng, combo, full):
    dt = combo["T"]
    for shape in [(1, 1), (2, 2), (3, 3), (5, 4, 4), (17, 17)]:
        m = rng.normal(0.0, 1.0, shape) + 1j * rng.normal(0.0, 1.0, shape)
        x = cast(m + np.conj(np.swapaxes(m, -1, -2)), dt)
        yield Case([x], shape_str(shape), attrs={"compute_v": True}, build=eig_phases_fixed, bound=eig_bound)
    yield Case([cast(np.array([[np.nan, 1.0], [1.0, 2.0]]), dt)], "NaN refused", attrs={"compute_v": True})


CATALOGUE = [
    OpSpec("Cholesky", cholesky_cases, LU_BOUND, comparable=cholesky_comparable, **ONLY_COMPLEX),
    OpSpec("MatrixSolve", solve_cases(False), LU_BOUND, **ONLY_COMPLEX),
    OpSpec("MatrixTriangularSolve", solve_cases(True), LU_BOUND, **ONLY_COMPLEX),
    OpSpec("Qr", qr_cases, LU_BOUND, **ONLY_COMPLEX),
    OpSpec("SelfAdjointEigV2", eig_cases, LU_BOUND, **ONLY_COMPLEX),
]
