#include "io/scenario_validation.h"

#include <algorithm>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>

#include "io/action_parameters.h"
#include "sim/quote.h"
#include "io/suggest.h"
#include "io/value_codecs.h"
#include "models/actions/action_catalog.h"
#include "sim/units.h"

namespace drsim {

namespace {

std::string indexed(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Names of one kind (zones, regions, links, actions): reports empty and
// repeated names, and remembers the rest for references.
class NameTable {
 public:
  NameTable(std::string_view kind, const SourceMap& where) : kind_(kind), where_(where) {}

  void add(const std::string& name, const std::string& path, std::vector<Diagnostic>& out) {
    if (name.empty()) {
      out.push_back(where_.at(path, "expected a non-empty " + kind_ + " name, got \"\""));
      return;
    }
    const auto [it, inserted] = first_path_.emplace(name, path);
    if (inserted) {
      names_.push_back(name);
      return;
    }
    const SourceLocation first = where_.find(it->second);
    const SourceLocation here = where_.find(path);
    std::string first_at = first.file == here.file ? "" : first.file;
    if (first.line > 0) first_at += (first_at.empty() ? "line " : ":") + std::to_string(first.line);
    out.push_back(where_.at(path, "duplicate " + kind_ + " name " + quote(name) +
                                      (first_at.empty() ? "" : " (first defined at " + first_at + ")")));
  }

  bool contains(const std::string& name) const { return first_path_.contains(name); }
  std::vector<std::string_view> names() const { return {names_.begin(), names_.end()}; }

  // Reports name at path to out unless it is one of the table's.
  void check_reference(const std::string& name, const std::string& path, std::vector<Diagnostic>& out) const {
    if (!contains(name)) out.push_back(where_.at(path, unknown_name_message(kind_, name, names(), kind_ + "s")));
  }

 private:
  std::string kind_;
  const SourceMap& where_;
  std::unordered_map<std::string, std::string> first_path_;
  std::vector<std::string> names_;  // in definition order, for messages
};

constexpr std::string_view kTopology = "spec.topology";

std::string join(const std::vector<std::string_view>& items) {
  std::string out;
  for (std::string_view s : items) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

void check_action(const ActionConfig& a, const ActionSpecInfo& info, const std::string& p,
                  const std::map<std::string_view, const NameTable*>& targets, const SourceMap& where,
                  std::vector<Diagnostic>& out) {
  const std::string wanted = to_string(info.target);

  // The target has exactly the fields the catalog's TargetSet names.
  for_each_field<ActionTarget>([&](const auto& f) {
    const std::string& name = a.target.*f.member;
    const std::string key(f.key);
    const std::string path = p + ".target." + key;
    bool needed = false;
    for (TargetField t : target_fields()) {
      if (to_string(t) == f.key) needed = info.target.contains(t);
    }
    if (!needed) {
      if (!name.empty()) out.push_back(where.at(path, a.action + " targets a " + wanted + ", not a " + key));
    } else if (name.empty()) {
      out.push_back(where.at(p + ".target", a.action + " needs target." + key));
    } else {
      targets.at(f.key)->check_reference(name, path, out);
    }
  });

  // Parameters: only the catalog's, its required ones, and at least one for
  // an action that means nothing without one (link:degrade).
  const std::vector<std::string_view> allowed = parameters_of(info);
  std::vector<std::string_view> given;
  for_each_parameter(a, [&](std::string_view key, const auto&) {
    given.push_back(key);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      out.push_back(where.at(p + "." + std::string(key),
                             a.action + " takes no parameter " + quote(key) +
                                 (allowed.empty() ? " (it takes none)" : " (it takes: " + join(allowed) + ")")));
    }
  });
  for (std::string_view r : info.required_params) {
    if (r.empty()) continue;
    if (std::find(given.begin(), given.end(), r) == given.end())
      out.push_back(where.at(p, a.action + " needs " + quote(r)));
  }
  if (info.needs_a_parameter && given.empty()) {
    out.push_back(where.at(p, a.action + " needs at least one of " + join(allowed)));
  }
  if (info.exactly_one_parameter && given.size() != 1) {
    if (given.empty()) {
      out.push_back(where.at(p, a.action + " needs one of " + join(allowed)));
    } else {
      out.push_back(where.at(p + "." + std::string(given[1]),
                             a.action + " takes exactly one of " + join(allowed) + ", got " +
                                 (given.size() == 2 ? std::string("both") : join(given))));
    }
  }

  if (a.duration && !info.reversible) {
    out.push_back(where.at(p + ".duration", a.action + " cannot be undone, so it takes no duration"));
  }
}

// Reports every startAfter cycle as "a -> b -> c -> a", at the startAfter
// entry of its first action. Iterative: a long chain must not overflow the stack.
void check_cycles(const std::vector<ActionConfig>& timeline,
                  const std::vector<std::vector<std::pair<std::size_t, std::size_t>>>& after, const SourceMap& where,
                  std::vector<Diagnostic>& out) {
  enum Color { kWhite, kGray, kBlack };
  std::vector<Color> color(timeline.size(), kWhite);
  struct Frame {
    std::size_t action;
    std::size_t next_edge;
  };
  for (std::size_t start = 0; start < timeline.size(); ++start) {
    if (color[start] != kWhite) continue;
    std::vector<Frame> stack{{start, 0}};
    color[start] = kGray;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next_edge == after[top.action].size()) {
        color[top.action] = kBlack;
        stack.pop_back();
        continue;
      }
      const auto [dep, entry] = after[top.action][top.next_edge++];
      if (color[dep] == kWhite) {
        color[dep] = kGray;
        stack.push_back({dep, 0});
      } else if (color[dep] == kGray) {
        std::size_t first = stack.size() - 1;
        while (stack[first].action != dep) --first;
        std::string cycle;
        for (std::size_t k = first; k < stack.size(); ++k) cycle += timeline[stack[k].action].name + " -> ";
        cycle += timeline[dep].name;
        // The entry by which the cycle's first action waits for the next one.
        const std::size_t first_entry =
            first + 1 < stack.size() ? after[dep][stack[first].next_edge - 1].second : entry;
        out.push_back(where.at(indexed("spec.timeline[" + std::to_string(dep) + "].startAfter", first_entry),
                               "startAfter cycle: " + cycle + " (each waits for the next)"));
      }
    }
  }
}

}  // namespace

