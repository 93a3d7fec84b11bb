// Optimized mode's plan (exec/optimization_plan.h) on hand-drawn graphs: each node's role, what joined each layer,
// and the activation recognised by what its chain computes, however it is written. That the CPU executor runs the
// plan is checked on every bundled model in tests/calib/test_model.cpp (CalibFusion) and numerically in
// tests/exec/test_executor_fusion.cpp.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "exec/optimization_plan.h"
#include "support/model_builder.h"

namespace ridge::test {
namespace {

using Role = exec::OptimizationPlan::Role;

struct Planned {
  analysis::Result analysis;
  exec::OptimizationPlan plan;
  size_t index(const std::string& name) const {
    const auto& nodes = analysis.model.graph.nodes;
    for (size_t n = 0; n < nodes.size(); ++n)
      if (nodes[n].name == name) return n;
    throw std::runtime_error("no node " + name);
  }
  Role role(const std::string& name) const { return plan.role[index(name)]; }
  int leader(const std::string& name) const { return plan.leader[index(name)]; }
  const exec::OptimizationPlan::Epilogue& epilogue(const std::string& layer) const {
    return plan.epilogues.at(index(layer));
  }
  graph::ValueId value(const std::string& name) const { return *analysis.model.graph.find(name); }
};

Planned plan_of(const ModelBuilder& b, const std::string& stem) {
  Planned p{analyze_file(b.save(stem)), {}};
  p.plan = exec::plan_optimization(p.analysis.model.graph);
  return p;
}

// Conv -> BatchNorm -> Add(residual) -> Relu; MatMul -> Add(bias); an Identity between; a Shape of a bound input.
TEST(OptimizationPlan, FoldsJoinsAndRemovesWhatOptimizedModeDoes) {
  ModelBuilder b;
  b.input("x", {1, 4, 6, 6}).input("skip", {1, 4, 6, 6}).output("y").output("shape");
  b.weight("w", {4, 4, 3, 3}).weight("scale", {4}).weight("bias", {4}).weight("mean", {4}).weight("var", {4});
  b.weight("fc_w", {144, 10}).weight("fc_b", {10});
  auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  b.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}, "bn");
  b.node("Add", {"bn", "skip"}, {"res"}, "residual");
  b.node("Relu", {"res"}, {"r"}, "relu");
  b.node("Identity", {"r"}, {"id"}, "identity");
  b.node("Flatten", {"id"}, {"flat"}, "flatten");
  b.node("MatMul", {"flat", "fc_w"}, {"mm"}, "fc");
  b.node("Add", {"mm", "fc_b"}, {"y"}, "fc_bias");
  b.node("Shape", {"x"}, {"shape"}, "shape");
  auto p = plan_of(b, "plan-joins");
  EXPECT_EQ(p.role("bn"), Role::kBatchNorm);
  EXPECT_EQ(p.role("residual"), Role::kResidual);
  EXPECT_EQ(p.role("relu"), Role::kActivation);
  for (const char* member : {"bn", "residual", "relu"}) EXPECT_EQ(p.leader(member), static_cast<int>(p.index("conv")));
  EXPECT_EQ(p.role("identity"), Role::kNoop);
  EXPECT_EQ(p.role("fc_bias"), Role::kBias);
  EXPECT_EQ(p.leader("fc_bias"), static_cast<int>(p.index("fc")));
  EXPECT_EQ(p.role("shape"), Role::kFolded);
  EXPECT_EQ(p.leader("shape"), exec::OptimizationPlan::kRemoved);
  EXPECT_EQ(p.plan.executed(), 3);  // conv (+ bn, residual, relu), flatten, fc (+ bias)
  const auto& c = p.epilogue("conv");
  EXPECT_TRUE(c.folds_batchnorm);
  EXPECT_EQ(c.batchnorm, p.index("bn"));
  EXPECT_EQ(c.residual, p.value("skip"));
  EXPECT_FALSE(c.residual_last);
  EXPECT_EQ(c.activation, exec::FusedActivation::kRelu);
  EXPECT_EQ(c.output, p.value("r"));
  EXPECT_EQ(p.epilogue("fc").bias, p.value("fc_b"));
  EXPECT_EQ(p.epilogue("fc").output, p.value("y"));
}

