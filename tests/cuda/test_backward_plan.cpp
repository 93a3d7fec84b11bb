// What the GPU training step differentiates, worked out on the host (exec/cuda/backward_plan): which values need
// a gradient, which nodes' backward runs and in what order, and the ops without a backward named before a step
// runs. Checked on hand-built graphs whose answer is read off their drawing, and on the training references'
// ResNet and BERT (every node between a weight and the output differentiated, none missing; BERT's counted from
// the architecture: 2 layers x 8 products, 5 LayerNorms, 2 Softmax, 2 GELU Erf, the pooler's Tanh) and LSTM (its
// two recurrent layers and the slices that reorder their gates' weights and biases).
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "exec/control_flow_rewrite.h"
#include "exec/cuda/backward.h"
#include "exec/cuda/backward_plan.h"
#include "exec/node_plan.h"
#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

bool has_backward(std::string_view op) { return cuda::BackwardRegistry::instance().find(op) != nullptr; }

// What the GPU interpreter runs in a training step (exec/node_plan.h): shape arithmetic shape inference evaluated is
// folded, values computed from a weight are not.
std::function<bool(size_t)> runs(const graph::Graph& g) {
  auto plan = std::make_shared<exec::NodePlan>(exec::plan_nodes(g, true, true));
  return [plan](size_t n) { return plan->executes(n); };
}

std::vector<std::string> names(const graph::Graph& g, const std::vector<size_t>& nodes) {
  std::vector<std::string> out;
  for (auto n : nodes) out.push_back(g.nodes[n].name);
  return out;
}

TEST(BackwardPlan, DifferentiatesOnlyWhatLiesBetweenAWeightAndAnOutput) {
  // x -> Gemm(W, b) -> h -> Relu -> r -> Add(r, r) -> y (output)
  //                     h -> Sigmoid -> s (read by nothing: no gradient reaches it)
  // x -> Relu -> xr -> Mul(xr, xr) -> z (output computed without a weight: no backward)
  ModelBuilder b;
  b.input("x", {2, 3}).weight("W", {3, 4}).weight("b", {4});
  b.node("Gemm", {"x", "W", "b"}, {"h"}, "gemm");
  b.node("Relu", {"h"}, {"r"}, "relu");
  b.node("Add", {"r", "r"}, {"y"}, "add");
  b.node("Sigmoid", {"h"}, {"s"}, "sigmoid");
  b.node("Relu", {"x"}, {"xr"}, "relu_x");
  b.node("Mul", {"xr", "xr"}, {"z"}, "mul");
  b.output("y").output("z");
  auto r = analyze_file(b.save("backward_plan"));
  const auto& g = r.model.graph;
  auto plan = cuda::plan_backward(g, runs(g), has_backward);
  EXPECT_EQ(names(g, plan.nodes), (std::vector<std::string>{"add", "relu", "gemm"}));
  EXPECT_TRUE(plan.missing.empty());
  ASSERT_EQ(plan.losses.size(), 1u);
  EXPECT_EQ(g.value(plan.losses[0]).name, "y");
  std::map<std::string, bool> needs;
  for (size_t i = 0; i < g.values.size(); ++i) needs[g.values[i].name] = plan.needs_grad[i];
  EXPECT_TRUE(needs["W"] && needs["b"] && needs["h"] && needs["r"] && needs["y"] && needs["s"]);
  EXPECT_FALSE(needs["x"] || needs["xr"] || needs["z"]);
}

TEST(BackwardPlan, NamesOpsWithoutABackwardWithTheirCounts) {
  // The same Gemm, then a Sqrt (no GPU backward) twice on the way to the output.
  ModelBuilder b;
  b.input("x", {2, 3}).weight("W", {3, 4});
  b.node("Gemm", {"x", "W"}, {"h"}, "gemm");
  b.node("Sqrt", {"h"}, {"p"}, "sqrt");
  b.node("Sqrt", {"p"}, {"y"}, "sqrt_1");
  b.output("y");
  auto r = analyze_file(b.save("backward_missing"));
  auto plan = cuda::plan_backward(r.model.graph, runs(r.model.graph), has_backward);
  ASSERT_EQ(plan.missing.size(), 1u);
  EXPECT_EQ(plan.missing[0], (std::pair<std::string, int>{"Sqrt", 2}));
}

