#include "report/choices_report.h"

namespace ridge::report {

Document choices_document(const std::vector<exec::Choice>& choices) {
  Document doc;
  doc.command = "bench";
  doc.subject = "--list-algorithms";
  add_ridge_version(doc);
  auto& t = doc.table("options", "");
  t.column({.key = "option"})
      .column({.key = "name", .title = "value"})
      .column({.key = "description", .left_aligned = true})
      .column({.key = "applies_to", .title = "applies to", .left_aligned = true});
  for (const auto& c : choices) t.add({c.option, c.name, c.description, c.applies_to});
  doc.notes.push_back(
      "a layer an algorithm cannot run uses auto; the profile's algorithm column names the one that ran (with the "
      "fused operations of --mode optimized: direct+add+relu)");
  return doc;
}

}  // namespace ridge::report
