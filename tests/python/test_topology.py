"""Topology queries of scenario.topology: RTT, route, reachability and
partitions with zones, regions and links down, against sums of the
configured round-trip times worked out here."""

from __future__ import annotations

import textwrap

import pytest

import drsim
from drsim.config import ConfigList
from drsim.topology import Route

# Three regions with different inter-zone RTTs and a triangle of links whose
# direct A-C link (70 ms) is slower than going through B (30 + 20 ms).
TRIANGLE = textwrap.dedent(
    """\
    apiVersion: drsim/v1alpha1
    kind: Scenario
    metadata: {name: triangle}
    spec:
      duration: 1h
      topology:
        regions:
          - {name: A, interZoneRtt: 2ms, zones: [{name: a1}, {name: a2}]}
          - {name: B, interZoneRtt: 4ms, zones: [{name: b1}, {name: b2}]}
          - {name: C, interZoneRtt: 6ms, zones: [{name: c1}, {name: c2}]}
        links:
          - {name: ab, between: [A, B], rtt: 30ms, bandwidth: 10Gbps}
          - {name: bc, between: [B, C], rtt: 20ms, bandwidth: 10Gbps}
          - {name: ac, between: [A, C], rtt: 70ms, bandwidth: 10Gbps}
    """
)

# A zone reaches its region's backbone in half the region's inter-zone RTT.
HALF = {"A": 0.001, "B": 0.002, "C": 0.003}


@pytest.fixture(scope="module")
def topology() -> drsim.config.Topology:
    return drsim.load_text(TRIANGLE).topology


def test_topology_view_holds_the_config(topology: drsim.config.Topology) -> None:
    assert isinstance(topology, drsim.config.Topology)
    assert isinstance(topology.regions, ConfigList) and isinstance(topology.links, ConfigList)
    assert topology.regions.names() == ["A", "B", "C"]
    assert topology.links["ac"].rtt == 0.07
    assert topology.zones.names() == ["a1", "a2", "b1", "b2", "c1", "c2"]
    assert topology.zones["c2"].name == "c2"
    assert topology.region_of("b2") == "B"
    # The queries are methods next to the fields, never in their place.
    queries = {"zones", "region_of", "rtt", "route", "reachable", "partitions"}
    assert not queries & set(drsim.config.Topology._fields)


def test_rtt_within_a_zone_and_a_region(topology: drsim.config.Topology) -> None:
    assert topology.rtt("a1", "a1") == 0.0
    assert topology.rtt("a1", "a2") == pytest.approx(0.002, abs=1e-12)
    assert topology.rtt("c1", "c2") == pytest.approx(0.006, abs=1e-12)


def test_shortest_route_goes_through_b(topology: drsim.config.Topology) -> None:
    expected = HALF["A"] + 0.030 + 0.020 + HALF["C"]
    assert topology.rtt("a1", "c2") == pytest.approx(expected, abs=1e-12)
    route = topology.route("a1", "c2")
    assert route == Route(rtt=pytest.approx(expected, abs=1e-12), links=("ab", "bc"), regions=("A", "B", "C"))
    back = topology.route("c2", "a1")
    assert back is not None and back.links == ("bc", "ab") and back.regions == ("C", "B", "A")
    same_region = topology.route("b1", "b2")
    assert same_region == Route(rtt=pytest.approx(0.004, abs=1e-12), links=(), regions=("B",))


def test_a_link_down_takes_the_detour(topology: drsim.config.Topology) -> None:
    route = topology.route("a1", "c1", down_links=["bc"])
    assert route is not None
    assert route.links == ("ac",)
    assert route.rtt == pytest.approx(HALF["A"] + 0.070 + HALF["C"], abs=1e-12)
    # Via B, A-B-C is gone too, so A to B goes round through C.
    detour = topology.route("a1", "b1", down_links=["ab"])
    assert detour is not None and detour.links == ("ac", "bc")
    assert detour.rtt == pytest.approx(HALF["A"] + 0.070 + 0.020 + HALF["B"], abs=1e-12)


