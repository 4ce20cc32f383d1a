#pragma once
// Settings of a population's CDN (models/traffic/cdn_edges.h): the vendors
// whose edges serve its geography, the health check that switches the
// site's CNAME between them, and the static backup origin.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct CdnVendorConfig {
  std::string name;
  std::string zone;
  Ratio hit_ratio{0.9};
  Duration edge_time = std::chrono::milliseconds(2);

  static constexpr std::string_view kTypeName = "CdnVendor";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &CdnVendorConfig::name, "Vendor name, unique in the cdn block.", kRequired),
        field("zone", &CdnVendorConfig::zone,
              "The topology zone of the vendor's edge that serves this population's geography: its failure is "
              "the vendor failing there.",
              kRequired),
        field("hitRatio", &CdnVendorConfig::hit_ratio,
              "Share of requests the edge answers from its cache; the others are pulled from the origin.",
              kNonNegative | kAtMostOne),
        field("edgeTime", &CdnVendorConfig::edge_time, "The edge's own time to answer or forward a request.",
              kNonNegative),
    };
  }
};

struct StaticBackupConfig {
  std::string zone;
  Duration service_time = std::chrono::milliseconds(20);
  Ratio static_share{0.5};
  Duration record_ttl = std::chrono::seconds(60);

  static constexpr std::string_view kTypeName = "StaticBackup";
  static constexpr auto fields() {
    return std::tuple{
        field("zone", &StaticBackupConfig::zone, "The topology zone of the static site (object storage).",
              kRequired),
        field("serviceTime", &StaticBackupConfig::service_time, "The object store's time to serve an object.",
              kNonNegative),
        field("staticShare", &StaticBackupConfig::static_share,
              "Share of origin pulls that ask for static content, which the backup can serve; the others are "
              "dynamic and fail there.",
              kNonNegative | kAtMostOne),
        field("recordTtl", &StaticBackupConfig::record_ttl,
              "TTL of the origin's A record as each vendor's edges cache it: the switch to the backup (and back) "
              "reaches a vendor when its cached record expires.",
              kPositive),
    };
  }
};

struct CdnConfig {
  std::vector<CdnVendorConfig> vendors;
  std::optional<Duration> check_interval;
  std::uint32_t failure_threshold = 3;
  std::optional<StaticBackupConfig> backup;

  static constexpr std::string_view kTypeName = "Cdn";
  static constexpr auto fields() {
    return std::tuple{
        field("vendors", &CdnConfig::vendors,
              "CDN vendors, preferred first: the site's CNAME points at the first healthy one.", kRequired),
        field("checkInterval", &CdnConfig::check_interval,
              "How often a monitor probes each vendor's edge; the CNAME moves off a vendor it finds failing "
              "(absent: nothing switches the CNAME).",
              kPositive),
        field("failureThreshold", &CdnConfig::failure_threshold,
              "Consecutive probe results that flip the monitor's view of a vendor, both ways.", kPositive),
        field("backup", &CdnConfig::backup,
              "A static backup origin, switched to by a failover A record when the population's health check "
              "finds every origin region unhealthy (absent: none)."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim
