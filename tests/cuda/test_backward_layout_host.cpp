// Which backwards of a channels-last GPU training step take NHWC tensors (exec/cuda/backward_layout.h), checked without
// a GPU: by hand on a small graph whose answer is read off its drawing, and on the training references (ResNet's
// backward NHWC but for its classifier, YOLO's head Reshapes the only backwards given NCHW copies), with the
// forward and backward tables the executor uses. The step's arithmetic in NHWC is checked on a GPU
// (tests/gpu/test_training_gpu.cpp: GpuTrainingReference.ChannelsLastMatchesPyTorch).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "exec/cuda/backward.h"
#include "exec/cuda/backward_layout.h"
#include "exec/cuda/backward_plan.h"
#include "exec/cuda/storage_plan.h"
#include "exec/node_plan.h"
#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

struct Planned {
  std::vector<const cuda::KernelRow*> kernels;
  cuda::BackwardPlan backward;
  cuda::StoragePlan storage;
  cuda::BackwardLayout layout;
};

// What a training step plans: the nodes that run once weights change (exec/node_plan.h), their forward rows, the
// storage plan of an fp32 step, the backward plan and its layout.
Planned plan(const graph::Graph& g, bool channels_last) {
  auto nodes = exec::plan_nodes(g, true, true);
  Planned p;
  p.kernels.assign(g.nodes.size(), nullptr);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (nodes.executes(n)) p.kernels[n] = cuda::KernelRegistry::instance().find(g.nodes[n].op_type);
  p.backward = cuda::plan_backward(
      g, [&](size_t n) { return nodes.executes(n); },
      [](std::string_view op) { return cuda::BackwardRegistry::instance().find(op) != nullptr; });
  p.storage = cuda::plan_storage(g, p.kernels, graph::DType::kFloat32, channels_last);
  p.layout = cuda::plan_backward_layout(g, p.kernels, p.backward, p.storage);
  return p;
}

std::set<std::string> nhwc_nodes(const graph::Graph& g, const cuda::BackwardLayout& layout) {
  std::set<std::string> out;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (layout.nhwc[n]) out.insert(g.nodes[n].name);
  return out;
}

TEST(BackwardLayout, NhwcBackwardsAreThoseWhoseForwardAndBackwardTakeNhwc) {
  // x [2,3,8,8] -> Conv(W1) -> c -> Relu -> r;  Where(cond, r, c) -> w -> Conv(W2, 1x1) -> c2 -> Flatten -> f
  // -> Gemm(Wf) -> y. Channels-last holds c, r and c2 NHWC (a convolution's and an activation's outputs); Where reads
  // NCHW, so w is held NCHW; Flatten's output is 2-D.
  ModelBuilder b;
  b.input("x", {2, 3, 8, 8}).input("cond", {2, 4, 8, 8}, ::onnx::TensorProto::BOOL);
  b.weight("W1", {4, 3, 3, 3}).weight("W2", {4, 4, 1, 1}).weight("Wf", {256, 2});
  set_ints(b.node("Conv", {"x", "W1"}, {"c"}, "conv1"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("Where", {"cond", "r", "c"}, {"w"}, "where");
  b.node("Conv", {"w", "W2"}, {"c2"}, "conv2");
  b.node("Flatten", {"c2"}, {"f"}, "flatten");
  b.node("Gemm", {"f", "Wf"}, {"y"}, "fc");
  b.output("y");
  auto r = analyze_file(b.save("backward_layout"));
  const auto& g = r.model.graph;

  auto nhwc = plan(g, true);
  EXPECT_TRUE(nhwc.layout.channels_last);
  EXPECT_EQ(nhwc_nodes(g, nhwc.layout), (std::set<std::string>{"conv1", "relu", "conv2"}));
  EXPECT_EQ(nhwc.layout.nhwc_nodes, 3);
  // Where touches r and c, Flatten c2: both are given NCHW copies. The Gemm touches nothing held NHWC.
  EXPECT_EQ(nhwc.layout.nchw_backwards, (std::map<std::string, int>{{"Flatten", 1}, {"Where", 1}}));
  EXPECT_EQ(nhwc.layout.summary(10),
            "channels-last training: 3 backward node(s) take NHWC tensors; the last step made 10 layout conversion(s) "
            "(in its backward, and of weights' gradients to NCHW); backwards given NCHW copies: Flatten (1), Where "
            "(1)");

  auto nchw = plan(g, false);
  EXPECT_FALSE(nchw.layout.channels_last);
  EXPECT_TRUE(nhwc_nodes(g, nchw.layout).empty());
  EXPECT_TRUE(nchw.layout.nchw_backwards.empty());
  EXPECT_EQ(nchw.layout.summary(0), "");
}

analysis::Result training_reference(const std::string& name) {
  return analyze_file(source_path("tests/data/training/" + name + "/model.onnx"));
}

TEST(BackwardLayout, TheReferenceCnnsTrainNhwcButWhereABackwardReadsNchw) {
  // ResNet (tests/cuda/test_backward_plan.cpp lists its 95 differentiated nodes): 29 Conv, 29 BatchNorm, 25 Relu, the
  // MaxPool, 8 Add and the GlobalAveragePool take NHWC; Flatten reads its 1x1 output, which NHWC holds as NCHW does,
  // and the Gemm is 2-D.
  auto resnet = training_reference("resnet");
  auto p = plan(resnet.model.graph, true);
  EXPECT_EQ(p.backward.nodes.size(), 95u);
  EXPECT_EQ(p.layout.nhwc_nodes, 29 + 29 + 25 + 1 + 8 + 1);
  EXPECT_TRUE(p.layout.nchw_backwards.empty());
  for (auto n : p.backward.nodes) {
    const auto& op = resnet.model.graph.nodes[n].op_type;
    EXPECT_EQ(p.layout.nhwc[n], op != "Flatten" && op != "Gemm") << op;
  }
  // MobileNetV2's ReLU6 is Clip, DenseNet's blocks Concat and its transitions AveragePool and a constant Pad, YOLO's
  // upsampling Resizes (their index tables walked in NHWC order): all NHWC. The three Reshapes of YOLO's heads'
  // convolution outputs ([2, 24, H, W] into anchors x outputs: a view of NCHW order) are the only backwards given NCHW
  // copies; the Reshapes of the Sigmoids after them read 5-D values, never NHWC.
  for (const auto* name : {"mobilenet_v2", "densenet", "yolo"}) {
    auto model = training_reference(name);
    auto q = plan(model.model.graph, true);
    std::map<std::string, int> nchw;
    if (std::string(name) == "yolo") nchw = {{"Reshape", 3}};
    EXPECT_EQ(q.layout.nchw_backwards, nchw) << name;
    EXPECT_GT(q.layout.nhwc_nodes, 0) << name;
  }
}

}  // namespace
}  // namespace ridge::test
