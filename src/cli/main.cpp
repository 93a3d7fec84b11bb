// ridge: git-style subcommands. Every failure the user can cause ends in one line on stderr
// and a nonzero exit code: 1 for bad input, 2 for bad usage.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string_view>

#include "cli/app.h"
#include "cli/store_options.h"
#include "util/build_info.h"
#include "util/error.h"
#include "util/format.h"

namespace {

// "unknown command 'analyse' (did you mean 'analyze'?)" before CLI11's generic message.
std::string unknown_command(const CLI::App& app, std::string_view word) {
  std::vector<std::string> commands;
  for (const auto* command : app.get_subcommands({})) commands.push_back(command->get_name());
  auto best = ridge::closest_name(word, commands);
  std::string names;
  for (const auto& name : commands) names += (names.empty() ? "" : ", ") + name;
  return fmt::format("unknown command '{}'{} (commands: {})", word,
                     best.empty() ? "" : fmt::format("; did you mean '{}'?", best), names);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ridge: how a DNN performs on your hardware, and why"};
  app.set_version_flag("--version", fmt::format("ridge {} ({})", ridge::kVersion, ridge::kRevision));
  app.require_subcommand(1);
  auto commands = ridge::cli::add_commands(app);
  ridge::cli::set_command_line(argc, argv);
  bool known = false;
  for (const auto* command : app.get_subcommands({})) known = known || (argc > 1 && command->get_name() == argv[1]);
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "ridge: " << unknown_command(app, argv[1]) << "\n";
    return 2;
  }
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
