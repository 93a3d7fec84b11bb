#include "cli/app.h"

#include <algorithm>
#include <functional>
#include <new>

#include "util/error.h"

namespace ridge::cli {

std::vector<Command> add_commands(CLI::App& app) {
  return {add_analyze_command(app), add_graph_command(app),   add_ops_command(app),       add_devices_command(app),
          add_predict_command(app), add_compare_command(app), add_calibrate_command(app), add_ert_command(app),
          add_run_command(app),     add_bench_command(app),   add_models_command(app),    add_results_command(app),
          add_store_command(app),   add_sweep_command(app),   add_status_command(app),    add_doctor_command(app),
          add_plot_command(app),    add_report_command(app),  add_import_command(app),    add_ncu_command(app),
          add_profile_command(app), add_power_command(app),   add_tune_command(app)};
}

int parse_and_run(CLI::App& app, const std::vector<Command>& commands, const std::function<void()>& parse,
                  bool print_help, std::string& error) {
  try {
    parse();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return print_help ? app.exit(e) : 0;  // --help, --version
    error = e.what();
    return 2;
  }
  return run_parsed(commands, error);
}

std::string error_line(int code, const std::string& error) {
  if (code == 2) return error + " (see --help)";
  return error.starts_with("internal error: ") ? error : "error: " + error;
}

int run_in_process(const std::vector<std::string>& args, std::string& error) {
  CLI::App app{"ridge"};
  app.require_subcommand(1);
  auto commands = add_commands(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  return parse_and_run(
      app, commands, [&] { app.parse(reversed); }, false, error);
}

int run_parsed(const std::vector<Command>& commands, std::string& error) {
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const Error& e) {
    error = e.what();
    return 1;
  } catch (const std::bad_alloc&) {
    error = "out of memory";
    return 1;
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
    return 1;
  }
  return 0;
}

}  // namespace ridge::cli
