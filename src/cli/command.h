#pragma once
// A subcommand: registers its options on the app and runs when selected.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace ridge::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_analyze_command(CLI::App& parent);
Command add_graph_command(CLI::App& parent);
Command add_ops_command(CLI::App& parent);
Command add_devices_command(CLI::App& parent);
Command add_predict_command(CLI::App& parent);
Command add_compare_command(CLI::App& parent);
Command add_calibrate_command(CLI::App& parent);
Command add_ert_command(CLI::App& parent);
Command add_run_command(CLI::App& parent);
Command add_bench_command(CLI::App& parent);
Command add_models_command(CLI::App& parent);
Command add_results_command(CLI::App& parent);
Command add_store_command(CLI::App& parent);
Command add_sweep_command(CLI::App& parent);
Command add_status_command(CLI::App& parent);
Command add_doctor_command(CLI::App& parent);
Command add_plot_command(CLI::App& parent);
Command add_report_command(CLI::App& parent);
Command add_import_command(CLI::App& parent);
Command add_ncu_command(CLI::App& parent);
Command add_profile_command(CLI::App& parent);
Command add_power_command(CLI::App& parent);
Command add_tune_command(CLI::App& parent);

}  // namespace ridge::cli
