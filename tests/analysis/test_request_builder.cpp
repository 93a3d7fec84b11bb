// A model's options as the user typed them into an analysis::Request (analysis/request_builder), and --sweep: every
// value converted, every bad one refused in one line naming its option.
#include <gtest/gtest.h>

#include "analysis/request_builder.h"
#include "support/error_text.h"

namespace ridge::test {
namespace {

using analysis::ModelOptions;

TEST(RequestBuilder, ConvertsEveryOption) {
  ModelOptions o{.model = "m.onnx",
                 .batch = 8,
                 .dims = {"seq=128", "heads=12"},
                 .inputs = {"image=1x3x512x256"},
                 .dtype = "fp16",
                 .weight_dtype = "int8",
                 .training = true,
                 .optimizer = "adam",
                 .strict = true};
  auto r = analysis::make_request(o);
  EXPECT_EQ(r.model_path, "m.onnx");
  ASSERT_TRUE(r.bindings.batch);
  EXPECT_EQ(*r.bindings.batch, 8);
  EXPECT_EQ(r.bindings.dims, (std::map<std::string, int64_t>{{"heads", 12}, {"seq", 128}}));
  ASSERT_EQ(r.bindings.inputs.count("image"), 1u);
  EXPECT_EQ(r.bindings.inputs.at("image"), (std::vector<int64_t>{1, 3, 512, 256}));
  EXPECT_EQ(r.options.activation_dtype, graph::DType::kFloat16);
  EXPECT_EQ(r.options.weight_dtype, graph::DType::kInt8);
  EXPECT_TRUE(r.options.training);
  EXPECT_EQ(r.options.optimizer, cost::Optimizer::kAdam);
  EXPECT_TRUE(r.strict);
}

TEST(RequestBuilder, DefaultsLeaveTheModelsOwn) {
  auto r = analysis::make_request({.model = "m.onnx"});
  EXPECT_FALSE(r.bindings.batch);  // batch 0: not given
  EXPECT_TRUE(r.bindings.dims.empty());
  EXPECT_TRUE(r.bindings.inputs.empty());
  EXPECT_FALSE(r.options.activation_dtype);
  EXPECT_FALSE(r.options.weight_dtype);
  EXPECT_FALSE(r.options.training);
  EXPECT_EQ(r.options.optimizer, cost::Optimizer::kSgd);
  EXPECT_FALSE(r.strict);
}

TEST(RequestBuilder, BadValuesNameTheirOption) {
  auto error = [](ModelOptions o) {
    o.model = "m.onnx";
    return error_text([&] { analysis::make_request(o); });
  };
  EXPECT_EQ(error({.dims = {"seq"}}), "--dim expects NAME=VALUE, got 'seq'");
  EXPECT_EQ(error({.dims = {"=4"}}), "--dim expects NAME=VALUE, got '=4'");
  EXPECT_EQ(error({.dims = {"seq="}}), "--dim expects NAME=VALUE, got 'seq='");
  EXPECT_EQ(error({.dims = {"seq=0"}}), "--dim seq: '0' is not a positive integer");
  EXPECT_EQ(error({.dims = {"seq=12x"}}), "--dim seq: '12x' is not a positive integer");
  EXPECT_EQ(error({.dims = {"seq=-3"}}), "--dim seq: '-3' is not a positive integer");
  EXPECT_EQ(error({.inputs = {"image"}}), "--input expects NAME=VALUE, got 'image'");
  EXPECT_EQ(error({.dtype = "fp7"}), "--dtype: unknown dtype 'fp7' (expected fp32, fp16, bf16, int8, fp8 or fp64)");
  // A dtype ONNX knows but the cost model does not take.
  EXPECT_EQ(error({.weight_dtype = "int32"}),
            "--weight-dtype: unknown dtype 'int32' (expected fp32, fp16, bf16, int8, fp8 or fp64)");
  EXPECT_NE(error({.optimizer = "lion"}).find("lion"), std::string::npos);
}

TEST(RequestBuilder, SweepIsAKeyAndPositiveValues) {
  auto [key, values] = analysis::parse_sweep("batch=1,2,4,8");
  EXPECT_EQ(key, "batch");
  EXPECT_EQ(values, (std::vector<int64_t>{1, 2, 4, 8}));
  auto [dim, lengths] = analysis::parse_sweep("seq=128");
  EXPECT_EQ(dim, "seq");
  EXPECT_EQ(lengths, (std::vector<int64_t>{128}));
  auto error = [](const std::string& text) { return error_text([&] { analysis::parse_sweep(text); }); };
  EXPECT_EQ(error("batch"), "--sweep expects KEY=v1,v2,... (e.g. batch=1,2,4,8)");
  EXPECT_EQ(error("=1,2"), "--sweep expects KEY=v1,v2,... (e.g. batch=1,2,4,8)");
  EXPECT_EQ(error("batch=1,0,4"), "--sweep batch: 0 is not a positive integer");
  EXPECT_EQ(error("batch=2,-1"), "--sweep batch: -1 is not a positive integer");
  EXPECT_EQ(error("batch=1,x"), "--sweep batch: 'x' is not an integer");
}

TEST(RequestBuilder, ASweptKeyMustNotAlsoBeFixed) {
  auto r = analysis::make_request({.model = "m.onnx", .batch = 4, .dims = {"seq=64"}});
  auto error = [&](const std::string& key) { return error_text([&] { analysis::check_sweep_conflicts(r, key); }); };
  EXPECT_EQ(error("batch"), "--sweep batch=... and --batch 4 both set the batch: give one");
  EXPECT_EQ(error("seq"), "--sweep seq=... and --dim seq=64 both set 'seq': give one");
  EXPECT_EQ(error("heads"), "accepted");
  auto free = analysis::make_request({.model = "m.onnx"});
  EXPECT_EQ(error_text([&] { analysis::check_sweep_conflicts(free, "batch"); }), "accepted");
}

}  // namespace
}  // namespace ridge::test
