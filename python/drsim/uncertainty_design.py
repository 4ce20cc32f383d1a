"""Sample designs and sensitivity estimators for :func:`drsim.uncertainty`.

Everything here works in the unit cube: a design is an ``(n, k)`` array of
points in [0, 1)^k, which :mod:`drsim.uncertainty_inputs` maps to the
inputs' values through each input's quantile function. The estimators take
the figure's value at each point and return per-input indices.

- Latin hypercube: each input's range cut into n equal strata, one point per
  stratum, the strata paired at random between inputs (McKay, Beckman and
  Conover 1979). Every marginal is covered evenly with few runs.
- Sobol' indices (method ``"sobol"``): two independent Latin hypercubes A and
  B and, per input i, the matrix AB_i (A with column i taken from B): n (k + 2)
  points (Saltelli 2002). First-order index S_i by Saltelli et al. (2010)'s
  estimator ``mean(f(B) (f(AB_i) - f(A))) / V`` on f less its mean, total index ST_i by Jansen
  (1999)'s ``mean((f(A) - f(AB_i))^2) / (2 V)``, V the variance of f over A
  and B together; 95% intervals by bootstrapping the n rows.
- Elementary effects (method ``"morris"``): r trajectories of k + 1 points on
  a p-level grid, each moving one input at a time by Delta = p / (2 (p - 1))
  (Morris 1991); mu* (the mean absolute effect, Campolongo, Cariboni and
  Saltelli 2007) ranks the inputs, sigma says how much the effect depends on
  the other inputs (interactions, curvature). r (k + 1) points.

The random numbers come from SplitMix64 here rather than numpy's generators,
whose streams numpy does not promise to keep from one version to the next:
the same ``sampling_seed`` gives the same design on every machine, always.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = [
    "SplitMix64",
    "latin_hypercube",
    "SobolDesign",
    "sobol_design",
    "sobol_indices",
    "MorrisDesign",
    "morris_design",
    "morris_effects",
]

_MASK = (1 << 64) - 1


class SplitMix64:
    """Steele, Lea and Flood's SplitMix64: a tiny generator whose output is
    fixed by its definition, so a design never changes under a library update."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next_u64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def uniform(self) -> float:
        """A double in [0, 1) from the top 53 bits."""
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))

    def below(self, n: int) -> int:
        """An integer in [0, n), without modulo bias (Lemire's rejection)."""
        if n <= 0:
            raise ValueError("n must be positive")
        threshold = (1 << 64) % n
        while True:
            x = self.next_u64()
            if x >= threshold:
                return x % n

    def permutation(self, n: int) -> list[int]:
        """A uniformly random permutation of range(n) (Fisher-Yates)."""
        out = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def latin_hypercube(n: int, k: int, rng: SplitMix64) -> np.ndarray:
    """n points in [0, 1)^k, one in each of the n strata of every input."""
    if n < 1 or k < 1:
        raise ValueError("a Latin hypercube needs n >= 1 points and k >= 1 inputs")
    out = np.empty((n, k))
    for j in range(k):
        strata = rng.permutation(n)
        for i in range(n):
            out[i, j] = (strata[i] + rng.uniform()) / n
    return out


# ---- Sobol' indices ---------------------------------------------------------------


