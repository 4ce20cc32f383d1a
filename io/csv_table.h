#pragma once
// A small CSV reader for the data files a scenario names (rate traces,
// service-time samples). Every field keeps the line and column where it
// starts, so that a bad value is reported where an editor shows it.
//
// The RFC 4180 basics:
//   - fields are separated by commas; a record ends at LF, CRLF or CR (or at
//     the end of the text);
//   - a field in double quotes may hold commas, line breaks and quotes
//     written twice ("say ""hi""" is: say "hi");
//   - a quote inside an unquoted field, text after a closing quote and a
//     quote left open are errors.
// And a little more, for files written by hand or by spreadsheets:
//   - a UTF-8 byte-order mark at the very start is skipped;
//   - spaces and tabs around a field are ignored (inside quotes they are kept),
//     so "90s, 1200rps" reads as "90s" and "1200rps";
//   - blank lines (nothing but spaces) are skipped.
// The text must be UTF-8 without control bytes other than tab and line
// breaks, as a scenario file must. Internal to io/.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace drsim {

struct CsvField {
  std::string text;     // the value: quotes removed, "" turned into "
  int line = 0;         // 1-based, where the field starts
  int column = 0;       // 1-based, in characters (not bytes)
  bool quoted = false;  // written in double quotes
};

struct CsvRecord {
  std::vector<CsvField> fields;  // at least one
  int line = 0;                  // where the record starts
};

// Text that is not CSV. what() is the message without a position ("expected
// a closing quote ..."); line() and column() say where it went wrong.
class CsvSyntaxError : public std::runtime_error {
 public:
  CsvSyntaxError(int line, int column, const std::string& message)
      : std::runtime_error(message), line_(line), column_(column) {}
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_;
  int column_;
};

// Reads records one at a time, so that a large file is never held as a
// table of strings: a caller keeps what it needs of each record.
class CsvReader {
 public:
  explicit CsvReader(std::string_view text);

  // The next non-blank record, into record (its storage is reused); false at
  // the end of the text. Throws CsvSyntaxError.
  bool next(CsvRecord& record);

  // Where reading has got to: line and column are 1-based, in characters.
  struct Cursor {
    std::size_t pos = 0;
    int line = 1;
    int column = 1;
  };

 private:
  std::string_view text_;
  Cursor cursor_;
};

// Every non-blank record of text, in order. Throws CsvSyntaxError.
std::vector<CsvRecord> parse_csv(std::string_view text);

}  // namespace drsim
