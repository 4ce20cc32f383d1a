// The CSV reader: RFC 4180 fields and quoting, with the line and column of
// every field, and a precise position for text that is not CSV.
#include "io/csv_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>

#include "sim/rng.h"

namespace drsim {
namespace {

// A field as (text, line, column) for compact expectations.
struct Cell {
  std::string text;
  int line;
  int column;
  friend bool operator==(const Cell&, const Cell&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Cell& c) {
    return os << "\"" << c.text << "\"@" << c.line << ":" << c.column;
  }
};

std::vector<std::vector<Cell>> cells(std::string_view text) {
  std::vector<std::vector<Cell>> out;
  for (const CsvRecord& r : parse_csv(text)) {
    auto& row = out.emplace_back();
    for (const CsvField& f : r.fields) row.push_back({f.text, f.line, f.column});
  }
  return out;
}

// "line:column: message" of the syntax error text raises, or "no error".
std::string syntax_error(std::string_view text) {
  try {
    parse_csv(text);
  } catch (const CsvSyntaxError& e) {
    return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.what();
  }
  return "no error";
}

using Rows = std::vector<std::vector<Cell>>;

TEST(CsvTable, FieldsKeepTheirLineAndColumn) {
  EXPECT_EQ(cells("at,rate\n0s,800rps\n90s,1200rps\n"),
            (Rows{{{"at", 1, 1}, {"rate", 1, 4}},
                  {{"0s", 2, 1}, {"800rps", 2, 4}},
                  {{"90s", 3, 1}, {"1200rps", 3, 5}}}));
}

TEST(CsvTable, TheLastLineNeedsNoLineBreak) {
  EXPECT_EQ(cells("a,b\n1,2"), (Rows{{{"a", 1, 1}, {"b", 1, 3}}, {{"1", 2, 1}, {"2", 2, 3}}}));
}

TEST(CsvTable, EmptyTextHasNoRecords) {
  EXPECT_TRUE(parse_csv("").empty());
  EXPECT_TRUE(parse_csv("\n\n  \n").empty());
  EXPECT_TRUE(parse_csv("\xEF\xBB\xBF").empty());
}

TEST(CsvTable, CrLfAndCrEndRecordsToo) {
  EXPECT_EQ(cells("a\r\nb\rc\nd"), (Rows{{{"a", 1, 1}}, {{"b", 2, 1}}, {{"c", 3, 1}}, {{"d", 4, 1}}}));
}

TEST(CsvTable, QuotedFieldsHoldCommasLineBreaksAndDoubledQuotes) {
  const auto rows = cells("name,note\n\"a,b\",\"say \"\"hi\"\"\"\n\"two\nlines\",x\nlast,\"\"\n");
  EXPECT_EQ(rows, (Rows{{{"name", 1, 1}, {"note", 1, 6}},
                        {{"a,b", 2, 1}, {"say \"hi\"", 2, 7}},
                        {{"two\nlines", 3, 1}, {"x", 4, 8}},
                        {{"last", 5, 1}, {"", 5, 6}}}));
  const std::vector<CsvRecord> records = parse_csv("\"q\",p\n");
  EXPECT_TRUE(records[0].fields[0].quoted);
  EXPECT_FALSE(records[0].fields[1].quoted);
}

TEST(CsvTable, SpacesAroundFieldsAreIgnoredButKeptInsideQuotes) {
  EXPECT_EQ(cells(" at ,\trate\n 90s , \" 1200rps \" \n"),
            (Rows{{{"at", 1, 2}, {"rate", 1, 7}}, {{"90s", 2, 2}, {" 1200rps ", 2, 8}}}));
}

TEST(CsvTable, BlankLinesAreSkippedButAnEmptyQuotedFieldIsARecord) {
  EXPECT_EQ(cells("a\n\n   \nb\n\"\"\n"), (Rows{{{"a", 1, 1}}, {{"b", 4, 1}}, {{"", 5, 1}}}));
}

TEST(CsvTable, ATrailingCommaMakesAnEmptyLastField) {
  EXPECT_EQ(cells("1,2,\n"), (Rows{{{"1", 1, 1}, {"2", 1, 3}, {"", 1, 5}}}));
}

TEST(CsvTable, ColumnsCountCharactersNotBytes) {
  // "µ" is two bytes; the byte-order mark is not a character of the text.
  EXPECT_EQ(cells("\xEF\xBB\xBF" "µs,x\n"), (Rows{{{"µs", 1, 1}, {"x", 1, 4}}}));
}

TEST(CsvTable, AnUnclosedQuoteIsReportedWhereItOpens) {
  EXPECT_EQ(syntax_error("a,b\n1,\"2\n3,4\n"),
            "2:3: expected a closing quote for the field that starts here, got the end of the file");
}

TEST(CsvTable, TextAfterAClosingQuoteIsAnError) {
  EXPECT_EQ(syntax_error("\"12\"ms,x\n"), "1:5: expected a comma or the end of the line after a closing quote, got "
                                          "\"m\"");
}

TEST(CsvTable, AQuoteInsideAnUnquotedFieldIsAnError) {
  EXPECT_EQ(syntax_error("ab,c\"d\n"),
            "1:5: expected a field either in quotes or without any, got a quote inside an unquoted field");
}

TEST(CsvTable, BytesThatAreNotTextAreRefusedWhereTheyAre) {
  EXPECT_EQ(syntax_error("a,b\n1,\xff\n"), "2:3: expected UTF-8 text, got byte 0xff");
  EXPECT_EQ(syntax_error(std::string_view("a,b\n1,2\0", 8)), "2:4: expected UTF-8 text, got byte 0x00");
  // Also inside quotes, and an overlong encoding of '/'.
  EXPECT_EQ(syntax_error("\"x\xc0\xaf\""), "1:3: expected UTF-8 text, got byte 0xc0");
}

TEST(CsvTable, AnyTextGivesRecordsInOrderOrASyntaxError) {
  // Random text over the characters that matter to the reader: every field
  // must be placed at or after the one before it, or the text refused with a
  // position inside it.
  constexpr std::string_view kAlphabet[] = {",", "\"", "\n", "\r", " ", "\t", "a", "1", "é", "\xc3", std::string_view("\0", 1)};
  RngStream rng(5, "csv-garbage");
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const std::uint64_t length = rng.below(40);
    for (std::uint64_t i = 0; i < length; ++i) text += kAlphabet[rng.below(std::size(kAlphabet))];
    const int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n') +
                                           std::count(text.begin(), text.end(), '\r'));
    try {
      int line = 1, column = 0;
      for (const CsvRecord& r : parse_csv(text)) {
        ASSERT_FALSE(r.fields.empty()) << ::testing::PrintToString(text);
        for (const CsvField& f : r.fields) {
          ASSERT_TRUE(f.line > line || (f.line == line && f.column > column)) << ::testing::PrintToString(text);
          ASSERT_LE(f.line, lines);
          line = f.line;
          column = f.column;
        }
      }
    } catch (const CsvSyntaxError& e) {
      EXPECT_GE(e.line(), 1);
      EXPECT_LE(e.line(), lines);
      EXPECT_GE(e.column(), 1);
    }
  }
}

}  // namespace
}  // namespace drsim
