// Shape rules of control flow: If, Loop and Scan infer their subgraphs in a child scope.
#include <fmt/format.h>

#include "graph/loop_condition.h"
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
  ctx.set_like(out, v);
}

// Declares a subgraph's i-th input a sequence like `like` (a Loop's initial value) whose length and elements the body
// does not know: they change between iterations.
void set_body_sequence_input(graph::Graph& body, size_t i, const graph::Value& like) {
  auto& v = body.value(body.inputs[i]);
  v.dtype = like.dtype;
  v.shape.clear();
  v.has_shape = true;
  v.is_sequence = true;
  v.elements.reset();
  v.element_shape = like.elements ? graph::shared_by(*like.elements) : like.element_shape;
}

// What one iteration of a body does to the carried sequence `in` to give its output `out`: how many elements it adds
// (SequenceInsert adds one, SequenceErase takes one, Identity passes it on) and whether only at the back; none where
// anything else built it.
struct Growth {
  int64_t count = 0;
  bool appends_only = true;
};

std::optional<Growth> sequence_growth(const graph::Graph& body, graph::ValueId out, graph::ValueId in) {
  Growth growth;
  for (size_t steps = 0; out != in; ++steps) {
    const auto& v = body.value(out);
    if (v.producer < 0 || steps > body.nodes.size()) return std::nullopt;
    const auto& node = body.nodes[static_cast<size_t>(v.producer)];
    if (node.op_type == "SequenceInsert") {
      ++growth.count;
      growth.appends_only = growth.appends_only && node.input(2) == graph::kNoValue;
    } else if (node.op_type == "SequenceErase") {
      --growth.count;
      growth.appends_only = false;
    } else if (node.op_type != "Identity") {
      return std::nullopt;
    }
    out = node.input(0);
    if (out == graph::kNoValue) return std::nullopt;
  }
  return growth;
}

// A Loop's carried sequence after the loop. Its elements are known where the trip count, the initial elements and
// what each iteration adds are, and the inserted elements have one known shape: then either every element has it
// (wherever each went) or the body only appends (the initial elements first). Otherwise what its elements share.
void set_carried_sequence(InferenceContext& ctx, size_t out, const graph::Value& initial, const graph::Graph& body,
                          size_t carried_index, std::optional<int64_t> trips) {
  const auto& v = body.value(body.outputs[carried_index + 1]);
  if (!v.is_sequence) ctx.fail(fmt::format("loop-carried value {} enters as a sequence and leaves as a tensor", out));
  auto common =
      graph::share(initial.elements ? graph::shared_by(*initial.elements) : initial.element_shape, v.element_shape);
  auto growth = sequence_growth(body, body.outputs[carried_index + 1], body.inputs[carried_index + 2]);
  const auto& inserted = v.element_shape.shape;
  if (trips && growth && initial.elements && inserted && graph::is_fully_known(*inserted)) {
    bool uniform = common.shape && graph::is_fully_known(*common.shape);
    for (const auto& e : *initial.elements) uniform = uniform && e == *common.shape;
    if (uniform || growth->appends_only) {
      int64_t length = static_cast<int64_t>(initial.elements->size()) + *trips * growth->count;
      if (length < 0) ctx.fail(fmt::format("the loop erases more elements than sequence {} holds", out));
      std::vector<std::vector<int64_t>> elements;
      for (const auto& e : *initial.elements) elements.push_back(graph::known_dims(e));
      elements.resize(static_cast<size_t>(length), graph::known_dims(*inserted));
      return ctx.set_sequence_output(out, v.dtype, std::move(elements));
    }
  }
  ctx.set_sequence_output(out, v.dtype, std::nullopt, common);
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
    if (a.is_sequence || b.is_sequence) {
      if (!a.is_sequence || !b.is_sequence) ctx.fail(fmt::format("output {} is a sequence in one branch only", i));
      if (a.elements && b.elements && *a.elements == *b.elements) {
        ctx.set_like(i, a);
        continue;
      }
      auto shared = [](const graph::Value& v) { return v.elements ? graph::shared_by(*v.elements) : v.element_shape; };
      ctx.set_sequence_output(i, a.dtype, std::nullopt, graph::share(shared(a), shared(b)));
      continue;
    }
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
    if (ctx.in_is_sequence(i + 2))
      set_body_sequence_input(body, i + 2, ctx.input(i + 2));
    else
      set_body_input(body, i + 2, ctx.in_dtype(i + 2), graph::make_shape(ctx.in_dims(i + 2)));
  infer_sub(ctx, body);
  // A carried sequence's tensors may differ between iterations (a body appending what it read, grown): the body is
  // inferred again with what its output shares with its input until every iteration holds to it. Each round only
  // forgets dims (or the rank), so a few rounds settle it.
  for (int round = 0; round < 16; ++round) {
    bool widened = false;
    for (size_t i = 0; i < carried && i + 1 < body.outputs.size(); ++i) {
      if (!ctx.in_is_sequence(i + 2) || !body.value(body.outputs[i + 1]).is_sequence) continue;
      auto& in = body.value(body.inputs[i + 2]);
      auto both = graph::share(in.element_shape, body.value(body.outputs[i + 1]).element_shape);
      if (both == in.element_shape) continue;
      in.element_shape = std::move(both);
      widened = true;
    }
    if (!widened) break;
    infer_sub(ctx, body);
  }
  // How many times the body runs, where known: the trip count where nothing stops the loop sooner (a sequence's length
  // after it follows; a scan output's is the trip count as before).
  std::optional<int64_t> runs;
  const auto* condition = ctx.has_input(1) ? ctx.in_const(1) : nullptr;
  if (condition && condition->size() == 1 && condition->as_int(0) == 0)
    runs = 0;
  else if (trips && (!ctx.has_input(1) || condition) && graph::body_keeps_going(body))
    runs = std::max<int64_t>(*trips, 0);
  for (size_t i = 0; i < ctx.output_count(); ++i) {
    if (i + 1 >= body.outputs.size()) ctx.fail("body has too few outputs");
    const auto& v = body.value(body.outputs[i + 1]);
    if (i < carried && ctx.in_is_sequence(i + 2)) {
      set_carried_sequence(ctx, i, ctx.input(i + 2), body, i, runs);
    } else if (i < carried) {
      if (!v.has_shape) throw Unresolved{"loop-carried value has no known shape"};
      if (v.is_sequence) ctx.fail(fmt::format("loop-carried value {} enters as a tensor and leaves as a sequence", i));
      ctx.set_output(i, v.dtype, graph::known_dims(v.shape));
    } else {
      if (v.is_sequence) ctx.fail(fmt::format("scan output {} is a sequence (scan outputs are tensors)", i));
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
