// io/scenario.h, io/scenario_loader.h: a Scenario is plain, immutable data on
// the Python side. Overrides are "path=value" strings that go through the
// loader exactly like --set; the drsim package converts a dict into them.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "io/scenario.h"
#include "io/scenario_loader.h"
#include "python/src/bindings.h"
#include "sim/time.h"

namespace drsim::python {
namespace {

py::dict target_dict(const ActionTarget& target) {
  py::dict d;
  if (!target.zone.empty()) d["zone"] = target.zone;
  if (!target.region.empty()) d["region"] = target.region;
  if (!target.link.empty()) d["link"] = target.link;
  if (!target.service.empty()) d["service"] = target.service;
  if (!target.population.empty()) d["population"] = target.population;
  return d;
}

// The resolved timeline, in start order: one dict per step.
py::list timeline_list(const Scenario& s) {
  py::list out;
  for (const ResolvedAction& r : s.resolved_timeline) {
    if (r.index >= s.spec.timeline.size()) continue;
    const ActionConfig& a = s.spec.timeline[r.index];
    py::dict d;
    d["name"] = a.name;
    d["action"] = a.action;
    d["target"] = target_dict(a.target);
    d["start_ns"] = to_ns(r.start);
    d["end_ns"] = r.end ? py::cast(to_ns(*r.end)) : py::none();
    out.append(std::move(d));
  }
  return out;
}

py::list regions_list(const Scenario& s) {
  py::list out;
  for (const RegionConfig& region : s.spec.topology.config.regions) {
    py::list zones;
    for (const ZoneConfig& z : region.zones) zones.append(z.name);
    py::dict d;
    d["name"] = region.name;
    d["zones"] = std::move(zones);
    out.append(std::move(d));
  }
  return out;
}

py::list links_list(const Scenario& s) {
  py::list out;
  for (const LinkConfig& link : s.spec.topology.config.links) {
    py::dict d;
    d["name"] = link.name;
    d["between"] = link.between;
    d["rtt_ns"] = to_ns(link.rtt);
    d["bandwidth_bps"] = link.bandwidth.bits_per_second;
    out.append(std::move(d));
  }
  return out;
}

}  // namespace

void bind_scenario(py::module_& m) {
  // The fields of the document (api_version, kind, metadata, spec) are bound
  // by bind_config.cc from Scenario's field list.
  py::class_<Scenario>(m, "Scenario", "A loaded, validated scenario (immutable).")
      .def_property_readonly("name", [](const Scenario& s) { return s.metadata.name; })
      .def_property_readonly("description", [](const Scenario& s) { return s.metadata.description; })
      .def_property_readonly("duration_ns", [](const Scenario& s) { return to_ns(s.spec.duration); })
      .def_property_readonly("seed", [](const Scenario& s) { return s.spec.seed; })
      .def_property_readonly("source_file", [](const Scenario& s) { return s.source_file; })
      .def_property_readonly("source_text", [](const Scenario& s) { return s.source_text; })
      .def_property_readonly("base_dir", [](const Scenario& s) { return s.base_dir.string(); })
      .def_property_readonly("topology_file", [](const Scenario& s) { return s.spec.topology.source_file; })
      .def_property_readonly("overrides", [](const Scenario& s) { return s.overrides; })
      .def_property_readonly("guards",
                             [](const Scenario& s) {
                               py::dict d;
                               d["max_events"] = s.spec.guards.max_events;
                               d["max_wall_time_ns"] = to_ns(s.spec.guards.max_wall_time);
                               d["max_events_per_instant"] = s.spec.guards.max_events_per_instant;
                               return d;
                             })
      .def("timeline", &timeline_list, "The resolved timeline in start order, one dict per step.")
      .def("regions", &regions_list, "Regions with their zone names.")
      .def("links", &links_list, "Links between regions.")
      .def(
          "with_overrides",
          [](const Scenario& s, const std::vector<std::string>& overrides) {
            py::gil_scoped_release release;
            return with_overrides(s, overrides);
          },
          py::arg("overrides"), "The same scenario reloaded from its source with these \"path=value\" overrides.")
      .def(
          "to_yaml",
          [](const Scenario& s) {
            py::gil_scoped_release release;
            return to_yaml(s);
          },
          "The resolved scenario as YAML: topology inlined, every default written out.")
      .def(
          "describe",
          [](const Scenario& s) {
            py::gil_scoped_release release;
            return describe(s);
          },
          "A human-readable account of the resolved scenario.");

  m.def(
      "load_file",
      [](const std::string& path, const std::vector<std::string>& overrides) {
        py::gil_scoped_release release;
        return load_scenario_file(std::filesystem::path(path), overrides);
      },
      py::arg("path"), py::arg("overrides") = std::vector<std::string>{},
      "Loads and validates a scenario file. Raises drsim.ScenarioError.");
  m.def(
      "load_text",
      [](const std::string& text, const std::vector<std::string>& overrides, const std::string& source_name,
         const std::optional<std::string>& base_dir) {
        py::gil_scoped_release release;
        const std::filesystem::path base = base_dir ? std::filesystem::path(*base_dir) : std::filesystem::current_path();
        return load_scenario_text(text, overrides, source_name, base);
      },
      py::arg("text"), py::arg("overrides") = std::vector<std::string>{}, py::arg("source_name") = "<text>",
      py::arg("base_dir") = py::none(),
      "Loads and validates scenario YAML text; relative paths resolve against base_dir (default: the current "
      "directory). Raises drsim.ScenarioError.");
  m.def("scenario_format_markdown", &scenario_format_markdown,
        "Reference documentation of the scenario format (Markdown).");
  m.def("scenario_json_schema", &scenario_json_schema, "JSON Schema of the scenario format (text).");
  m.def("event_kinds_json", &event_kinds_json, "The event kinds a run's events table can hold (JSON text).");
}

}  // namespace drsim::python
