#pragma once
// Where a request enters a service that sits behind a balancer with one node
// per zone (models/service/cloud_load_balancer.h): the seam between the
// Service, which moves requests, and the balancer, which knows which node
// addresses its callers may hold and which of those nodes are alive.
#include <cstddef>
#include <optional>

#include "models/topology/topology.h"

namespace drsim {

class EntryNodes {
 public:
  struct Entry {
    std::size_t zone = 0;  // the service zone of the node the request enters
    bool alive = true;     // false: the node's zone is down, the request is lost there
  };
  virtual ~EntryNodes() = default;
  // The node a request sent now enters, confined to the region when given;
  // nullopt when it makes no difference (the region is given or the service
  // has one, every node a caller may still hold is alive and each sends to
  // every zone of its region). The request is then served in the entry's
  // region: a cloud load balancer is regional.
  virtual std::optional<Entry> pick_entry(std::optional<RegionIndex> region) = 0;
  // Each node sends only to its own zone's targets.
  virtual bool zonal() const = 0;
};

}  // namespace drsim
