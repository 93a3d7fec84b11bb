#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/printer.h"
#include "report/human_table.h"

namespace ridge::report {


namespace {

// "per op type (batch 1, eager):" -> "Per op type (batch 1, eager)"
std::string heading(std::string title) {
  while (!title.empty() && (title.back() == ':' || title.back() == ' ')) title.pop_back();
  if (!title.empty() && title[0] >= 'a' && title[0] <= 'z') title[0] = static_cast<char>(title[0] - 'a' + 'A');
  return title;
}

void print_one(std::ostream& out, const Table& t, int level) {
  if (!(t.audience & kHuman)) return;
  fmt::print(out, "\n{} {}\n\n", std::string(static_cast<size_t>(level), '#'),
             t.title.empty() ? heading(t.key) : heading(t.title));
  if (t.layout == Table::Layout::kList) {
    for (const auto& row : t.rows)
      if (!row.empty()) fmt::print(out, "- {}\n", human_text(row.front(), t.columns.front()));
  } else {
    human_table(t).print_markdown(out);
  }
  if (!t.footer.empty()) fmt::print(out, "\n");
  for (const auto& line : t.footer) fmt::print(out, "{}\n\n", line);
  for (const auto& row : t.rows)
    for (size_t c = 0; c < row.size(); ++c)
      if (auto* nested = std::get_if<std::shared_ptr<const Table>>(&row[c]);
          nested && *nested && (t.columns[c].audience & kHuman))
        print_one(out, **nested, level + 1);
}

}  // namespace

void print_markdown(std::ostream& out, const Document& doc) {
  fmt::print(out, "# ridge {}{}\n\n", doc.command, doc.subject.empty() ? "" : fmt::format(": `{}`", doc.subject));
  for (const auto& f : doc.fields)
    if ((f.audience & kHuman) && !f.at_end)
      fmt::print(out, "- {}{}\n", f.label.empty() ? "" : f.label + ": ", f.text);
  if (doc.notes_at_top)
    for (const auto& n : doc.notes) fmt::print(out, "- note: {}\n", n);
  for (const auto& t : doc.tables) print_one(out, t, 2);
  bool any_end = false;
  for (const auto& f : doc.fields)
    if ((f.audience & kHuman) && f.at_end) {
      fmt::print(out, "{}- {}{}\n", any_end ? "" : "\n", f.label.empty() ? "" : f.label + ": ", f.text);
      any_end = true;
    }
  if (!doc.notes_at_top && !doc.notes.empty()) {
    fmt::print(out, "\n");
    for (const auto& n : doc.notes) fmt::print(out, "- note: {}\n", n);
  }
}

}  // namespace ridge::report
