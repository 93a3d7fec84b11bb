#pragma once
// The command table, and running a ridge command line inside this process (a sweep runs its cells
// this way: no process start, no reloading of the executor module per cell).
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cli/command.h"

namespace ridge::cli {

// Registers every subcommand on `app`.
std::vector<Command> add_commands(CLI::App& app);

// Runs the command `app` parsed; returns the exit code: 0, or 1 with the one line of what went wrong in `error`
// ("internal error: ..." for a failure that is ridge's, not the input's). The binary and run_in_process share it.
int run_parsed(const std::vector<Command>& commands, std::string& error);

// Parses with `parse` (one of CLI11's App::parse calls on `app`), then runs the command parsed: the exit code of
// run_parsed; 0 after --help or --version (printed by `app` when `print_help`); 2 for bad usage, with CLI11's line in
// `error`. The binary and run_in_process map a command line to its exit code only here.
int parse_and_run(CLI::App& app, const std::vector<Command>& commands, const std::function<void()>& parse,
                  bool print_help, std::string& error);

// The line printed after "ridge: " for `error` that ended in exit code `code`: bad usage points to --help, a failure
// of ridge's own keeps its "internal error: ", any other failure reads "error: WHAT".
std::string error_line(int code, const std::string& error);

// Parses and runs `args` (the words after "ridge"); returns the exit code, and in `error` the one
// line ridge would have printed on failure.
int run_in_process(const std::vector<std::string>& args, std::string& error);

}  // namespace ridge::cli
