// `ridge run` printed in process (report/run_report): the outputs of ONNX's BERT test model run on its own inputs, in
// every format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/request_builder.h"
#include "exec/run_model.h"
#include "report/command_output.h"
#include "report/run_report.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

// What `ridge run DATA/model.onnx --inputs DATA/test_data_set_0 -f FORMAT` prints.
std::string run_printed(const std::string& data, const std::string& format) {
  exec::RunRequest request;
  request.model = analysis::make_request({.model = data + "/model.onnx"});
  request.exec.inputs_dir = data + "/test_data_set_0";
  std::ostringstream out;
  report::emit(report::run_document(request, exec::run_model(request)), format, out);
  return out.str();
}

TEST(RunReport, PrintsEveryFormat) {
  auto saved = report::invocation();
  report::invocation().quiet = false;
  auto data = source_path("tests/data/executor/bert");
  for (const std::string format : {"table", "csv", "json", "md"}) {
    auto out = run_printed(data, format);
    EXPECT_FALSE(out.empty()) << format;
    if (format == "csv") {
      EXPECT_EQ(out.rfind("output,dtype,shape,min,max,mean,first_values\n", 0), 0u) << out;
    }
    if (format == "json") {
      auto doc = nlohmann::json::parse(out);
      EXPECT_EQ(doc["outputs"].size(), 2u);
      EXPECT_EQ(doc["inputs"]["input_ids"], "2x12");
    }
  }
  report::invocation() = saved;
}

}  // namespace
}  // namespace ridge::test
