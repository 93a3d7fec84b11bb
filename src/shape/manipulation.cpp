// Shape rules of data movement and shape computation: Reshape, Transpose, Concat, Slice, Gather,
// Shape, Constant, Range, Expand, Pad, Resize, ... Shape tensors are evaluated (value
// propagation), which is what makes exports with dynamic batch and sequence dims resolvable.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "onnx/tensor_decode.h"
#include "shape/constant_eval.h"
#include "shape/registry.h"
#include "shape/scope.h"
#include "util/error.h"

namespace ridge::shape {
namespace {

using graph::ConstantData;
using graph::DType;

ConstantData int_vector(const std::vector<int64_t>& values) {
  ConstantData c;
  c.dtype = DType::kInt64;
  c.dims = {static_cast<int64_t>(values.size())};
  c.ints = values;
  return c;
}

void shape_op(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto dims = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(dims.size());
  int64_t start = ctx.node().get_int("start", 0), end = ctx.node().get_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  ctx.set_output_const(0, int_vector(std::vector<int64_t>(dims.begin() + start, dims.begin() + end)));
}

void size_op(InferenceContext& ctx) {
  ctx.require_inputs(1);
  ConstantData c;
  c.dtype = DType::kInt64;
  c.ints = {product(ctx.in_dims(0))};
  ctx.set_output_const(0, c);
}

void constant(InferenceContext& ctx) {
  const auto& node = ctx.node();
  if (const auto* value = node.attribute("value"); value && value->tensor) {
    auto data = onnx::decode_constant(*value->tensor, ctx.scope().directory(), kMaxPropagatedElements);
    if (data) return ctx.set_output_const(0, graph::ConstantData(*data));  // a copy: typed values stay with the tensor
    return ctx.set_output(0, value->tensor->dtype, value->tensor->dims);
  }
  ConstantData c;
  if (const auto* a = node.attribute("value_int")) {
    c.dtype = DType::kInt64;
    c.ints = {a->i};
  } else if (const auto* a = node.attribute("value_ints")) {
    c = int_vector(a->ints);
  } else if (const auto* a = node.attribute("value_float")) {
    c.dtype = DType::kFloat32;
    c.reals = {a->f};
  } else if (const auto* a = node.attribute("value_floats")) {
    c.dtype = DType::kFloat32;
    c.dims = {static_cast<int64_t>(a->floats.size())};
    c.reals = a->floats;
  } else {
    ctx.fail("Constant has no supported value attribute");
  }
  ctx.set_output_const(0, std::move(c));
}

void constant_of_shape(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto dims = ctx.in_ints(0, "ConstantOfShape's shape");
  DType type = DType::kFloat32;
  double fill = 0;
  if (const auto* value = ctx.node().attribute("value"); value && value->tensor) {
    type = value->tensor->dtype;
    if (auto data = onnx::decode_constant(*value->tensor, ctx.scope().directory(), 1); data && data->size() == 1)
      fill = data->as_real(0);
  }
  for (auto d : dims)
    if (d < 0) ctx.fail(fmt::format("negative dimension {}", d));
  if (product(dims) <= kMaxPropagatedElements) {
    ConstantData c;
    c.dtype = type;
    c.dims = dims;
    auto n = static_cast<size_t>(product(dims));
    if (c.is_integral())
      c.ints.assign(n, static_cast<int64_t>(fill));
    else
      c.reals.assign(n, fill);
    return ctx.set_output_const(0, std::move(c));
  }
  ctx.set_output(0, type, dims);
}

// Reshape target with 0 (copy, unless allowzero) and -1 (infer) resolved.
std::vector<int64_t> reshape_target(InferenceContext& ctx, const std::vector<int64_t>& in, std::vector<int64_t> target,
                                    bool allow_zero) {
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allow_zero) {
      if (i >= in.size()) ctx.fail("shape has 0 at a position beyond the input's rank");
      target[i] = in[i];
    }
    if (target[i] == -1) {
      if (infer_at >= 0) ctx.fail("shape has more than one -1");
      infer_at = static_cast<int64_t>(i);
    } else if (target[i] < 0) {
      ctx.fail(fmt::format("shape has negative dimension {}", target[i]));
    } else {
      known = graph::checked_mul(known, target[i], "reshape size");
    }
  }
  int64_t total = product(in);
  if (infer_at >= 0) {
    if (known == 0 || total % known)
      ctx.fail(
          fmt::format("cannot reshape {} ({} elements) into {}", fmt::join(in, "x"), total, fmt::join(target, "x")));
    target[static_cast<size_t>(infer_at)] = total / known;
  } else if (known != total) {
    ctx.fail(fmt::format("cannot reshape {} ({} elements) into {} ({} elements)", fmt::join(in, "x"), total,
                         fmt::join(target, "x"), known));
  }
  return target;
}

