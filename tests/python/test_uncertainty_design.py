"""drsim.uncertainty_design and drsim.uncertainty_inputs: the designs, the
estimators against functions whose Sobol' indices and elementary effects are
known in closed form, and the inputs' quantile functions. No run here; the
study end to end is tests/python/test_uncertainty.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from drsim import _core
from drsim.uncertainty_design import (
    SplitMix64,
    empirical_interval,
    latin_hypercube,
    morris_design,
    morris_effects,
    sobol_design,
    sobol_indices,
)
from drsim.uncertainty_inputs import (
    Choice,
    LogUniform,
    Normal,
    RangesError,
    Triangular,
    Uniform,
    inputs_from,
    load_ranges,
)

# ---- the generator and the designs -------------------------------------------------


def test_splitmix64_matches_its_reference_output() -> None:
    # The first outputs of Vigna's splitmix64.c from state 0 (the values
    # xoshiro's seeding and Java's SplittableRandom tests quote).
    rng = SplitMix64(0)
    assert [rng.next_u64() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_a_latin_hypercube_puts_one_point_in_every_stratum_of_every_input() -> None:
    points = latin_hypercube(50, 3, SplitMix64(7))
    assert points.shape == (50, 3)
    for j in range(3):
        assert sorted(np.floor(points[:, j] * 50).astype(int)) == list(range(50))
    again = latin_hypercube(50, 3, SplitMix64(7))
    assert np.array_equal(points, again)  # the same seed, the same design
    assert not np.array_equal(points, latin_hypercube(50, 3, SplitMix64(8)))


def test_a_sobol_design_swaps_one_column_per_block() -> None:
    d = sobol_design(8, 3, SplitMix64(1))
    a, b = d.points[:8], d.points[8:16]
    for i in range(3):
        ab = d.points[16 + 8 * i:24 + 8 * i]
        assert np.array_equal(ab[:, i], b[:, i])
        others = [j for j in range(3) if j != i]
        assert np.array_equal(ab[:, others], a[:, others])


def ishigami(x: np.ndarray, a: float = 7.0, b: float = 0.1) -> np.ndarray:
    """Ishigami and Homma (1990) on [-pi, pi]^3 (x given in [0, 1]^3)."""
    z = -math.pi + 2 * math.pi * x
    return np.sin(z[:, 0]) + a * np.sin(z[:, 1]) ** 2 + b * z[:, 2] ** 4 * np.sin(z[:, 0])


def ishigami_indices(a: float = 7.0, b: float = 0.1) -> tuple[list[float], list[float]]:
    """Its indices in closed form (Sobol' and Levitan 1999)."""
    v1 = 0.5 * (1 + b * math.pi ** 4 / 5) ** 2
    v2 = a ** 2 / 8
    v13 = b ** 2 * math.pi ** 8 * (1 / 18 - 1 / 50)
    v = v1 + v2 + v13
    return [v1 / v, v2 / v, 0.0], [(v1 + v13) / v, v2 / v, v13 / v]


def test_sobol_indices_of_the_ishigami_function() -> None:
    d = sobol_design(4096, 3, SplitMix64(3))
    idx = sobol_indices(d, ishigami(d.points), bootstrap=50)
    first, total = ishigami_indices()
    assert idx.rows == 4096
    assert np.allclose(idx.first, first, atol=0.04), idx.first
    assert np.allclose(idx.total, total, atol=0.04), idx.total
    for j in range(3):
        assert idx.total_low[j] <= idx.total[j] <= idx.total_high[j]


def test_sobol_indices_of_a_linear_function() -> None:
    # Y = 2 X1 + X2, both uniform: V1 = 4/12, V2 = 1/12, so S = (0.8, 0.2), no interaction.
    d = sobol_design(1024, 2, SplitMix64(5))
    y = 2 * d.points[:, 0] + d.points[:, 1]
    idx = sobol_indices(d, y, bootstrap=100)
    assert np.allclose(idx.first, [0.8, 0.2], atol=0.04)
    assert np.allclose(idx.total, [0.8, 0.2], atol=0.04)
    assert idx.first_low[0] < 0.8 < idx.first_high[0] and idx.total_low[1] < 0.2 < idx.total_high[1]


def test_a_row_with_a_missing_value_is_left_out_whole() -> None:
    d = sobol_design(64, 2, SplitMix64(5))
    y = 2 * d.points[:, 0] + d.points[:, 1]
    y[64 * 2 + 3] = np.nan  # AB_0 of row 3
    y[5] = np.nan  # A of row 5
    assert sobol_indices(d, y, bootstrap=0).rows == 62
    assert sobol_indices(d, np.full(len(y), np.nan), bootstrap=0).rows == 0


def test_a_constant_figure_has_zero_indices() -> None:
    d = sobol_design(16, 2, SplitMix64(5))
    idx = sobol_indices(d, np.ones(len(d.points)), bootstrap=10)
    assert list(idx.first) == [0.0, 0.0] and list(idx.total) == [0.0, 0.0]


def test_elementary_effects_of_a_linear_function_are_its_slopes() -> None:
    d = morris_design(10, 3, SplitMix64(2), levels=4)
    assert d.points.shape == (40, 3)
    assert ((d.points >= 0) & (d.points <= 1)).all()
    y = 3 * d.points[:, 0] - 1 * d.points[:, 1] + 0 * d.points[:, 2]
    eff = morris_effects(d, y)
    assert np.allclose(eff.mu_star, [3, 1, 0]) and np.allclose(eff.mu, [3, -1, 0])
    assert np.allclose(eff.sigma, 0, atol=1e-12) and list(eff.effects) == [10, 10, 10]


def test_elementary_effects_see_an_interaction_in_sigma() -> None:
    # Y = X1 X2: the effect of X1 is X2, so it varies (sigma > 0); X3 does nothing.
    d = morris_design(40, 3, SplitMix64(9), levels=4)
    y = d.points[:, 0] * d.points[:, 1]
    eff = morris_effects(d, y)
    assert eff.sigma[0] > 0.1 and eff.sigma[1] > 0.1 and eff.mu_star[2] == 0
    assert 0.3 < eff.mu_star[0] < 0.7  # E[X2] = 0.5 on the grid


def test_morris_levels_must_be_even() -> None:
    with pytest.raises(ValueError, match="even"):
        morris_design(2, 2, SplitMix64(1), levels=3)


def test_empirical_interval_skips_missing_values() -> None:
    assert empirical_interval([1.0, float("nan"), 3.0, 2.0]) == pytest.approx((1.1, 2.0, 2.9))
    assert all(math.isnan(x) for x in empirical_interval([float("nan")]))


# ---- the inputs ------------------------------------------------------------------------


def test_uniform_quantities_keep_their_unit() -> None:
    u = Uniform("10s", "30s")
    assert u.value(0.0) == "10s" and u.value(0.5) == "20s" and u.value(1.0) == "30s"
    assert _core.parse_duration_ns(u.value(0.123)) == 12_460_000_000
    assert Uniform("100rps", "200rps").value(0.25) == "125rps"
    assert Uniform("0.5", "1.5").value(0.5) == 1.0  # a str without a unit is a plain number
    assert Uniform(0.5, 1.5).value(0.5) == 1.0


def test_uniform_durations_of_different_units_are_written_in_nanoseconds() -> None:
    u = Uniform("500ms", "2s")
    assert u.value(0.0) == "500000000ns" and u.value(1.0) == "2000000000ns"
    assert _core.parse_duration_ns(u.value(0.5)) == 1_250_000_000


def test_uniform_integers_are_equally_likely() -> None:
    u = Uniform(2, 4)
    values = [u.value((i + 0.5) / 300) for i in range(300)]
    assert {v: values.count(v) for v in set(values)} == {2: 100, 3: 100, 4: 100}
    assert u.value(1.0) == 4 and isinstance(u.value(0.3), int)


def test_log_uniform_triangular_normal_and_choice() -> None:
    lu = LogUniform("10ms", "1000ms")
    assert lu.value(0.5) == "100ms"
    t = Triangular(0.0, 1.0, 4.0)
    assert t.value(0.25) == pytest.approx(1.0)  # the mode's share is (1 - 0) / (4 - 0)
    assert t.value(0.0) == 0.0 and t.value(1.0) == 4.0
    n = Normal(10.0, 2.0)
    assert n.value(0.5) == pytest.approx(10.0) and n.value(0.975) == pytest.approx(10.0 + 2 * 1.959963985, abs=1e-6)
    cut = Normal("10s", "2s", low="9s", high="11s")
    assert _core.parse_duration_ns(cut.value(0.0)) == 9_000_000_000
    assert _core.parse_duration_ns(cut.value(0.5)) == 10_000_000_000
    c = Choice(["a", "b", "c"])
    assert [c.value(u) for u in (0.0, 0.34, 0.67, 1.0)] == ["a", "b", "c", "c"]


@pytest.mark.parametrize("make, message", [
    (lambda: Uniform("30s", "10s"), "must be below"),
    (lambda: Uniform("10s", "30rps"), "do not share a unit"),
    (lambda: Uniform(True, 3), "expected a number"),
    (lambda: LogUniform(0, 10), "0 < low < high"),
    (lambda: Triangular(0, 5, 4), "low <= mode <= high"),
    (lambda: Normal(1.0, 0.0), "sd must be positive"),
    (lambda: Choice([]), "non-empty"),
    (lambda: Choice([1, 1]), "repeated"),
])
def test_bad_distributions_say_what_is_wrong(make, message) -> None:
    with pytest.raises(RangesError, match=message):
        make()


def test_inputs_from_a_mapping() -> None:
    inputs = inputs_from({"spec.load[0].load.rate": ("100rps", "200rps"), "spec.a": Choice([1, 2])})
    assert [i.path for i in inputs] == ["spec.load[0].load.rate", "spec.a"]
    with pytest.raises(RangesError, match="empty"):
        inputs_from({})
    with pytest.raises(RangesError, match="seeds="):
        inputs_from({"spec.seed": (1, 5)})
    with pytest.raises(RangesError, match=r"ranges\['spec.x'\]"):
        inputs_from({"spec.x": 3})
    with pytest.raises(RangesError, match=r"ranges\['spec.x'\]: Uniform: low"):
        inputs_from({"spec.x": (5, 1)})


RANGES_OK = """\
ranges:
  - path: spec.load[0].load.rate
    uniform: [100rps, 200rps]
    source: the shop's busiest and quietest hours
  - path: spec.timeline[fail].duration
    triangular: [10s, 15s, 30s]
  - path: spec.x
    normal: {mean: 1.0, sd: 0.1, low: 0.5}
  - path: spec.y
    choice: [round-robin, random]
  - path: spec.z
    logUniform: ["1ms", "100ms"]
"""


def test_a_ranges_file(tmp_path) -> None:
    f = tmp_path / "ranges.yaml"
    f.write_text(RANGES_OK)
    inputs = load_ranges(f)
    assert [i.path for i in inputs] == ["spec.load[0].load.rate", "spec.timeline[fail].duration", "spec.x",
                                        "spec.y", "spec.z"]
    assert inputs[0].source == "the shop's busiest and quietest hours" and inputs[1].source == ""
    assert inputs[0].value(0.5) == "150rps" and inputs[3].value(0.9) == "random"
    assert inputs[2].distribution.describe() == "normal mean 1.0, sd 0.1, cut to [0.5, inf]"


@pytest.mark.parametrize("text, where, message", [
    ("ranges: []\n", "1:9", "expected a non-empty list"),
    ("other: 1\n", "1:1", "unknown key (expected ranges)"),
    ("ranges:\n  - uniform: [1, 2]\n", "2:5", "missing path"),
    ("ranges:\n  - path: spec.a\n    uniform: [1, 2]\n    choice: [1]\n", "2:5", "exactly one of"),
    ("ranges:\n  - path: spec.a\n    uniform: [1, 2, 3]\n", "3:14", "expected [low, high], got 3"),
    ("ranges:\n  - path: spec.a\n    uniform: [3s, 1s]\n", "3:14", "must be below"),
    ("ranges:\n  - path: spec.a\n    uniform: [1, 2]\n  - path: spec.a\n    choice: [1]\n", "4:11",
     "already ranges[0]"),
    ("ranges:\n  - path: spec.a\n    uniform: [1, 2]\n    colour: red\n", "4:5", "unknown key"),
    ("ranges:\n  - path: spec.a\n    normal: {mean: 1}\n", "3:13", "expected mean and sd"),
    ("ranges:\n  - path: spec.a = 3\n    uniform: [1, 2]\n", "2:11", "expected an override path"),
    ("ranges:\n  - path: spec.a\n    uniform: [1, 2\n", "4:1", "not valid YAML"),
    ("ranges:\n  - path: spec.a\n    source: ''\n    uniform: [1, 2]\n", "3:13", "source"),
])
def test_ranges_file_errors_name_the_line_and_column(tmp_path, text, where, message) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(RangesError) as e:
        load_ranges(f)
    assert str(e.value).startswith(f"{f}:{where}: "), str(e.value)
    assert message in str(e.value)


def test_sampled_durations_are_whole_nanoseconds() -> None:
    for low, high in (("40ms", "50ms"), ("1us", "9us"), ("1m", "2m"), ("3ns", "9ns"), ("1.5s", "2.5s")):
        u = Uniform(low, high)
        for x in (0.123456789, 0.5, 0.987654321):
            text = u.value(x)
            ns = _core.parse_duration_ns(text)  # the loader's own parser: it refuses a fraction of a nanosecond
            assert ns > 0, text