std::vector<Diagnostic> check_topology(const TopologyConfig& topology, const SourceMap& where) {
  std::vector<Diagnostic> out;
  NameTable regions("region", where), zones("zone", where), links("link", where);
  const std::string root(kTopology);
  if (topology.regions.empty()) out.push_back(where.at(root + ".regions", "expected at least one region, got none"));
  for (std::size_t i = 0; i < topology.regions.size(); ++i) {
    const RegionConfig& region = topology.regions[i];
    const std::string p = indexed(root + ".regions", i);
    regions.add(region.name, p + ".name", out);
    if (region.zones.empty()) out.push_back(where.at(p + ".zones", "expected at least one zone, got none"));
    for (std::size_t j = 0; j < region.zones.size(); ++j)
      zones.add(region.zones[j].name, indexed(p + ".zones", j) + ".name", out);
  }
  for (std::size_t i = 0; i < topology.links.size(); ++i) {
    const LinkConfig& link = topology.links[i];
    const std::string p = indexed(root + ".links", i);
    links.add(link.name, p + ".name", out);
    if (link.between.size() != 2) {
      out.push_back(where.at(p + ".between", "expected two region names, got " + std::to_string(link.between.size())));
    }
    for (std::size_t j = 0; j < link.between.size(); ++j)
      regions.check_reference(link.between[j], indexed(p + ".between", j), out);
    if (link.between.size() == 2 && link.between[0] == link.between[1]) {
      out.push_back(where.at(indexed(p + ".between", 1), "expected a region other than " + quote(link.between[0]) +
                                                             ": a link joins two different regions"));
    }
  }
  return out;
}

namespace {

// Call references must name services and their operations, and calls must not come back around: a cycle
// would recurse without end. The graph's nodes are (service, operation): an operation's calls are its own, or
// the service's when it gives none. Reported as "a -> b -> a" (b.op for a named operation) at the call that
// closes it. Iterative, so that a long chain cannot overflow the stack.
void check_calls(const std::vector<ServiceConfig>& services, const NameTable& names, const std::string& root,
                 const SourceMap& where, std::vector<Diagnostic>& out) {
  std::map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < services.size(); ++i) index.emplace(services[i].name, i);
  // Where the calls of (service, operation) sit in the file, for messages.
  const auto calls_path = [&](std::size_t service, std::size_t op) {
    if (op == 0 || !services[service].operations[op - 1].calls) return indexed(root, service) + ".calls";
    return indexed(indexed(root, service) + ".operations", op - 1) + ".calls";
  };
  const auto node_name = [&](std::size_t service, std::size_t op) {
    const std::string& operation = services[service].operation_name(op);
    return services[service].name + (operation.empty() ? "" : "." + operation);
  };
  for (std::size_t i = 0; i < services.size(); ++i) {
    for (std::size_t op = 0; op < services[i].operation_count(); ++op) {
      if (op > 0 && !services[i].operations[op - 1].calls) continue;  // the service's, checked once
      const std::vector<CallConfig>& calls = services[i].calls_of(op);
      for (std::size_t j = 0; j < calls.size(); ++j) {
        if (calls[j].service.empty()) continue;  // a database call (checked with the databases)
        const std::string at = indexed(calls_path(i, op), j);
        names.check_reference(calls[j].service, at + ".service", out);
        const auto callee = index.find(calls[j].service);
        if (callee == index.end() || calls[j].operation.empty()) continue;
        const ServiceConfig& target = services[callee->second];
        if (!target.operation_index(calls[j].operation)) {
          std::vector<std::string_view> known;
          for (const OperationConfig& o : target.operations) known.push_back(o.name);
          out.push_back(where.at(at + ".operation",
                                 unknown_name_message("operation", calls[j].operation, known,
                                                      "operations of " + quote(target.name))));
        }
      }
    }
  }
  // Node n = offsets[service] + operation.
  std::vector<std::size_t> offsets(services.size() + 1, 0);
  for (std::size_t i = 0; i < services.size(); ++i) offsets[i + 1] = offsets[i] + services[i].operation_count();
  enum Color { kWhite, kGray, kBlack };
  std::vector<Color> color(offsets.back(), kWhite);
  struct Frame {
    std::size_t service, op, next;  // next: the next call to follow
  };
  for (std::size_t start_service = 0; start_service < services.size(); ++start_service) {
    for (std::size_t start_op = 0; start_op < services[start_service].operation_count(); ++start_op) {
      if (color[offsets[start_service] + start_op] != kWhite) continue;
      std::vector<Frame> stack{{start_service, start_op, 0}};
      color[offsets[start_service] + start_op] = kGray;
      while (!stack.empty()) {
        Frame& top = stack.back();
        const std::vector<CallConfig>& calls = services[top.service].calls_of(top.op);
        if (top.next == calls.size()) {
          color[offsets[top.service] + top.op] = kBlack;
          stack.pop_back();
          continue;
        }
        const std::size_t call = top.next++;
        const Frame caller = top;
        const auto callee = index.find(calls[call].service);
        if (callee == index.end()) continue;  // reported above (or a database call)
        const std::optional<std::size_t> op = services[callee->second].operation_index(calls[call].operation);
        if (!op) continue;  // reported above
        const std::size_t node = offsets[callee->second] + *op;
        if (color[node] == kGray) {
          std::string cycle;
          bool on = false;
          for (const Frame& frame : stack) {
            if (frame.service == callee->second && frame.op == *op) on = true;
            if (on) cycle += node_name(frame.service, frame.op) + " -> ";
          }
          cycle += node_name(callee->second, *op);
          out.push_back(where.at(indexed(calls_path(caller.service, caller.op), call) + ".service",
                                 "call cycle: " + cycle + " (each calls the next)"));
        } else if (color[node] == kWhite) {
          color[node] = kGray;
          stack.push_back({callee->second, *op, 0});
        }
      }
    }
  }
}

