#include "io/config_decode.h"

#include <concepts>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/csv_inputs.h"
#include "io/described_types.h"
#include "sim/field_traits.h"
#include "io/scenario.h"
#include "io/yaml_decode.h"
#include "io/yaml_document.h"
#include "sim/config_problem.h"

namespace drsim {

namespace {

// The text is generated, so positions in it mean nothing to the caller;
// problems with the text as a whole are said about the value at `path`.
[[noreturn]] void throw_unlocated(std::vector<Diagnostic> diagnostics, const std::string& path) {
  for (Diagnostic& d : diagnostics) {
    if (d.path.empty()) d.path = path;
    d.file.clear();
    d.line = 0;
    d.column = 0;
  }
  throw ScenarioError(std::move(diagnostics));
}

void add(std::vector<Diagnostic>& out, std::vector<Diagnostic> more) {
  for (Diagnostic& d : more) out.push_back(std::move(d));
}

// The CSV files the loader reads (io/csv_inputs.cc), at the places it reads
// them: a population's load, a service's service time, the services of a
// topology; and a rate profile or service time built on its own.
template <class T>
void read_csv_of(T& value, const std::filesystem::path& dir, const std::string& path, const SourceMap& where,
                 std::vector<Diagnostic>& out) {
  if constexpr (std::is_same_v<T, RateProfileConfig> || std::is_same_v<T, ServiceTimeConfig>) {
    add(out, read_csv_input(value, dir, path, where));
  } else if constexpr (std::is_same_v<T, ClientPopulationConfig>) {
    add(out, read_csv_input(value.load, dir, path + ".load", where));
  } else if constexpr (std::is_same_v<T, ServiceConfig>) {
    add(out, read_csv_input(value.service_time, dir, path + ".serviceTime", where));
  } else if constexpr (std::is_same_v<T, DeploymentConfig>) {
    for (std::size_t i = 0; i < value.services.size(); ++i) {
      read_csv_of(value.services[i], dir, path + ".services[" + std::to_string(i) + "]", where, out);
    }
  }
}

template <class T>
concept SelfValidating = requires(const T& v) {
  { v.validate() } -> std::same_as<std::vector<ConfigProblem>>;
};

template <Described T>
void decode_standalone(std::string_view text, const std::string& path, void* out) {
  T& value = *static_cast<T*>(out);
  YAML::Node root;
  try {
    root = parse_document(text, path, T::kTypeName);
  } catch (const ScenarioError& e) {
    throw_unlocated(e.diagnostics(), path);
  }
  const std::filesystem::path dir = std::filesystem::current_path();
  DecodeSession session(dir);
  try {
    Decoder decoder(session, DocumentScope{"", {}, "", ""});
    decoder.decode(root, value, path, kRequired, root.Mark());
  } catch (const DecodeBudgetExceeded&) {
    // The session's diagnostics say so.
  }
  if (!session.ok()) throw_unlocated(session.diagnostics(), path);
  session.source_map.seal();

  std::vector<Diagnostic> problems;
  read_csv_of(value, dir, path, session.source_map, problems);
  if (!problems.empty()) throw_unlocated(std::move(problems), path);
  if constexpr (SelfValidating<T>) {
    for (const ConfigProblem& p : value.validate()) {
      problems.push_back(Diagnostic{.path = p.field.empty() ? path : path + "." + p.field, .message = p.message});
    }
    if (!problems.empty()) throw_unlocated(std::move(problems), path);
  }
}

using DecodeFunction = void (*)(std::string_view, const std::string&, void*);
using Registry = std::unordered_map<std::type_index, DecodeFunction>;

const Registry& registry() {
  static const Registry kRegistry = [] {
    Registry r;
    register_described_types<Scenario>(r, []<class T>() -> DecodeFunction { return &decode_standalone<T>; });
    return r;
  }();
  return kRegistry;
}

}  // namespace

bool config_decodable(std::type_index type) { return registry().contains(type); }

void decode_config_into(std::type_index type, std::string_view text, const std::string& path, void* out) {
  const auto it = registry().find(type);
  if (it == registry().end()) throw std::logic_error("decode_config: not a config type reachable from Scenario");
  it->second(text, path, out);
}

}  // namespace drsim
