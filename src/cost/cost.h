#pragma once
// The analytical model's results: costs per node and for the whole model.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/dtype.h"

namespace ridge::cost {

enum class Optimizer { kSgd, kMomentum, kAdam };  // SGD with momentum 0.9
// One table of names (cost/training.cpp); parse_optimizer throws ridge::Error listing them.
std::string_view name(Optimizer optimizer);
Optimizer parse_optimizer(std::string_view text);

struct CostOptions {
  std::optional<graph::DType> activation_dtype;  // floating activations are costed in this type
  std::optional<graph::DType> weight_dtype;      // floating weights are costed in this type
  bool training = false;
  Optimizer optimizer = Optimizer::kSgd;
};

enum class NodeStatus {
  kCosted,      // exact under the documented conventions
  kEstimate,    // a lower/upper estimate (e.g. If with a data-dependent branch); marked in outputs
  kFolded,      // all outputs known at analysis time (shape arithmetic): no runtime work
  kUnknownOp,   // no cost rule: named in every output, never counted as zero in silence
  kUnresolved,  // output shapes unknown (data-dependent): named in every output
};
const char* status_name(NodeStatus status);

struct NodeCost {
  std::string name;
  std::string op_type;
  std::string family;  // op family of its cost rule (conv, matmul, elementwise, ...); "control" for If/Loop/Scan
  std::string output_shape;
  NodeStatus status = NodeStatus::kCosted;
  std::string note;  // why unresolved / estimated
  int64_t flops = 0;
  int64_t macs = 0;
  int64_t params = 0;  // trainable parameters first read by this node
  int64_t activation_bytes_read = 0;
  int64_t weight_bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t bytes_fused = 0;  // read + written once fusible chains are merged into producers
  // Training step (when requested).
  int64_t backward_flops = 0;
  int64_t backward_bytes = 0;

  int64_t bytes() const { return activation_bytes_read + weight_bytes_read + bytes_written; }
  double intensity() const { return bytes() > 0 ? static_cast<double>(flops) / static_cast<double>(bytes()) : 0.0; }
};

struct TrainingTotals {
  int64_t forward_flops = 0, backward_flops = 0, optimizer_flops = 0;
  int64_t forward_bytes = 0, backward_bytes = 0, optimizer_bytes = 0;
  int64_t saved_activation_bytes = 0;  // activations kept from forward for backward
  int64_t optimizer_state_bytes = 0;
  int64_t gradient_bytes = 0;
  int64_t flops() const { return forward_flops + backward_flops + optimizer_flops; }
  int64_t bytes() const { return forward_bytes + backward_bytes + optimizer_bytes; }
};

struct Totals {
  int64_t flops = 0, macs = 0, params = 0;
  int64_t activation_bytes_read = 0, weight_bytes_read = 0, bytes_written = 0;
  int64_t bytes = 0;  // unfused
  int64_t bytes_fused = 0;
  int64_t bytes_min = 0;     // weights, model inputs and outputs once each
  int64_t weight_bytes = 0;  // memory for all weights (each initializer once)
  int64_t peak_activation_bytes = 0;
  double intensity() const { return bytes > 0 ? static_cast<double>(flops) / static_cast<double>(bytes) : 0.0; }
};

struct OpTypeSummary {
  std::string op_type;
  int count = 0;
  int64_t flops = 0, macs = 0, bytes = 0, params = 0;
};

struct ModelCost {
  std::vector<NodeCost> nodes;
  Totals totals;
  std::optional<TrainingTotals> training;
  std::map<std::string, int> unknown_ops;     // op type -> count
  std::map<std::string, int> unresolved_ops;  // op type -> count of nodes with unknown shapes
  int estimated_nodes = 0;  // of the model's own nodes (an estimate inside a body makes its If or Loop one)
  std::vector<OpTypeSummary> by_op_type() const;  // sorted by FLOPs, descending
};

}  // namespace ridge::cost
