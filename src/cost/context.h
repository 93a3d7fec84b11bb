#pragma once
// What a cost rule sees of one node: shapes, element counts, byte sizes under the chosen dtypes,
// and the fields it fills (FLOPs, MACs, backward FLOPs, what the backward pass must keep).
#include <string>
#include <vector>

#include "cost/cost.h"
#include "graph/graph.h"

namespace ridge::cost {

class CostContext {
 public:
  CostContext(const graph::Graph& g, const graph::Node& node, const CostOptions& options)
      : graph_(g), node_(node), options_(options) {}

  const graph::Node& node() const { return node_; }
  bool has_input(size_t i) const { return node_.input(i) != graph::kNoValue; }
  size_t input_count() const { return node_.inputs.size(); }
  std::vector<int64_t> in_dims(size_t i) const;
  std::vector<int64_t> out_dims(size_t i = 0) const;
  int64_t in_elements(size_t i) const;
  int64_t out_elements(size_t i = 0) const;
  bool is_weight(size_t i) const;
  // The known value of input i (a constant or a folded shape computation), or null.
  const graph::ConstantData* in_constant(size_t i) const;
  bool training() const { return options_.training; }

  // Forward work.
  int64_t flops = 0;
  int64_t macs = 0;
  // Bytes: by default every input is read whole and every output written whole. Rules of ops
  // that touch only part of an input (Gather rows, Slice) or alias it (Reshape) override here.
  std::vector<std::optional<int64_t>> read_override;  // per input
  // ... and outputs that are written only in part (a cache updated in place: TensorScatter)
  std::vector<std::optional<int64_t>> write_override;  // per output
  bool moves_no_data = false;                          // views: no reads, no writes
  std::vector<bool> not_parameter;                     // per input: a float initializer that is not trained (BN stats)
  // Backward pass, per input that needs a gradient, and for the whole node.
  int64_t backward_flops_data = 0;    // to produce gradients of activation inputs
  int64_t backward_flops_weight = 0;  // to produce gradients of weight inputs
  bool saves_inputs = false;          // backward reads the forward inputs
  bool saves_output = false;          // backward reads the forward outputs
  int saves_only_output = -1;         // ... only this one, when set (Dropout's mask, not its scaled output)
  int gradient_outputs = -1;          // outputs that carry a gradient, from the first; -1: every floating one
  // Set where the work depends on input values the analysis does not know (RoiAlign's adaptive sampling grid, sized by
  // the regions): the node is then an estimate, and this says what was counted.
  std::string estimate;

  void override_read(size_t i, int64_t bytes);
  void override_write(size_t i, int64_t bytes);
  void mark_not_parameter(size_t i);
  int64_t value_bytes(graph::ValueId id) const;
  int64_t in_bytes(size_t i) const { return value_bytes(node_.input(i)); }

 private:
  const graph::Graph& graph_;
  const graph::Node& node_;
  const CostOptions& options_;
};

// Bytes of a value under the chosen activation/weight dtypes.
int64_t value_bytes(const graph::Graph& g, graph::ValueId id, const CostOptions& options);
bool is_weight_value(const graph::Graph& g, graph::ValueId id);

}  // namespace ridge::cost
