#pragma once
// What optimized mode does to a graph, decided from the graph alone (no libtorch, no weight values): the nodes
// folded into constants (every input constant, or Shape/Size of a bound shape), each BatchNormalization folded into
// the convolution before it, the bias Add joined to a MatMul with a constant weight, the no-ops removed (Identity,
// inference Dropout, Cast to the same type), the residual Add and the activation that alone read a convolution's or
// fully connected layer's output joined to it as its epilogue, and the dead nodes dropped. The CPU executor applies
// it (exec/aten/passes/optimize.cpp computes the folded values and weights), and predictions read it
// (calib/shape_prediction.h), so what is predicted for optimized mode is what runs.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace ridge::exec {

// The functions a layer's epilogue computes (oneDNN's post-ops; the executor's own kernels elsewhere).
enum class FusedActivation { kNone, kRelu, kClip, kSilu, kGeluErf, kGeluTanh, kHardSwish };

struct OptimizationPlan {
  static constexpr int kRemoved = -1;
  enum class Role {
    kLayer,       // runs (a layer, or any node nothing joined)
    kFolded,      // computed once, before any run: a constant of the optimized graph
    kNoop,        // removed: its output is its input
    kDead,        // removed: nothing reads what it computes
    kBatchNorm,   // folded into the weights of the convolution it follows
    kBias,        // the bias of the MatMul it follows
    kResidual,    // the residual Add of the layer's epilogue
    kActivation,  // a node of the activation chain of the layer's epilogue
  };
  // What joined a layer (by the layer's node index).
  struct Epilogue {
    size_t batchnorm = 0;  // the BatchNormalization folded in (kBatchNorm), when folded
    bool folds_batchnorm = false;
    graph::ValueId bias = graph::kNoValue;      // the bias joined to a MatMul
    graph::ValueId residual = graph::kNoValue;  // the other operand of the residual Add
    bool residual_last = false;                 // added after the activation (YOLO's Conv, SiLU, then the shortcut)
    FusedActivation activation = FusedActivation::kNone;
    float clip_min = 0, clip_max = 0;         // kClip's bounds
    graph::ValueId output = graph::kNoValue;  // the value the layer now produces (the last joined node's)
  };

  std::vector<int> leader;  // node -> the layer it runs in (itself when it runs; kRemoved when nowhere)
  std::vector<Role> role;
  std::map<size_t, Epilogue> epilogues;  // layers something joined
  int executed() const;                  // nodes that run
};

// The plan of `g`, its shapes inferred; `model_directory` is where initializers stored in files of their own are
// (a scalar of an activation chain may be one). Values that must stay as they are: the graph's outputs and what a
// subgraph reads from an enclosing scope.
OptimizationPlan plan_optimization(const graph::Graph& g, const std::string& model_directory = "");

std::string_view name(FusedActivation activation);

}  // namespace ridge::exec
