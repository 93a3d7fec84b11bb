#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/human_table.h"
#include "report/printer.h"

namespace ridge::report {
namespace {

bool shown(const Column& c) { return (c.audience & kHuman) != 0; }

// Whether people get an "exact" column beside a record's rounded values.
bool has_exact(const Table& t) {
  if (t.rows.empty()) return false;
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (shown(t.columns[c]) && t.columns[c].style != Style::kText && std::holds_alternative<int64_t>(t.rows[0][c]))
      return true;
  return false;
}

}  // namespace

// The cells people see, as a TextTable (shared with the Markdown printer). Records become
// quantity / value (/ exact) rows; nested tables are printed after their parent by the caller.
TextTable human_table(const Table& t) {
  if (t.layout == Table::Layout::kRecord) {
    bool exact = has_exact(t);
    TextTable table(exact ? std::vector<std::string>{"quantity", "value", "exact"}
                          : std::vector<std::string>{"quantity", "value"});
    if (t.rows.empty()) return table;
    const auto& row = t.rows.front();
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const auto& column = t.columns[c];
      if (!shown(column) || std::holds_alternative<std::shared_ptr<const Table>>(row[c])) continue;
      std::vector<std::string> cells{column.heading(), human_text(row[c], column)};
      if (exact)
        cells.push_back(column.style != Style::kText && std::holds_alternative<int64_t>(row[c])
                            ? std::to_string(std::get<int64_t>(row[c]))
                            : "");
      table.add_row(std::move(cells));
    }
    return table;
  }
  std::vector<std::string> header;
  std::vector<size_t> visible;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const auto& column = t.columns[c];
    // A nested table prints as its own section below; a column empty in every row (no power measured, no
    // per-node profile) tells people nothing. CSV and JSON keep both.
    bool nested = false, empty = !t.rows.empty();
    for (const auto& row : t.rows) {
      nested = nested || std::holds_alternative<std::shared_ptr<const Table>>(row[c]);
      empty = empty && std::holds_alternative<std::monostate>(row[c]);
    }
    if (!shown(column) || nested || empty) continue;
    header.push_back(t.layout == Table::Layout::kList && column.title.empty() ? "" : column.heading());
    visible.push_back(c);
  }
  TextTable table(header);
  for (size_t i = 0; i < visible.size(); ++i)
    if (t.columns[visible[i]].left_aligned) table.align_left(i);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (auto c : visible) cells.push_back(human_text(row[c], t.columns[c]));
    table.add_row(std::move(cells));
  }
  return table;
}

namespace {

void print_one(std::ostream& out, const Table& t, bool& first) {
  if (!(t.audience & kHuman)) return;
  fmt::print(out, "{}", first ? "" : "\n");
  first = false;
  if (!t.title.empty()) fmt::print(out, "{}\n", t.title);
  if (t.layout == Table::Layout::kList) {
    for (const auto& row : t.rows)
      if (!row.empty()) fmt::print(out, "{}\n", human_text(row.front(), t.columns.front()));
  } else {
    human_table(t).print(out);
  }
  for (const auto& line : t.footer) fmt::print(out, "{}\n", line);
  // Per-row detail (a run's op types and slowest nodes) follows its table.
  for (const auto& row : t.rows)
    for (size_t c = 0; c < row.size(); ++c)
      if (auto* nested = std::get_if<std::shared_ptr<const Table>>(&row[c]); nested && *nested && shown(t.columns[c]))
        print_one(out, **nested, first);
}

void print_fields(std::ostream& out, const Document& doc, bool at_end) {
  for (const auto& f : doc.fields) {
    if (!(f.audience & kHuman) || f.at_end != at_end) continue;
    if (f.label.empty())
      fmt::print(out, "{}\n", f.text);
    else
      fmt::print(out, "{}: {}\n", f.label, f.text);
  }
}

bool any_fields(const Document& doc, bool at_end) {
  for (const auto& f : doc.fields)
    if ((f.audience & kHuman) && f.at_end == at_end) return true;
  return false;
}

}  // namespace

void print_table(std::ostream& out, const Document& doc) {
  print_fields(out, doc, false);
  if (doc.notes_at_top)
    for (const auto& n : doc.notes) fmt::print(out, "note: {}\n", n);
  bool first = !any_fields(doc, false) && !(doc.notes_at_top && !doc.notes.empty());
  for (const auto& t : doc.tables) print_one(out, t, first);
  if (any_fields(doc, true)) {
    fmt::print(out, "{}", first ? "" : "\n");
    first = false;
    print_fields(out, doc, true);
  }
  if (!doc.notes_at_top && !doc.notes.empty()) {
    fmt::print(out, "{}", first ? "" : "\n");
    for (const auto& n : doc.notes) fmt::print(out, "note: {}\n", n);
  }
}

}  // namespace ridge::report
