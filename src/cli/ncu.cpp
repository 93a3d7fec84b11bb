// `ridge ncu command|run -- PROGRAM ARGS...`: the Nsight Compute command lines of the hierarchical
// roofline (one per point of --sweep), and running them, then importing the CSVs they wrote.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/command.h"
#include "cli/import_ncu.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "profile/ncu_metrics.h"
#include "report/ncu_command_report.h"
#include "report/ncu_import_command.h"

namespace ridge::cli {
namespace {

// `ncu command` prints in a format of its own; `ncu run` prints in its import's.
struct PrintOptions {
  profile::NcuRunRequest request;
  std::string format = "table";
};

// The options `command` and `run` share: the program, the filters, the sweep.
void add_common_options(CLI::App& app, profile::NcuRunRequest& o) {
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

void print_line(const std::string& line) { fmt::print(std::cerr, "{}\n", line); }

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

  auto print = std::make_shared<PrintOptions>();
  auto* command = app->add_subcommand("command", "print the ncu command line(s) of the hierarchical roofline");
  add_common_options(*command, print->request);
  command->add_option("--ncu", print->request.ncu.ncu, "the ncu program named in the lines (default: ncu)");
  command->add_option("--output-dir", print->request.ncu.output_dir,
                      "the directory the lines have ncu write the CSVs to (default: the working directory)");
  add_format_option(*command, print->format);
  command->footer(std::string(kFooter) +
                  "\nExamples:\n"
                  "  ridge ncu command -- ./app --batch 8\n"
                  "  ridge ncu command --sweep batch=1,8,32 --kernel-name gemm -- python3 infer.py --batch {batch}\n"
                  "  ridge ncu command --nvtx-include 'forward/' --clock-control none -f json -- ./app");

  struct RunOptions {
    profile::NcuRunRequest ncu;
    bool no_import = false;
    NcuImportOptions import;
  };
  auto run = std::make_shared<RunOptions>();
  run->ncu.ncu.ncu.clear();  // found on PATH or in the CUDA toolkit
  run->ncu.ncu.output_dir.clear();
  auto* run_app = app->add_subcommand("run", "run the ncu command line(s) and import the CSVs they write");
  add_common_options(*run_app, run->ncu);
  run_app->add_option("--ncu", run->ncu.ncu.ncu,
                      "the ncu program (default: ncu on PATH, else /usr/local/cuda/bin/ncu)");
  run_app->add_option("--output-dir", run->ncu.ncu.output_dir,
                      "the directory for the CSVs and the programs' logs (default: ./ncu-YYYYmmdd-HHMMSS)");
  run_app->add_flag("--no-import", run->no_import,
                    "only write the CSVs (and print where they are); import them later with ridge import ncu");
  add_ncu_import_options(*run_app, run->import);
  add_output_options(*run_app, run->import.format, run->import.store);
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
              emit(report::ncu_command(print->request, print_line), print->format);
              return 0;
            }
            if (run_app->parsed()) return report::run_ncu_points(run->ncu, !run->no_import, run->import);
            return 2;
          }};
}

}  // namespace ridge::cli
