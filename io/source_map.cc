#include "io/source_map.h"

#include <algorithm>
#include <stdexcept>

namespace drsim {

bool is_path_prefix(std::string_view prefix, std::string_view path) {
  if (prefix.empty()) return true;
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

std::string_view parent_path(std::string_view path) {
  const std::size_t cut = path.find_last_of(".[");
  return cut == std::string_view::npos ? std::string_view{} : path.substr(0, cut);
}

std::uint32_t SourceMap::add_source(std::string file, std::string document_root, std::string scenario_root) {
  sources_.push_back(Source{std::move(file), std::move(document_root), std::move(scenario_root)});
  return static_cast<std::uint32_t>(sources_.size() - 1);
}

void SourceMap::record(std::string scenario_path, std::uint32_t source, int line, int column) {
  entries_.push_back(Entry{std::move(scenario_path), source, line, column});
  sealed_ = false;
}

void SourceMap::seal() {
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
  // Of a path recorded twice, keep the later record: the last of its run.
  std::vector<Entry> unique;
  unique.reserve(entries_.size());
  for (Entry& e : entries_) {
    if (!unique.empty() && unique.back().path == e.path) {
      unique.back() = std::move(e);
    } else {
      unique.push_back(std::move(e));
    }
  }
  entries_ = std::move(unique);
  sealed_ = true;
}

SourceLocation SourceMap::find(std::string_view scenario_path) const {
  if (!sealed_) throw std::logic_error("SourceMap::find before seal()");
  for (std::string_view p = scenario_path;; p = parent_path(p)) {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), p,
                                     [](const Entry& e, std::string_view key) { return e.path < key; });
    if (it != entries_.end() && it->path == p) {
      const Source& source = sources_.at(it->source);
      // The recorded ancestor in the file's own terms, then the unrecorded tail.
      std::string path = source.document_root + std::string(p.substr(source.scenario_root.size())) +
                         std::string(scenario_path.substr(p.size()));
      if (path.starts_with('.')) path.erase(0, 1);
      return SourceLocation{source.file, it->line, it->column, std::move(path)};
    }
    if (p.empty()) return SourceLocation{.path = std::string(scenario_path)};
  }
}

Diagnostic SourceMap::at(std::string_view scenario_path, std::string message) const {
  SourceLocation where = find(scenario_path);
  return Diagnostic{std::move(where.file), where.line, where.column, std::move(where.path), std::move(message)};
}

}  // namespace drsim