// A population's operations must be operations of its entry service.
void check_population_operations(const ScenarioSpec& spec, const ClientPopulationConfig& population,
                                 const std::string& p, const SourceMap& where, std::vector<Diagnostic>& out) {
  const auto& services = spec.topology.config.services;
  const auto entry = std::find_if(services.begin(), services.end(),
                                  [&](const ServiceConfig& s) { return s.name == population.service; });
  if (entry == services.end()) return;  // reported with the service
  std::vector<std::string_view> known;
  for (const OperationConfig& o : entry->operations) known.push_back(o.name);
  for (std::size_t i = 0; i < population.operations.size(); ++i) {
    const std::string& name = population.operations[i].name;
    if (entry->operation_index(name).value_or(0) != 0) continue;
    out.push_back(where.at(indexed(p + ".operations", i) + ".name",
                           known.empty() ? "service " + quote(entry->name) + " has no operations (give it some, "
                                               "or leave the population's operations out)"
                                         : unknown_name_message("operation", name, known,
                                                                "operations of " + quote(entry->name))));
  }
}

// The regions where a service has pods, in topology order.
std::vector<std::string> serving_regions(const ScenarioSpec& spec, const std::string& service) {
  std::vector<std::string> out;
  for (const ServiceConfig& s : spec.topology.config.services) {
    if (s.name != service) continue;
    for (const RegionConfig& r : spec.topology.config.regions) {
      const bool serves = std::any_of(r.zones.begin(), r.zones.end(), [&](const ZoneConfig& z) {
        return std::any_of(s.replicas.begin(), s.replicas.end(),
                           [&](const ReplicasConfig& rep) { return rep.zone == z.name && rep.replicas > 0; });
      });
      if (serves) out.push_back(r.name);
    }
  }
  return out;
}

// A geo-routed population can only be sent to regions where its entry
// service runs: anything else is a typo or a plan that can never serve.
void check_routing(const ScenarioSpec& spec, const ClientPopulationConfig& population, const std::string& path,
                   const SourceMap& where, std::vector<Diagnostic>& out) {
  std::vector<Diagnostic> ignored;
  NameTable regions("region", where);
  for (const RegionConfig& r : spec.topology.config.regions) regions.add(r.name, "", ignored);
  const std::vector<std::string> serving = serving_regions(spec, population.service);
  for (std::size_t j = 0; j < population.routing->regions.size(); ++j) {
    const std::string& region = population.routing->regions[j].region;
    const std::string at = indexed(path + ".regions", j) + ".region";
    if (!regions.contains(region)) {
      regions.check_reference(region, at, out);
    } else if (std::find(serving.begin(), serving.end(), region) == serving.end()) {
      out.push_back(where.at(at, "service " + quote(population.service) + " has no pods in region " + quote(region)));
    }
  }
}

// routing:weight acts on one of the regions the population's router knows.
void check_routed_region(const ScenarioSpec& spec, const ActionConfig& a, const std::string& path,
                         const SourceMap& where, std::vector<Diagnostic>& out) {
  for (const ClientPopulationConfig& population : spec.load) {
    if (population.name != a.target.population) continue;
    if (!population.routing) {
      out.push_back(where.at(path + ".target.population", "population " + quote(population.name) +
                                                              " has no routing to change (add spec.load[].routing)"));
      return;
    }
    std::vector<std::string> candidates;
    for (const RegionWeightConfig& r : population.routing->regions) candidates.push_back(r.region);
    if (candidates.empty()) candidates = serving_regions(spec, population.service);
    if (std::find(candidates.begin(), candidates.end(), a.target.region) == candidates.end()) {
      out.push_back(where.at(path + ".target.region", "population " + quote(population.name) +
                                                          " is not routed to region " + quote(a.target.region)));
    }
    return;
  }
}

