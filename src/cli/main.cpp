// ridge: git-style subcommands. Every failure the user can cause ends in one line on stderr
// and a nonzero exit code: 1 for bad input, 2 for bad usage.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/app.h"
#include "report/command_output.h"
#include "util/build_info.h"
#include "util/format.h"

int main(int argc, char** argv) {
  CLI::App app{"ridge: how a DNN performs on your hardware, and why"};
  app.set_version_flag("--version", fmt::format("ridge {} ({})", ridge::kVersion, ridge::kRevision));
  app.require_subcommand(1);
  auto commands = ridge::cli::add_commands(app);
  ridge::report::invocation().command_line = ridge::report::command_line(argc, argv);
  // "unknown command 'analyse'; did you mean 'analyze'?" before CLI11's generic message.
  std::vector<std::string> names;
  for (const auto* command : app.get_subcommands({})) names.push_back(command->get_name());
  if (argc > 1 && argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    std::cerr << "ridge: " << ridge::unknown_name("command", argv[1], names) << "\n";
    return 2;
  }
  std::string error;
  int code = ridge::cli::parse_and_run(
      app, commands, [&] { app.parse(argc, argv); }, true, error);
  if (code != 0 && !error.empty()) std::cerr << "ridge: " << ridge::cli::error_line(code, error) << "\n";
  return code;
}
