#include "doctor/doctor_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "doctor/checks.h"
#include "report/command_output.h"

namespace ridge::doctor {

report::Document doctor_document(const std::vector<Check>& checks, const Feature* feature) {
  report::Document doc;
  doc.command = "doctor";
  char host[256] = {};
  doc.subject = ::gethostname(host, sizeof host - 1) == 0 ? host : "";
  report::add_ridge_version(doc);
  if (feature) {
    auto v = verdict(*feature, checks);
    // The CLI prints what is missing on stderr; people reading the document see it in the rows.
    doc.field("for", "for", fmt::format("{} ({})", feature->name, feature->description), std::string(feature->name));
    doc.field("ready", "ready", v.ready ? "yes" : "no (the required checks above that are not ok)", v.ready).at_end =
        true;
  }
  // People read the fixes in a list of their own under the table; programs get them in every row.
  report::Table checks_table;
  checks_table.key = "checks";
  checks_table.column({.key = "area"})
      .column({.key = "check"})
      .column({.key = "status"})
      .column({.key = "required_text", .title = "required", .audience = feature ? report::kHuman : 0u})
      .column({.key = "detail", .left_aligned = true})
      .column({.key = "fix", .audience = report::kMachine})
      .column({.key = "required", .audience = report::kMachine});
  report::Table fixes;
  fixes.key = "fixes";
  fixes.title = "to fix:";
  fixes.audience = report::kHuman;
  fixes.column({.key = "check"}).column({.key = "fix", .left_aligned = true});
  for (const auto& c : checks) {
    bool required = feature && required_by(*feature, c);
    std::string required_text = !required ? "" : one_of_several(*feature, c) ? "one of" : "yes";
    checks_table.add({c.area, c.name, std::string(name(c.status)), required_text, c.detail, c.fix, required});
    if (!c.fix.empty()) fixes.add({c.name, c.fix});
  }
  doc.tables.push_back(std::move(checks_table));
  if (!fixes.rows.empty()) doc.tables.push_back(std::move(fixes));
  doc.csv_table = "checks";
  return doc;
}

int print_doctor(const std::vector<Check>& checks, const Feature* feature, const std::string& format, std::ostream& out,
                 std::ostream& err) {
  report::emit(doctor_document(checks, feature), format, out);
  if (!feature) return 0;
  auto v = verdict(*feature, checks);
  if (v.ready) return 0;
  err << fmt::format("ridge: not ready for {}: {}\n", feature->name, v.unmet);
  return 1;
}

int run_doctor(const std::string& feature, const std::string& store, const std::string& format) {
  const auto* wanted = feature.empty() ? nullptr : &find_feature(feature);
  return print_doctor(all_checks(resolve_store_path(store)), wanted, format, std::cout, std::cerr);
}

}  // namespace ridge::doctor
