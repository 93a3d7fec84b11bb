#pragma once
// `-f/--format`, the same for every command: any document prints in every format.
#include <CLI/CLI.hpp>
#include <string>

#include "report/command_output.h"

namespace ridge::cli {

// Adds -f/--format (table, csv, json, md), checked while parsing: a bad name is a usage error (exit 2).
CLI::Option* add_format_option(CLI::App& app, std::string& format);

// Printing a document in that format, or a result's codec with -f json: report/command_output.h.
using report::emit;

}  // namespace ridge::cli
