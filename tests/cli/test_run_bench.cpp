// `ridge run` and `ridge bench` through the real binary: a run of a weightless model, and bad input refused with one
// line before anything runs. What the entry points compute is checked in process (tests/exec/test_run_model.cpp,
// test_bench.cpp); bench's documented JSON keys and CSV files, sweeps and modes, and bench -> calibrate -> predict in
// tests/report/test_bench_request.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exec/test_data.h"
#include "support/model_builder.h"
#include "support/one_line_error.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

std::string data(const std::string& name) { return source_path("tests/data/executor/" + name); }

TEST(RunCli, WeightlessModelsRunWithRandomWeightsAndSaySo) {
  auto r = run_ridge("run " + model_path("gpt2_tiny") + " --dim seq=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1x8x1000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("random weights"), std::string::npos) << r.out;
}

TEST(ExecBadInput, UnknownOpIsNamedBeforeAnythingRuns) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{4}}).output("y");
  auto& node = b.node("FancyOp", {"x"}, {"y"}, "fancy");
  node.set_domain("com.example");
  auto* opset = b.proto().add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  expect_one_line_error(run_ridge("run " + b.save("unknown_op")),
                        "the executor cannot run these ops: com.example.FancyOp x1");
  expect_one_line_error(run_ridge("bench " + b.save("unknown_op_bench")), "com.example.FancyOp x1");
}

TEST(ExecBadInput, BatchThatDoesNotFitIsRefusedWithTheEstimate) {
  auto r = run_ridge("run " + model_path("vgg16") + " --batch 1000000");
  expect_one_line_error(r, "needs about");
  EXPECT_NE(r.err.find("peak activations"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
}

TEST(ExecBadInput, InputsOfTheWrongTypeOrShape) {
  // A float tensor where BERT's token ids (int64) are expected.
  auto wrong_type = temp_dir() + "/wrong_type";
  fs::create_directories(wrong_type);
  fs::copy_file(data("bert") + "/test_data_set_0/input_1.pb", wrong_type + "/input_1.pb",
                fs::copy_options::overwrite_existing);
  exec::HostTensor f;
  f.dtype = graph::DType::kFloat32;
  f.dims = {2, 12};
  f.bytes.assign(2 * 12 * 4, 0);
  exec::write_tensor_file(wrong_type + "/input_0.pb", f);
  expect_one_line_error(run_ridge("run " + data("bert") + "/model.onnx --inputs " + wrong_type),
                        "input 'input_ids' must be int64");
  // A 1x3x64x64 image where the exported model fixed 2x3x64x64.
  auto wrong_shape = temp_dir() + "/wrong_shape";
  fs::create_directories(wrong_shape);
  f.dims = {1, 3, 64, 64};
  f.bytes.assign(3 * 64 * 64 * 4, 0);
  exec::write_tensor_file(wrong_shape + "/input_0.pb", f);
  expect_one_line_error(run_ridge("run " + data("vgg") + "/model.onnx --inputs " + wrong_shape), "input");
  expect_one_line_error(run_ridge("run " + data("vgg") + "/model.onnx --inputs /nonexistent"), "is not a directory");
}

}  // namespace
}  // namespace ridge::test
