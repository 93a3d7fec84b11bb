#pragma once
// Documents as HTML, for the report page: one generic Table -> <table> that shows the columns people
// see (human formatting, report::human_text) and keeps every number's raw value in data-value, so the
// sortable-table script sorts numbers as numbers. No table is formatted by hand.
#include <string>

#include "report/document.h"

namespace ridge::report {

struct HtmlTableOptions {
  // Which columns show: those whose audience shares a bit with this (kHuman: what people read;
  // kEveryone: every column, for tables only machines see, such as a bench run's nodes).
  unsigned audience = kHuman;
  bool sortable = true;    // a header click sorts the rows (kRows tables only)
  bool with_title = true;  // the table's title as a caption
  std::string css_class;   // added to the table's class list
};

// One table: kRows as rows, kRecord as quantity / value (/ exact) rows, kList as one column.
// Nested tables are left out (the caller renders the ones it wants); the footer follows as notes.
std::string table_html(const Table& table, const HtmlTableOptions& options = {});

// A document's human fields as a definition list, its human tables, and its notes.
std::string document_html(const Document& doc, const HtmlTableOptions& options = {});

// The inline script that sorts a table.sortable by the clicked header (numeric on numeric columns:
// cells with data-value; text otherwise), toggling th.sorted-asc / th.sorted-desc.
std::string sortable_table_script();

}  // namespace ridge::report
