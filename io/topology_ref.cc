// spec.topology: the path of a `kind: Topology` file, or the topology inline.
// A file is read and decoded here, with its own name in diagnostics and its
// values recorded under spec.topology, so that later checks (duplicate zone
// names, unknown link regions) point into the topology file.
#include <filesystem>

#include "io/envelope.h"
#include "io/service_defaults.h"
#include "io/yaml_decode.h"
#include "io/yaml_document.h"

namespace drsim {

namespace {

bool load_topology_file(Decoder& decoder, const YAML::Node& node, TopologyRef& out, const std::string& path) {
  DecodeSession& session = decoder.session();
  const std::string& ref = node.Scalar();
  if (ref.empty()) {
    decoder.error(node.Mark(), path, "expected " + expected_phrase<TopologyRef>() + ", got \"\"");
    return false;
  }
  // Relative to the scenario's directory; lexically_normal keeps messages
  // short ("tests/data/topologies/x.yaml", not ".../scenarios/good/../../topologies/x.yaml").
  const std::string file = (session.base_dir() / ref).lexically_normal().string();
  try {
    std::string reason;
    const std::optional<std::string> text = read_document_file(file, file, reason);
    if (!text) {
      decoder.error(node.Mark(), path, "cannot read topology file " + quote(file) + ": " + reason);
      return false;
    }
    YAML::Node root = parse_document(*text, file, "Topology");
    std::vector<Diagnostic> override_problems;
    DocumentScope scope{file, apply_overrides(root, session.topology_overrides, override_problems), "spec", path};
    for (Diagnostic& d : override_problems) session.report(std::move(d));
    Decoder topology_decoder(session, std::move(scope));
    if (!check_envelope(topology_decoder, root, "Topology")) return false;
    if (const std::optional<YAML::Node> spec = find_key(root, "spec")) {
      merge_service_defaults(topology_decoder, *spec, "spec");
    }
    TopologyDocument document;
    const bool ok = topology_decoder.decode_document(root, document);
    out.path = ref;
    out.source_file = file;
    out.config = std::move(document.spec);
    return ok;
  } catch (const ScenarioError& e) {
    // The topology file itself is unusable (too large, not YAML): report it
    // and go on with the scenario's own checks.
    for (const Diagnostic& d : e.diagnostics()) session.report(d);
    return false;
  }
}

}  // namespace

bool decode_topology_ref(Decoder& decoder, const YAML::Node& node, TopologyRef& out, const std::string& path) {
  if (node.IsMap()) {
    out.path.clear();
    out.source_file = decoder.file_of(path);
    merge_service_defaults(decoder, node, path);
    return decoder.decode(node, out.config, path, kRequired, node.Mark());
  }
  if (node.IsScalar()) return load_topology_file(decoder, node, out, path);
  decoder.error(node.Mark(), path, "expected " + expected_phrase<TopologyRef>() + ", got " + describe_node(node));
  return false;
}

}  // namespace drsim
