#pragma once
// Evaluates elementwise ops on small constant tensors (value propagation for shape subgraphs).
#include <functional>
#include <optional>

#include "graph/tensor.h"
#include "shape/context.h"

namespace ridge::shape {

using IntFn = std::function<int64_t(int64_t, int64_t)>;
using RealFn = std::function<double(double, double)>;

// Broadcasting binary evaluation. Returns nullopt when an input is not constant or the result
// would be larger than kMaxPropagatedElements. `result_type` overrides the output dtype.
std::optional<graph::ConstantData> eval_binary(InferenceContext& ctx, size_t a, size_t b, const IntFn& int_fn,
                                               const RealFn& real_fn, std::optional<graph::DType> result_type);

// Elementwise over one constant input.
std::optional<graph::ConstantData> eval_unary(InferenceContext& ctx, size_t a,
                                              const std::function<int64_t(int64_t)>& int_fn,
                                              const std::function<double(double)>& real_fn,
                                              std::optional<graph::DType> result_type = std::nullopt);

// Converts a constant to another dtype (Cast semantics: floats truncate toward zero into ints).
graph::ConstantData cast_constant(const graph::ConstantData& in, graph::DType to);

// Gathers elements of a constant at flat `indices` (with the given output dims).
graph::ConstantData take_elements(const graph::ConstantData& in, const std::vector<int64_t>& flat_indices,
                                  std::vector<int64_t> dims);

int64_t product(const std::vector<int64_t>& dims);
// Truncates a real to int64; throws Unresolved for NaN, infinities and out-of-range values.
int64_t real_to_int(double value);

}  // namespace ridge::shape
