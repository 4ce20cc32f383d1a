#pragma once
// Reading one YAML document: checks on the raw bytes (size, UTF-8, control
// bytes) and on the stream (exactly one document, not empty), with yaml-cpp's
// exceptions turned into diagnostics. Internal to io/.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/scenario_error.h"

namespace drsim {

// Whole file contents, or nullopt with `reason` set (e.g. "No such file or
// directory") when it cannot be read. A file over kMaxScenarioBytes throws
// ScenarioError naming display_name, without being read.
std::optional<std::string> read_document_file(const std::filesystem::path& path, const std::string& display_name,
                                              std::string& reason);

// The files' contents as (display name, text) pairs, in order, for the importers; a file that cannot be read
// throws ScenarioError "cannot read the <what>: <reason>".
std::vector<std::pair<std::string, std::string>> read_text_files(const std::vector<std::filesystem::path>& files,
                                                                 std::string_view what);

// Parses text that must hold exactly one non-empty YAML document. kind names
// the expected document in messages ("Scenario"). Throws ScenarioError.
YAML::Node parse_document(std::string_view text, const std::string& file, std::string_view kind);

// Parses a stream of YAML documents (a manifest set: "---"-separated objects), with the same checks on the text
// as parse_document; empty documents are left out. Throws ScenarioError.
std::vector<YAML::Node> parse_documents(std::string_view text, const std::string& file);

// Parses the value of an override: at most one YAML document, null when the
// text is empty. Same checks as parse_document; throws ScenarioError with
// `file` (the override's label) as the file.
YAML::Node parse_value(std::string_view text, const std::string& file);

// "null", "a mapping", "a list" or the quoted scalar: the "got ..." of a
// message; "nothing" for a key an override is about to add.
std::string describe_node(const YAML::Node& node);

// The value of key in a mapping (the first, if the key is repeated: the
// decoder reports the repetition), as a node that refers to it.
std::optional<YAML::Node> find_key(const YAML::Node& map, const std::string& key);

// file:line:col from a yaml-cpp mark (0-based, negative when the node was
// built by a program rather than parsed).
Diagnostic diagnostic_at(const std::string& file, const YAML::Mark& mark, std::string path, std::string message);

}  // namespace drsim
