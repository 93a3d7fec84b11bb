// Shape rules of reductions (ReduceX, ArgMax/ArgMin), TopK and CumSum.
#include <fmt/format.h>

#include <set>

#include "shape/constant_eval.h"
#include "shape/registry.h"

namespace ridge::shape {
namespace {

// Axes moved from attribute to input: ReduceSum at opset 13, the other reductions at 18.
template <int AxesInputSince>
void reduce(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto x = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes;
  bool axes_given = false;
  if (ctx.opset() >= AxesInputSince) {
    if (ctx.has_input(1)) {
      axes = ctx.in_ints(1, "reduction axes");
      axes_given = true;
    }
  } else if (ctx.node().has("axes")) {
    axes = ctx.node().get_ints("axes");
    axes_given = true;
  }
  bool keepdims = ctx.node().get_int("keepdims", 1) != 0;
  if (axes_given && axes.empty() && ctx.node().get_int("noop_with_empty_axes", 0) != 0) return ctx.pass_through(0, 0);
  std::set<int64_t> reduced;
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i) reduced.insert(i);
  for (auto a : axes) reduced.insert(ctx.axis(a, rank));
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.count(i))
      out.push_back(x[static_cast<size_t>(i)]);
    else if (keepdims)
      out.push_back(1);
  }
  // Shape subgraphs reduce small constants (e.g. ReduceProd of a shape): evaluate those.
  const auto* c = ctx.in_const(0);
  if (c && rank == 1 && !keepdims && (ctx.node().op_type == "ReduceProd" || ctx.node().op_type == "ReduceSum")) {
    graph::ConstantData value;
    value.dtype = c->dtype;
    bool prod = ctx.node().op_type == "ReduceProd";
    if (c->is_integral()) {
      int64_t acc = prod ? 1 : 0;
      for (auto v : c->ints) acc = prod ? acc * v : acc + v;
      value.ints.push_back(acc);
    } else {
      double acc = prod ? 1 : 0;
      for (auto v : c->reals) acc = prod ? acc * v : acc + v;
      value.reals.push_back(acc);
    }
    return ctx.set_output_const(0, std::move(value));
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void arg_reduce(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto x = ctx.in_dims(0);
  int64_t axis = ctx.axis(ctx.node().get_int("axis", 0), static_cast<int64_t>(x.size()));
  if (ctx.node().get_int("keepdims", 1))
    x[static_cast<size_t>(axis)] = 1;
  else
    x.erase(x.begin() + axis);
  ctx.set_output(0, graph::DType::kInt64, x);
}

void topk(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto x = ctx.in_dims(0);
  int64_t axis = ctx.axis(ctx.node().get_int("axis", -1), static_cast<int64_t>(x.size()));
  int64_t k = ctx.opset() >= 10 ? ctx.in_ints(1, "K").at(0) : ctx.node().get_int("k", 0);
  if (k < 0 || k > x[static_cast<size_t>(axis)]) ctx.fail(fmt::format("K={} out of range", k));
  x[static_cast<size_t>(axis)] = k;
  ctx.set_output(0, ctx.in_dtype(0), x);
  ctx.set_output(1, graph::DType::kInt64, x);
}

}  // namespace

void register_reduction_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("reduction", {{"ReduceSum", reduce<13>}, {"ReduceMean", reduce<18>}, {"ReduceMax", reduce<18>},
                {"ReduceMin", reduce<18>}, {"ReduceProd", reduce<18>}, {"ReduceL1", reduce<18>},
                {"ReduceL2", reduce<18>}, {"ReduceLogSum", reduce<18>}, {"ReduceLogSumExp", reduce<18>},
                {"ReduceSumSquare", reduce<18>}, {"ArgMax", arg_reduce}, {"ArgMin", arg_reduce},
                {"TopK", topk}, {"CumSum", [](InferenceContext& ctx) { ctx.pass_through(0, 0); }}});
  // clang-format on
}

}  // namespace ridge::shape