@dataclass(frozen=True)
class SobolDesign:
    """The points of a Saltelli design, in the order they are run: the n rows
    of A, then B's, then AB_0's, ..., AB_{k-1}'s."""

    n: int
    k: int
    points: np.ndarray  # (n (k + 2), k)

    def split(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """f(A) (n,), f(B) (n,), f(AB) (k, n) from the values at :attr:`points`."""
        values = np.asarray(values, dtype=float)
        if values.shape != (self.n * (self.k + 2),):
            raise ValueError(f"expected {self.n * (self.k + 2)} values, got {values.shape}")
        n = self.n
        return values[:n], values[n:2 * n], values[2 * n:].reshape(self.k, n)


def sobol_design(n: int, k: int, rng: SplitMix64) -> SobolDesign:
    a = latin_hypercube(n, k, rng)
    b = latin_hypercube(n, k, rng)
    blocks = [a, b]
    for i in range(k):
        ab = a.copy()
        ab[:, i] = b[:, i]
        blocks.append(ab)
    return SobolDesign(n=n, k=k, points=np.vstack(blocks))


def _sobol_point(fa: np.ndarray, fb: np.ndarray, fab: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    both = np.concatenate([fa, fb])
    variance = float(np.var(both))
    if not variance > 0.0:
        k = fab.shape[0]
        return np.zeros(k), np.zeros(k), variance
    # Centred first: the first-order estimator's expectation does not move
    # with a constant added to f, but its variance grows with f's mean
    # squared (an error count of thousands would swamp its own variation).
    mean = float(np.mean(both))
    fa, fb, fab = fa - mean, fb - mean, fab - mean
    first = np.mean(fb[None, :] * (fab - fa[None, :]), axis=1) / variance
    total = 0.5 * np.mean((fa[None, :] - fab) ** 2, axis=1) / variance
    return first, total, variance


@dataclass(frozen=True)
class SobolIndices:
    first: np.ndarray  # (k,)
    first_low: np.ndarray
    first_high: np.ndarray
    total: np.ndarray
    total_low: np.ndarray
    total_high: np.ndarray
    variance: float
    rows: int  # design rows used (those with a finite value at every point of the row)


def sobol_indices(design: SobolDesign, values: np.ndarray, *, bootstrap: int = 200,
                  rng: SplitMix64 | None = None) -> SobolIndices:
    """First-order and total indices with 95% bootstrap intervals. A row of
    the design (A_j, B_j and every AB_i,j) with a missing value (NaN: a run
    that never recovered has no RTO) is left out whole, since the estimators
    pair the points of a row."""
    fa, fb, fab = design.split(values)
    keep = np.isfinite(fa) & np.isfinite(fb) & np.all(np.isfinite(fab), axis=0)
    fa, fb, fab = fa[keep], fb[keep], fab[:, keep]
    k = design.k
    rows = int(keep.sum())
    if rows < 2:
        nan = np.full(k, np.nan)
        return SobolIndices(nan, nan, nan, nan, nan, nan, float("nan"), rows)
    first, total, variance = _sobol_point(fa, fb, fab)
    rng = rng or SplitMix64(0x5EED)
    firsts, totals = [], []
    for _ in range(bootstrap):
        pick = np.array([rng.below(rows) for _ in range(rows)])
        f, t, _ = _sobol_point(fa[pick], fb[pick], fab[:, pick])
        firsts.append(f)
        totals.append(t)
    fq = np.quantile(np.array(firsts), [0.025, 0.975], axis=0) if bootstrap else np.full((2, k), np.nan)
    tq = np.quantile(np.array(totals), [0.025, 0.975], axis=0) if bootstrap else np.full((2, k), np.nan)
    return SobolIndices(first, fq[0], fq[1], total, tq[0], tq[1], variance, rows)


# ---- elementary effects -----------------------------------------------------------


@dataclass(frozen=True)
class MorrisDesign:
    """r trajectories of k + 1 points; ``moves[t][s]`` is the input that
    step s of trajectory t moves and ``steps[t][s]`` its signed change."""

    r: int
    k: int
    levels: int
    points: np.ndarray  # (r (k + 1), k), trajectory after trajectory
    moves: tuple[tuple[int, ...], ...]
    steps: tuple[tuple[float, ...], ...]


def morris_design(r: int, k: int, rng: SplitMix64, levels: int = 4) -> MorrisDesign:
    """Points on the grid {0, 1/(p-1), ..., 1}; Delta = p / (2 (p - 1)) with
    p even, so every level has a partner Delta away (up or down) and every
    grid level is visited equally often."""
    if levels < 2 or levels % 2:
        raise ValueError(f"levels must be an even number >= 2, got {levels}")
    if r < 1:
        raise ValueError("r must be at least 1")
    delta = levels / (2.0 * (levels - 1))
    grid = np.arange(levels) / (levels - 1)
    points = []
    moves, steps = [], []
    for _ in range(r):
        x = np.array([grid[rng.below(levels)] for _ in range(k)])
        order = rng.permutation(k)
        trajectory = [x.copy()]
        signed = []
        for i in order:
            step = delta if x[i] + delta <= 1.0 + 1e-12 else -delta
            x[i] = min(1.0, max(0.0, x[i] + step))
            trajectory.append(x.copy())
            signed.append(step)
        points.extend(trajectory)
        moves.append(tuple(order))
        steps.append(tuple(signed))
    # A grid value of 1 is the range's top; quantile functions take [0, 1].
    return MorrisDesign(r=r, k=k, levels=levels, points=np.array(points), moves=tuple(moves), steps=tuple(steps))


@dataclass(frozen=True)
class MorrisEffects:
    mu_star: np.ndarray  # (k,) mean |EE|, in the figure's unit per whole range of the input
    mu: np.ndarray  # mean EE (its sign: does the figure rise with the input?)
    sigma: np.ndarray  # standard deviation of EE
    effects: np.ndarray  # (k,) how many effects each index averages (trajectories with both ends finite)


def morris_effects(design: MorrisDesign, values: np.ndarray) -> MorrisEffects:
    """Elementary effects (f(x + step e_i) - f(x)) / step, per input: the
    change of the figure per whole range of the input, had it been linear."""
    values = np.asarray(values, dtype=float)
    k = design.k
    if values.shape != (design.r * (k + 1),):
        raise ValueError(f"expected {design.r * (k + 1)} values, got {values.shape}")
    per_input: list[list[float]] = [[] for _ in range(k)]
    for t in range(design.r):
        base = t * (k + 1)
        for s, (i, step) in enumerate(zip(design.moves[t], design.steps[t])):
            before, after = values[base + s], values[base + s + 1]
            if np.isfinite(before) and np.isfinite(after):
                per_input[i].append((after - before) / step)
    mu_star = np.array([np.mean(np.abs(e)) if e else np.nan for e in per_input])
    mu = np.array([np.mean(e) if e else np.nan for e in per_input])
    sigma = np.array([np.std(e, ddof=1) if len(e) > 1 else np.nan for e in per_input])
    return MorrisEffects(mu_star=mu_star, mu=mu, sigma=sigma, effects=np.array([len(e) for e in per_input]))


def empirical_interval(values: Sequence[float], low: float = 0.05, high: float = 0.95) -> tuple[float, float, float]:
    """(low quantile, median, high quantile) of the finite values, NaN when none."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return float("nan"), float("nan"), float("nan")
    q = np.quantile(v, [low, 0.5, high])
    return float(q[0]), float(q[1]), float(q[2])
