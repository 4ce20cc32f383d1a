// to_yaml: the resolved scenario written back as a scenario file. The writer
// walks the same field lists as the decoder, in field order, and writes every
// field (defaults included) in canonical unit text, so the output is stable
// and loads back to an equal Scenario. Values read from a CSV file are not
// written: the `file:` reference is, with the absolute path the loader
// resolved, so the output loads them again from wherever it is loaded
// (io/csv_inputs.h).
#include <yaml-cpp/yaml.h>

#include "io/csv_inputs.h"
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

}  // namespace

std::string to_yaml(const Scenario& scenario) {
  YAML::Emitter out;
  emit(out, scenario);
  return std::string(out.c_str()) + "\n";
}

}  // namespace drsim
