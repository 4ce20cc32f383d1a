#pragma once
// What is deployed where: regions, their zones, and the links between
// regions. Plain data, described by field lists (sim/fields.h); the loader in
// io/ fills it from a `kind: Topology` file or an inline `spec.topology`.
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct ZoneConfig {
  std::string name;

  static constexpr std::string_view kTypeName = "Zone";
  static constexpr auto fields() {
    return std::tuple{field("name", &ZoneConfig::name, "Zone name, unique across the topology (e.g. eu-west-1a).",
                            kRequired)};
  }
};

struct RegionConfig {
  std::string name;
  std::vector<ZoneConfig> zones;
  Duration inter_zone_rtt = std::chrono::microseconds(1000);

  static constexpr std::string_view kTypeName = "Region";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &RegionConfig::name, "Region name, unique across the topology (e.g. eu-west-1).", kRequired),
        field("zones", &RegionConfig::zones, "The region's availability zones; at least one.", kRequired),
        field("interZoneRtt", &RegionConfig::inter_zone_rtt,
              "Round-trip time between two zones of this region.", kPositive),
    };
  }
};

struct LinkConfig {
  std::string name;
  std::vector<std::string> between;  // two region names
  Duration rtt{};
  Duration jitter{};
  Bandwidth bandwidth{};
  Ratio loss{};

  static constexpr std::string_view kTypeName = "Link";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &LinkConfig::name, "Link name, unique across the topology.", kRequired),
        field("between", &LinkConfig::between, "The two regions this link joins.", kRequired),
        field("rtt", &LinkConfig::rtt, "Round-trip time over the link.", kRequired | kPositive),
        field("jitter", &LinkConfig::jitter, "Standard deviation of the one-way latency.", kNonNegative),
        field("bandwidth", &LinkConfig::bandwidth, "Capacity of the link.", kRequired | kPositive),
        field("loss", &LinkConfig::loss, "Packet loss ratio on the link.", kNonNegative | kAtMostOne),
    };
  }
};

struct TopologyConfig {
  std::vector<RegionConfig> regions;
  std::vector<LinkConfig> links;

  static constexpr std::string_view kTypeName = "Topology";
  static constexpr auto fields() {
    return std::tuple{
        field("regions", &TopologyConfig::regions, "Regions with their zones; at least one.", kRequired),
        field("links", &TopologyConfig::links, "Links between regions."),
    };
  }
};

}  // namespace drsim
