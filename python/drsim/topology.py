"""What a failure does to the network: routes, round-trip times, reachability
and partitions of a scenario's topology.

The queries are methods of the topology view, ``scenario.topology``
(a :class:`drsim.config.Topology`, which also holds the regions, links and
services as read-only config)::

    t = drsim.load("scenarios/default.yaml").topology
    t.rtt("north-a", "south-a")                       # seconds, over what is up
    t.route("north-a", "south-a", down_links=["north-south"])
    t.reachable("north-a", "east-a", down_regions=["north"])
    t.partitions(down_links=["north-east", "north-south"])

They answer for the topology as configured with the given zones, regions
and links down, from the same graph the simulation routes over
(``models/topology/topology.h``): zones of a region are ``interZoneRtt``
apart, regions are joined by links, and a region that is down takes its
zones down while its backbone still carries traffic between its links.
Round-trip times are float seconds, as everywhere in drsim's Python API.
Unknown names raise :class:`ValueError` listing the known ones.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Route"]


class Route(NamedTuple):
    """The shortest route between two zones."""

    rtt: float  #: round-trip time, seconds
    links: tuple[str, ...]  #: the links crossed, in order from the first zone
    regions: tuple[str, ...]  #: the regions passed, from the first zone's to the second's
