#pragma once
// What a command hands on: its document printed in the format asked for (nothing while a sweep runs it as a cell),
// and its result kept in the results store; and the state of the invocation both read (the command line every result
// records, the sweep cell it belongs to, the store a sweep names).
#include <cstdint>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/document.h"
#include "report/result_codec.h"
#include "store/record.h"

namespace ridge::report {

// What the process is running: the command line every result records, and, while a sweep runs a
// cell, the cell its results belong to (and that the cell prints nothing).
struct Invocation {
  std::string command_line;
  store::Cell cell;
  bool quiet = false;
  std::string store_path;           // a sweep's store, for every cell it runs
  std::vector<int64_t> stored_ids;  // results this process saved, in order
};
Invocation& invocation();
// argv as one shell-quoted line.
std::string command_line(int argc, const char* const* argv);

// --store / --no-store as given.
struct StoreOptions {
  std::string path;  // empty: the invocation's store (a sweep's), else $RIDGE_STORE, else ridge-results.db
  bool disabled = false;
};
// The store path these options select.
std::string store_path(const StoreOptions& options);

// Prints `doc` on `out` in `format` (table, csv, json, md), unless the invocation is quiet.
void emit(const Document& doc, const std::string& format, std::ostream& out = std::cout);
// Prints `doc`, or with `-f json` the result's own codec output (`encode`): JSON is what readers of the result
// decode, so it is the codec's, never the document's. `encode` runs only when JSON is printed.
void emit(const Document& doc, const std::string& format, const std::function<nlohmann::ordered_json()>& encode,
          std::ostream& out = std::cout);

// Saves `doc` with its parameters and the environment (with the invocation's command line and cell), unless the
// options disable the store; the id goes to the invocation's `stored_ids`. A result that cannot be saved (an
// unwritable path, a damaged store) throws ridge::Error after the result was printed.
// `value`: the result itself, kept typed through its kind's codec (what readers of the store decode); its headline,
// environment and calibration come from it. `doc` is what the command printed, kept for `results --show`.
void keep_result(const StoreOptions& options, const Document& doc, store::Params params, const TypedResult& value);

}  // namespace ridge::report
