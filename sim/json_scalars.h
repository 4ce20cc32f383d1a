#pragma once
// JSON scalars for the hand-written JSON outputs (kpis.json, run.json, the
// check and recommend-policy reports): one escaping and one number format,
// so the outputs agree on them.
#include <string>
#include <string_view>

namespace drsim {

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(std::string_view s);
// The shortest text that reads back to the same double; null for NaN and
// infinities (JSON has neither).
std::string json_number(double v);
// Twelve significant digits, for model outputs: far below any model error,
// and free of the last bits' rounding noise (200, not 199.99999999999997);
// no "-0"; null for NaN and infinities.
std::string json_number_rounded(double v);
inline const char* json_bool(bool b) { return b ? "true" : "false"; }

}  // namespace drsim
