// `ridge ncu command|run -- PROGRAM ARGS...`: the Nsight Compute command lines of the hierarchical
// roofline (one per point of --sweep), and running them, then importing the CSVs they wrote.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/import_ncu.h"
#include "cli/ncu_runs.h"
#include "cli/output_options.h"
#include "profile/ncu_command.h"
#include "profile/ncu_metrics.h"
#include "profile/ncu_run.h"
#include "report/ncu_command_report.h"
#include "util/error.h"
#include "util/program.h"

namespace ridge::cli {
namespace {

constexpr const char* kCudaNcu = "/usr/local/cuda/bin/ncu";

// The options `command` and `run` share: the program, the filters, the sweep.
void add_common_options(CLI::App& app, NcuCliOptions& o) {
  app.add_option("program", o.ncu.program,
                 "the program to profile and its arguments, after --; {NAME} is replaced by each value of "
                 "--sweep NAME=...")
      ->required();
  app.add_option("--nvtx-include", o.ncu.nvtx_include,
                 "profile only kernels inside this NVTX range (ncu --nvtx --nvtx-include syntax: 'range/', "
                 "'domain@range/'); repeatable")
      ->allow_extra_args(false);
  app.add_option("--kernel-name", o.ncu.kernel_name,
                 "profile only kernels whose name matches this regular expression (ncu --kernel-name regex:X)");
  app.add_option("--launch-skip", o.ncu.launch_skip, "kernel launches to skip before profiling (after the filters)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--launch-count", o.ncu.launch_count, "kernel launches to profile at most (after the filters)")
      ->check(CLI::PositiveNumber);
  app.add_option("--clock-control", o.ncu.clock_control,
                 "base: ncu locks the GPU clocks to base (its default; comparable runs); none: the clocks as they "
                 "are (boost, power modes: what the workload really sees)")
      ->check(CLI::IsMember({"base", "none"}));
  app.add_option("--target-processes", o.ncu.target_processes,
                 "all: profile child processes too (launchers, Python workers); application-only: the program "
                 "alone (default: ncu's, all in current versions)")
      ->check(CLI::IsMember({"all", "application-only"}));
  app.add_option("--cc", o.ncu.cc,
                 "the GPU's compute capability: ask for its own counters too, the tensor-core ops counters that count "
                 "tensor work exactly (ncu run reads it from nvidia-smi when not given)")
      ->check(CLI::IsMember(profile::ncu_cc_tables()));
  app.add_option("--sweep", o.sweeps,
                 "NAME=V1,V2,...: one ncu run per value, each {NAME} in the program's arguments replaced by it; "
                 "repeatable (every combination); a sweep named batch gives each run its batch size")
      ->allow_extra_args(false);
}

std::vector<profile::NcuPoint> points_of(const NcuCliOptions& o) {
  std::vector<profile::SweepAxis> axes;
  for (const auto& text : o.sweeps) axes.push_back(profile::parse_sweep(text));
  return profile::ncu_points(o.ncu, axes);
}

// --ncu PATH, else `ncu` on PATH, else the CUDA toolkit's; a one-line error with the fix when none is.
std::string find_ncu(const std::string& flag) {
  if (!flag.empty()) {
    if (flag.find('/') == std::string::npos) {
      if (auto found = find_on_path(flag)) return *found;
    } else if (::access(flag.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(flag)) {
      return flag;
    }
    throw Error(fmt::format("ncu not found at {}: give --ncu the path of Nsight Compute's ncu", flag));
  }
  if (auto found = find_on_path("ncu")) return *found;
  if (::access(kCudaNcu, X_OK) == 0) return kCudaNcu;
  throw Error(
      "ncu not found: install Nsight Compute (with the CUDA toolkit, or NVIDIA's nsight-compute package; "
      "https://developer.nvidia.com/nsight-compute) or give --ncu PATH");
}

std::string default_output_dir() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char name[64];
  std::strftime(name, sizeof name, "ncu-%Y%m%d-%H%M%S", &local);
  return name;
}

int64_t batch_of(const profile::NcuPoint& point) {
  auto text = point.value("batch");
  int64_t batch = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), batch);
  return error == std::errc() && end == text.data() + text.size() && batch > 0 ? batch : 0;
}

