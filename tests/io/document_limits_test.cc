// Hostile or broken input fails fast with a message: huge files, alias
// bombs, invalid bytes, floods of errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/quote.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using testing::error_of;
using testing::load_error;

TEST(DocumentLimits, AFiftyMegabyteFileIsRefusedUnread) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("drsim_io_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "huge.yaml";
  {
    std::ofstream out(file, std::ios::binary);
    const std::string chunk(1 << 20, '#');
    for (int i = 0; i < 50; ++i) out << chunk;
  }
  const std::string message = error_of([&] { load_scenario_file(file); });
  std::filesystem::remove_all(dir);
  // The message gives the file's whole size, which the loader knows only from the file system: it was
  // checked before any byte was read (no wall-clock bound here: the machine's speed is not the test).
  EXPECT_EQ(message, file.string() + ": expected at most 4194304 bytes (4 MiB), got 52428800 bytes");
}

TEST(DocumentLimits, AnEndlessStreamIsCutAtTheLimit) {
  // A device has no size up front: reading stops just past the limit.
  EXPECT_EQ(error_of([] { load_scenario_file("/dev/zero"); }),
            "/dev/zero: expected at most 4194304 bytes (4 MiB), got more than 4194304 bytes");
}

TEST(DocumentLimits, TextOverTheLimitIsRefused) {
  const std::string text(kMaxScenarioBytes + 1, ' ');
  EXPECT_EQ(load_error(text), "<text>: expected at most 4194304 bytes (4 MiB), got 4194305 bytes");
}

TEST(DocumentLimits, AliasBombStopsAtTheValueBudget) {
  // A thousand aliases of a region, each with a thousand aliases of a zone:
  // ten kilobytes of YAML that stand for a million zones.
  std::string zones, regions;
  for (int i = 0; i < 1000; ++i) {
    zones += std::string(i ? ", " : "") + "*z";
    regions += std::string(i ? ", " : "") + "*r";
  }
  const std::string text = R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: bomb}
spec:
  duration: 1h
  topology:
    regions: [{name: r0, zones: [&z {name: z}]}, &r {name: r, zones: [)" +
                           zones + R"(]}, )" + regions + R"(]
)";
  // The budget's own message is the proof that it, and not the end of the expansion, stopped the load
  // (no wall-clock bound: under the sanitizers on a loaded machine even the stopped load takes seconds).
  const std::string message = load_error(text);
  EXPECT_TRUE(
      message.ends_with(": expected at most 1000000 values, got more (do aliases repeat a large part of "
                        "the document?)"))
      << message.substr(0, 2000);
}

TEST(DocumentLimits, InvalidUtf8IsReportedAtItsFirstByte) {
  EXPECT_EQ(load_error("a: b\nname: caf\xc3\x28\n"), "<text>:2:10: expected UTF-8 text, got byte 0xc3");
  EXPECT_EQ(load_error("a: \xff"), "<text>:1:4: expected UTF-8 text, got byte 0xff");
  EXPECT_EQ(load_error("a: \xed\xa0\x80"), "<text>:1:4: expected UTF-8 text, got byte 0xed");  // a surrogate
  EXPECT_EQ(load_error("a: \xc0\xaf"), "<text>:1:4: expected UTF-8 text, got byte 0xc0");      // overlong
  EXPECT_EQ(load_error("a: \xe2\x82"), "<text>:1:4: expected UTF-8 text, got byte 0xe2");      // truncated
  EXPECT_EQ(load_error("a: b\x1b[31m"), "<text>:1:5: expected UTF-8 text, got byte 0x1b");
  EXPECT_EQ(load_error("a: b\x7f"), "<text>:1:5: expected UTF-8 text, got byte 0x7f");
  // Tabs, CRLF line ends and any real character are fine.
  EXPECT_EQ(load_error("apiVersion: drsim/v1alpha1\r\nkind: Scenario\t\r\nmetadata: {name: \"µ→😀\"}\r\n"),
            "<text>:1:1: missing required key \"spec\"");
}

TEST(DocumentLimits, AStrayCommaEndsTheParse) {
  // yaml-cpp 0.7's LoadAll reports an empty document without consuming a ','
  // that starts one, then the same empty document again, until memory runs out.
  const std::string expected = "expected a value (a scalar, a [list] or a {mapping}), got \",\"";
  EXPECT_EQ(load_error(","), "<text>:1:1: " + expected);
  EXPECT_EQ(load_error("!,"), "<text>:1:2: " + expected);
  EXPECT_EQ(load_error("# a comment\n, x"), "<text>:2:1: " + expected);
  EXPECT_EQ(load_error("a: 1\n---\n,"), "<text>:3:1: " + expected);
  // The same in an override's value.
  EXPECT_EQ(load_error(testing::scenario_with(""), {"spec.seed=,"}), "--set spec.seed=,:1:1: " + expected);
}

TEST(DocumentLimits, AnOverrideValueIsOneDocument) {
  EXPECT_EQ(load_error(testing::scenario_with(""), {"spec.seed=1\n---\n2"}),
            "--set spec.seed=1\\x0a---\\x0a2:3:1: expected one YAML value, got 2 documents");
  EXPECT_EQ(load_error(testing::scenario_with(""), {"spec.seed=1\x01"}),
            "--set spec.seed=1\\x01:1:2: expected UTF-8 text, got byte 0x01");
  // An empty value is null, as before.
  EXPECT_EQ(load_error(testing::scenario_with(""), {"spec.seed="}),
            "--set spec.seed=: spec.seed: expected an unsigned integer, got null");
}

// Every printable character, and every pair of YAML indicators, as a whole
// file and as an override's value: each parse ends, with a document or an error.
TEST(DocumentLimits, EveryShortInputEnds) {
  std::vector<std::string> inputs;
  for (char c = 0x20; c < 0x7f; ++c) inputs.emplace_back(1, c);
  const std::string indicators = "[]{},:?-|>!&*#%@`'\"";
  for (const char a : indicators) {
    for (const char b : indicators) {
      inputs.push_back(std::string{a, b});
      inputs.push_back(std::string{a, ' ', b});
      inputs.push_back(std::string{a, '\n', b});
    }
  }
  const std::string scenario = testing::scenario_with("");
  for (const std::string& text : inputs) {
    // None of them is a scenario, and each error is located in the text.
    EXPECT_TRUE(load_error(text).starts_with("<text>")) << quote(text);
    const std::string override_error = load_error(scenario, {"spec.seed=" + text});
    // The label shows a control byte as \xNN (the newline is the only one here).
    std::string label = "--set spec.seed=";
    for (const char c : text) label += c == '\n' ? std::string("\\x0a") : std::string(1, c);
    EXPECT_TRUE(override_error == "no error" || override_error.starts_with(label))
        << quote(text) << " " << override_error;
  }
}

TEST(DocumentLimits, AFloodOfErrorsIsCut) {
  std::string text = testing::scenario_with("");
  for (int i = 0; i < 250; ++i) text += "  unknown" + std::to_string(i) + ": 1\n";
  const std::string message = load_error(text);
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 100);
  EXPECT_TRUE(message.ends_with("\n<text>: ... and 150 more problems not shown"))
      << message.substr(message.size() - 200);
}

}  // namespace
}  // namespace drsim
