#pragma once
// Whole-model memory views built from per-node evaluations: fused traffic, lower bound,
// peak activation memory (liveness) and the training step.
#include <vector>

#include "cost/node_eval.h"
#include "graph/graph.h"

namespace ridge::cost {

// Fills cost.bytes_fused of every evaluation: an elementwise/activation/normalization node
// whose activation input has a single consumer takes that input from its producer's registers,
// so neither the producer's write nor this node's read of it reaches memory.
void apply_fusion(const graph::Graph& g, std::vector<NodeEvaluation>& evals);

// Peak bytes of live activations over the node order (views alias their input; weights excluded).
// Linear in nodes + edges.
int64_t peak_activation_bytes(const graph::Graph& g, const std::vector<NodeEvaluation>& evals,
                              const CostOptions& options);

// Weights (each initializer once), model inputs and outputs: traffic no schedule can avoid.
int64_t minimum_bytes(const graph::Graph& g, const CostOptions& options, int64_t* weight_bytes);

// Backward pass and optimizer update over the evaluated forward pass.
TrainingTotals training_step(const graph::Graph& g, std::vector<NodeEvaluation>& evals, const CostOptions& options,
                             const Totals& forward);

}  // namespace ridge::cost
