#include "analysis/run.h"

#include <fmt/format.h>

#include "cost/analysis.h"
#include "onnx/model_reader.h"
#include "util/error.h"

namespace ridge::analysis {

Result rerun(graph::Model model, const Request& request) {
  Result result;
  result.notes = shape::bind_inputs(model, request.bindings);
  shape::InferenceSummary summary;
  try {
    summary = shape::infer_shapes(model);
  } catch (const Error& e) {
    // A shape the graph cannot take (a Reshape or Gemm fixed for other input sizes): say under which
    // bindings, on one line.
    auto bound = shape::describe(request.bindings);
    if (bound.empty()) throw;
    throw Error(fmt::format("{}: {}", bound, e.what()));
  }
  for (auto id : model.graph.inputs) {
    const auto& v = model.graph.value(id);
    result.inputs.emplace_back(v.name, graph::shape_text(v));
  }
  result.cost = cost::analyze(model, request.options);
  if (request.strict) {
    std::string problems;
    for (const auto& [op, count] : result.cost.unknown_ops)
      problems += fmt::format("{}{} x{}", problems.empty() ? "" : ", ", op, count);
    if (!problems.empty()) throw Error("--strict: ops without a cost rule: " + problems);
    if (summary.unresolved_nodes > 0)
      throw Error(fmt::format("--strict: {} node(s) with unresolved shapes, first: {}", summary.unresolved_nodes,
                              summary.first_unresolved));
  }
  result.model = std::move(model);
  return result;
}

Result run(const Request& request) {
  onnx::LoadOptions options;
  options.max_typed_elements = request.max_typed_elements;
  return rerun(onnx::load_model(request.model_path, options), request);
}

int64_t bound_batch(const graph::Model& model) {
  if (model.graph.inputs.empty()) return 1;
  const auto& v = model.graph.value(model.graph.inputs.front());
  return v.has_shape && !v.shape.empty() && v.shape[0].is_known() ? v.shape[0].value : 1;
}

}  // namespace ridge::analysis