// Where the compute capability is unknown, tensor-core work is counted only from instruction counts: say so.
void note_without_cc(const std::string& why) {
  fmt::print(std::cerr,
             "note: {}: the tensor-core ops counters are not asked for, so tensor-core work is counted only where "
             "instruction counts fix it (Volta); --cc {} asks for them\n",
             why, fmt::join(profile::ncu_cc_tables(), "|"));
}

std::string shown_label(const profile::NcuPoint& point) { return point.label.empty() ? "ncu" : point.label; }

}  // namespace

int run_ncu_points(const NcuCliOptions& o, const std::string& ncu_flag, bool import, NcuImportOptions import_options) {
  auto options = o;
  options.ncu.ncu = find_ncu(ncu_flag);
  points_of(options);  // a bad sweep is refused before anything is said or run
  if (options.ncu.cc.empty()) {
    auto cc = profile::gpu_compute_capability();
    auto tables = profile::ncu_cc_tables();
    if (std::find(tables.begin(), tables.end(), cc) != tables.end()) {
      options.ncu.cc = cc;
      fmt::print(std::cerr, "GPU compute capability {} (nvidia-smi): asking for its tensor-core ops counters too\n",
                 cc);
    } else {
      note_without_cc(cc.empty() ? "no compute capability from nvidia-smi"
                                 : fmt::format("compute capability {} has no counter table in ridge", cc));
    }
  }
  if (options.ncu.output_dir.empty()) options.ncu.output_dir = default_output_dir();
  auto points = points_of(options);
  std::error_code ec;
  std::filesystem::create_directories(options.ncu.output_dir, ec);
  if (ec) throw Error(fmt::format("cannot create {}: {}", options.ncu.output_dir, ec.message()));

  std::vector<profile::NcuPointRun> runs;
  std::vector<std::string> failed;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& point = points[i];
    fmt::print(std::cerr, "[{}/{}] {}: running ncu (the program's output goes to {})\n", i + 1, points.size(),
               shown_label(point), point.log_path);
    auto run = profile::run_ncu_point(point);
    runs.push_back(run);
    const auto& d = run.diagnosis;
    // No permission, no profiling on this GPU, no ncu: every later point would fail alike.
    if (d.stops_all()) throw Error(d.message);
    if (d.failure == profile::NcuFailure::kNone) {
      fmt::print(std::cerr, "[{}/{}] {}: done in {:.1f} s: {}\n", i + 1, points.size(), shown_label(point),
                 run.elapsed_s, point.csv_path);
      import_options.files.push_back(point.csv_path);
      import_options.run_labels.push_back(point.label);
      import_options.batches.push_back(batch_of(point));
    } else {
      fmt::print(std::cerr, "[{}/{}] {}: failed after {:.1f} s: {}\n", i + 1, points.size(), shown_label(point),
                 run.elapsed_s, d.message);
      failed.push_back(shown_label(point));
    }
  }

  int code = 0;
  if (!import) {
    emit(report::ncu_run_document(points, runs), import_options.format);
  } else if (!import_options.files.empty()) {
    code = run_ncu_import(import_options);
  }
  if (!failed.empty()) {
    std::string names;
    for (const auto& name : failed) names += (names.empty() ? "" : ", ") + name;
    throw Error(fmt::format("{} of {} ncu runs failed: {}{}", failed.size(), points.size(), names,
                            import_options.files.empty()
                                ? ""
                                : fmt::format(" (the CSVs of the others are in {}{})", options.ncu.output_dir,
                                              import ? " and were imported" : "")));
  }
  return code;
}