// routing:switch moves shares between regions the population is routed to,
// through its traffic scheduler, in stages that go forward in time and share.
void check_routing_switch(const ScenarioSpec& spec, const ActionConfig& a, const std::string& path,
                          const SourceMap& where, std::vector<Diagnostic>& out) {
  const ClientPopulationConfig* population = nullptr;
  for (const ClientPopulationConfig& c : spec.load) {
    if (c.name == a.target.population) population = &c;
  }
  if (population == nullptr || !population->routing) return;  // reported already
  if (!population->routing->scheduler) {
    out.push_back(where.at(path + ".target.population",
                           "population " + quote(population->name) +
                               " has no traffic scheduler to switch with (add spec.load[].routing.scheduler)"));
  }
  std::vector<std::string> candidates;
  for (const RegionWeightConfig& r : population->routing->regions) candidates.push_back(r.region);
  if (candidates.empty()) candidates = serving_regions(spec, population->service);
  const std::vector<std::string>& to = a.to_regions.value_or(std::vector<std::string>{});
  if (a.to_regions && to.empty()) {
    out.push_back(where.at(path + ".toRegions", "expected at least one region to move the share to"));
  }
  for (std::size_t j = 0; j < to.size(); ++j) {
    const std::string at = indexed(path + ".toRegions", j);
    if (to[j] == a.target.region) {
      out.push_back(where.at(at, "expected a region other than the one switched from, got " + quote(to[j])));
    } else if (std::find(candidates.begin(), candidates.end(), to[j]) == candidates.end()) {
      out.push_back(where.at(at, "population " + quote(population->name) + " is not routed to region " +
                                     quote(to[j])));
    } else if (std::find(to.begin(), to.begin() + static_cast<std::ptrdiff_t>(j), to[j]) !=
               to.begin() + static_cast<std::ptrdiff_t>(j)) {
      out.push_back(where.at(at, "expected each region once, got " + quote(to[j]) + " again"));
    }
  }
  if (!a.steps) return;
  const std::vector<RoutingSwitchStep>& steps = *a.steps;
  if (steps.empty()) {
    out.push_back(where.at(path + ".steps", "expected at least one stage (or leave steps out for the default)"));
    return;
  }
  for (std::size_t k = 1; k < steps.size(); ++k) {
    const std::string at = indexed(path + ".steps", k);
    if (steps[k].after < steps[k - 1].after) {
      out.push_back(where.at(at + ".after", "expected stages in time order, got " +
                                                quote(format_duration(steps[k].after)) + " after " +
                                                quote(format_duration(steps[k - 1].after))));
    }
    if (steps[k].share <= steps[k - 1].share) {
      out.push_back(where.at(at + ".share", "expected each stage to move a larger share than the one before"));
    }
  }
  if (a.duration && *a.duration <= steps.back().after) {
    out.push_back(where.at(path + ".duration", "expected a duration longer than the last stage's after (" +
                                                   format_duration(steps.back().after) +
                                                   "): the switch-back starts when it ends"));
  }
}

}  // namespace

