#include "io/config_rules.h"

#include <string>
#include <type_traits>

#include "sim/field_traits.h"

namespace drsim {
namespace {

template <class T>
concept SelfValidating = requires(const T& v) {
  { v.validate() } -> std::same_as<std::vector<ConfigProblem>>;
};

class ConfigWalk {
 public:
  ConfigWalk(const SourceMap& where, std::vector<Diagnostic>& out) : where_(where), out_(out) {}

  template <class T>
  void value(const T& v, const std::string& path) {
    if constexpr (IsOptional<T>::value) {
      if (v) value(*v, path);
    } else if constexpr (IsVector<T>::value) {
      for (std::size_t i = 0; i < v.size(); ++i) value(v[i], path + "[" + std::to_string(i) + "]");
    } else if constexpr (Described<T>) {
      if constexpr (SelfValidating<T>) {
        for (const ConfigProblem& p : v.validate())
          out_.push_back(where_.at(p.field.empty() ? path : path + "." + p.field, p.message));
      }
      for_each_field<T>([&](const auto& f) { value(v.*f.member, path + "." + std::string(f.key)); });
    }
  }

 private:
  const SourceMap& where_;
  std::vector<Diagnostic>& out_;
};

}  // namespace

std::vector<Diagnostic> check_every_config(const ScenarioSpec& spec, const SourceMap& where) {
  std::vector<Diagnostic> out;
  ConfigWalk walk(where, out);
  // spec.topology is a file or inline; its content is laid out under spec.topology either way.
  walk.value(spec.topology.config, "spec.topology");
  for_each_field<ScenarioSpec>([&](const auto& f) {
    if constexpr (!std::is_same_v<FieldValue<decltype(f)>, TopologyRef>) {
      walk.value(spec.*f.member, "spec." + std::string(f.key));
    }
  });
  return out;
}

}  // namespace drsim