def test_degraded_link_rtt_changes_the_route(topology: drsim.config.Topology) -> None:
    # A-B slowed to 60 ms: A-B-C costs 80 ms, more than the direct 70 ms.
    route = topology.route("a1", "c1", link_rtt={"ab": 0.060})
    assert route is not None and route.links == ("ac",)
    assert topology.rtt("a1", "b1", link_rtt={"ab": "60ms"}) == pytest.approx(
        HALF["A"] + 0.060 + HALF["B"], abs=1e-12
    )


def test_reachability_and_down_zones(topology: drsim.config.Topology) -> None:
    assert topology.reachable("a1", "c1")
    assert not topology.reachable("a1", "c1", down_zones=["c1"])
    assert topology.rtt("a1", "c1", down_zones=["a1"]) is None
    assert topology.route("a1", "c1", down_links=["ac", "bc"]) is None
    assert topology.reachable("a1", "b2", down_links=["ac", "bc"])


def test_a_region_down_still_forwards_between_its_links(topology: drsim.config.Topology) -> None:
    # B's zones are down but its backbone joins ab and bc, as in the simulation.
    assert not topology.reachable("a1", "b1", down_regions=["B"])
    assert topology.rtt("a1", "c1", down_regions=["B"]) == pytest.approx(
        HALF["A"] + 0.030 + 0.020 + HALF["C"], abs=1e-12
    )


def test_partitions(topology: drsim.config.Topology) -> None:
    assert topology.partitions() == [("a1", "a2", "b1", "b2", "c1", "c2")]
    assert topology.partitions(down_links=["ab", "ac"]) == [("a1", "a2"), ("b1", "b2", "c1", "c2")]
    assert topology.partitions(down_links=["ab", "bc", "ac"]) == [("a1", "a2"), ("b1", "b2"), ("c1", "c2")]
    assert topology.partitions(down_regions=["B"], down_links=["ac"]) == [("a1", "a2", "c1", "c2")]
    assert topology.partitions(down_zones=["a1"], down_links=["ab", "ac"]) == [("a2",), ("b1", "b2", "c1", "c2")]
    everything = [z.name for z in topology.zones]
    assert topology.partitions(down_zones=everything) == []


def test_default_scenario_topology(default_scenario_path) -> None:
    t = drsim.load(default_scenario_path).topology
    # north-a to south-a: 0.5 ms + min(38, 28 + 22) ms + 0.5 ms.
    assert t.rtt("north-a", "south-a") == pytest.approx(0.039, abs=1e-12)
    assert t.route("north-a", "south-a", down_links=["north-south"]).links == ("north-east", "east-south")
    assert len(t.partitions(down_links=["north-east", "north-south"])) == 2


def test_unknown_names_and_wrong_types(topology: drsim.config.Topology) -> None:
    with pytest.raises(ValueError, match='b: unknown zone "c3", did you mean "c1"'):
        topology.rtt("a1", "c3")
    with pytest.raises(ValueError, match='down_links: unknown link "ba", did you mean "ab"'):
        topology.partitions(down_links=["ba"])
    with pytest.raises(ValueError, match='down_regions: unknown region "D"'):
        topology.reachable("a1", "b1", down_regions=["D"])
    with pytest.raises(ValueError, match="unknown zone"):
        topology.region_of("z9")
    with pytest.raises(TypeError, match="down_zones is a list of zone names"):
        topology.partitions(down_zones="a1")
    with pytest.raises(TypeError, match="down_links holds link names"):
        topology.partitions(down_links=[1])
    with pytest.raises(TypeError):
        topology.rtt("a1", "b1", ["a2"])  # keyword-only  # type: ignore[misc]
    with pytest.raises(ValueError, match="non-negative"):
        topology.rtt("a1", "b1", link_rtt={"ab": -0.01})
    with pytest.raises(ValueError, match=r'link_rtt\["ab"\]: expected a duration'):
        topology.rtt("a1", "b1", link_rtt={"ab": "60"})
    with pytest.raises(TypeError, match="link_rtt is a mapping"):
        topology.rtt("a1", "b1", link_rtt=["ab"])
