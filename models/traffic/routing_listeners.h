#pragma once
// Typed seams between the routing models, which the scenario builder joins:
// a GSLB health checker hands its decisions to a traffic scheduler, a client
// population tells it where each attempt was routed, and a population's DNS
// caches cache the CDN's live CNAME target. An interface rather than a
// std::function: what is being joined, and the one thing it hears, is named
// in both classes' declarations.
#include <cstddef>

#include "models/topology/topology.h"

namespace drsim {

// Hears the health decisions of a GSLB health checker, once the checker's
// quorum has changed its mind about a region.
class RegionHealthListener {
 public:
  virtual void region_health(RegionIndex region, bool healthy) = 0;

 protected:
  ~RegionHealthListener() = default;
};

// Hears the region of every routed attempt of a client population.
class RoutedListener {
 public:
  virtual void routed(RegionIndex region) = 0;

 protected:
  ~RoutedListener() = default;
};

// The live CNAME target (a CDN vendor index) that DNS caches store with the routing.
class CnameSource {
 public:
  virtual std::size_t cname() const = 0;

 protected:
  ~CnameSource() = default;
};

}  // namespace drsim
