#pragma once
// The ncu command lines of `ridge ncu command|run`: one Nsight Compute run per point of a sweep, each
// asking for the hierarchical-roofline metrics (profile/ncu_metrics.h) as a details-page CSV in its
// own file, the program's arguments with every {NAME} replaced by the point's value.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ridge::profile {

struct NcuOptions {
  std::string ncu = "ncu";                // the ncu program: argv[0]
  std::vector<std::string> program;       // PROGRAM ARGS..., {NAME} placeholders included
  std::vector<std::string> nvtx_include;  // one --nvtx-include each (with --nvtx once)
  std::string kernel_name;                // a regular expression over kernel names; empty: every kernel
  int64_t launch_skip = -1;               // kernel launches not profiled first; -1: ncu's default
  int64_t launch_count = -1;              // kernel launches profiled at most; -1: all
  std::string clock_control;              // "base" or "none"; empty: ncu's default (base)
  std::string target_processes;           // "all" or "application-only"; empty: ncu's default
  std::string output_dir = ".";           // where the CSVs and logs go
  std::string cc;  // the GPU's compute capability ("9.0"): its own counters are asked for too; empty: none
};

// One --sweep NAME=V1,V2,...
struct SweepAxis {
  std::string name;
  std::vector<std::string> values;
};
// Parses "batch=1,8,32"; a malformed one is a one-line ridge::Error.
SweepAxis parse_sweep(const std::string& text);

struct NcuPoint {
  std::vector<std::pair<std::string, std::string>> values;  // (sweep name, value), in the order given
  std::string label;                                        // "batch=8,seq=128"; empty without sweeps
  std::string csv_path;                                     // where ncu writes the CSV
  std::string log_path;                                     // the program's own output, beside the CSV
  std::vector<std::string> argv;                            // ncu, its options, the program and its args
  // The value of the sweep named `name`; empty when there is none.
  std::string value(const std::string& name) const;
};

// The ncu argv for one run of `program` (placeholders already replaced) writing `csv_path`.
std::vector<std::string> ncu_argv(const NcuOptions& options, const std::vector<std::string>& program,
                                  const std::string& csv_path);

// One point per element of the sweeps' cartesian product (the first sweep varies slowest), one point
// when there are none. Refused with a one-line ridge::Error: no program, a sweep named twice, a sweep
// whose {NAME} appears nowhere in PROGRAM ARGS, a {NAME} without its sweep.
std::vector<NcuPoint> ncu_points(const NcuOptions& options, const std::vector<SweepAxis>& sweeps);

// `text` as part of a file name: letters, digits and . _ - = , + kept, anything else '_'.
std::string file_safe(const std::string& text);
// `argv` as one line for a POSIX shell: pasted into bash it runs the same argv.
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace ridge::profile
