// docs/scenario-format.md and docs/scenario.schema.json are generated from
// the field lists; these tests keep the committed files in step with them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/field_traits.h"
#include "models/actions/action_catalog.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// With DRSIM_UPDATE_GOLDEN=1 the file is rewritten instead of compared: that
// is how it is created and refreshed after a field list changes.
void check_golden(const std::string& path, const std::string& generated) {
  const char* update = std::getenv("DRSIM_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(path, std::ios::binary) << generated;
    return;
  }
  EXPECT_TRUE(read_file(path) == generated)
      << path << " is not what the field lists generate. Regenerate it with\n"
      << "  DRSIM_UPDATE_GOLDEN=1 <build>/tests/io/io_test --gtest_filter='ScenarioDocs.*'\n"
      << "and commit the result.";
}

TEST(ScenarioDocs, MarkdownIsUpToDate) { check_golden("docs/scenario-format.md", scenario_format_markdown()); }

TEST(ScenarioDocs, JsonSchemaIsUpToDate) { check_golden("docs/scenario.schema.json", scenario_json_schema()); }

// Every key of every struct is documented, in its struct's table.
template <Described T>
void expect_documented(const std::string& markdown) {
  const std::size_t section = markdown.find("\n## " + std::string(T::kTypeName) + "\n");
  ASSERT_NE(section, std::string::npos) << T::kTypeName;
  const std::size_t end = markdown.find("\n## ", section + 1);
  const std::string table = markdown.substr(section, end - section);
  for_each_field<T>([&](const auto& f) {
    EXPECT_NE(table.find("| `" + std::string(f.key) + "` |"), std::string::npos) << T::kTypeName << "." << f.key;
    EXPECT_NE(table.find(std::string(f.doc)), std::string::npos) << T::kTypeName << "." << f.key;
  });
}

TEST(ScenarioDocs, EveryKeyIsInTheMarkdown) {
  const std::string md = scenario_format_markdown();
  expect_documented<Scenario>(md);
  expect_documented<Metadata>(md);
  expect_documented<ScenarioSpec>(md);
  expect_documented<DeploymentConfig>(md);
  expect_documented<RegionConfig>(md);
  expect_documented<ZoneConfig>(md);
  expect_documented<LinkConfig>(md);
  expect_documented<GuardsConfig>(md);
  expect_documented<ActionConfig>(md);
  expect_documented<ActionTarget>(md);
  expect_documented<TopologyDocument>(md);
  for (const ActionSpecInfo& info : action_catalog()) {
    EXPECT_NE(md.find("| `" + std::string(info.name) + "` |"), std::string::npos) << info.name;
  }
}

// The schema's unit patterns accept what the parsers accept.
TEST(ScenarioDocs, SchemaPatternsMatchTheParsers) {
  const std::string schema = scenario_json_schema();
  const std::regex pattern_line("\"pattern\": \"([^\"]*)\"");
  int checked = 0;
  for (auto it = std::sregex_iterator(schema.begin(), schema.end(), pattern_line); it != std::sregex_iterator(); ++it) {
    std::string pattern = (*it)[1];
    for (std::size_t p = pattern.find("\\\\"); p != std::string::npos; p = pattern.find("\\\\", p + 1)) {
      pattern.erase(p, 1);  // JSON string escapes
    }
    const std::regex re(pattern, std::regex::ECMAScript);
    if (pattern.find("ms|") != std::string::npos) {
      EXPECT_TRUE(std::regex_match("1h30m", re)) << pattern;
      EXPECT_TRUE(std::regex_match("1.5s", re)) << pattern;
      EXPECT_TRUE(std::regex_match("250ms", re)) << pattern;
      EXPECT_FALSE(std::regex_match("30", re)) << pattern;
      EXPECT_FALSE(std::regex_match("10 ms", re)) << pattern;
      EXPECT_FALSE(std::regex_match(".5s", re)) << pattern;
    }
    if (pattern.find("Gbps") != std::string::npos) {
      EXPECT_TRUE(std::regex_match("10Gbps", re)) << pattern;
      EXPECT_TRUE(std::regex_match("125MB/s", re)) << pattern;
      EXPECT_FALSE(std::regex_match("10gbps", re)) << pattern;
    }
    if (pattern.find("%") != std::string::npos) {
      EXPECT_TRUE(std::regex_match("0.5%", re)) << pattern;
      EXPECT_FALSE(std::regex_match("0.5", re)) << pattern;
    }
    ++checked;
  }
  EXPECT_GT(checked, 5);
}

}  // namespace
}  // namespace drsim