std::vector<Diagnostic> check_services_and_load(const ScenarioSpec& spec, const SourceMap& where) {
  std::vector<Diagnostic> out;
  auto report = [&](const std::string& path, const std::vector<ConfigProblem>& problems) {
    for (const ConfigProblem& problem : problems) out.push_back(where.at(path + "." + problem.field, problem.message));
  };
  std::vector<Diagnostic> ignored;  // check_topology reports the zones' own problems
  NameTable zones("zone", where), regions("region", where);
  for (const RegionConfig& r : spec.topology.config.regions) {
    regions.add(r.name, "", ignored);
    for (const ZoneConfig& z : r.zones) zones.add(z.name, "", ignored);
  }
  // Optional references: empty means "not given".
  auto check_optional = [&](const NameTable& table, const std::string& name, const std::string& path) {
    if (!name.empty()) table.check_reference(name, path, out);
  };

  NameTable services("service", where);
  const std::string root = std::string(kTopology) + ".services";
  for (std::size_t i = 0; i < spec.topology.config.services.size(); ++i) {
    const ServiceConfig& service = spec.topology.config.services[i];
    const std::string p = indexed(root, i);
    services.add(service.name, p + ".name", out);
    report(p, service.validate());
    if (service.discovery == "kubernetes" && !spec.kubernetes) {
      out.push_back(where.at(p + ".discovery",
                             "discovery kubernetes needs spec.kubernetes: its node lifecycle controller and "
                             "kube-proxy are the path by which callers learn of a dead pod"));
    }
    if (service.discovery == "grpc" && !spec.kubernetes) {
      out.push_back(where.at(p + ".discovery",
                             "discovery grpc needs spec.kubernetes: the channels resolve the Service's virtual IP or "
                             "its headless DNS, which list the pods Kubernetes has ready"));
    }
    if (service.discovery == "mesh" && !spec.kubernetes) {
      out.push_back(where.at(p + ".discovery",
                             "discovery mesh needs spec.kubernetes: the sidecars' endpoints are the pods Kubernetes "
                             "lists, through its node lifecycle controller"));
    }
    for (std::size_t j = 0; j < service.replicas.size(); ++j)
      zones.check_reference(service.replicas[j].zone, indexed(p + ".replicas", j) + ".zone", out);
  }

  check_calls(spec.topology.config.services, services, root, where, out);

  // Databases and consensus groups: their own problems, unique names, zones that exist.
  NameTable databases("database", where), groups("consensus group", where);
  for (std::size_t i = 0; i < spec.topology.config.databases.size(); ++i) {
    const DatabaseConfig& d = spec.topology.config.databases[i];
    const std::string p = indexed(std::string(kTopology) + ".databases", i);
    databases.add(d.name, p + ".name", out);
    report(p, d.validate());
    zones.check_reference(d.primary_zone, p + ".primaryZone", out);
    for (std::size_t j = 0; j < d.replicas.size(); ++j)
      zones.check_reference(d.replicas[j].zone, indexed(p + ".replicas", j) + ".zone", out);
    check_optional(zones, d.monitor_zone, p + ".monitorZone");
    check_optional(zones, d.preferred_zone, p + ".preferredZone");
    check_optional(regions, d.preferred_region, p + ".preferredRegion");
  }
  for (std::size_t i = 0; i < spec.topology.config.services.size(); ++i) {
    const ServiceConfig& service = spec.topology.config.services[i];
    const auto check_databases = [&](const std::vector<CallConfig>& calls, const std::string& at) {
      for (std::size_t j = 0; j < calls.size(); ++j) {
        if (!calls[j].database.empty()) databases.check_reference(calls[j].database, indexed(at, j) + ".database", out);
      }
    };
    check_databases(service.calls, indexed(root, i) + ".calls");
    for (std::size_t o = 0; o < service.operations.size(); ++o) {
      if (service.operations[o].calls) {
        check_databases(*service.operations[o].calls, indexed(indexed(root, i) + ".operations", o) + ".calls");
      }
    }
  }
  for (std::size_t i = 0; i < spec.topology.config.consensus_groups.size(); ++i) {
    const RaftConfig& g = spec.topology.config.consensus_groups[i];
    const std::string p = indexed(std::string(kTopology) + ".consensusGroups", i);
    groups.add(g.name, p + ".name", out);
    report(p, g.validate());
    for (std::size_t j = 0; j < g.members.size(); ++j)
      zones.check_reference(g.members[j].zone, indexed(p + ".members", j) + ".zone", out);
    check_optional(zones, g.preferred_zone, p + ".preferredZone");
    check_optional(regions, g.preferred_region, p + ".preferredRegion");
  }

  // Kafka-style topics: their own problems, unique names, zones and producer services that exist.
  NameTable topics("topic", where);
  for (std::size_t i = 0; i < spec.topology.config.topics.size(); ++i) {
    const TopicConfig& t = spec.topology.config.topics[i];
    const std::string p = indexed(std::string(kTopology) + ".topics", i);
    topics.add(t.name, p + ".name", out);
    report(p, t.validate());
    for (std::size_t j = 0; j < t.brokers.size(); ++j)
      zones.check_reference(t.brokers[j].zone, indexed(p + ".brokers", j) + ".zone", out);
    for (std::size_t j = 0; j < t.producers.size(); ++j) {
      const std::string pp = indexed(p + ".producers", j);
      if (!t.producers[j].service.empty()) services.check_reference(t.producers[j].service, pp + ".service", out);
      if (!t.producers[j].zone.empty()) zones.check_reference(t.producers[j].zone, pp + ".zone", out);
    }
    for (std::size_t j = 0; j < t.consumer_groups.size(); ++j) {
      const std::string gp = indexed(p + ".consumerGroups", j);
      for (std::size_t k = 0; k < t.consumer_groups[j].instances.size(); ++k)
        zones.check_reference(t.consumer_groups[j].instances[k].zone, indexed(gp + ".instances", k) + ".zone", out);
    }
  }

  NameTable populations("population", where);
  for (std::size_t i = 0; i < spec.load.size(); ++i) {
    const ClientPopulationConfig& population = spec.load[i];
    const std::string p = indexed("spec.load", i);
    populations.add(population.name, p + ".name", out);
    services.check_reference(population.service, p + ".service", out);
    check_population_operations(spec, population, p, where, out);
    if (!population.zone.empty()) zones.check_reference(population.zone, p + ".zone", out);
    if (!population.affinity_zone.empty()) zones.check_reference(population.affinity_zone, p + ".affinityZone", out);
    report(p, population.validate());
    if (population.routing) check_routing(spec, population, p + ".routing", where, out);
    if (population.routing && !population.routing->rules_store.empty())
      groups.check_reference(population.routing->rules_store, p + ".routing.rulesStore", out);
    // GSLB health checkers sit in topology zones.
    if (population.routing && population.routing->health_check &&
        !population.routing->health_check->service.empty()) {
      services.check_reference(population.routing->health_check->service, p + ".routing.healthCheck.service", out);
    }
    if (population.routing && population.routing->health_check) {
      const std::vector<std::string>& checkers = population.routing->health_check->checkers;
      for (std::size_t j = 0; j < checkers.size(); ++j)
        zones.check_reference(checkers[j], indexed(p + ".routing.healthCheck.checkers", j), out);
    }
    // DNS providers' name servers, CDN edges and the static backup sit in topology zones.
    if (population.routing && population.routing->dns) {
      const std::vector<DnsProviderConfig>& providers = population.routing->dns->providers;
      for (std::size_t j = 0; j < providers.size(); ++j) {
        for (std::size_t k = 0; k < providers[j].zones.size(); ++k)
          zones.check_reference(providers[j].zones[k],
                                indexed(indexed(p + ".routing.dns.providers", j) + ".zones", k), out);
      }
    }
    if (population.cdn) {
      for (std::size_t j = 0; j < population.cdn->vendors.size(); ++j)
        zones.check_reference(population.cdn->vendors[j].zone, indexed(p + ".cdn.vendors", j) + ".zone", out);
      if (population.cdn->backup) zones.check_reference(population.cdn->backup->zone, p + ".cdn.backup.zone", out);
    }
  }

  if (!spec.kubernetes) return out;
  const KubernetesConfig& kube = *spec.kubernetes;
  report("spec.kubernetes", kube.validate());
  for (std::size_t i = 0; i < kube.node_pools.size(); ++i)
    zones.check_reference(kube.node_pools[i].zone, indexed("spec.kubernetes.nodePools", i) + ".zone", out);
  for (std::size_t i = 0; i < kube.deployments.size(); ++i) {
    const std::string p = indexed("spec.kubernetes.deployments", i);
    services.check_reference(kube.deployments[i].service, p + ".service", out);
    const std::vector<std::string>& policy_zones = kube.deployments[i].policy.zones;
    for (std::size_t j = 0; j < policy_zones.size(); ++j)
      zones.check_reference(policy_zones[j], indexed(p + ".policy.zones", j), out);
  }
  // The HPAs' custom and external metrics name what the metrics adapter scrapes.
  if (kube.metrics_adapter.zone) zones.check_reference(*kube.metrics_adapter.zone, "spec.kubernetes.metricsAdapter.zone", out);
  for (std::size_t i = 0; i < kube.hpas.size(); ++i) {
    for (std::size_t m = 0; m < kube.hpas[i].metrics.size(); ++m) {
      const HpaMetricConfig& metric = kube.hpas[i].metrics[m];
      const std::string p = indexed(indexed("spec.kubernetes.hpas", i) + ".metrics", m);
      if (metric.type == "Object" && metric.object) {
        services.check_reference(metric.object->described_object.name, p + ".object.describedObject.name", out);
      }
      if (metric.type != "External" || !metric.external || !metric.external->metric.selector) continue;
      const HpaMatchLabelsConfig& labels = metric.external->metric.selector->match_labels;
      const std::string lp = p + ".external.metric.selector.matchLabels";
      if (labels.population) populations.check_reference(*labels.population, lp + ".population", out);
      if (!labels.topic) continue;
      topics.check_reference(*labels.topic, lp + ".topic", out);
      for (const TopicConfig& t : spec.topology.config.topics) {
        if (t.name != *labels.topic || !labels.group) continue;
        const bool found = std::any_of(t.consumer_groups.begin(), t.consumer_groups.end(),
                                       [&](const ConsumerGroupConfig& g) { return g.name == *labels.group; });
        if (!found) out.push_back(where.at(lp + ".group", "topic " + quote(t.name) + " has no consumer group " +
                                                              quote(*labels.group)));
      }
    }
  }
  return out;
}

