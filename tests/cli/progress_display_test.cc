#include "cli/progress_display.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace drsim::cli {
namespace {

using namespace std::chrono_literals;

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[512];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) s.append(buf, n);
  return s;
}

TEST(ProgressDisplay, SilentDuringTheFirstSecond) {
  std::FILE* f = std::tmpfile();
  ProgressDisplay display(f);
  display.update(RunProgress{SimTime{10min}, SimTime{1h}, 5000, 0.5});
  display.clear();
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(ProgressDisplay, ShowsSimulatedTimeAndEventRateThenErases) {
  std::FILE* f = std::tmpfile();
  ProgressDisplay display(f);
  display.update(RunProgress{SimTime{30min}, SimTime{1h}, 4'000'000, 2.0});
  const std::string line = contents(f);
  EXPECT_NE(line.find("t=00:30:00 / 01:00:00 ( 50%)"), std::string::npos) << line;
  EXPECT_NE(line.find("4e+06 events  2e+06 events/s"), std::string::npos) << line;
  display.clear();
  EXPECT_EQ(contents(f).back(), '\r');
  std::fclose(f);
}

}  // namespace
}  // namespace drsim::cli
