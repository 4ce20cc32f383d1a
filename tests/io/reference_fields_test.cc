// Every field that names something (a zone, a region, a service, a database,
// a consensus group...) is checked when the scenario loads: set to a name
// that exists nowhere, the load must fail with a ScenarioError. A reference
// the loader lets through would fail later, in the middle of a run or a
// check, as an internal error. The fields are found by walking the field
// lists of every shipped scenario, so a field added later is covered without
// this test naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "sim/field_traits.h"
#include "io/scenario_loader.h"
#include "sim/fields.h"

namespace drsim {
namespace {

// Keys whose string values name another thing of the scenario.
bool names_a_reference(std::string_view key) {
  static const std::set<std::string_view> kExact = {"zone",      "zones",      "region",  "regions",  "service",
                                                    "database",  "population", "between", "checkers", "to",
                                                    "toRegions", "rulesStore", "vendor",  "link"};
  if (kExact.contains(key)) return true;
  for (std::string_view suffix : {"Zone", "Region", "Service", "Database"}) {
    if (key.size() > suffix.size() && key.ends_with(suffix)) return true;
  }
  return false;
}

struct Collector {
  std::vector<std::string> paths;

  template <class T>
  void value(const T& v, const std::string& path, std::string_view key) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (names_a_reference(key)) paths.push_back(path);
    } else if constexpr (IsOptional<T>::value) {
      if (v) value(*v, path, key);
    } else if constexpr (IsVector<T>::value) {
      for (std::size_t i = 0; i < v.size(); ++i) value(v[i], path + "[" + std::to_string(i) + "]", key);
    } else if constexpr (Described<T>) {
      fields(v, path);
    }
  }

  template <Described T>
  void fields(const T& owner, const std::string& path) {
    for_each_field<T>([&](const auto& f) { value(owner.*f.member, path + "." + std::string(f.key), f.key); });
  }
};

std::vector<std::string> reference_paths(const Scenario& s) {
  Collector c;
  c.fields(s.spec.topology.config, "spec.topology");
  for_each_field<ScenarioSpec>([&](const auto& f) {
    if constexpr (!std::is_same_v<FieldValue<decltype(f)>, TopologyRef>)
      c.value(s.spec.*f.member, "spec." + std::string(f.key), f.key);
  });
  return c.paths;
}

std::vector<std::filesystem::path> shipped_scenarios() {
  std::vector<std::filesystem::path> out;
  for (const char* dir : {"scenarios", "tests/data/scenarios/good"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".yaml") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ReferenceFields, EveryReferenceToAMissingNameIsRefusedAtLoad) {
  std::size_t checked = 0;
  std::set<std::string> fields_seen;
  for (const auto& file : shipped_scenarios()) {
    SCOPED_TRACE(file.string());
    const Scenario s = load_scenario_file(file, {});
    for (const std::string& path : reference_paths(s)) {
      ++checked;
      fields_seen.insert(std::regex_replace(path, std::regex(R"(\[\d+\])"), "[]"));
      const std::string set = path + "=no-such-name";
      try {
        load_scenario_file(file, {set});
        ADD_FAILURE() << file.string() << ": --set " << set << " was accepted";
      } catch (const ScenarioError&) {
        // Refused, with a position: what a user gets.
      } catch (const std::exception& e) {
        ADD_FAILURE() << file.string() << ": --set " << set << ": not a ScenarioError: " << e.what();
      }
    }
  }
  // The walk reaches the kinds of reference the shipped scenarios use.
  EXPECT_GT(checked, 100u);
  for (const char* field : {"spec.topology.databases[].monitorZone", "spec.topology.databases[].preferredZone",
                            "spec.topology.services[].replicas[].zone", "spec.load[].service"}) {
    EXPECT_TRUE(fields_seen.contains(field)) << field;
  }
}

}  // namespace
}  // namespace drsim