// Output 0 is input 0 with new dims (a view): its known values carry over.
void with_values(InferenceContext& ctx, const std::vector<int64_t>& dims) {
  if (const auto* c = ctx.in_const(0)) {
    ConstantData v = *c;
    v.dims = dims;
    return ctx.set_output_const(0, std::move(v));
  }
  ctx.set_output(0, ctx.in_dtype(0), dims);
}

void reshape(InferenceContext& ctx) {
  ctx.require_inputs(ctx.opset() >= 5 ? 2 : 1);
  auto in = ctx.in_dims(0);
  auto target = ctx.opset() >= 5 ? ctx.in_ints(1, "Reshape's shape") : ctx.node().get_ints("shape");
  with_values(ctx, reshape_target(ctx, in, target, ctx.node().get_int("allowzero", 0) != 0));
}

void flatten(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.node().get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) ctx.fail(fmt::format("axis out of range for rank {}", rank));
  int64_t outer = product(std::vector<int64_t>(in.begin(), in.begin() + axis));
  int64_t inner = product(std::vector<int64_t>(in.begin() + axis, in.end()));
  ctx.set_output(0, ctx.in_dtype(0), {outer, inner});
}

void transpose(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  std::vector<int64_t> perm(in.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = ctx.node().get_ints("perm", perm);
  if (perm.size() != in.size()) ctx.fail("perm does not match the input's rank");
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  for (auto p : perm) {
    auto a = ctx.axis(p, static_cast<int64_t>(in.size()), "perm entry");
    if (!seen.insert(a).second) ctx.fail("perm repeats an axis");
    out.push_back(in[static_cast<size_t>(a)]);
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

std::vector<int64_t> axes_of(InferenceContext& ctx, int since) {
  if (ctx.opset() >= since) return ctx.has_input(1) ? ctx.in_ints(1, "axes") : std::vector<int64_t>{};
  return ctx.node().get_ints("axes");
}

void squeeze(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  auto axes = axes_of(ctx, 13);
  std::set<int64_t> drop;
  for (auto a : axes) {
    auto axis = ctx.axis(a, static_cast<int64_t>(in.size()));
    if (in[static_cast<size_t>(axis)] != 1)
      ctx.fail(fmt::format("cannot squeeze axis {} of size {}", a, in[static_cast<size_t>(axis)]));
    drop.insert(axis);
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i)
    if (axes.empty() ? in[i] != 1 : !drop.count(static_cast<int64_t>(i))) out.push_back(in[i]);
  with_values(ctx, out);
}

void unsqueeze(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  auto axes = axes_of(ctx, 13);
  auto rank = static_cast<int64_t>(in.size() + axes.size());
  std::set<int64_t> insert;
  for (auto a : axes)
    if (!insert.insert(ctx.axis(a, rank)).second) ctx.fail("axes repeat");
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) out.push_back(insert.count(i) ? 1 : in[next++]);
  with_values(ctx, out);
}

void concat(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto first = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(first.size());
  if (!ctx.node().has("axis")) ctx.fail("axis is required");
  int64_t axis = ctx.axis(ctx.node().get_int("axis", 0), rank);
  auto out = first;
  out[static_cast<size_t>(axis)] = 0;
  bool all_const = true;
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    auto d = ctx.in_dims(i);
    if (static_cast<int64_t>(d.size()) != rank) ctx.fail("inputs have different ranks");
    for (size_t k = 0; k < d.size(); ++k)
      if (static_cast<int64_t>(k) != axis && d[k] != first[k])
        ctx.fail(fmt::format("input {} has dim {} of size {}, expected {}", i, k, d[k], first[k]));
    out[static_cast<size_t>(axis)] =
        graph::checked_add(out[static_cast<size_t>(axis)], d[static_cast<size_t>(axis)], "Concat size");
    all_const = all_const && ctx.in_const(i);
  }
  if (all_const && rank == 1 && product(out) <= kMaxPropagatedElements) {
    ConstantData c;
    c.dtype = ctx.in_const(0)->dtype;
    c.dims = out;
    for (size_t i = 0; i < ctx.input_count(); ++i) {
      const auto* in = ctx.in_const(i);
      for (size_t k = 0; k < static_cast<size_t>(in->size()); ++k) {
        if (c.is_integral())
          c.ints.push_back(in->as_int(k));
        else
          c.reals.push_back(in->as_real(k));
      }
    }
    return ctx.set_output_const(0, std::move(c));
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void split(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  int64_t axis = ctx.axis(ctx.node().get_int("axis", 0), static_cast<int64_t>(in.size()));
  int64_t total = in[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (ctx.opset() >= 13 && ctx.has_input(1))
    sizes = ctx.in_ints(1, "split sizes");
  else if (ctx.opset() < 13)
    sizes = ctx.node().get_ints("split");
  auto outputs = static_cast<int64_t>(ctx.output_count());
  if (sizes.empty()) {
    int64_t parts = ctx.node().get_int("num_outputs", outputs);
    if (parts <= 0) ctx.fail("no outputs");
    int64_t chunk = (total + parts - 1) / parts;
    for (int64_t i = 0; i < outputs; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, total - i * chunk)));
  }
  if (static_cast<int64_t>(sizes.size()) != outputs) ctx.fail("split sizes do not match the number of outputs");
  if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != total)
    ctx.fail(fmt::format("split sizes do not add up to {}", total));
  const auto* c = ctx.in_const(0);
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    auto out = in;
    out[static_cast<size_t>(axis)] = sizes[i];
    if (c && in.size() == 1) {
      std::vector<int64_t> idx(static_cast<size_t>(sizes[i]));
      std::iota(idx.begin(), idx.end(), offset);
      ctx.set_output_const(i, take_elements(*c, idx, out));
    } else {
      ctx.set_output(i, ctx.in_dtype(0), out);
    }
    offset += sizes[i];
  }
}