analysis::Result training_reference(const std::string& name) {
  shape::Bindings bindings;
  return analyze_file(source_path("tests/data/training/" + name + "/model.onnx"), bindings);
}

std::map<std::string, int> counts(const graph::Graph& g, const std::vector<size_t>& nodes) {
  std::map<std::string, int> out;
  for (auto n : nodes) ++out[g.nodes[n].op_type];
  return out;
}

// Every bundled model has a backward for each node a training step differentiates: DenseNet's Pads, YOLO's SiLU
// (Sigmoid) and upsampling Resizes, ViT's class-token Expand, GPT-2's qkv Split and causal-mask Where among them.
TEST(BackwardPlan, EveryBundledModelTrainsOnTheGpu) {
  std::map<std::string, std::vector<std::string>> needs{{"densenet121", {"Pad"}},
                                                        {"yolo_style", {"Sigmoid", "Resize"}},
                                                        {"vit_b_16", {"Expand"}},
                                                        {"gpt2_tiny", {"Split", "Where"}}};
  for (const auto* name :
       {"resnet50", "mobilenet_v2", "densenet121", "googlenet", "alexnet", "vgg16", "yolo_style", "bert_base",
        "vit_b_16", "gpt2_tiny", "lstm_2layer", "resnet50_train", "vgg16_train", "mobilenet_v2_train"}) {
    shape::Bindings bindings;
    bindings.batch = 2;
    if (std::string(name) == "bert_base" || std::string(name) == "gpt2_tiny" || std::string(name) == "lstm_2layer")
      bindings.dims["seq"] = 16;
    auto r = analyze_file(model_path(name), bindings);
    const auto& g = r.model.graph;
    auto plan = cuda::plan_backward(g, runs(g), has_backward);
    EXPECT_TRUE(plan.missing.empty()) << name << ": " << plan.missing.front().first;
    auto differentiated = counts(g, plan.nodes);
    for (const auto& op : needs[name]) EXPECT_GT(differentiated[op], 0) << name << " " << op;
  }
  // And the training references the GPU tests check those backwards with (tests/data/training).
  for (const auto* name : {"densenet", "yolo", "vit", "gpt2"}) {
    auto r = training_reference(name);
    const auto& g = r.model.graph;
    auto plan = cuda::plan_backward(g, runs(g), has_backward);
    EXPECT_TRUE(plan.missing.empty()) << name << ": " << plan.missing.front().first;
  }
}

// A TorchScript loop (tests/data/executor/scripted_loop: a Loop holding an If on its iteration number and a Loop of its
// own) trains on the GPU as the straight-line graph it runs (exec/control_flow_rewrite.h): every iteration's product,
// scaling and Tanh after the first product is differentiated, none missing.
TEST(BackwardPlan, ARewrittenLoopTrainsOnTheGpu) {
  auto r =
      analyze_file(source_path("tests/data/executor/scripted_loop/model.onnx"), {.dims = {{"outer", 3}, {"inner", 2}}});
  exec::rewrite_control_flow(r.model);
  const auto& g = r.model.graph;
  auto plan = cuda::plan_backward(g, runs(g), has_backward);
  EXPECT_TRUE(plan.missing.empty()) << plan.missing.front().first;
  auto differentiated = counts(g, plan.nodes);
  EXPECT_EQ(differentiated["Gemm"], 3 * 2);
  EXPECT_EQ(differentiated["Tanh"], 2);
  // Every product's scaling; the first iteration's doubling reads the input alone, before any weight.
  EXPECT_EQ(differentiated["Mul"], 3 * 2);

  // The same loop collecting each iteration's value in a list (ONNX's sequence ops): its stack is a Concat of
  // unsqueezed values once rewritten (exec/sequence_elimination.h), differentiated with the rest.
  auto list =
      analyze_file(source_path("tests/data/executor/scripted_list/model.onnx"), {.dims = {{"outer", 3}, {"inner", 2}}});
  exec::rewrite_control_flow(list.model);
  const auto& lg = list.model.graph;
  auto list_plan = cuda::plan_backward(lg, runs(lg), has_backward);
  EXPECT_TRUE(list_plan.missing.empty()) << list_plan.missing.front().first;
  auto list_differentiated = counts(lg, list_plan.nodes);
  EXPECT_EQ(list_differentiated["Gemm"], 3 * 2);
  EXPECT_EQ(list_differentiated["Concat"], 1);
  EXPECT_EQ(list_differentiated["Unsqueeze"], 3);  // the iterations' values; the input's, before any weight, needs none
}

