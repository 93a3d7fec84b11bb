// ridge: git-style subcommands. Every failure the user can cause ends in one line on stderr
// and a nonzero exit code: 1 for bad input, 2 for bad usage.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>

#include "cli/command.h"
#include "util/build_info.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"ridge: how a DNN performs on your hardware, and why"};
  app.set_version_flag("--version", fmt::format("ridge {} ({})", ridge::kVersion, ridge::kRevision));
  app.require_subcommand(1);
  std::vector<ridge::cli::Command> commands{
      ridge::cli::add_analyze_command(app), ridge::cli::add_graph_command(app),
      ridge::cli::add_ops_command(app),     ridge::cli::add_devices_command(app),
      ridge::cli::add_predict_command(app), ridge::cli::add_calibrate_command(app),
      ridge::cli::add_ert_command(app),     ridge::cli::add_run_command(app),
      ridge::cli::add_bench_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "ridge: " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    for (auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const ridge::Error& e) {
    std::cerr << "ridge: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "ridge: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ridge: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
