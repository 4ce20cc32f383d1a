#pragma once
// Internal to io/: every config struct reachable from a root type, each
// once, for the registries that find a struct's decoder or encoder by its
// type (io/config_decode.cc, io/scenario_yaml_writer.cc). The walk goes
// through optionals and vectors, and from a TopologyRef into the deployment
// it holds; python/src/config_views.h binds the same set of types.
#include <type_traits>
#include <typeindex>
#include <typeinfo>

#include "io/scenario.h"
#include "sim/field_traits.h"
#include "sim/fields.h"

namespace drsim {

// Adds entry.template operator()<T>() under typeid(T) for every described
// struct T reachable from V. Registry: a map from std::type_index.
template <class V, class Registry, class Entry>
void register_described_types(Registry& registry, const Entry& entry) {
  if constexpr (IsOptional<V>::value || IsVector<V>::value) {
    register_described_types<typename V::value_type>(registry, entry);
  } else if constexpr (std::is_same_v<V, TopologyRef>) {
    register_described_types<DeploymentConfig>(registry, entry);
  } else if constexpr (Described<V>) {
    if (!registry.emplace(std::type_index(typeid(V)), entry.template operator()<V>()).second) return;
    for_each_field<V>([&](const auto& f) { register_described_types<FieldValue<decltype(f)>>(registry, entry); });
  }
}

}  // namespace drsim
