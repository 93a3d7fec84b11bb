#pragma once
// The cells of a Table as people see them (the table and Markdown printers share it).
#include "report/document.h"
#include "report/text_table.h"

namespace ridge::report {

// Records become quantity / value (/ exact) rows; nested tables are left to the caller.
TextTable human_table(const Table& t);

}  // namespace ridge::report