namespace {
// The control plane's actions act on a deployment (and hpa:compensate on its
// HPA); service:scale would fight a deployment over its pods.
void check_kubernetes_target(const ScenarioSpec& spec, const ActionConfig& a, const std::string& p,
                             const SourceMap& where, std::vector<Diagnostic>& out) {
  const bool kube_action = a.action.starts_with("deployment:") || a.action == "hpa:compensate";
  const KubeDeploymentConfig* deployment = nullptr;
  if (spec.kubernetes) {
    for (const KubeDeploymentConfig& d : spec.kubernetes->deployments) {
      if (d.service == a.target.service) deployment = &d;
    }
  }
  if (kube_action && deployment == nullptr) {
    out.push_back(where.at(p + ".target.service", a.action + " acts on a deployment, and no deployment of "
                                                  "spec.kubernetes runs service " + quote(a.target.service)));
    return;
  }
  if (a.action == "hpa:compensate") {
    const bool has_hpa = std::any_of(spec.kubernetes->hpas.begin(), spec.kubernetes->hpas.end(),
                                     [&](const HpaConfig& h) { return h.target == a.target.service; });
    if (!has_hpa) {
      out.push_back(where.at(p + ".target.service", "hpa:compensate needs an HPA, and none of spec.kubernetes.hpas "
                                                    "targets " + quote(a.target.service) +
                                                    " (for manual replicas use deployment:compensate)"));
    }
  }
  if (a.action == "service:scale" && deployment != nullptr) {
    out.push_back(where.at(p + ".action", "service " + quote(a.target.service) + " is run by a deployment: scale it "
                                          "with deployment:scale (service:scale would fight its ReplicaSet)"));
  }
}
}  // namespace

