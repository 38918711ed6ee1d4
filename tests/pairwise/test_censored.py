"""The censored (Tobit) fit on data drawn from a known line: no Kafka, no results files."""

import math

import numpy as np
import pytest
from kcliff.pairwise import censored
from scipy import optimize


def test_the_tobit_fit_is_least_squares_without_bounds_and_its_gradient_is_right():
    rng = np.random.default_rng(1)
    x = np.column_stack([np.ones(30), rng.normal(size=30)])
    y = x @ [1.0, 2.0] + rng.normal(size=30) * 0.3
    ols, *_ = np.linalg.lstsq(x, y, rcond=None)
    assert censored.fit(x, y, np.zeros(30)).coef == pytest.approx(ols, abs=1e-5)
    kind = np.array([0.0] * 24 + [1.0] * 3 + [-1.0] * 3)
    theta = np.array([0.5, 1.5, math.log(0.4)])
    err = optimize.check_grad(lambda t: censored._nll_and_grad(t, x, y, kind)[0],
                              lambda t: censored._nll_and_grad(t, x, y, kind)[1], theta)
    assert err < 1e-4
    # rows that are "at least y" pull the fit up, never down
    assert censored.fit(x, y, np.where(np.arange(30) < 10, -1.0, 0.0)).coef[0] > ols[0]


def test_bounds_read_as_bounds_recover_a_slope_that_values_at_the_bound_flatten():
    rng = np.random.default_rng(7)
    x = np.column_stack([np.ones(40), np.linspace(0, 4, 40)])
    truth = np.array([0.0, 1.0])
    y = x @ truth + rng.normal(size=40) * 0.2
    cap = 2.0  # like an early stop: anything above the cap is only known to be above it
    kind = np.where(y > cap, -1.0, 0.0)
    seen = np.where(y > cap, cap, y)
    naive, *_ = np.linalg.lstsq(x, seen, rcond=None)
    tobit = censored.fit(x, seen, kind)
    assert tobit.bounded == int((kind != 0).sum()) > 5
    assert abs(tobit.coef[1] - truth[1]) < 0.1 < abs(naive[1] - truth[1])
    assert math.isfinite(tobit.se[1]) and 0 < tobit.se[1] < 0.2
