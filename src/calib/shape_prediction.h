#pragma once
// Predictions from a shape-aware calibration: each node (each fused layer in optimized mode) timed
// by the fitted model, the framework's own time added, and the calibration's validation error kept
// with the result so the user knows how far to trust it.
#include <string>
#include <vector>

#include "calib/model.h"
#include "cost/cost.h"
#include "graph/graph.h"
#include "roofline/predict.h"

namespace ridge::calib {

// Which nodes optimized mode runs as one layer: the executor's own plan (exec/optimization_plan.h, which the CPU
// executor carries out): BatchNormalization folded into the convolution before it, the bias Add into a MatMul
// with a constant weight, a single-consumer activation and a residual Add into the layer before them, no-ops
// (Identity, Dropout, Cast to the same type), folded and dead nodes removed.
struct FusionPlan {
  static constexpr int kRemoved = -1;
  std::vector<int> leader;  // node index -> index of the layer it runs in (itself when not fused)
  int executed() const;     // nodes the executor runs
};
// `model_directory` is where the model's external data lies: an activation chain's scalars may be stored there, and
// the executor, which reads them, recognises the chain.
FusionPlan plan_fusion(const graph::Graph& g, const cost::ModelCost& cost, const std::string& model_directory);
// An identity plan (eager mode: every node runs as itself).
FusionPlan no_fusion(const graph::Graph& g);
// The GPU executor's plan, eager and as a CUDA graph (exec/cuda/interpreter.cpp): every node runs as itself, except
// those whose outputs shape inference already knows (shape arithmetic), folded into constants before any run.
FusionPlan gpu_plan(const graph::Graph& g);
// The plan of an executor ("cpu" or "cuda") in a mode.
FusionPlan plan_for(const std::string& executor, const std::string& mode, const graph::Graph& g,
                    const cost::ModelCost& cost, const std::string& model_directory);

// The features of the layer led by node `leader` under `plan`: the leader's, with the FLOPs of the
// nodes fused into it added, the bytes of a residual operand it now reads, and fused_ops counted.
// The layer sample, the bench evidence and the prediction all describe fused layers this way.
LayerFeatures layer_features(const graph::Graph& g, const cost::ModelCost& cost, const FusionPlan& plan, int leader,
                             int threads);

struct CalibratedOptions {
  std::string mode = "eager";  // executor mode to predict: eager, optimized (CPU), cuda-graph (GPU)
  int threads = 1;
  std::string model_file;        // named in the prediction
  std::string model_directory;   // the predicted model's external data (graph::Model::directory)
  std::string executor = "cpu";  // the calibration's (ShapeModel::executor)
};

// Replaces the roofline times of `prediction` (made by roofline::predict on the same cost, without
// a calibration) with the model's. Nodes of a kind the model never saw keep their roofline bound
// and are named in a note; fused nodes read "fused into LAYER".
void apply(roofline::Prediction& prediction, const graph::Graph& g, const cost::ModelCost& cost,
           const ShapeModel& model, const CalibratedOptions& options);

// The ceilings of a device's roofline as a calibration uses them (fp32 vector, matrix and DRAM; a CPU's cores).
Ceilings ceilings_of(const hw::Device& device, const hw::Roofline& roofline, const std::string& precision = "fp32");

}  // namespace ridge::calib
