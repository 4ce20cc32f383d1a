// to_yaml: the resolved scenario written back as a scenario file. The writer
// walks the same field lists as the decoder, in field order, and writes every
// field (defaults included) in canonical unit text, so the output is stable
// and loads back to an equal Scenario. Values read from a CSV file are not
// written: the `file:` reference is, with the absolute path the loader
// resolved, so the output loads them again from wherever it is loaded
// (io/csv_inputs.h). encode_config writes one struct of a scenario the same
// way, in flow style (io/config_encode.h).
#include <stdexcept>
#include <string>
#include <typeindex>
#include <unordered_map>

#include <yaml-cpp/yaml.h>

#include "io/config_encode.h"
#include "io/csv_inputs.h"
#include "io/described_types.h"
#include "sim/field_traits.h"
#include "io/scenario_loader.h"
#include "io/value_codecs.h"

namespace drsim {

namespace {

template <class T>
void emit(YAML::Emitter& out, const T& value) {
  if constexpr (IsOptional<T>::value) {
    emit(out, *value);
  } else if constexpr (IsVector<T>::value) {
    // Lists of scalars on one line: "between: [eu-west-1, us-east-1]"; an
    // empty list as "[]" (a block list cannot be empty).
    if (Leaf<typename T::value_type> || value.empty()) out << YAML::Flow;
    out << YAML::BeginSeq;
    for (const auto& item : value) emit(out, item);
    out << YAML::EndSeq;
  } else if constexpr (std::is_same_v<T, TopologyRef>) {
    emit(out, value.config);  // inlined: the output stands alone
  } else if constexpr (Described<T>) {
    out << YAML::BeginMap;
    for_each_field<T>([&](const auto& f) {
      const auto& member = value.*f.member;
      if constexpr (IsOptional<FieldValue<decltype(f)>>::value) {
        if (!member) return;  // absent is not the same as any value
      }
      if (filled_from_file(value, f.key)) return;  // `file:` stands for them
      out << YAML::Key << std::string(f.key) << YAML::Value;
      emit(out, member);
    });
    out << YAML::EndMap;
  } else {
    // Scalars go out as text; the emitter quotes a string only where YAML
    // would read it as something else (null, a flow indicator, ...), and the
    // decoder reads every scalar as a string where a string belongs.
    out << ValueCodec<T>::format(value);
  }
}

template <Described T>
std::string encode_standalone(const void* value) {
  YAML::Emitter out;
  // One line, as an override's value or a pickle's state: every mapping and
  // list in flow style, not only lists of scalars.
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  emit(out, *static_cast<const T*>(value));
  return out.c_str();
}

using EncodeFunction = std::string (*)(const void*);
using Registry = std::unordered_map<std::type_index, EncodeFunction>;

const Registry& registry() {
  static const Registry kRegistry = [] {
    Registry r;
    register_described_types<Scenario>(r, []<class T>() -> EncodeFunction { return &encode_standalone<T>; });
    return r;
  }();
  return kRegistry;
}

}  // namespace

std::string to_yaml(const Scenario& scenario) {
  YAML::Emitter out;
  emit(out, scenario);
  return std::string(out.c_str()) + "\n";
}

bool config_encodable(std::type_index type) { return registry().contains(type); }

std::string encode_config_from(std::type_index type, const void* value) {
  const auto found = registry().find(type);
  if (found == registry().end()) throw std::logic_error("encode_config: not a struct of a scenario");
  return found->second(value);
}

}  // namespace drsim
