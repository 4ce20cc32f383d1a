// Kubernetes quantities in milli-units, rounded up as resource.Quantity.MilliValue() rounds.
#include "models/kube/kube_quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace drsim {
namespace {

std::int64_t milli(const std::string& text) { return parse_kube_quantity(text).milli; }

TEST(KubeQuantity, ReadsPlainNumbersSuffixesAndExponents) {
  EXPECT_EQ(milli("500m"), 500);
  EXPECT_EQ(milli("1"), 1000);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli(".5"), 500);
  EXPECT_EQ(milli("5."), 5000);
  EXPECT_EQ(milli("+2"), 2000);
  EXPECT_EQ(milli("0"), 0);
  EXPECT_EQ(milli("-0"), 0);
  EXPECT_EQ(milli("2.5k"), 2'500'000);
  EXPECT_EQ(milli("1M"), 1'000'000'000);
  EXPECT_EQ(milli("1Ki"), 1'024'000);
  EXPECT_EQ(milli("512Mi"), std::int64_t{512} * 1024 * 1024 * 1000);
  EXPECT_EQ(milli("1.5Gi"), std::int64_t{3} * 512 * 1024 * 1024 * 1000);
  EXPECT_EQ(milli("1e3"), 1'000'000);
  EXPECT_EQ(milli("1E-3"), 1);
  EXPECT_EQ(milli("2e+2"), 200'000);
  EXPECT_EQ(milli("0.001E"), std::int64_t{1'000'000'000'000'000'000});  // a trailing E is exa, not an exponent
  EXPECT_EQ(milli(" 250m "), 250);
}

TEST(KubeQuantity, IsExactOnDecimalDigits) {
  // 0.3 has no exact binary form; read as text it is exactly 300 milli-units.
  EXPECT_EQ(milli("0.3"), 300);
  EXPECT_EQ(milli("0.30000000000000004"), 301);  // what a float 0.1 + 0.2 prints: a hair above 300, so 301
  EXPECT_EQ(milli("1.1"), 1100);
}

TEST(KubeQuantity, RoundsUpFractionsOfAMilliUnit) {
  EXPECT_EQ(milli("1n"), 1);
  EXPECT_EQ(milli("1.0001m"), 2);
  EXPECT_EQ(milli("999u"), 1);
  EXPECT_EQ(milli("1000u"), 1);
  EXPECT_EQ(milli("1001u"), 2);
  EXPECT_EQ(milli("0.0000000000000000000000001"), 1);
}

TEST(KubeQuantity, TheInt64EdgeIsExact) {
  EXPECT_EQ(milli("9223372036854775807m"), std::numeric_limits<std::int64_t>::max());
  EXPECT_THROW(milli("9223372036854775808m"), std::invalid_argument);
  EXPECT_THROW(milli("9223372036854775807.5m"), std::invalid_argument);  // rounds up past the edge
  EXPECT_THROW(milli("1E"), std::invalid_argument);  // 1e18 units are 1e21 milli-units
  EXPECT_THROW(milli("8Ei"), std::invalid_argument);
  EXPECT_THROW(milli("1e400"), std::invalid_argument);
  EXPECT_EQ(milli("1e-400"), 1);
}

TEST(KubeQuantity, RefusesWhatIsNotAQuantity) {
  for (const char* bad : {"", "m", "abc", "1.2.3", "1e", "1x", "1 m", "1mi", "--1", "1e3.5", "0x10"}) {
    EXPECT_THROW(milli(bad), std::invalid_argument) << bad;
  }
  try {
    milli("lots");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "expected a number or a Kubernetes quantity such as \"500m\" or \"512Mi\", got \"lots\"");
  }
  try {
    milli("-1");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "expected a non-negative quantity, got \"-1\"");
  }
}

TEST(KubeQuantity, FormatReadsBack) {
  for (const std::int64_t m : {std::int64_t{0}, std::int64_t{1}, std::int64_t{500}, std::int64_t{1000},
                               std::int64_t{1500}, std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(parse_kube_quantity(format_kube_quantity(MilliQuantity{m})).milli, m) << m;
  }
  EXPECT_EQ(format_kube_quantity(MilliQuantity{2000}), "2");
  EXPECT_EQ(format_kube_quantity(MilliQuantity{1500}), "1500m");
}

}  // namespace
}  // namespace drsim
