// Malformed input through the real binary: one line on stderr, a nonzero exit, never a crash.
#include <gtest/gtest.h>

#include <fstream>

#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

std::string write_file(const std::string& name, const std::string& bytes) {
  auto path = temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Runs `ridge analyze ARGS` and checks the failure is one line naming `expected`.
void expect_one_line_error(const std::string& args, const std::string& expected, int code = 1) {
  auto r = run_ridge("analyze " + args);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
}

std::string valid_model() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}}).weight("w", {4, 3, 3, 3}).output("y");
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  return b.bytes();
}

TEST(BadInput, TruncatedFile) {
  auto bytes = valid_model();
  for (size_t cut : {bytes.size() / 2, bytes.size() - 3, size_t{7}})
    expect_one_line_error(write_file("truncated.onnx", bytes.substr(0, cut)), "not a valid ONNX model");
}

TEST(BadInput, NotOnnx) {
  expect_one_line_error(write_file("text.onnx", "this is a text file, not a protobuf\n"), "not a valid ONNX model");
  expect_one_line_error(write_file("empty.onnx", ""), "empty");
  expect_one_line_error(temp_dir() + "/does-not-exist.onnx", "cannot open");
}

TEST(BadInput, CyclicGraph) {
  ModelBuilder b;
  b.input("x", {int64_t{4}}).output("b");
  b.node("Add", {"x", "b"}, {"a"}, "first");
  b.node("Relu", {"a"}, {"b"}, "second");
  expect_one_line_error(b.save("cycle"), "cyclic graph");
}

TEST(BadInput, MissingInput) {
  ModelBuilder b;
  b.input("x", {int64_t{4}}).output("y");
  b.node("Add", {"x", "nowhere"}, {"y"}, "add");
  expect_one_line_error(b.save("missing"), "reads 'nowhere'");
}

TEST(BadInput, NegativeDims) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{-3}}).output("y");
  b.node("Relu", {"x"}, {"y"}, "relu");
  expect_one_line_error(b.save("negative"), "negative dimension");
  expect_one_line_error(model_path("resnet50") + " --input input=1x-3x224x224", "negative dimension");
}

TEST(BadInput, DimsWhoseProductOverflows) {
  ModelBuilder b;
  b.input("x", {int64_t{1} << 32, int64_t{1} << 32}).output("y");
  b.node("Relu", {"x"}, {"y"}, "relu");
  expect_one_line_error(b.save("overflow"), "overflows 64 bits");
  expect_one_line_error(model_path("bert_base") + " --batch 1000000 --dim seq=1000000000000", "overflows 64 bits");
}

TEST(BadInput, ExternalWeightsFileTooShort) {
  // A shape tensor stored externally is needed for the Reshape: a short file is an error.
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{8}}).output("y");
  auto* shape = b.proto().mutable_graph()->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(::onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* entry = shape->add_external_data();
  entry->set_key("location");
  entry->set_value("short.bin");
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  auto path = b.save("shortext");
  write_file("short.bin", "abc");
  expect_one_line_error(path, "too short");
}

TEST(BadInput, NegativeExternalDataLength) {
  // A negative length used to reach a vector resize (std::length_error, not a ridge::Error).
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{8}}).output("y");
  auto* shape = b.proto().mutable_graph()->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(::onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* location = shape->add_external_data();
  location->set_key("location");
  location->set_value("negative.bin");
  auto* length = shape->add_external_data();
  length->set_key("length");
  length->set_value("-1");
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  auto path = b.save("negext");
  write_file("negative.bin", std::string(16, '\0'));
  expect_one_line_error(path, "negative external_data offset or length");
}

TEST(BadInput, UsageErrors) {
  expect_one_line_error(model_path("bert_base"), "--dim seq=N");
  expect_one_line_error(model_path("resnet50") + " --dim nosuch=3",
                        "no input of the model has a dimension named 'nosuch'");
  expect_one_line_error(model_path("resnet50") + " --input nosuch=1x2", "no input 'nosuch'");
  expect_one_line_error(model_path("resnet50") + " --dtype fp12", "unknown dtype");
  expect_one_line_error(model_path("resnet50") + " --sweep batch=1,x", "--sweep batch: 'x' is not an integer");
  expect_one_line_error(model_path("resnet50") + " --sweep batch=1,0", "not a positive integer");
  expect_one_line_error(model_path("resnet50") + " --format yaml", "format", 2);
  expect_one_line_error(model_path("resnet50") + " --optimizer adam", "training", 2);
}

TEST(BadInput, StrictRejectsUnknownOps) {
  ModelBuilder b;
  b.input("x", {int64_t{4}}).output("y");
  b.node("Frobnicate", {"x"}, {"y"}, "f");
  auto path = b.save("strict");
  auto lenient = run_ridge("analyze " + path);
  EXPECT_EQ(lenient.exit_code, 0);
  EXPECT_NE(lenient.out.find("ops without a cost rule: Frobnicate x1"), std::string::npos) << lenient.out;
  expect_one_line_error(path + " --strict", "Frobnicate x1");
}

}  // namespace
}  // namespace ridge::test
