#include "report/ncu_command_report.h"

#include <charconv>

#include "profile/ncu_metrics.h"

namespace ridge::report {
namespace {

// A sweep value as JSON sees it: an integer where it is one ("8"), else the text.
Value sweep_value(const std::string& text) {
  int64_t number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error == std::errc() && end == text.data() + text.size()) return number;
  return text;
}

// "point", then one "sweep.NAME" column per sweep (CSV: NAME).
void add_point_columns(Table& table, const std::vector<profile::NcuPoint>& points) {
  table.column({.key = "point"});
  if (points.empty()) return;
  for (const auto& entry : points.front().values)
    table.column({.key = entry.first, .audience = kMachine, .json_path = "sweep." + entry.first});
}

std::vector<Value> point_cells(const profile::NcuPoint& point) {
  std::vector<Value> cells{point.label};
  for (const auto& entry : point.values) cells.push_back(sweep_value(entry.second));
  return cells;
}

}  // namespace

Document ncu_command_document(const std::vector<profile::NcuPoint>& points, const std::string& cc) {
  Document doc;
  doc.command = "ncu command";
  add_ridge_version(doc);
  nlohmann::ordered_json metrics = nlohmann::ordered_json::array();
  for (const auto& metric : profile::ncu_roofline_metrics()) metrics.push_back(metric.name);
  for (const auto& metric : profile::ncu_cc_metrics(cc)) metrics.push_back(metric.name);
  doc.field("metrics", "metrics", profile::ncu_roofline_metric_list(cc), metrics, kJson);

  Table commands;
  commands.key = "commands";
  commands.audience = kMachine;
  add_point_columns(commands, points);
  commands.column({.key = "command"})
      .column({.key = "argv", .audience = kJson})
      .column({.key = "csv"})
      .column({.key = "log"});
  // People get the lines alone: nothing to cut away before pasting them.
  Table lines;
  lines.key = "lines";
  lines.layout = Table::Layout::kList;
  lines.audience = kHuman;
  lines.column({.key = "command", .left_aligned = true});
  for (const auto& point : points) {
    auto argv = std::make_shared<Table>();
    argv->key = "argv";
    argv->layout = Table::Layout::kList;
    argv->audience = kJson;
    argv->column({.key = "word"});
    for (const auto& word : point.argv) argv->add({word});
    auto row = point_cells(point);
    auto line = profile::shell_line(point.argv);
    row.insert(row.end(), {line, std::shared_ptr<const Table>(argv), point.csv_path, point.log_path});
    commands.add(std::move(row));
    lines.add({line});
  }
  doc.tables.push_back(std::move(commands));
  doc.tables.push_back(std::move(lines));
  doc.csv_table = "commands";
  return doc;
}

Document ncu_run_document(const std::vector<profile::NcuPoint>& points, const std::vector<profile::NcuPointRun>& runs) {
  Document doc;
  doc.command = "ncu run";
  add_ridge_version(doc);
  Table table;
  table.key = "points";
  add_point_columns(table, points);
  table.column({.key = "status"})
      .column({.key = "elapsed_s", .title = "time", .style = Style::kDuration})
      .column({.key = "csv", .left_aligned = true})
      .column({.key = "log", .audience = kMachine})
      .column({.key = "message", .audience = kMachine});
  for (size_t i = 0; i < points.size(); ++i) {
    auto row = point_cells(points[i]);
    if (i < runs.size()) {
      bool ok = runs[i].diagnosis.failure == profile::NcuFailure::kNone;
      row.insert(row.end(), {std::string(ok ? "ok" : "failed"), runs[i].elapsed_s, points[i].csv_path,
                             points[i].log_path, runs[i].diagnosis.message});
    } else {
      row.insert(row.end(), {std::string("not run"), Value{}, points[i].csv_path, points[i].log_path, Value{}});
    }
    table.add(std::move(row));
  }
  doc.tables.push_back(std::move(table));
  doc.csv_table = "points";
  return doc;
}

Document ncu_command(const profile::NcuRunRequest& request, const std::function<void(const std::string&)>& note) {
  auto points = profile::ncu_points(request);
  if (request.ncu.cc.empty() && note) note(profile::without_cc_note("no --cc"));
  return ncu_command_document(points, request.ncu.cc);
}

}  // namespace ridge::report
