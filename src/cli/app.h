#pragma once
// The command table, and running a ridge command line inside this process (a sweep runs its cells
// this way: no process start, no reloading of the executor module per cell).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.h"

namespace ridge::cli {

// Registers every subcommand on `app`.
std::vector<Command> add_commands(CLI::App& app);

// Runs the command `app` parsed; returns the exit code: 0, or 1 with the one line of what went wrong in `error`
// ("internal error: ..." for a failure that is ridge's, not the input's). The binary and run_in_process share it.
int run_parsed(const std::vector<Command>& commands, std::string& error);

// Parses and runs `args` (the words after "ridge"); returns the exit code, and in `error` the one
// line ridge would have printed on failure.
int run_in_process(const std::vector<std::string>& args, std::string& error);

}  // namespace ridge::cli
