#pragma once
// `ridge bench` as one call: the points measured through exec::bench, power measured around them from a live source
// (power::BenchMeter), each point appended to the CSV files, handed to `keep` with its document and a progress line
// as it completes (a run that fails later, or is killed, keeps it), and the lines that report failed points.
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "exec/bench.h"
#include "report/command_output.h"
#include "report/document.h"
#include "report/result_codec.h"
#include "store/record.h"

namespace ridge::report {

struct BenchCommand {
  exec::BenchRequest bench;
  std::string power;          // a live power source; empty: power is not measured
  double idle_time_s = 1;     // idle power measured before the first point
  bool dynamic_only = false;  // subtract the idle power
  std::string csv_dir;        // each point appended to DIR/overall.csv, layers.csv and nodes.csv; empty: none
  int top = 10;               // the slowest nodes listed in each point's document
};

// One line of progress, without the command's prefix ("[1/4] batch 1, eager auto: 1.234 ms").
using BenchProgressFn = std::function<void(const std::string& line)>;
// A measured point to keep: its document, its parameters and the result itself.
using KeepBenchFn = std::function<void(const Document&, const store::Params&, const TypedResult&)>;

// Throws what exec::bench throws, and what `keep` or the CSV files throw (the matrix stops there).
exec::BenchOutcome measure_bench(const BenchCommand& command, const BenchProgressFn& progress, const KeepBenchFn& keep);

// The lines (without "ridge: ") that report the failed points of `outcome`: "error: WHY" for each, then, when some
// were measured, how many failed and where the others are.
std::vector<std::string> bench_failure_lines(const exec::BenchOutcome& outcome, const std::string& csv_dir);

// `ridge bench` printed and kept: measure_bench with a progress line "bench: ..." on `err` (none while a sweep runs
// the command as a cell) and each point kept in the store as it completes, then the runs' document printed on `out`
// in `format` (-f json: the bench codec's). Returns 0, or 1 after a line "ridge: ..." on `err` per failure line
// (bench_failure_lines); in a sweep's cell, the first failure is thrown as the cell's error (ridge::Error).
int bench_and_keep(const BenchCommand& command, const std::string& format, const StoreOptions& store,
                   std::ostream& out = std::cout, std::ostream& err = std::cerr);

// `ridge bench --list-algorithms` prints the choices (exec::choices) and takes no MODEL and no option but -f: of the
// options given, by name ("model", "--batch", "--format"), the first it excludes; "" when none.
std::string list_algorithms_excludes(const std::vector<std::string>& given);

}  // namespace ridge::report
