#include "util/csv.h"

namespace ridge {

void split_csv_line(std::string_view line, std::vector<std::string>& fields) {
  size_t count = 0;
  auto next = [&]() -> std::string& {
    if (count == fields.size()) fields.emplace_back();
    auto& field = fields[count++];
    field.clear();
    return field;
  };
  std::string* field = &next();
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == '"') {
      // A quoted run: copied in spans up to each quote; a doubled quote is one quote.
      ++i;
      while (i < line.size()) {
        auto quote = line.find('"', i);
        if (quote == std::string_view::npos) {
          field->append(line.substr(i));
          i = line.size();
          break;
        }
        field->append(line.substr(i, quote - i));
        i = quote + 1;
        if (i < line.size() && line[i] == '"') {
          *field += '"';
          ++i;
        } else {
          break;
        }
      }
    } else if (c == ',') {
      field = &next();
      ++i;
    } else {
      auto end = line.find_first_of(",\"\r", i);
      if (end == std::string_view::npos) end = line.size();
      field->append(line.substr(i, end - i));
      i = end;
      if (i < line.size() && line[i] == '\r') ++i;
    }
  }
  fields.resize(count);
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  split_csv_line(std::string_view(line), fields);
  return fields;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

}  // namespace ridge
