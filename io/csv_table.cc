#include "io/csv_table.h"

#include "io/utf8.h"
#include "sim/quote.h"

namespace drsim {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Walks the text one character (UTF-8 sequence) at a time, keeping the line
// and column, and refusing bytes that are not text as it meets them.
class Scanner {
 public:
  Scanner(std::string_view text, CsvReader::Cursor& cursor) : text_(text), at_(cursor) {}

  bool at_end() const { return at_.pos >= text_.size(); }
  // Whether the next character is the ASCII character c.
  bool next_is(char c) const { return !at_end() && text_[at_.pos] == c; }
  bool at_line_break() const { return next_is('\n') || next_is('\r'); }
  bool at_blank() const { return next_is(' ') || next_is('\t'); }
  int line() const { return at_.line; }
  int column() const { return at_.column; }

  // The next character's bytes, checked.
  std::string_view peek() const {
    const auto byte = static_cast<unsigned char>(text_[at_.pos]);
    const std::size_t len = utf8_sequence(text_, at_.pos);
    const bool control = byte == 0x7f || (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r');
    if (len == 0 || control) {
      constexpr char kHex[] = "0123456789abcdef";
      std::string message = "expected UTF-8 text, got byte 0x";
      message += kHex[byte >> 4];
      message += kHex[byte & 0xf];
      throw CsvSyntaxError(at_.line, at_.column, message);
    }
    return text_.substr(at_.pos, len);
  }

  // Moves past the next character, appending it to out when given.
  void take(std::string* out = nullptr) {
    const std::string_view c = peek();
    if (out) out->append(c);
    at_.pos += c.size();
    // CR LF is one line break: the LF ends the line.
    if (c == "\n" || (c == "\r" && !next_is('\n'))) {
      ++at_.line;
      at_.column = 1;
    } else {
      ++at_.column;
    }
  }

  void skip_blanks() {
    while (at_blank()) take();
  }

 private:
  std::string_view text_;
  CsvReader::Cursor& at_;
};

// A field in double quotes; the scanner is on the opening quote.
void read_quoted(Scanner& in, CsvField& field) {
  const int line = in.line(), column = in.column();
  in.take();
  for (;;) {
    if (in.at_end()) {
      throw CsvSyntaxError(line, column, "expected a closing quote for the field that starts here, got the end of "
                                         "the file");
    }
    if (in.next_is('"')) {
      in.take();
      if (!in.next_is('"')) break;  // the closing quote
      in.take(&field.text);         // "" stands for one quote
    } else {
      in.take(&field.text);
    }
  }
  in.skip_blanks();
  if (!in.at_end() && !in.next_is(',') && !in.at_line_break()) {
    throw CsvSyntaxError(in.line(), in.column(),
                         "expected a comma or the end of the line after a closing quote, got " + quote(in.peek()));
  }
}

// A field without quotes, up to the next comma or line break.
void read_plain(Scanner& in, CsvField& field) {
  while (!in.at_end() && !in.next_is(',') && !in.at_line_break()) {
    if (in.next_is('"')) {
      throw CsvSyntaxError(in.line(), in.column(),
                           "expected a field either in quotes or without any, got a quote inside an unquoted field");
    }
    in.take(&field.text);
  }
  const std::size_t end = field.text.find_last_not_of(" \t");
  field.text.erase(end == std::string::npos ? 0 : end + 1);
}

// Reads one record into record, reusing its fields' storage.
void read_record(Scanner& in, CsvRecord& record) {
  record.line = in.line();
  std::size_t count = 0;
  for (;;) {
    in.skip_blanks();
    if (count == record.fields.size()) record.fields.emplace_back();
    CsvField& field = record.fields[count++];
    field.text.clear();
    field.line = in.line();
    field.column = in.column();
    field.quoted = in.next_is('"');
    if (field.quoted) {
      read_quoted(in, field);
    } else {
      read_plain(in, field);
    }
    if (in.at_end()) break;
    if (in.next_is(',')) {
      in.take();
      continue;
    }
    // A line break ends the record; CR LF counts once.
    const bool cr = in.next_is('\r');
    in.take();
    if (cr && in.next_is('\n')) in.take();
    break;
  }
  record.fields.resize(count);
}

}  // namespace

CsvReader::CsvReader(std::string_view text) : text_(text) {
  if (text_.starts_with(kByteOrderMark)) cursor_.pos = kByteOrderMark.size();
}

bool CsvReader::next(CsvRecord& record) {
  Scanner in(text_, cursor_);
  while (!in.at_end()) {
    read_record(in, record);
    const bool blank = record.fields.size() == 1 && !record.fields[0].quoted && record.fields[0].text.empty();
    if (!blank) return true;
  }
  return false;
}

std::vector<CsvRecord> parse_csv(std::string_view text) {
  std::vector<CsvRecord> records;
  CsvReader reader(text);
  CsvRecord record;
  while (reader.next(record)) records.push_back(record);
  return records;
}

}  // namespace drsim
