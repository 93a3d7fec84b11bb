#include "report/html_document.h"

#include <fmt/format.h>

#include "report/figure/render.h"

namespace ridge::report {
namespace {

using figure::escape_html;

bool shown(const Column& c, unsigned audience) { return (c.audience & audience) != 0; }

bool is_nested(const Value& v) { return std::holds_alternative<std::shared_ptr<const Table>>(v); }
bool is_number(const Value& v) { return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v); }

// One cell: people's text; numbers right-aligned with their raw value for sorting (and for programs
// reading the page).
std::string cell_html(const Value& v, const Column& column) {
  auto text = escape_html(human_text(v, column));
  if (is_number(v)) return fmt::format("<td class=\"num\" data-value=\"{}\">{}</td>", machine_text(v), text);
  return "<td>" + text + "</td>";
}

std::string caption(const Table& t, const HtmlTableOptions& o) {
  if (!o.with_title || t.title.empty()) return "";
  auto title = t.title;
  while (!title.empty() && (title.back() == ':' || title.back() == ' ')) title.pop_back();
  return "<caption>" + escape_html(title) + "</caption>";
}

std::string footer_html(const Table& t) {
  std::string out;
  for (const auto& line : t.footer) out += "<p class=\"table-note\">" + escape_html(line) + "</p>\n";
  return out;
}

std::string record_html(const Table& t, const HtmlTableOptions& o) {
  bool exact = false;
  if (!t.rows.empty())
    for (size_t c = 0; c < t.columns.size(); ++c)
      if (shown(t.columns[c], o.audience) && t.columns[c].style != Style::kText &&
          std::holds_alternative<int64_t>(t.rows[0][c]))
        exact = true;
  std::string out = fmt::format(
      "<table class=\"record{}\" "
      "data-key=\"{}\">{}\n<thead><tr><th>quantity</th><th>value</th>{}</tr></thead>\n<tbody>\n",
      o.css_class.empty() ? "" : " " + escape_html(o.css_class), escape_html(t.key), caption(t, o),
      exact ? "<th>exact</th>" : "");
  if (!t.rows.empty()) {
    const auto& row = t.rows.front();
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const auto& column = t.columns[c];
      if (!shown(column, o.audience) || is_nested(row[c])) continue;
      // Record headings are indented with spaces in text ("  weights read"); HTML keeps the words.
      auto heading = column.heading();
      auto start = heading.find_first_not_of(' ');
      heading = start == std::string::npos ? heading : heading.substr(start);
      out += fmt::format("<tr data-key=\"{}\"><th scope=\"row\">{}</th>{}", escape_html(column.key),
                         escape_html(heading), cell_html(row[c], column));
      if (exact)
        out += column.style != Style::kText && std::holds_alternative<int64_t>(row[c])
                   ? fmt::format("<td class=\"num exact\">{}</td>", std::get<int64_t>(row[c]))
                   : std::string("<td></td>");
      out += "</tr>\n";
    }
  }
  return out + "</tbody></table>\n" + footer_html(t);
}

}  // namespace

std::string table_html(const Table& t, const HtmlTableOptions& o) {
  if (t.layout == Table::Layout::kRecord) return record_html(t, o);
  std::vector<size_t> visible;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    bool nested = !t.rows.empty() && is_nested(t.rows[0][c]);
    if (shown(t.columns[c], o.audience) && !nested) visible.push_back(c);
  }
  bool sortable = o.sortable && t.layout == Table::Layout::kRows && t.rows.size() > 1;
  std::string classes = sortable ? "sortable" : "";
  if (!o.css_class.empty()) classes += (classes.empty() ? "" : " ") + o.css_class;
  std::string out =
      fmt::format("<table class=\"{}\" data-key=\"{}\">{}\n<thead><tr>", classes, escape_html(t.key), caption(t, o));
  for (auto c : visible) {
    const auto& column = t.columns[c];
    bool header = !(t.layout == Table::Layout::kList && column.title.empty());
    out += fmt::format("<th data-key=\"{}\"{}>{}</th>", escape_html(column.key),
                       sortable ? " title=\"click to sort\"" : "", header ? escape_html(column.heading()) : "");
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (auto c : visible) out += cell_html(row[c], t.columns[c]);
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n" + footer_html(t);
}

std::string document_html(const Document& doc, const HtmlTableOptions& o) {
  std::string out;
  std::string fields;
  for (const auto& f : doc.fields)
    if ((f.audience & kHuman) && !f.at_end && !f.text.empty())
      fields += fmt::format("<dt>{}</dt><dd>{}</dd>\n", escape_html(f.label), escape_html(f.text));
  if (!fields.empty()) out += "<dl class=\"fields\">\n" + fields + "</dl>\n";
  for (const auto& t : doc.tables)
    if (t.audience & kHuman) out += table_html(t, o);
  std::string end;
  for (const auto& f : doc.fields)
    if ((f.audience & kHuman) && f.at_end && !f.text.empty())
      end += fmt::format("<dt>{}</dt><dd>{}</dd>\n", escape_html(f.label), escape_html(f.text));
  if (!end.empty()) out += "<dl class=\"fields\">\n" + end + "</dl>\n";
  for (const auto& n : doc.notes) out += "<p class=\"note\">note: " + escape_html(n) + "</p>\n";
  return out;
}

std::string sortable_table_script() {
  return R"JS(<script>
(function () {
  // Sorts a table.sortable by the clicked header: numerically where every filled cell of the column
  // carries data-value (its raw number), as text otherwise; a second click reverses.
  function key(cell) { return cell ? cell.getAttribute('data-value') : null; }
  function sortBy(table, th, index) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function (r) { var c = r.cells[index]; return !c || c.textContent === '' || key(c) !== null; });
    var desc = th.classList.contains('sorted-asc');
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
    th.classList.add(desc ? 'sorted-desc' : 'sorted-asc');
    rows.sort(function (a, b) {
      var x = a.cells[index], y = b.cells[index], r;
      if (numeric) {
        var p = x && key(x) !== null ? parseFloat(key(x)) : -Infinity, q = y && key(y) !== null ? parseFloat(key(y)) : -Infinity;
        r = p < q ? -1 : p > q ? 1 : 0;
      } else {
        r = (x ? x.textContent : '').localeCompare(y ? y.textContent : '', undefined, {numeric: true});
      }
      return desc ? -r : r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) return;
    Array.prototype.forEach.call(head.cells, function (th, index) {
      th.addEventListener('click', function () { sortBy(table, th, index); });
    });
  });
})();
</script>
)JS";
}

}  // namespace ridge::report