namespace {

const char* const kFooter =
    "ncu asks for the metrics of the hierarchical roofline (docs/ncu.md): kernel time, SM clock, FP64/FP32/FP16\n"
    "add/mul/fma and tensor-pipe instructions, bytes at L1, L2 and DRAM, and on a GPU of a known compute capability\n"
    "(--cc 9.0) its tensor-core ops counters, as a details-page CSV with the NVTX ranges (--log-file), one file per\n"
    "point of --sweep: OUTDIR/ncu.csv, or OUTDIR/ncu-batch=8.csv.";

}  // namespace

Command add_ncu_command(CLI::App& parent) {
  auto* app =
      parent.add_subcommand("ncu", "Nsight Compute command lines for the hierarchical roofline, and running them");
  app->require_subcommand(1);

  auto print = std::make_shared<NcuCliOptions>();
  auto* command = app->add_subcommand("command", "print the ncu command line(s) of the hierarchical roofline");
  add_common_options(*command, *print);
  command->add_option("--ncu", print->ncu.ncu, "the ncu program named in the lines (default: ncu)");
  command->add_option("--output-dir", print->ncu.output_dir,
                      "the directory the lines have ncu write the CSVs to (default: the working directory)");
  add_format_option(*command, print->format);
  command->footer(std::string(kFooter) +
                  "\nExamples:\n"
                  "  ridge ncu command -- ./app --batch 8\n"
                  "  ridge ncu command --sweep batch=1,8,32 --kernel-name gemm -- python3 infer.py --batch {batch}\n"
                  "  ridge ncu command --nvtx-include 'forward/' --clock-control none -f json -- ./app");

  struct RunOptions {
    NcuCliOptions ncu;
    std::string ncu_path;
    bool no_import = false;
    NcuImportOptions import;
  };
  auto run = std::make_shared<RunOptions>();
  run->ncu.ncu.output_dir.clear();
  auto* run_app = app->add_subcommand("run", "run the ncu command line(s) and import the CSVs they write");
  add_common_options(*run_app, run->ncu);
  run_app->add_option("--ncu", run->ncu_path,
                      "the ncu program (default: ncu on PATH, else " + std::string(kCudaNcu) + ")");
  run_app->add_option("--output-dir", run->ncu.ncu.output_dir,
                      "the directory for the CSVs and the programs' logs (default: ./ncu-YYYYmmdd-HHMMSS)");
  run_app->add_flag("--no-import", run->no_import,
                    "only write the CSVs (and print where they are); import them later with ridge import ncu");
  add_ncu_import_options(*run_app, run->import);
  add_format_option(*run_app, run->import.format);
  add_store_options(*run_app, run->import.store);
  run_app->footer(
      std::string(kFooter) +
      "\nEach run prints a progress line on stderr; the program's own output goes to a .log beside its CSV. A run\n"
      "that fails (the program's exit code, no kernels matched) is named at the end and the exit code is 1; the\n"
      "CSVs of the others stay and are imported. No permission to the GPU counters (ERR_NVGPUCTRPERM) or a GPU\n"
      "that cannot be profiled (vGPU, MIG) stops at once with one line saying how to fix it.\n"
      "Examples:\n"
      "  ridge ncu run -- ./app --batch 8\n"
      "  ridge ncu run --sweep batch=1,8,32 -d a100 --output-dir runs/ncu -- python3 infer.py --batch {batch}");

  return {app, [command, print, run_app, run] {
            if (command->parsed()) {
              auto points = points_of(*print);
              if (print->ncu.cc.empty()) note_without_cc("no --cc");
              emit(report::ncu_command_document(points, print->ncu.cc), print->format);
              return 0;
            }
            if (run_app->parsed()) return run_ncu_points(run->ncu, run->ncu_path, !run->no_import, run->import);
            return 2;
          }};
}

}  // namespace ridge::cli
