"""A linear fit where some responses are bounds, not values (a Tobit model), by maximum likelihood.

y = X b + e, e ~ Normal(0, s^2). A row is either exact (its density counts), at most its y (the
probability of lying below: a cliff row's throughput) or at least its y (the probability of lying
above: a cliff row's p99). With no bounded row it is ordinary least squares (s as the maximum
likelihood estimate, so a little smaller than the unbiased one). scipy minimises the negative log
likelihood with its analytic gradient; standard errors come from the inverse of a finite-difference
Hessian of that gradient, scaled by n / (n - parameters) as least squares would be (the maximum
likelihood noise is too small on few rows: 18 rows and 13 parameters would otherwise understate
every error by 1.9x). They are approximate, and NaN when the fit leaves nothing to estimate the
noise from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

Vector = np.ndarray[tuple[int, ...], np.dtype[np.float64]]
Matrix = np.ndarray[tuple[int, ...], np.dtype[np.float64]]
EXACT, AT_MOST, AT_LEAST = 0, 1, -1


@dataclass(frozen=True)
class Fit:
    coef: Vector
    se: Vector  # NaN where not estimable
    sigma: float
    bounded: int  # rows that entered as bounds
    converged: bool


def _mills(w: Vector) -> Vector:
    """phi(w) / Phi(w), computed in logs so a far tail stays finite."""
    return np.asarray(np.exp(stats.norm.logpdf(w) - stats.norm.logcdf(w)), dtype=np.float64)


def _nll_and_grad(theta: Vector, x: Matrix, y: Vector, kind: Vector) -> tuple[float, Vector]:
    """Negative log likelihood and its gradient in (b, log s)."""
    b, log_s = theta[:-1], theta[-1]
    s = float(np.exp(log_s))
    r = (y - x @ b) / s
    exact = kind == EXACT
    w = np.where(exact, 0.0, kind * r)  # at most: P(e <= y - xb); at least: P(e >= y - xb)
    nll = float(np.sum(np.where(exact, log_s + r ** 2 / 2, -stats.norm.logcdf(w))))
    lam = np.where(exact, 0.0, _mills(w))
    d_mean = np.where(exact, -r / s, kind * lam / s)  # d nll / d (x b) per row
    d_log_s = np.where(exact, 1 - r ** 2, lam * w)
    return nll, np.append(x.T @ d_mean, np.sum(d_log_s))


def fit(x: Matrix, y: Vector, kind: Vector) -> Fit:
    """Maximum likelihood b and s; kind per row is EXACT, AT_MOST or AT_LEAST."""
    start_b, *_ = np.linalg.lstsq(x, y, rcond=None)
    spread = float(np.std(y - x @ start_b)) or 0.1
    start = np.append(start_b, np.log(spread))
    done = optimize.minimize(_nll_and_grad, start, args=(x, y, kind), jac=True, method="BFGS")
    theta = np.asarray(done.x, dtype=np.float64)
    return Fit(theta[:-1], _standard_errors(theta, x, y, kind), float(np.exp(theta[-1])),
               int(np.sum(kind != EXACT)), bool(done.success))


def _standard_errors(theta: Vector, x: Matrix, y: Vector, kind: Vector) -> Vector:
    missing = np.full(len(theta) - 1, np.nan)
    if len(y) <= x.shape[1] or np.linalg.matrix_rank(x) < x.shape[1]:
        return missing
    def component(t: Vector, j: int) -> float:
        return float(_nll_and_grad(t, x, y, kind)[1][j])

    hessian = np.array([optimize.approx_fprime(theta, component, 1e-6, j) for j in range(len(theta))])
    try:
        cov = np.linalg.inv((hessian + hessian.T) / 2)
    except np.linalg.LinAlgError:
        return missing
    diag = np.diag(cov)[:-1] * len(y) / (len(y) - x.shape[1])
    return np.asarray(np.where(diag > 0, np.sqrt(np.abs(diag)), np.nan), dtype=np.float64)