std::vector<Diagnostic> check_timeline(const ScenarioSpec& spec, const SourceMap& where) {
  std::vector<Diagnostic> out;
  // Reference tables, rebuilt quietly: check_topology reports their problems.
  std::vector<Diagnostic> ignored;
  NameTable regions("region", where), zones("zone", where), links("link", where);
  for (const RegionConfig& r : spec.topology.config.regions) {
    regions.add(r.name, "", ignored);
    for (const ZoneConfig& z : r.zones) zones.add(z.name, "", ignored);
  }
  for (const LinkConfig& l : spec.topology.config.links) links.add(l.name, "", ignored);
  NameTable services("service", where);
  for (const ServiceConfig& s : spec.topology.config.services) services.add(s.name, "", ignored);
  NameTable populations("population", where);
  for (const ClientPopulationConfig& c : spec.load) populations.add(c.name, "", ignored);
  NameTable databases("database", where);
  for (const DatabaseConfig& d : spec.topology.config.databases) databases.add(d.name, "", ignored);
  NameTable vendors("CDN vendor", where);  // the same vendor may serve several populations
  for (const ClientPopulationConfig& c : spec.load) {
    if (!c.cdn) continue;
    for (const CdnVendorConfig& v : c.cdn->vendors) {
      if (!vendors.contains(v.name)) vendors.add(v.name, "", ignored);
    }
  }
  const std::map<std::string_view, const NameTable*> targets{{to_string(TargetField::kZone), &zones},
                                                             {to_string(TargetField::kRegion), &regions},
                                                             {to_string(TargetField::kLink), &links},
                                                             {to_string(TargetField::kService), &services},
                                                             {to_string(TargetField::kPopulation), &populations},
                                                             {to_string(TargetField::kDatabase), &databases},
                                                             {to_string(TargetField::kVendor), &vendors}};

  const std::vector<ActionConfig>& timeline = spec.timeline;
  NameTable actions("action", where);
  for (std::size_t i = 0; i < timeline.size(); ++i)
    actions.add(timeline[i].name, indexed("spec.timeline", i) + ".name", out);

  std::vector<std::string_view> known;
  for (const ActionSpecInfo& info : action_catalog()) known.push_back(info.name);

  // after[i]: (action i waits for, index of the startAfter entry naming it)
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> after(timeline.size());
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t i = timeline.size(); i-- > 0;) index_of[timeline[i].name] = i;  // the first of a repeated name

  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const ActionConfig& a = timeline[i];
    const std::string p = indexed("spec.timeline", i);
    if (const ActionSpecInfo* info = find_action(a.action)) {
      check_action(a, *info, p, targets, where, out);
      if (info->target.contains(TargetField::kService) && info->target.contains(TargetField::kZone) &&
          zones.contains(a.target.zone)) {
        // The service's zones are fixed by its replicas list: an action acts on one of them.
        for (const ServiceConfig& s : spec.topology.config.services) {
          if (s.name != a.target.service) continue;
          const bool deployed = std::any_of(s.replicas.begin(), s.replicas.end(),
                                            [&](const ReplicasConfig& r) { return r.zone == a.target.zone; });
          if (!deployed) {
            out.push_back(where.at(p + ".target.zone", "service " + quote(s.name) + " has no replicas in zone " +
                                                           quote(a.target.zone)));
          }
        }
      }
      check_kubernetes_target(spec, a, p, where, out);
      // deployment:policy's new policy names zones, as a deployment's does.
      if (a.policy) {
        for (std::size_t j = 0; j < a.policy->zones.size(); ++j)
          zones.check_reference(a.policy->zones[j], indexed(p + ".policy.zones", j), out);
      }
      if (info->target.contains(TargetField::kPopulation) && regions.contains(a.target.region)) {
        check_routed_region(spec, a, p, where, out);
      }
      if (a.action == "routing:switch") check_routing_switch(spec, a, p, where, out);
    } else {
      out.push_back(where.at(p + ".action", unknown_name_message("action", a.action, known, "known actions")));
    }

    if (a.at && !a.start_after.empty()) {
      out.push_back(where.at(p + ".startAfter", "expected either at or startAfter, got both"));
    } else if (!a.at && a.start_after.empty()) {
      out.push_back(where.at(p, "expected at or startAfter, got neither"));
    }
    if (a.delay != Duration::zero() && a.start_after.empty()) {
      out.push_back(where.at(
          p + ".delay", "expected no delay without startAfter (add it to at), got " + quote(format_duration(a.delay))));
    }
    for (std::size_t j = 0; j < a.start_after.size(); ++j) {
      const std::string& name = a.start_after[j];
      if (actions.contains(name)) {
        after[i].emplace_back(index_of.at(name), j);
      } else {
        actions.check_reference(name, indexed(p + ".startAfter", j), out);
      }
    }
  }
  check_cycles(timeline, after, where, out);
  return out;
}

// ---- network fidelity: spec.network and the flow:transfer steps ----

namespace {
// Whether the links join region a to region b (directly or through others).
bool regions_connected(const TopologyConfig& topology, const std::string& a, const std::string& b) {
  std::vector<std::string> reached{a};
  for (std::size_t i = 0; i < reached.size(); ++i) {
    for (const LinkConfig& l : topology.links) {
      if (l.between.size() != 2) continue;
      for (int end = 0; end < 2; ++end) {
        const std::string& other = l.between[1 - end];
        if (l.between[end] == reached[i] && std::find(reached.begin(), reached.end(), other) == reached.end()) {
          reached.push_back(other);
        }
      }
    }
  }
  return std::find(reached.begin(), reached.end(), b) != reached.end();
}

const std::string* region_of_zone(const TopologyConfig& topology, const std::string& zone) {
  for (const RegionConfig& r : topology.regions) {
    for (const ZoneConfig& z : r.zones) {
      if (z.name == zone) return &r.name;
    }
  }
  return nullptr;
}
}  // namespace

std::vector<Diagnostic> check_network(const ScenarioSpec& spec, const SourceMap& where) {
  std::vector<Diagnostic> out;
  for (const ConfigProblem& problem : spec.network.validate()) {
    out.push_back(where.at("spec.network." + problem.field, problem.message));
  }
  // Flows share the links' bandwidth as SimGrid computes it: a fixed stream
  // capacity would silently do nothing, so it is an error there.
  if (spec.network.flows()) {
    for (std::size_t i = 0; i < spec.topology.config.databases.size(); ++i) {
      const DatabaseConfig& d = spec.topology.config.databases[i];
      const std::string p = indexed(std::string(kTopology) + ".databases", i);
      if (d.replication_bandwidth) {
        out.push_back(where.at(p + ".replicationBandwidth",
                               "has no effect with network fidelity (spec.network.fidelity: flows): replication "
                               "streams share the links as flows; remove it, or run closed-form"));
      }
      if (d.link_share.value != 1.0) {
        out.push_back(where.at(p + ".linkShare",
                               "has no effect with network fidelity (spec.network.fidelity: flows): replication "
                               "streams share the links as flows; remove it, or run closed-form"));
      }
    }
  }
  std::vector<Diagnostic> ignored;  // check_topology reports the zones' own problems
  NameTable zones("zone", where);
  for (const RegionConfig& r : spec.topology.config.regions) {
    for (const ZoneConfig& z : r.zones) zones.add(z.name, "", ignored);
  }
  for (std::size_t i = 0; i < spec.timeline.size(); ++i) {
    const ActionConfig& a = spec.timeline[i];
    if (a.action != "flow:transfer") continue;
    const std::string p = indexed("spec.timeline", i);
    if (!spec.network.flows()) {
      out.push_back(where.at(p + ".action", "flow:transfer is a flow through SimGrid: it needs network fidelity "
                                            "(spec.network.fidelity: flows)"));
    }
    if (!a.to) continue;  // check_timeline reports it
    if (!zones.contains(*a.to)) {
      zones.check_reference(*a.to, p + ".to", out);
    } else if (*a.to == a.target.zone) {
      out.push_back(where.at(p + ".to", "expected a zone other than the target zone " + quote(a.target.zone) +
                                            ": a transfer crosses the network"));
    } else if (const std::string* from = region_of_zone(spec.topology.config, a.target.zone)) {
      const std::string* to = region_of_zone(spec.topology.config, *a.to);
      if (!regions_connected(spec.topology.config, *from, *to)) {
        out.push_back(where.at(p + ".to", "no links join region " + quote(*from) + " (zone " +
                                              quote(a.target.zone) + ") to region " + quote(*to) + " (zone " +
                                              quote(*a.to) + ")"));
      }
    }
  }
  return out;
}

