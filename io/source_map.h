#pragma once
// Where each decoded value came from, so that checks made after decoding
// (duplicate names, unknown references, startAfter cycles) point at the line
// that holds the offending value.
//
// Keys are paths in the scenario ("spec.topology.regions[0].name"). A value
// read from a separate topology file is recorded under that scenario path but
// remembers its own file and its path within that file ("spec.regions[0].name").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/scenario_error.h"

namespace drsim {

struct SourceLocation {
  std::string file;
  int line = 0;      // 1-based; 0 when unknown (a value set by a program)
  int column = 0;    // 1-based
  std::string path;  // the path as the file spells it
};

class SourceMap {
 public:
  // A file (or --set label) whose values are recorded under scenario_root
  // where the file itself says document_root: a topology file's "spec" is the
  // scenario's "spec.topology". Returns the id that record() takes.
  std::uint32_t add_source(std::string file, std::string document_root = "", std::string scenario_root = "");
  // Values are recorded as they are decoded; when a path is recorded twice
  // the later location wins.
  void record(std::string scenario_path, std::uint32_t source, int line, int column);
  // Indexes what was recorded, once decoding is done. Recording is a plain
  // append, because an alias-heavy file can record a million values before
  // it is refused; only a map that will be searched pays for the sort.
  void seal();

  // The location of the value at path, or of its nearest recorded ancestor
  // (a default that was not written points at the mapping that omits it),
  // with the path spelled as that file spells it. A path with no recorded
  // ancestor gives a location with only the path. Needs seal().
  SourceLocation find(std::string_view scenario_path) const;
  // A diagnostic at the value at path.
  Diagnostic at(std::string_view scenario_path, std::string message) const;

 private:
  struct Source {
    std::string file;
    std::string document_root;
    std::string scenario_root;
  };
  struct Entry {
    std::string path;
    std::uint32_t source;
    int line;
    int column;
  };
  std::vector<Source> sources_;
  std::vector<Entry> entries_;  // sorted by path once sealed
  bool sealed_ = false;
};

// "spec.timeline" is a prefix of "spec.timeline[0].at" and of "spec.timeline",
// not of "spec.timelines".
bool is_path_prefix(std::string_view prefix, std::string_view path);
// The path of the enclosing value: "a.b[2]" -> "a.b" -> "a" -> "".
std::string_view parent_path(std::string_view path);

}  // namespace drsim
