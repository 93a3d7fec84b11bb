#pragma once
// `-f/--format`, the same for every command: any document prints in every format.
#include <CLI/CLI.hpp>
#include <string>

#include "report/document.h"
#include "report/printer.h"

namespace ridge::cli {

// Adds -f/--format (table, csv, json, md), checked while parsing: a bad name is a usage error (exit 2).
CLI::Option* add_format_option(CLI::App& app, std::string& format);

// Prints `doc` on stdout in `format`.
void emit(const report::Document& doc, const std::string& format);

}  // namespace ridge::cli