// ---- objectives ----

std::vector<Diagnostic> check_objectives(const ScenarioSpec& spec, const SourceMap& where) {
  const ObjectivesConfig& o = spec.objectives;
  std::vector<Diagnostic> out;
  for (const ConfigProblem& problem : o.validate()) {
    out.push_back(where.at("spec.objectives." + problem.field, problem.message));
  }
  if (!o.population.empty()) {
    std::vector<Diagnostic> ignored;  // check_services_and_load reports duplicate names
    NameTable populations("population", where);
    for (const ClientPopulationConfig& c : spec.load) populations.add(c.name, "", ignored);
    populations.check_reference(o.population, "spec.objectives.population", out);
  }
  if (!o.operations.empty()) {
    // An operation is judged on what the populations in scope send: it must be in one of their mixes.
    std::vector<Diagnostic> ignored;
    NameTable sent("operation", where);
    for (const ClientPopulationConfig& c : spec.load) {
      if (!o.population.empty() && c.name != o.population) continue;
      for (const OperationShareConfig& share : c.operations) sent.add(share.name, "", ignored);
    }
    for (std::size_t i = 0; i < o.operations.size(); ++i) {
      sent.check_reference(o.operations[i].name, "spec.objectives.operations[" + std::to_string(i) + "].name", out);
    }
  }
  // The availability over a window sums whole metrics windows.
  if (o.availability_window && o.availability_window->count() % spec.metrics_window.count() != 0) {
    out.push_back(where.at("spec.objectives.availabilityWindow", "expected a multiple of metricsWindow (" +
                                                                     format_duration(spec.metrics_window) + "), got " +
                                                                     format_duration(*o.availability_window)));
  }
  if (o.latency_p99_window && o.latency_p99_window->count() % spec.metrics_window.count() != 0) {
    out.push_back(where.at("spec.objectives.latencyP99Window", "expected a multiple of metricsWindow (" +
                                                                   format_duration(spec.metrics_window) + "), got " +
                                                                   format_duration(*o.latency_p99_window)));
  }
  return out;
}

std::vector<ResolvedAction> resolve_timeline(const std::vector<ActionConfig>& timeline, const SourceMap& where,
                                             std::vector<Diagnostic>& diagnostics) {
  const std::size_t n = timeline.size();
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < n; ++i) index_of.emplace(timeline[i].name, i);
  // Kahn's algorithm: an action is resolved once everything it waits for is.
  std::vector<std::size_t> waiting(n, 0);
  std::vector<std::vector<std::size_t>> dependents(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::string& name : timeline[i].start_after) {
      dependents[index_of.at(name)].push_back(i);
      ++waiting[i];
    }
  }
  // Lowest index first, so that problems are reported in file order.
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<std::int64_t> finish(n, 0);
  std::vector<ResolvedAction> resolved;
  resolved.reserve(n);
  // Actions start and end within kLongestScenarioTime, like every duration.
  const std::int64_t limit = kLongestScenarioTime.count();
  auto overflow = [&](std::size_t i, std::string_view key) {
    diagnostics.push_back(where.at(indexed("spec.timeline", i) + "." + std::string(key),
                                   "expected the action to " + std::string(key == "duration" ? "end" : "start") +
                                       " by " + format_duration(kLongestScenarioTime) + ", got a later time"));
  };
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    const ActionConfig& a = timeline[i];
    std::int64_t start = 0;
    bool ok = true;
    if (a.at) {
      start = a.at->count();
    } else {
      for (const std::string& name : a.start_after) start = std::max(start, finish[index_of.at(name)]);
      if (__builtin_add_overflow(start, a.delay.count(), &start) || start > limit) {
        overflow(i, "delay");
        ok = false;
      }
    }
    std::optional<SimTime> end;
    finish[i] = start;
    if (ok && a.duration) {
      std::int64_t end_ns = 0;
      if (__builtin_add_overflow(start, a.duration->count(), &end_ns) || end_ns > limit) {
        overflow(i, "duration");
      } else {
        end = at(Duration{end_ns});
        finish[i] = end_ns;
      }
    }
    resolved.push_back(ResolvedAction{i, at(Duration{start}), end});
    for (std::size_t d : dependents[i]) {
      if (--waiting[d] == 0) ready.push(d);
    }
  }
  std::sort(resolved.begin(), resolved.end(), [](const ResolvedAction& x, const ResolvedAction& y) {
    return std::tie(x.start, x.index) < std::tie(y.start, y.index);
  });
  return resolved;
}

}  // namespace drsim
