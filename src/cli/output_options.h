#pragma once
// `-f/--format`, the same for every command: any document prints in every format.
#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "report/document.h"
#include "report/printer.h"

namespace ridge::cli {

// Adds -f/--format (table, csv, json, md), checked while parsing: a bad name is a usage error (exit 2).
CLI::Option* add_format_option(CLI::App& app, std::string& format);

// Prints `doc` on stdout in `format`.
void emit(const report::Document& doc, const std::string& format);
// Prints `doc`, or with `-f json` the result's own codec output (`value`): JSON is what readers of the result
// decode, so it is the codec's, never the document's.
// `encode` runs only when JSON is printed.
void emit(const report::Document& doc, const std::string& format,
          const std::function<nlohmann::ordered_json()>& encode);

}  // namespace ridge::cli
