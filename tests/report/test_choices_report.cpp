// `ridge bench --list-algorithms` in process (report/choices_report): every value of the execution options, the
// CPU's convolution algorithms, then cuDNN's, then "all", in every format.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "exec/options.h"
#include "report/choices_report.h"
#include "report/command_output.h"

namespace ridge::test {
namespace {

using nlohmann::json;

// What `ridge bench --list-algorithms -f FORMAT` prints.
std::string listed(const std::string& format) {
  std::ostringstream out;
  auto saved = report::invocation();
  report::invocation().quiet = false;
  report::emit(report::choices_document(exec::choices(true)), format, out);
  report::invocation() = saved;
  return out.str();
}

// The CPU's, then cuDNN's (--device cuda), then "all".
std::vector<std::string> every_algorithm() {
  auto algorithms = exec::conv_algo_names();
  for (const auto& name : exec::cudnn_conv_algo_names()) algorithms.push_back(name);
  algorithms.emplace_back(exec::kAllConvAlgos);
  return algorithms;
}

TEST(ChoicesReport, ListsEveryValue) {
  auto table = listed("table");
  std::vector<std::string> values;
  std::istringstream lines(table);
  for (std::string line, option, value; std::getline(lines, line);)
    if (std::istringstream(line) >> option >> value && option == "--conv-algo") values.push_back(value);
  EXPECT_EQ(values, every_algorithm()) << table;
  for (const char* format : {"csv", "md"}) EXPECT_NE(listed(format).find("winograd"), std::string::npos) << format;
}

TEST(ChoicesReport, JsonHasEveryOptionValue) {
  std::map<std::string, std::vector<std::string>> values;
  auto doc = json::parse(listed("json"));
  for (const auto& o : doc.at("options")) {
    EXPECT_FALSE(o.at("description").get<std::string>().empty()) << o.dump();
    EXPECT_FALSE(o.at("applies_to").get<std::string>().empty()) << o.dump();
    values[o.at("option").get<std::string>()].push_back(o.at("name").get<std::string>());
  }
  EXPECT_EQ(values["--conv-algo"], every_algorithm());
  auto modes = exec::mode_names();
  modes.emplace_back(exec::kBothModes);
  EXPECT_EQ(values["--mode"], modes);
  EXPECT_EQ(values["--precision"], exec::precision_names());
  EXPECT_EQ(values["--memory-format"], exec::memory_format_names());
}

}  // namespace
}  // namespace ridge::test
