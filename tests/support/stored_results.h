#pragma once
// What the store holds after a command kept its result, read back in process as `ridge results -f json` lists it and
// as `ridge results import` reports a file brought in: the in-process tests check what a command kept without starting
// the binary to list it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "report/result_import.h"
#include "report/results_report.h"

namespace ridge::test {

// `ridge results --store STORE -f json`, parsed ({} when it printed no JSON: the assertions on it then fail).
inline nlohmann::json stored_results(const std::string& store) {
  std::ostringstream out;
  report::print_results({.store_path = store, .format = "json"}, out);
  EXPECT_TRUE(nlohmann::json::accept(out.str())) << out.str();
  return nlohmann::json::accept(out.str()) ? nlohmann::json::parse(out.str()) : nlohmann::json::object();
}

// What `ridge results import FILE --store STORE` prints: a line for the file, then the store's total.
inline std::string import_into(const std::string& file, const std::string& store) {
  std::string text;
  report::import_into_store({file}, store, [&](const std::string& line) { text += line + "\n"; });
  return text;
}

}  // namespace ridge::test
