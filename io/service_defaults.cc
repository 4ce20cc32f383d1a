#include "io/service_defaults.h"

#include <optional>
#include <set>

#include "io/yaml_decode.h"
#include "io/yaml_document.h"
#include "sim/quote.h"

namespace drsim {

namespace {

// A key's value in a mapping as a scalar, or "" when absent or not a scalar.
std::string scalar_of(const YAML::Node& map, const std::string& key) {
  const std::optional<YAML::Node> value = find_key(map, key);
  return value && value->IsScalar() ? value->Scalar() : std::string();
}

// Mappings with a `kind` (a distribution, a policy) merge only when they
// name the same kind, or neither names one: merging an exponential time
// into a lognormal default would give it a `mean` it cannot have, and a
// mapping without a kind takes its type's default kind, not the default's.
bool same_shape(const YAML::Node& service, const YAML::Node& defaults) {
  return scalar_of(service, "kind") == scalar_of(defaults, "kind");
}

// Adds to target every key of source it does not have; mappings on both
// sides are merged the same way, one level down. The default's nodes are
// inserted as they are, not copied, so they keep their line and column.
void merge_into(YAML::Node target, const YAML::Node& source, const std::set<std::string>& skip = {}) {
  for (const auto& pair : source) {
    if (!pair.first.IsScalar() || skip.contains(pair.first.Scalar())) continue;
    const std::optional<YAML::Node> own = find_key(target, pair.first.Scalar());
    if (!own) {
      target.force_insert(pair.first, pair.second);
    } else if (own->IsMap() && pair.second.IsMap() && same_shape(*own, pair.second)) {
      merge_into(*own, pair.second);
    }
  }
}

// The defaults as a Service of their own, so the decoder checks their keys
// and values once, at their own lines. A name stands in for the one the
// defaults must not have; the keys a service must have and the defaults
// need not (replicas, serviceTime) are not reported missing. Returns the
// keys with a problem: they are not merged, so that their problem is not
// reported again in every service.
std::set<std::string> check_defaults(Decoder& decoder, const YAML::Node& defaults, const std::string& where) {
  YAML::Node service(YAML::NodeType::Map);
  for (const auto& pair : defaults) {
    if (!pair.first.IsScalar() || pair.first.Scalar() != "name") service.force_insert(pair.first, pair.second);
  }
  service.force_insert("name", kServiceDefaultsKey);
  DecodeSession checks(decoder.session().base_dir());
  ServiceConfig checked;
  try {
    decoder.reporting_to(checks).decode(service, checked, where, kRequired, defaults.Mark());
  } catch (const DecodeBudgetExceeded&) {
    for (const Diagnostic& d : checks.diagnostics()) decoder.session().report(d);
    throw;
  }
  std::set<std::string> bad;
  for (const Diagnostic& d : checks.diagnostics()) {
    if (d.path == where && d.message.starts_with("missing required key")) continue;
    decoder.session().report(d);
    // The key under `where` the problem is in: "where.cpu.limit" -> "cpu".
    const std::string rest = d.path.size() > where.size() + 1 ? d.path.substr(where.size() + 1) : "";
    bad.insert(rest.substr(0, rest.find_first_of(".[")));
  }
  return bad;
}

}  // namespace

void merge_service_defaults(Decoder& decoder, YAML::Node topology, const std::string& path) {
  if (!topology.IsMap()) return;  // the decoder reports the topology's shape
  const std::optional<YAML::Node> found = find_key(topology, kServiceDefaultsKey);
  if (!found) return;
  const YAML::Node defaults = *found;
  // Out of the tree before the topology is decoded: it is not a field of the
  // topology but a way of writing its services.
  topology.remove(kServiceDefaultsKey);
  const std::string where = (path.empty() ? "" : path + ".") + kServiceDefaultsKey;
  if (!defaults.IsMap()) {
    decoder.error(defaults.Mark(), where,
                  "expected a mapping of Service keys that every service takes unless it sets them, got " +
                      describe_node(defaults));
    return;
  }
  std::set<std::string> skip = check_defaults(decoder, defaults, where);
  if (const std::optional<YAML::Node> name = find_key(defaults, "name")) {
    decoder.error(name->Mark(), where + ".name", "a default name would give every service the same one");
    skip.insert("name");
  }

  const std::optional<YAML::Node> services = find_key(topology, "services");
  if (!services || !services->IsSequence()) return;
  for (YAML::Node service : *services) {
    if (service.IsMap()) merge_into(service, defaults, skip);
  }
}

}  // namespace drsim