// Clamps a Slice start/end the way the spec does, for a positive or negative step.
int64_t clamp_slice(int64_t v, int64_t dim, bool is_end, int64_t step) {
  if (v < 0) v += dim;
  if (step > 0) return std::clamp<int64_t>(v, 0, dim);
  return std::clamp<int64_t>(v, is_end ? -1 : 0, dim - 1);
}

void slice(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() >= 10) {
    ctx.require_inputs(3);
    starts = ctx.in_ints(1, "Slice starts");
    ends = ctx.in_ints(2, "Slice ends");
    if (ctx.has_input(3)) axes = ctx.in_ints(3, "Slice axes");
    if (ctx.has_input(4)) steps = ctx.in_ints(4, "Slice steps");
  } else {
    starts = ctx.node().get_ints("starts");
    ends = ctx.node().get_ints("ends");
    axes = ctx.node().get_ints("axes");
  }
  if (starts.size() != ends.size()) ctx.fail("starts and ends differ in length");
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    ctx.fail("axes/steps differ in length from starts");
  auto out = in;
  std::vector<int64_t> begin(in.size(), 0), step_of(in.size(), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto a = static_cast<size_t>(ctx.axis(axes[i], rank));
    int64_t dim = in[a], step = steps[i];
    if (step == 0) ctx.fail("step 0");
    int64_t s = clamp_slice(starts[i], dim, false, step), e = clamp_slice(ends[i], dim, true, step);
    if (step == INT64_MIN) step = -INT64_MAX;
    int64_t count = step > 0 ? (e > s ? (e - s - 1) / step + 1 : 0) : (s > e ? (s - e - 1) / (-step) + 1 : 0);
    out[a] = count;
    begin[a] = s;
    step_of[a] = step;
  }
  const auto* c = ctx.in_const(0);
  if (c && in.size() == 1) {
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < out[0]; ++k) idx.push_back(begin[0] + k * step_of[0]);
    return ctx.set_output_const(0, take_elements(*c, idx, out));
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void gather(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto data = ctx.in_dims(0);
  auto indices = ctx.in_dims(1);
  auto rank = static_cast<int64_t>(data.size());
  if (rank == 0) ctx.fail("data must not be a scalar");
  auto axis = static_cast<size_t>(ctx.axis(ctx.node().get_int("axis", 0), rank));
  std::vector<int64_t> out(data.begin(), data.begin() + static_cast<long>(axis));
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + static_cast<long>(axis) + 1, data.end());
  const auto* c = ctx.in_const(0);
  auto idx = ctx.in_ints_if_known(1);
  if (c && idx && data.size() == 1) {
    std::vector<int64_t> flat;
    for (auto i : *idx) {
      if (i < -data[0] || i >= data[0]) ctx.fail(fmt::format("index {} out of range for size {}", i, data[0]));
      flat.push_back(i < 0 ? i + data[0] : i);
    }
    return ctx.set_output_const(0, take_elements(*c, flat, out));
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void gather_elements(InferenceContext& ctx) {
  ctx.require_inputs(2);
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_dims(1));
}

