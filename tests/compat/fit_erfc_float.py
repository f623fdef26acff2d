"""The coefficients of kernels/cpu/erfc_float.cc: erfcx(x) = erfc(x) exp(x^2) on [0, 10.5] as a
polynomial of degree 12 in u = 2 / (1 + 0.4 x) - 1, fitted by least squares of the relative
error against mpmath's erfc at 40 digits (Chebyshev basis, then converted to powers of u).
Prints the largest relative error and the coefficients, lowest power first, as C hex floats.

    python3 tests/compat/fit_erfc_float.py
"""
import numpy as np, mpmath
mpmath.mp.dps = 40
X, a, deg = 10.5, 0.4, 12
def erfcx(x): return float(mpmath.erfc(x)*mpmath.exp(x*x))
xs = np.concatenate([np.linspace(0, X, 12000), np.geomspace(1e-7, X, 3000)])
ref = np.array([erfcx(float(x)) for x in xs])
t = 1/(1+a*xs); u = 2*t-1
V = np.polynomial.chebyshev.chebvander(u, deg) / ref[:, None]
c, *_ = np.linalg.lstsq(V, np.ones_like(ref), rcond=None)
pw = np.polynomial.chebyshev.cheb2poly(c)
p = np.zeros_like(u)
for k in pw[::-1]: p = p*u + k
print("max rel", np.max(np.abs(p/ref-1)))
for k in pw: print("    %s," % float(k).hex())
