// Shape rules of control flow: If, Loop and Scan infer their subgraphs in a child scope.
#include <fmt/format.h>

#include "shape/infer.h"
#include "shape/registry.h"
#include "shape/scope.h"

namespace ridge::shape {
namespace {

graph::Graph& subgraph(InferenceContext& ctx, const char* name) {
  const auto* attr = ctx.node().attribute(name);
  if (!attr || attr->graphs.size() != 1) ctx.fail(fmt::format("missing subgraph '{}'", name));
  return *attr->graphs.front();
}

// Infers a subgraph; any unresolved node inside leaves the control node unresolved too.
void infer_sub(InferenceContext& ctx, graph::Graph& body) {
  InferenceSummary inner;
  Scope child(body, &ctx.scope(), ctx.scope().directory(), ctx.opset());
  infer_graph(child, inner);
  if (inner.unresolved_nodes > 0) throw Unresolved{"subgraph: " + inner.first_unresolved};
}

// Declares the type and shape of a subgraph's i-th input before the subgraph is inferred.
void set_body_input(graph::Graph& body, size_t i, graph::DType dtype, graph::Shape shape) {
  auto& v = body.value(body.inputs[i]);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.has_shape = true;
}

void set_from(InferenceContext& ctx, size_t out, const graph::Value& v) {
  if (!v.has_shape) throw Unresolved{fmt::format("subgraph output '{}' has no known shape", v.name)};
  if (v.constant)
    ctx.set_output_const(out, *v.constant);
  else
    ctx.set_output(out, v.dtype, graph::known_dims(v.shape));
}

void if_op(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto& then_branch = subgraph(ctx, "then_branch");
  auto& else_branch = subgraph(ctx, "else_branch");
  const auto* cond = ctx.in_const(0);
  if (cond && cond->size() == 1) {
    auto& taken = cond->as_real(0) != 0 ? then_branch : else_branch;
    infer_sub(ctx, taken);
    for (size_t i = 0; i < ctx.output_count() && i < taken.outputs.size(); ++i)
      set_from(ctx, i, taken.value(taken.outputs[i]));
    return;
  }
  infer_sub(ctx, then_branch);
  infer_sub(ctx, else_branch);
  for (size_t i = 0; i < ctx.output_count(); ++i) {
    if (i >= then_branch.outputs.size() || i >= else_branch.outputs.size()) ctx.fail("branches have too few outputs");
    const auto& a = then_branch.value(then_branch.outputs[i]);
    const auto& b = else_branch.value(else_branch.outputs[i]);
    if (a.shape != b.shape)
      throw Unresolved{fmt::format("If output {} has shape {} or {} depending on the data", i,
                                   graph::to_string(a.shape), graph::to_string(b.shape))};
    ctx.set_output(i, a.dtype, graph::known_dims(a.shape));
  }
}

// Loop(M, cond, v_initial...) with body(iter, cond, v...) -> (cond, v..., scan...).
void loop(InferenceContext& ctx) {
  auto& body = subgraph(ctx, "body");
  // The trip count and the condition, where known, are the graph's constants from here on (the cost model and the GPU's
  // unrolling read them), whether or not the body can be inferred.
  std::optional<int64_t> trips;
  if (ctx.has_input(0))
    if (auto m = ctx.in_ints_if_known(0)) trips = m->at(0);
  if (ctx.has_input(1)) (void)ctx.in_const(1);
  size_t carried = ctx.input_count() >= 2 ? ctx.input_count() - 2 : 0;
  if (body.inputs.size() != carried + 2) ctx.fail("body inputs do not match the loop-carried values");
  set_body_input(body, 0, graph::DType::kInt64, {});
  set_body_input(body, 1, graph::DType::kBool, {});
  for (size_t i = 0; i < carried; ++i)
    set_body_input(body, i + 2, ctx.in_dtype(i + 2), graph::make_shape(ctx.in_dims(i + 2)));
  infer_sub(ctx, body);
  for (size_t i = 0; i < ctx.output_count(); ++i) {
    if (i + 1 >= body.outputs.size()) ctx.fail("body has too few outputs");
    const auto& v = body.value(body.outputs[i + 1]);
    if (i < carried) {
      if (!v.has_shape) throw Unresolved{"loop-carried value has no known shape"};
      ctx.set_output(i, v.dtype, graph::known_dims(v.shape));
    } else {
      if (!trips) throw Unresolved{"Loop's scan output length depends on a trip count known only at run time"};
      auto dims = graph::known_dims(v.shape);
      dims.insert(dims.begin(), *trips);
      ctx.set_output(i, v.dtype, dims);
    }
  }
}

// Scan-8: (sequence_lens, states..., scans...) all with a leading batch dim; scan axis 1.
void scan8(InferenceContext& ctx) {
  auto& body = subgraph(ctx, "body");
  auto scan_inputs = static_cast<size_t>(ctx.node().get_int("num_scan_inputs", 0));
  if (ctx.input_count() < 1 + scan_inputs || scan_inputs == 0) ctx.fail("bad num_scan_inputs");
  size_t states = ctx.input_count() - 1 - scan_inputs;
  if (body.inputs.size() != states + scan_inputs) ctx.fail("body inputs do not match the node's inputs");
  int64_t batch = -1, length = -1;
  for (size_t i = 0; i < states + scan_inputs; ++i) {
    auto dims = ctx.in_dims(i + 1);
    size_t drop = i < states ? 1 : 2;
    if (dims.size() < drop) ctx.fail("scan input has too few dims");
    batch = dims[0];
    if (i >= states) length = dims[1];
    set_body_input(body, i, ctx.in_dtype(i + 1),
                   graph::make_shape(std::vector<int64_t>(dims.begin() + static_cast<long>(drop), dims.end())));
  }
  infer_sub(ctx, body);
  for (size_t i = 0; i < ctx.output_count() && i < body.outputs.size(); ++i) {
    const auto& v = body.value(body.outputs[i]);
    auto dims = graph::known_dims(v.shape);
    if (i >= states) dims.insert(dims.begin(), length);
    dims.insert(dims.begin(), batch);
    ctx.set_output(i, v.dtype, dims);
  }
}

// Scan (opset 9+): N state inputs, then scan inputs iterated along their axis 0.
void scan(InferenceContext& ctx) {
  if (ctx.opset() < 9) return scan8(ctx);
  auto& body = subgraph(ctx, "body");
  auto scan_inputs = static_cast<size_t>(ctx.node().get_int("num_scan_inputs", 0));
  if (scan_inputs == 0 || scan_inputs > ctx.input_count()) ctx.fail("bad num_scan_inputs");
  size_t states = ctx.input_count() - scan_inputs;
  if (body.inputs.size() != ctx.input_count()) ctx.fail("body inputs do not match the node's inputs");
  auto scan_axes = ctx.node().get_ints("scan_input_axes", std::vector<int64_t>(scan_inputs, 0));
  if (scan_axes.size() != scan_inputs) ctx.fail("scan_input_axes must have one entry per scan input");
  int64_t length = -1;
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    auto dims = ctx.in_dims(i);
    if (i >= states) {
      auto axis = static_cast<size_t>(ctx.axis(scan_axes[i - states], static_cast<int64_t>(dims.size())));
      length = dims[axis];
      dims.erase(dims.begin() + static_cast<long>(axis));
    }
    set_body_input(body, i, ctx.in_dtype(i), graph::make_shape(dims));
  }
  infer_sub(ctx, body);
  for (size_t i = 0; i < ctx.output_count() && i < body.outputs.size(); ++i) {
    const auto& v = body.value(body.outputs[i]);
    auto dims = graph::known_dims(v.shape);
    if (i >= states) dims.insert(dims.begin(), length);
    ctx.set_output(i, v.dtype, dims);
  }
}

}  // namespace

void register_control_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("control", {{"If", if_op}, {"Loop", loop}, {"Scan", scan}});
  // clang-format on
}

}  // namespace ridge::shape
