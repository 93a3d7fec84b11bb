// The op tables of shape/, cost/ and exec/ (one Registry<Row> each) and the enums' name tables.
#include <gtest/gtest.h>

#include "cost/registry.h"
#include "exec/coverage.h"
#include "exec/op_table.h"
#include "exec/options.h"
#include "roofline/predict.h"
#include "shape/registry.h"
#include "util/error.h"

namespace ridge::test {
namespace {

TEST(OpTables, TraitsLiveInTheRows) {
  const auto* bn = exec::find_op("BatchNormalization");
  ASSERT_NE(bn, nullptr);
  EXPECT_TRUE(bn->scales_input(1));
  EXPECT_TRUE(bn->scales_input(4));
  EXPECT_FALSE(bn->scales_input(2));
  for (const char* op : {"Conv", "ConvTranspose", "MatMul", "Gemm"}) EXPECT_TRUE(exec::find_op(op)->has(exec::kLayer));
  for (const char* op : {"RandomNormal", "RandomUniformLike", "Bernoulli"})
    EXPECT_TRUE(exec::find_op(op)->has(exec::kRandom)) << op;
  EXPECT_FALSE(exec::find_op("Relu")->has(exec::kRandom));
  for (const char* op : {"If", "Loop", "Scan"}) {
    const auto* row = cost::CostRegistry::instance().find(op);
    ASSERT_NE(row, nullptr) << op;
    EXPECT_TRUE(row->traits & cost::kControlFlow);
    EXPECT_EQ(row->family, "control");
    EXPECT_EQ(shape::ShapeRegistry::instance().find(op)->family, "control");
    EXPECT_EQ(exec::find_op(op)->family, "control");
  }
  EXPECT_EQ(shape::ShapeRegistry::instance().find("Conv")->family, "conv");
  EXPECT_EQ(exec::find_op("Conv")->family, "conv");
}

TEST(OpTables, SummaryCountsTheRows) {
  auto ops = exec::op_coverage();
  size_t shape = 0, cost = 0, exec = 0, gpu = 0, folds = 0, rewrites = 0;
  for (const auto& op : ops) {
    shape += op.shape;
    cost += op.cost;
    exec += op.exec;
    gpu += op.gpu;
    folds += op.gpu_folds;
    rewrites += op.gpu_rewrites;
    EXPECT_FALSE(op.gpu && op.gpu_folds) << op.op_type;     // an op folded on the GPU has no kernel there
    EXPECT_FALSE(op.gpu && op.gpu_rewrites) << op.op_type;  // nor one rewritten there
    EXPECT_TRUE(op.exec || !op.gpu) << op.op_type;          // nor one the CPU lacks
  }
  EXPECT_EQ(shape, shape::ShapeRegistry::instance().size());
  EXPECT_EQ(cost, cost::CostRegistry::instance().size());
  EXPECT_EQ(exec, exec::OpRegistry::instance().size());
  EXPECT_EQ(exec::coverage_summary(ops),
            std::to_string(ops.size()) + " ops: " + std::to_string(shape) + " with shape rules, " +
                std::to_string(cost) + " with cost rules, " + std::to_string(exec) + " executable, " +
                std::to_string(gpu) + " on the GPU (" + std::to_string(folds) + " more fold there, " +
                std::to_string(rewrites) + " are rewritten there where known before the run).");
  for (const auto& op : ops) {
    if (op.op_type == "Compress" || op.op_type == "NonMaxSuppression" || op.op_type == "Unique") {
      EXPECT_FALSE(op.cost) << op.op_type;
    }
  }
}

TEST(NameTables, RoundTripAndOneLineErrors) {
  for (const auto& m : exec::mode_names()) EXPECT_EQ(exec::name(exec::parse_mode(m)), m);
  for (const auto& a : exec::conv_algo_names()) EXPECT_EQ(exec::name(exec::parse_conv_algo(a)), a);
  for (const auto& a : exec::cudnn_conv_algo_names()) EXPECT_EQ(exec::name(exec::parse_cudnn_conv_algo(a)), a);
  EXPECT_EQ(exec::parse_memory_format("channels-last"), exec::MemoryFormat::kChannelsLast);
  EXPECT_EQ(exec::parse_precision("bf16"), exec::Precision::kBf16);
  EXPECT_EQ(exec::parse_backend("cuda"), exec::Backend::kCuda);
  EXPECT_EQ(cost::name(cost::parse_optimizer("momentum")), "momentum");
  EXPECT_EQ(roofline::name(roofline::parse_bound("overhead")), "overhead");
  try {
    exec::parse_precision("fp8");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown precision 'fp8' (fp32, bf16, tf32, fp16)");
  }
  EXPECT_THROW(cost::parse_optimizer("rmsprop"), Error);
  EXPECT_THROW(exec::parse_mode("both"), Error);
}

}  // namespace
}  // namespace ridge::test