void gather_nd(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto data = ctx.in_dims(0), indices = ctx.in_dims(1);
  auto batch = static_cast<size_t>(ctx.node().get_int("batch_dims", 0));
  if (indices.empty()) ctx.fail("indices must have rank >= 1");
  auto last = static_cast<size_t>(indices.back());
  if (batch + last > data.size()) ctx.fail("indices' last dim too large");
  std::vector<int64_t> out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + static_cast<long>(batch + last), data.end());
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void expand(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto target = ctx.in_ints(1, "Expand's shape");
  auto out = broadcast_dims(ctx, {ctx.in_dims(0), target});
  const auto* c = ctx.in_const(0);
  if (c && product(out) <= kMaxPropagatedElements && c->size() == 1) {
    ConstantData v;
    v.dtype = c->dtype;
    v.dims = out;
    auto n = static_cast<size_t>(product(out));
    if (v.is_integral())
      v.ints.assign(n, c->ints[0]);
    else
      v.reals.assign(n, c->reals[0]);
    return ctx.set_output_const(0, std::move(v));
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void tile(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto in = ctx.in_dims(0);
  auto repeats = ctx.in_ints(1, "Tile's repeats");
  if (repeats.size() != in.size()) ctx.fail("repeats do not match the input's rank");
  for (size_t i = 0; i < in.size(); ++i) in[i] = graph::checked_mul(in[i], repeats[i], "Tile size");
  ctx.set_output(0, ctx.in_dtype(0), in);
}

void range(InferenceContext& ctx) {
  ctx.require_inputs(3);
  const auto* start = ctx.in_const(0);
  const auto* limit = ctx.in_const(1);
  const auto* delta = ctx.in_const(2);
  if (!start || !limit || !delta) throw Unresolved{"Range bounds are computed from data"};
  double s = start->as_real(0), l = limit->as_real(0), d = delta->as_real(0);
  if (d == 0) ctx.fail("delta is 0");
  auto count = real_to_int(std::max(0.0, std::ceil((l - s) / d)));
  if (count <= kMaxPropagatedElements) {
    ConstantData c;
    c.dtype = start->dtype;
    c.dims = {count};
    for (int64_t i = 0; i < count; ++i) {
      if (c.is_integral())
        c.ints.push_back(
            graph::checked_add(start->as_int(0), graph::checked_mul(i, delta->as_int(0), "Range"), "Range"));
      else
        c.reals.push_back(s + static_cast<double>(i) * d);
    }
    return ctx.set_output_const(0, std::move(c));
  }
  ctx.set_output(0, ctx.in_dtype(0), {count});
}

void pad(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> pads = ctx.opset() >= 11 ? ctx.in_ints(1, "Pad's pads") : ctx.node().get_ints("pads");
  std::vector<int64_t> axes;
  if (ctx.opset() >= 18 && ctx.has_input(3)) axes = ctx.in_ints(3, "Pad's axes");
  if (axes.empty()) {
    axes.resize(in.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (pads.size() != 2 * axes.size()) ctx.fail("pads must have two entries per padded axis");
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = static_cast<size_t>(ctx.axis(axes[i], rank));
    in[a] = graph::checked_add(in[a], graph::checked_add(pads[i], pads[i + axes.size()], "Pad"), "Pad");
    if (in[a] < 0) ctx.fail("padding makes a dimension negative");
  }
  ctx.set_output(0, ctx.in_dtype(0), in);
}

void depth_to_space(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  int64_t b = ctx.node().get_int("blocksize", 0);
  if (in.size() != 4 || b <= 0 || in[1] % (b * b)) ctx.fail("needs a 4-D input with channels divisible by blocksize^2");
  ctx.set_output(0, ctx.in_dtype(0), {in[0], in[1] / (b * b), in[2] * b, in[3] * b});
}

void space_to_depth(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  int64_t b = ctx.node().get_int("blocksize", 0);
  if (in.size() != 4 || b <= 0 || in[2] % b || in[3] % b)
    ctx.fail("needs a 4-D input with spatial dims divisible by blocksize");
  ctx.set_output(0, ctx.in_dtype(0), {in[0], in[1] * b * b, in[2] / b, in[3] / b});
}

// Resize (opset 10+: scales input 1 or 2; sizes input 3) and Upsample.
void resize(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto in = ctx.in_dims(0);
  std::vector<double> scales;
  std::optional<std::vector<int64_t>> sizes;
  const bool upsample = ctx.node().op_type == "Upsample";
  size_t scales_at = upsample ? 1 : (ctx.opset() >= 11 ? 2 : 1);
  if (upsample && ctx.opset() < 9) {
    for (auto f : ctx.node().attribute("scales") ? ctx.node().attribute("scales")->floats : std::vector<double>{})
      scales.push_back(f);
  } else {
    if (!upsample && ctx.opset() >= 11 && ctx.has_input(3)) sizes = ctx.in_ints(3, "Resize sizes");
    if (!sizes && ctx.has_input(scales_at)) {
      const auto* c = ctx.in_const(scales_at);
      if (!c) throw Unresolved{"Resize scales are computed from data"};
      for (size_t i = 0; i < static_cast<size_t>(c->size()); ++i) scales.push_back(c->as_real(i));
    }
  }
  auto axes = ctx.node().get_ints("axes");
  if (axes.empty()) {
    axes.resize(in.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  auto out = in;
  if (sizes && !sizes->empty()) {
    if (sizes->size() != axes.size()) ctx.fail("sizes do not match the axes");
    for (size_t i = 0; i < axes.size(); ++i)
      out[static_cast<size_t>(ctx.axis(axes[i], static_cast<int64_t>(in.size())))] = (*sizes)[i];
  } else if (!scales.empty()) {
    if (scales.size() != axes.size()) ctx.fail("scales do not match the axes");
    for (size_t i = 0; i < axes.size(); ++i) {
      auto a = static_cast<size_t>(ctx.axis(axes[i], static_cast<int64_t>(in.size())));
      out[a] = real_to_int(std::floor(static_cast<double>(in[a]) * scales[i] + 1e-9));
    }
  } else {
    ctx.fail("neither scales nor sizes given");
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void same_shape(InferenceContext& ctx) {
  ctx.require_inputs(1);
  ctx.pass_through(0, 0);
}

void one_hot(InferenceContext& ctx) {
  ctx.require_inputs(3);
  auto indices = ctx.in_dims(0);
  auto depth = ctx.in_const(1);
  if (!depth) throw Unresolved{"OneHot depth is computed from data"};
  auto rank = static_cast<int64_t>(indices.size()) + 1;
  int64_t axis = ctx.axis(ctx.node().get_int("axis", -1), rank);
  indices.insert(indices.begin() + axis, real_to_int(depth->as_real(0)));
  ctx.set_output(0, ctx.in_dtype(2), indices);
}

void nonzero(InferenceContext& ctx) {
  ctx.require_inputs(1);
  const auto* c = ctx.in_const(0);
  if (!c) throw Unresolved{"NonZero's output size depends on the data"};
  auto dims = c->dims;
  std::vector<std::vector<int64_t>> coords(dims.size());
  std::vector<int64_t> index(dims.size(), 0);
  for (size_t flat = 0; flat < static_cast<size_t>(c->size()); ++flat) {
    if (c->as_real(flat) != 0)
      for (size_t d = 0; d < dims.size(); ++d) coords[d].push_back(index[d]);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  ConstantData out;
  out.dtype = DType::kInt64;
  auto count = static_cast<int64_t>(dims.empty() ? (c->as_real(0) != 0) : coords[0].size());
  out.dims = {static_cast<int64_t>(dims.size()), count};
  for (const auto& row : coords) out.ints.insert(out.ints.end(), row.begin(), row.end());
  ctx.set_output_const(0, std::move(out));
}

// GridSample: X [N, C, D...] sampled at grid [N, Do..., rank] gives [N, C, Do...].
void grid_sample(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto x = ctx.in_dims(0), grid = ctx.in_dims(1);
  if (x.size() < 3 || grid.size() != x.size() || grid[0] != x[0] || grid.back() != static_cast<int64_t>(x.size()) - 2)
    ctx.fail("grid must be [N, out spatial..., spatial rank] for X [N, C, spatial...]");
  std::vector<int64_t> out{x[0], x[1]};
  out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
  ctx.set_output(0, ctx.in_dtype(0), out);
}

// BlackmanWindow, HannWindow, HammingWindow: a 1-D window of the given (constant) size.
void window(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto size = ctx.in_ints(0, "window size");
  if (size.size() != 1) ctx.fail("size must be a scalar");
  ctx.set_output(0, static_cast<DType>(ctx.node().get_int("output_datatype", 1)), {size[0]});
}

void data_dependent(InferenceContext& ctx) {
  throw Unresolved{ctx.node().op_type + "'s output size depends on the data"};
}

void scatter(InferenceContext& ctx) {
  ctx.require_inputs(3);
  ctx.pass_through(0, 0);
}

void eye_like(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto type = ctx.node().has("dtype") ? static_cast<DType>(ctx.node().get_int("dtype", 1)) : ctx.in_dtype(0);
  ctx.set_output(0, type, ctx.in_dims(0));
}

void random_like(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto type = ctx.node().has("dtype") ? static_cast<DType>(ctx.node().get_int("dtype", 1)) : ctx.in_dtype(0);
  ctx.set_output(0, type, ctx.in_dims(0));
}

void random_shaped(InferenceContext& ctx) {
  auto type = static_cast<DType>(ctx.node().get_int("dtype", 1));
  ctx.set_output(0, type, ctx.node().get_ints("shape"));
}

}  // namespace

void register_manipulation_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("manipulation", {{"Shape", shape_op}, {"Size", size_op}, {"Constant", constant}, {"ConstantOfShape", constant_of_shape},
                {"Reshape", reshape}, {"Flatten", flatten}, {"Transpose", transpose}, {"Squeeze", squeeze},
                {"Unsqueeze", unsqueeze}, {"Concat", concat}, {"Split", split}, {"Slice", slice},
                {"Gather", gather}, {"GatherElements", gather_elements}, {"GatherND", gather_nd},
                {"ScatterND", scatter}, {"ScatterElements", scatter}, {"Scatter", scatter}, {"Expand", expand},
                {"Tile", tile}, {"Range", range}, {"Pad", pad}, {"DepthToSpace", depth_to_space},
                {"SpaceToDepth", space_to_depth}, {"Resize", resize}, {"Upsample", resize}, {"Trilu", same_shape},
                {"ReverseSequence", same_shape}, {"OneHot", one_hot}, {"NonZero", nonzero},
                {"NonMaxSuppression", data_dependent}, {"Unique", data_dependent}, {"Compress", data_dependent},
                {"EyeLike", eye_like}, {"RandomNormalLike", random_like}, {"RandomUniformLike", random_like},
                {"RandomNormal", random_shaped}, {"RandomUniform", random_shaped}, {"GridSample", grid_sample},
                {"BlackmanWindow", window}, {"HannWindow", window}, {"HammingWindow", window}});
  // clang-format on
}

}  // namespace ridge::shape
