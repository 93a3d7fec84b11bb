#pragma once
// Whether a profile is of a given model, from op counts alone: per op family that does work
// (convolution, matrix multiply, pooling, ReLU, add), the ops the profile ran must be one whole
// multiple k of the model's nodes of that family, the same k for every family: k passes of the model.
// A trace of another model fails it (ResNet-18 runs 20 convolutions a pass, ResNet-50 has 53 Conv
// nodes), and then nothing may be mapped to the model's layers by op order: it would pair ops with the
// wrong nodes in silence.
//
// Families are compared only where the ONNX export keeps one node per op. Not compared: normalization
// (the export folds a BatchNorm into the Conv before it, but not every one), activations other than
// ReLU (GELU becomes Erf, Add, Mul, ...), views and copies. An Add node with a constant input (a
// Linear's bias after MatMul, GELU's "1 + erf") may be part of another op in the profile, or an op of
// its own (a position embedding added): such nodes widen the add count to a range.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ridge::profile {

// Per family ("conv", "matmul", "pooling", "relu", "add"): how many ops or nodes.
using FamilyCounts = std::map<std::string, int64_t>;

// The family of an ATen operator for the fit, and how many model nodes one call stands for
// (aten::scaled_dot_product_attention is exported as two MatMuls); family "" when not compared.
struct AtenFamily {
  std::string family;
  int64_t nodes = 0;
};
AtenFamily aten_family(const std::string& op_name);

// The model's nodes per family (top-level graph). `add` counts Add nodes without a constant input;
// `add_with_constant` the others (see above).
FamilyCounts model_family_counts(const graph::Graph& graph);

struct FamilyFit {
  std::string family;
  int64_t ops = 0;                   // in the profile
  int64_t nodes = 0, nodes_max = 0;  // in the model: a range for add, else nodes_max == nodes
};

struct ModelFit {
  enum class Verdict {
    kFits,      // every family compared gives the same whole multiple `passes`
    kMismatch,  // one does not: `reason` names it with its counts
    kUnknown,   // nothing to compare (no family on either side), or only add, whose range leaves k open
  };
  Verdict verdict = Verdict::kUnknown;
  int64_t passes = 0;               // k, when it fits
  std::vector<FamilyFit> families;  // those compared (present on either side), in a fixed order
  std::string reason;               // a mismatch: "40 convolutions against 53 Conv nodes (not a whole multiple)"
  bool fits() const { return verdict == Verdict::kFits; }
};

// `ops`: the profile's ops per family (the outermost op of a family counts, with AtenFamily::nodes);
// `model`: model_family_counts of the model.
ModelFit fit_model(const FamilyCounts& ops, const FamilyCounts& model);

// The counts compared, for people: "40 convolutions against 20 Conv nodes, 2 matrix multiplies against
// 1 Gemm/MatMul node, ...".
std::string describe_families(const ModelFit& fit);

// "fits", "mismatch", "unknown": one table of names, as outputs write them; parse_verdict throws ridge::Error listing
// them.
const char* verdict_name(ModelFit::Verdict verdict);
ModelFit::Verdict parse_verdict(const std::string& text);

}  // namespace ridge::profile
