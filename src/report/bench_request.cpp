#include "report/bench_request.h"

#include <fmt/format.h>

#include <memory>

#include "exec/bench_codec.h"
#include "power/bench_meter.h"
#include "report/bench_report.h"
#include "report/result_import.h"
#include "util/error.h"

namespace ridge::report {

exec::BenchOutcome measure_bench(const BenchCommand& c, const BenchProgressFn& progress, const KeepBenchFn& keep) {
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  exec::BenchHooks hooks;
  if (!c.power.empty())
    hooks.open_meter = [&] {
      return std::make_unique<power::BenchMeter>(power::BenchMeterOptions{c.power, c.idle_time_s, c.dynamic_only, say});
    };
  hooks.on_result = [&](size_t i, size_t total, const std::string& label, const exec::BenchResult& result) {
    if (!c.csv_dir.empty()) append_bench_csv(c.csv_dir, {result});
    if (keep) keep(bench_run_document(result, c.top), bench_params(result), {.kind = "bench", .runs = {result}});
    say(fmt::format("[{}/{}] {}: {:.3f} ms", i + 1, total, label, result.latency_ms.mean));
  };
  hooks.on_failure = [&](size_t i, size_t total, const std::string& label, const std::string& why) {
    say(fmt::format("[{}/{}] {}: failed: {}", i + 1, total, label, why));
  };
  return exec::bench(c.bench, hooks);
}

std::vector<std::string> bench_failure_lines(const exec::BenchOutcome& outcome, const std::string& csv_dir) {
  std::vector<std::string> lines;
  for (const auto& f : outcome.failures) lines.push_back("error: " + f);
  if (!outcome.runs.empty() && !outcome.failures.empty())
    lines.push_back(fmt::format("{} of {} points failed; the {} measured are above{}", outcome.failures.size(),
                                outcome.points, outcome.runs.size(), csv_dir.empty() ? "" : " and in " + csv_dir));
  return lines;
}

int bench_and_keep(const BenchCommand& command, const std::string& format, const StoreOptions& store, std::ostream& out,
                   std::ostream& err) {
  auto outcome = measure_bench(
      command,
      [&err](const std::string& line) {
        if (!invocation().quiet) err << fmt::format("bench: {}\n", line);
      },
      [&store](const Document& doc, const store::Params& params, const TypedResult& value) {
        keep_result(store, doc, params, value);
      });
  const auto& runs = outcome.runs;
  if (!runs.empty())
    emit(
        bench_document(runs, command.top), format, [&] { return exec::encode_bench(runs); }, out);
  if (outcome.failures.empty()) return 0;
  // A sweep cell is one point: its failure is the cell's error, which the sweep stores.
  if (invocation().quiet) throw Error(outcome.failures.front());
  for (const auto& line : bench_failure_lines(outcome, command.csv_dir)) err << fmt::format("ridge: {}\n", line);
  return 1;
}

std::string list_algorithms_excludes(const std::vector<std::string>& given) {
  for (const auto& name : given)
    if (name != "--list-algorithms" && name != "--format" && name != "--help") return name;
  return "";
}

}  // namespace ridge::report
