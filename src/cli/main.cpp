// ridge: git-style subcommands. Every failure the user can cause ends in one line on stderr
// and a nonzero exit code: 1 for bad input, 2 for bad usage.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string_view>

#include "cli/command.h"
#include "util/build_info.h"
#include "util/error.h"

namespace {

// Edit distance (insertions, deletions, substitutions), to suggest the command a typo meant.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "unknown command 'analyse' (did you mean 'analyze'?)" before CLI11's generic message.
std::string unknown_command(const CLI::App& app, std::string_view word) {
  std::string best;
  size_t best_distance = 3;  // farther than two edits is no suggestion
  for (const auto* command : app.get_subcommands({})) {
    size_t d = edit_distance(word, command->get_name());
    if (d < best_distance) best_distance = d, best = command->get_name();
  }
  std::string names;
  for (const auto* command : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + command->get_name();
  return fmt::format("unknown command '{}'{} (commands: {})", word,
                     best.empty() ? "" : fmt::format("; did you mean '{}'?", best), names);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ridge: how a DNN performs on your hardware, and why"};
  app.set_version_flag("--version", fmt::format("ridge {} ({})", ridge::kVersion, ridge::kRevision));
  app.require_subcommand(1);
  std::vector<ridge::cli::Command> commands{
      ridge::cli::add_analyze_command(app),   ridge::cli::add_graph_command(app),
      ridge::cli::add_ops_command(app),       ridge::cli::add_devices_command(app),
      ridge::cli::add_predict_command(app),   ridge::cli::add_compare_command(app),
      ridge::cli::add_calibrate_command(app), ridge::cli::add_ert_command(app),
      ridge::cli::add_run_command(app),       ridge::cli::add_bench_command(app),
      ridge::cli::add_models_command(app),    ridge::cli::add_doctor_command(app)};
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
