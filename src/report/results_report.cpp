#include "report/results_report.h"

#include <fmt/format.h>

#include <filesystem>

#include "report/bench_report.h"
#include "report/command_output.h"
#include "report/document_codec.h"
#include "report/format.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "store/store.h"
#include "util/error.h"

namespace ridge::report {
namespace {

Value optional_integer(const std::optional<int64_t>& v) { return v ? Value{*v} : Value{}; }

}  // namespace

Document results_document(const std::vector<store::Record>& records, const std::string& store_path) {
  Document doc;
  doc.command = "results";
  doc.subject = store_path;
  doc.field("store", "store",
            fmt::format("{} ({} result{} selected)", store_path, records.size(), records.size() == 1 ? "" : "s"),
            store_path);
  auto& t = doc.table("results", "");
  t.column({.key = "id"})
      .column({.key = "created_at", .title = "time (UTC)"})
      .column({.key = "command"})
      .column({.key = "model", .max_width = 28})
      .column({.key = "device"})
      .column({.key = "batch"})
      .column({.key = "input_size", .title = "input", .audience = kMachine})
      .column({.key = "mode"})
      .column({.key = "precision", .title = "prec."})
      .column({.key = "memory_format", .audience = kMachine})
      .column({.key = "conv_algo", .audience = kMachine})
      .column({.key = "threads"})
      .column({.key = "training", .audience = kMachine})
      .column({.key = "optimizer", .audience = kMachine})
      .column({.key = "status"})
      .column({.key = "result", .max_width = 40})
      .column({.key = "error", .audience = kMachine})
      .column({.key = "sweep", .audience = kMachine})
      .column({.key = "cell", .audience = kMachine})
      .column({.key = "stage", .audience = kMachine})
      .column({.key = "shard", .audience = kMachine})
      .column({.key = "host", .audience = kMachine})
      .column({.key = "cpu", .audience = kMachine})
      .column({.key = "gpu", .audience = kMachine})
      .column({.key = "revision", .audience = kMachine})
      .column({.key = "versions", .audience = kJson})
      .column({.key = "command_line", .audience = kMachine})
      .column({.key = "random_weights", .audience = kMachine})
      .column({.key = "calibration", .audience = kMachine})
      .column({.key = "uid", .audience = kMachine});
  for (const auto& r : records) {
    const auto& p = r.params;
    const auto& e = r.environment;
    Table versions;
    versions.key = "versions";
    versions.layout = Table::Layout::kRecord;
    std::vector<Value> version_row;
    for (const auto& [library, version] : e.versions.items()) {
      versions.column({.key = library});
      version_row.emplace_back(version.is_string() ? version.get<std::string>() : version.dump());
    }
    versions.add(std::move(version_row));
    auto text = [](const std::string& s) { return s.empty() ? Value{} : Value{s}; };
    t.add({r.id,
           e.created_at,
           r.command,
           text(p.model.empty() ? r.subject : p.model),
           text(p.device),
           optional_integer(p.batch),
           text(p.input_size),
           text(p.mode),
           text(p.precision),
           text(p.memory_format),
           text(p.conv_algo),
           optional_integer(p.threads),
           p.training ? Value{*p.training} : Value{},
           text(p.optimizer),
           r.status,
           r.status == "ok" ? text(r.summary) : text(r.error),
           text(r.error),
           text(r.cell.sweep),
           text(r.cell.key),
           text(r.cell.stage),
           text(r.cell.shard),
           text(e.host),
           text(e.cpu),
           text(e.gpu),
           text(e.revision),
           Value{std::shared_ptr<const Table>(std::make_shared<Table>(std::move(versions)))},
           text(e.command_line),
           e.random_weights ? Value{*e.random_weights} : Value{},
           text(e.calibration),
           r.uid});
  }
  if (records.empty()) t.footer.push_back("no stored result matches");
  return doc;
}

std::vector<std::string> export_bench_csv(const std::vector<store::Record>& records, const std::string& directory) {
  std::vector<std::string> files{"overall.csv", "layers.csv", "metrics.csv", "benchmark_results.csv"};
  std::filesystem::create_directories(directory);
  for (const auto& f : files) std::filesystem::remove(std::filesystem::path(directory) / f);
  for (const auto& r : records) {
    if (r.command != "bench" || r.status != "ok") continue;
    if (auto typed = typed_result(r)) {
      // The run as the bench codec decodes it: the same tables `ridge bench --csv` appends.
      auto overall = overall_table(typed->runs);
      append_csv_file(directory, "overall.csv", overall);
      append_csv_file(directory, "layers.csv", layers_table(typed->runs));
      append_csv_file(directory, "metrics.csv", metrics_table(overall, r.cell.key));
      append_csv_file(directory, "benchmark_results.csv", benchmark_results_table(overall));
      continue;
    }
    // A result stored before results were typed (schema 2) has its printed document only: its tables are copied as
    // they are, cell for cell, never interpreted.
    if (r.document.is_null()) continue;
    auto doc = decode_document(r.document);
    const auto* overall = doc.find("overall");
    if (!overall) continue;
    append_csv_file(directory, "overall.csv", *overall);
    // The run's nodes (a nested table of its row in `runs`) and its overall row make its layers.
    const auto* runs = doc.find("runs");
    const auto* cell = runs && !runs->rows.empty() ? runs->cell(runs->rows.front(), "nodes") : nullptr;
    if (const auto* nodes = cell ? std::get_if<std::shared_ptr<const Table>>(cell) : nullptr; nodes && *nodes)
      append_csv_file(directory, "layers.csv", layers_table(*overall, **nodes));
    append_csv_file(directory, "metrics.csv", metrics_table(*overall, r.cell.key));
    append_csv_file(directory, "benchmark_results.csv", benchmark_results_table(*overall));
  }
  std::vector<std::string> written;
  for (const auto& f : files)
    if (std::filesystem::exists(std::filesystem::path(directory) / f))
      written.push_back((std::filesystem::path(directory) / f).string());
  return written;
}

std::string holds_line(const std::string& store_path, int64_t held, int64_t added) {
  return fmt::format("{} now holds {} result{} ({} added)", store_path, held, held == 1 ? "" : "s", added);
}

void merge_stores(const std::vector<std::string>& inputs, const std::string& output,
                  const std::function<void(const std::string&)>& line) {
  store::Store target(output);
  int64_t total = 0;
  for (const auto& input : inputs) {
    auto held = store::Store(input, true).count();
    auto added = target.merge_from(input);
    total += added;
    line(fmt::format("{}: {} results, {} added, {} already in {}", input, held, added, held - added, output));
  }
  line(holds_line(output, target.count(), total));
}

void print_results(const ResultsRequest& r, std::ostream& out) {
  store::Store store(r.store_path, true);
  if (!r.export_dir.empty()) {
    auto files = export_bench_csv(store.query(r.filter), r.export_dir);
    if (files.empty()) throw Error("no stored bench result matches: nothing to export");
    for (const auto& f : files) out << fmt::format("wrote {}\n", f);
    return;
  }
  if (!r.show) return emit(results_document(store.query(r.filter, false), r.store_path), r.format, out);
  // The stored documents themselves, as the commands printed them.
  auto records = store.query(r.filter);
  if (records.empty()) throw Error("no stored result matches");
  for (const auto& record : records) {
    if (record.document.is_null()) {
      out << fmt::format("result {}: {} failed: {}\n", record.id, record.command, record.error);
      continue;
    }
    if (r.format == "table" || r.format == "md")
      out << fmt::format("result {} ({}, {}):\n", record.id, record.command, record.environment.created_at);
    emit(decode_document(record.document), r.format, out);
  }
}

}  // namespace ridge::report
