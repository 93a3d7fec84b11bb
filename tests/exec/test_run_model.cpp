// `ridge run`'s entry point in process: given inputs run to outputs that match PyTorch's, saved in the ONNX
// test-data layout; a model without weight values runs on random ones and says so.
#include <gtest/gtest.h>

#include "exec/run_model.h"
#include "exec/test_data.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

TEST(RunModel, SavesOutputsThatMatchPyTorch) {
  auto data = source_path("tests/data/executor/lstm");
  exec::RunRequest request;
  request.model.model_path = data + "/model.onnx";
  request.exec.inputs_dir = data + "/test_data_set_0";
  request.save_outputs = temp_dir() + "/run_model_outputs";
  auto run = exec::run_model(request);
  EXPECT_TRUE(run.given_inputs);
  EXPECT_FALSE(run.output.random_weights);
  ASSERT_FALSE(run.output.outputs.empty());
  EXPECT_EQ(run.output.outputs[0].name, "logits");
  auto want = read_expected(data + "/test_data_set_0/output_0.pb");
  ASSERT_TRUE(want);
  EXPECT_EQ(compare_tensor(exec::read_tensor_file(request.save_outputs + "/output_0.pb"), *want, 1e-4, 1e-5), "");
}

// Given inputs fix the shapes: a binding that would change them is refused before anything is read.
TEST(RunModel, GivenInputsTakeNoBindings) {
  exec::RunRequest request;
  request.model.model_path = "no-such-model.onnx";
  request.exec.inputs_dir = "no-such-inputs";
  request.model.bindings.dims["seq"] = 8;
  EXPECT_EQ(error_text([&] { exec::run_model(request); }),
            "--inputs fixes the input shapes: --batch, --dim and --input cannot change them");
}

TEST(RunModel, WeightlessModelsRunWithRandomWeights) {
  exec::RunRequest request;
  request.model.model_path = model_path("gpt2_tiny");
  request.model.bindings.dims["seq"] = 8;
  auto run = exec::run_model(request);
  EXPECT_FALSE(run.given_inputs);
  EXPECT_TRUE(run.output.random_weights);
  ASSERT_FALSE(run.output.outputs.empty());
  EXPECT_EQ(run.output.outputs[0].dims, (std::vector<int64_t>{1, 8, 1000}));
}

}  // namespace
}  // namespace ridge::test