// A layer's output read twice (by its activation and by a residual Add) joins nothing; a graph output does not
// either; a node whose output nothing reads is dead.
TEST(OptimizationPlan, AValueReadTwiceOrPinnedStaysAndAnUnreadNodeIsDead) {
  ModelBuilder b;
  b.input("x", {1, 4, 6, 6}).output("y").output("c2");
  b.weight("w", {4, 4, 1, 1}).weight("w2", {4, 4, 1, 1});
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("Add", {"c", "r"}, {"y"}, "add");
  b.node("Conv", {"x", "w2"}, {"c2"}, "conv2");  // its output is the graph's
  b.node("Relu", {"c2"}, {"unread"}, "unread_relu");
  auto p = plan_of(b, "plan-stays");
  EXPECT_EQ(p.role("relu"), Role::kLayer);
  EXPECT_EQ(p.role("add"), Role::kLayer);
  EXPECT_EQ(p.role("unread_relu"), Role::kDead);
  EXPECT_EQ(p.plan.epilogues.count(p.index("conv")), 0u);
  EXPECT_EQ(p.plan.executed(), 4);
}

// Activations written as chains are recognised by what they compute: GELU as x * 0.5 * (1 + erf(x / sqrt 2)),
// HardSwish as x * clip(x + 3, 0, 6) / 6, SiLU as x * Sigmoid(x), a Clip with its bounds; a Tanh alone (BERT's
// pooler) and x * Tanh(x) are no activation a layer's epilogue computes, and run on their own. Opset 24's Swish is SiLU
// where its alpha is 1, and no epilogue's activation with another.
TEST(OptimizationPlan, ActivationChainsAreRecognisedByWhatTheyCompute) {
  auto plan_with = [](const std::string& form) {
    ModelBuilder b(form.rfind("swish", 0) == 0 ? 24 : 17);
    b.input("x", {4, 8}).output("y").weight("w", {8, 8});
    b.weight_values("root2", {}, {1.4142135f}).weight_values("one", {}, {1.0f}).weight_values("half", {}, {0.5f});
    b.weight_values("three", {}, {3.0f}).weight_values("zero", {}, {0.0f}).weight_values("six", {}, {6.0f});
    b.weight_values("lo", {}, {-0.3f}).weight_values("hi", {}, {0.4f});
    b.node("MatMul", {"x", "w"}, {"h"}, "fc");
    if (form == "gelu") {
      b.node("Div", {"h", "root2"}, {"d"}, "div");
      b.node("Erf", {"d"}, {"e"}, "erf");
      b.node("Add", {"e", "one"}, {"a"}, "add");
      b.node("Mul", {"h", "a"}, {"m"}, "mul");
      b.node("Mul", {"m", "half"}, {"y"}, "half");
    } else if (form == "hardswish") {
      b.node("Add", {"h", "three"}, {"a"}, "add");
      b.node("Clip", {"a", "zero", "six"}, {"c"}, "clip");
      b.node("Mul", {"h", "c"}, {"m"}, "mul");
      b.node("Div", {"m", "six"}, {"y"}, "div");
    } else if (form == "silu") {
      b.node("Sigmoid", {"h"}, {"s"}, "sigmoid");
      b.node("Mul", {"h", "s"}, {"y"}, "mul");
    } else if (form == "swish") {
      b.node("Swish", {"h"}, {"y"}, "swish");
    } else if (form == "swish_half") {
      set_float(b.node("Swish", {"h"}, {"y"}, "swish"), "alpha", 0.5f);
    } else if (form == "clip") {
      b.node("Clip", {"h", "lo", "hi"}, {"y"}, "clip");
    } else if (form == "tanh") {
      b.node("Tanh", {"h"}, {"y"}, "tanh");
    } else {  // x * tanh(x)
      b.node("Tanh", {"h"}, {"t"}, "tanh");
      b.node("Mul", {"h", "t"}, {"y"}, "mul");
    }
    return plan_of(b, "plan-" + form);
  };
  using A = exec::FusedActivation;
  for (const auto& [form, kind] : std::map<std::string, A>{{"gelu", A::kGeluErf},
                                                           {"hardswish", A::kHardSwish},
                                                           {"silu", A::kSilu},
                                                           {"swish", A::kSilu},
                                                           {"clip", A::kClip}}) {
    auto p = plan_with(form);
    EXPECT_EQ(p.plan.executed(), 1) << form;
    EXPECT_EQ(p.epilogue("fc").activation, kind) << form;
    EXPECT_EQ(p.epilogue("fc").output, p.value("y")) << form;
  }
  auto clip = plan_with("clip");
  EXPECT_FLOAT_EQ(clip.epilogue("fc").clip_min, -0.3f);
  EXPECT_FLOAT_EQ(clip.epilogue("fc").clip_max, 0.4f);
  for (const char* form : {"tanh", "x_tanh"}) {
    auto p = plan_with(form);
    EXPECT_EQ(p.plan.epilogues.count(p.index("fc")), 0u) << form;
    EXPECT_EQ(p.role("tanh"), Role::kLayer) << form;
  }
  auto half = plan_with("swish_half");
  EXPECT_EQ(half.plan.epilogues.count(half.index("fc")), 0u);
  EXPECT_EQ(half.role("swish"), Role::kLayer);
}

}  // namespace
}  // namespace ridge::test