TEST(BackwardPlan, TheTrainingReferencesAreDifferentiatedWhole) {
  auto resnet = training_reference("resnet");
  const auto& g = resnet.model.graph;
  auto plan = cuda::plan_backward(g, runs(g), has_backward);
  EXPECT_TRUE(plan.missing.empty()) << plan.missing.front().first;
  // 29 Conv, 29 BatchNorm, 25 Relu, MaxPool, 8 Add, GlobalAveragePool, Flatten, Gemm: every node lies between a
  // weight and the output, the last first.
  EXPECT_EQ(plan.nodes.size(), 95u);
  EXPECT_EQ(g.nodes[plan.nodes.front()].op_type, "Gemm");
  EXPECT_EQ(g.nodes[plan.nodes.back()].op_type, "Conv");
  EXPECT_FALSE(plan.needs_grad[static_cast<size_t>(g.inputs.front())]);  // the image

  auto bert = training_reference("bert");
  const auto& bg = bert.model.graph;
  auto bert_plan = cuda::plan_backward(bg, runs(bg), has_backward);
  EXPECT_TRUE(bert_plan.missing.empty()) << bert_plan.missing.front().first;
  auto differentiated = counts(bg, bert_plan.nodes);
  EXPECT_EQ(differentiated["MatMul"], 16);
  EXPECT_EQ(differentiated["LayerNormalization"], 5);
  EXPECT_EQ(differentiated["Softmax"], 2);
  EXPECT_EQ(differentiated["Erf"], 2);
  EXPECT_EQ(differentiated["Tanh"], 1);
  EXPECT_EQ(differentiated["Gather"], 4);  // the word, position and token-type embeddings; the pooler's first token
  EXPECT_EQ(differentiated.count("Cast"), 0u);  // the attention mask's arithmetic carries no gradient

  auto lstm = training_reference("lstm");
  auto lstm_plan = cuda::plan_backward(lstm.model.graph, runs(lstm.model.graph), has_backward);
  EXPECT_TRUE(lstm_plan.missing.empty()) << lstm_plan.missing.front().first;
  auto lstm_nodes = counts(lstm.model.graph, lstm_plan.nodes);
  EXPECT_EQ(lstm_nodes["LSTM"], 2);
  // PyTorch's export reorders the gates of W, R and both biases by slicing each in 3 and concatenating them, then joins
  // the biases: per layer 4 x 3 slices and 4 + 1 Concats. Folded (the biases' slices are small enough for shape
  // inference to evaluate), they would keep their first values and the biases would get no gradient.
  EXPECT_EQ(lstm_nodes["Slice"], 24);
  EXPECT_EQ(lstm_nodes["Concat"], 10);
  EXPECT_EQ(lstm_nodes.count("Expand"), 0u);  // the zero initial states carry no gradient
}

}  // namespace
}  // namespace ridge::test
