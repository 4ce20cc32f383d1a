#pragma once
// Where `drsim run` writes when no --out is given: results/<folder>, the
// folder named after metadata.name by one rule, so that any name (a path,
// "..", spaces, 300 characters) stays a single folder inside results/:
//   - ASCII letters, digits, '.', '_' and '-' are kept;
//   - every run of other characters becomes one '-';
//   - leading '.' and '-' are dropped (no "..", no hidden folder, nothing
//     that reads as an option);
//   - an empty result is "scenario";
//   - a result longer than kMaxResultsFolderChars is cut and ends with '-'
//     and 8 hex digits of a hash of the whole name, so that long names that
//     share a beginning keep distinct folders.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace drsim {

inline constexpr std::size_t kMaxResultsFolderChars = 80;

// The folder name for a scenario name, by the rule above.
std::string results_folder_name(std::string_view scenario_name);

// "results" / results_folder_name(scenario_name).
std::filesystem::path default_results_dir(std::string_view scenario_name);

}  // namespace drsim
