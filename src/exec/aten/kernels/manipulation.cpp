// Shape manipulation, indexing and data movement: reshape/transpose/slice/concat/split,
// gather and scatter, pad/tile/expand, and the small tensor producers (Shape, Constant, Range...).
#include <fmt/format.h>

#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

std::vector<int64_t> axes_of(const C& c, size_t input) {
  auto axes = c.node.get_ints("axes");
  if (axes.empty() && c.has(input)) axes = c.ints(input);
  return axes;
}

void reshape(C& c) {
  const auto& x = c.in(0);
  auto shape = c.ints(1);
  if (!c.node.get_int("allowzero", 0))
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] == 0) shape[i] = x.size(static_cast<int64_t>(i));  // 0 copies the input's dim
  c.set(0, x.reshape(shape));
}

void flatten(C& c) {
  const auto& x = c.in(0);
  int64_t axis = c.node.get_int("axis", 1);
  if (axis < 0) axis += x.dim();
  if (axis < 0 || axis > x.dim()) c.fail("axis out of range");
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.size(d);
  c.set(0, x.reshape({outer, outer == 0 ? 0 : x.numel() / std::max<int64_t>(outer, 1)}));
}

void transpose(C& c) {
  const auto& x = c.in(0);
  auto perm = c.node.get_ints("perm");
  if (perm.empty())
    for (int64_t d = x.dim() - 1; d >= 0; --d) perm.push_back(d);
  c.set(0, x.permute(perm));
}

void squeeze(C& c) {
  const auto& x = c.in(0);
  auto axes = axes_of(c, 1);
  if (axes.empty()) {
    c.set(0, x.squeeze());
    return;
  }
  std::vector<int64_t> shape;
  std::vector<bool> drop(static_cast<size_t>(x.dim()), false);
  for (auto a : axes) drop[static_cast<size_t>(normalize_axis(a, x.dim(), c))] = true;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!drop[static_cast<size_t>(d)]) shape.push_back(x.size(d));
  c.set(0, x.reshape(shape));
}

void unsqueeze(C& c) {
  const auto& x = c.in(0);
  auto axes = axes_of(c, 1);
  int64_t rank = x.dim() + static_cast<int64_t>(axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (auto a : axes) inserted[static_cast<size_t>(normalize_axis(a, rank, c))] = true;
  std::vector<int64_t> shape;
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d) shape.push_back(inserted[static_cast<size_t>(d)] ? 1 : x.size(next++));
  c.set(0, x.reshape(shape));
}

void concat(C& c) {
  std::vector<at::Tensor> parts;
  for (size_t i = 0; i < c.inputs.size(); ++i) parts.push_back(c.in(i));
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), parts.at(0).dim(), c);
  c.set(0, at::cat(parts, axis));
}

void split(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), x.dim(), c);
  auto sizes = c.node.get_ints("split");
  if (sizes.empty() && c.has(1)) sizes = c.ints(1);
  if (sizes.empty()) {
    auto parts = static_cast<int64_t>(c.node.outputs.size());
    int64_t chunk = (x.size(axis) + parts - 1) / parts;  // the last part may be smaller (opset 18)
    for (int64_t i = 0, left = x.size(axis); i < parts; ++i, left -= chunk) sizes.push_back(std::min(chunk, left));
  }
  auto pieces = at::split_with_sizes(x, sizes, axis);
  for (size_t i = 0; i < pieces.size(); ++i) c.set(i, pieces[i]);
}

void slice(C& c) {
  const auto& x = c.in(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    starts = c.node.get_ints("starts");
    ends = c.node.get_ints("ends");
    axes = c.node.get_ints("axes");
  } else {
    starts = c.ints(1);
    ends = c.ints(2);
    if (c.has(3)) axes = c.ints(3);
    if (c.has(4)) steps = c.ints(4);
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  at::Tensor y = x;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = normalize_axis(axes[i], x.dim(), c), dim = x.size(axis), step = steps[i];
    if (step == 0) c.fail("slice step 0");
    int64_t start = starts[i], end = ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      y = y.slice(axis, start, std::max(start, end), step);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      auto index = start > end ? at::arange(start, end, step, at::kLong) : at::empty({0}, at::kLong);
      y = y.index_select(axis, index);
    }
  }
  c.set(0, y);
}

at::Tensor wrap_indices(const at::Tensor& idx, int64_t dim) {
  auto i = idx.to(at::kLong);
  return at::where(i < 0, i + dim, i);
}

void gather(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), x.dim(), c);
  auto idx = wrap_indices(c.in(1), x.size(axis));
  auto picked = x.index_select(axis, idx.reshape({-1}));
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().begin() + axis);
  for (auto d : idx.sizes()) shape.push_back(d);
  shape.insert(shape.end(), x.sizes().begin() + axis + 1, x.sizes().end());
  c.set(0, picked.reshape(shape));
}

void gather_elements(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), x.dim(), c);
  c.set(0, at::gather(x, axis, wrap_indices(c.in(1), x.size(axis))));
}

// Index tuples over the leading axes of `x` (after `batch` batch axes), batch axes flattened.
std::vector<at::Tensor> nd_index(const at::Tensor& x, const at::Tensor& indices, int64_t batch, int64_t& batch_size) {
  int64_t k = indices.size(-1);
  batch_size = 1;
  for (int64_t d = 0; d < batch; ++d) batch_size *= x.size(d);
  auto idx = indices.to(at::kLong).reshape({batch_size, -1, k});
  std::vector<at::Tensor> index{at::arange(batch_size, at::kLong).view({-1, 1})};
  for (int64_t j = 0; j < k; ++j) index.push_back(wrap_indices(idx.select(2, j), x.size(batch + j)));
  return index;
}

void gather_nd(C& c) {
  const auto& x = c.in(0);
  const auto& indices = c.in(1);
  int64_t batch = c.node.get_int("batch_dims", 0), k = indices.size(-1), batch_size = 1;
  auto index = nd_index(x, indices, batch, batch_size);
  std::vector<int64_t> flat_shape{batch_size};
  flat_shape.insert(flat_shape.end(), x.sizes().begin() + batch, x.sizes().end());
  auto flat = x.reshape(flat_shape);
  std::vector<c10::optional<at::Tensor>> opt(index.begin(), index.end());
  auto picked = flat.index(c10::List<c10::optional<at::Tensor>>(opt));
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end() - 1);
  shape.insert(shape.end(), x.sizes().begin() + batch + k, x.sizes().end());
  c.set(0, picked.reshape(shape));
}

void scatter_elements(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), x.dim(), c);
  auto idx = wrap_indices(c.in(1), x.size(axis));
  auto reduction = c.node.get_string("reduction", "none");
  if (reduction == "none") {
    c.set(0, at::scatter(x, axis, idx, c.in(2)));
    return;
  }
  std::string reduce = reduction == "add" ? "sum" : reduction == "mul" ? "prod" : reduction == "max" ? "amax" : "amin";
  c.set(0, at::scatter_reduce(x, axis, idx, c.in(2), reduce, true));
}

void scatter_nd(C& c) {
  const auto& x = c.in(0);
  const auto& indices = c.in(1);
  int64_t k = indices.size(-1);
  auto idx = indices.to(at::kLong).reshape({-1, k});
  std::vector<int64_t> slice_shape{idx.size(0)};
  slice_shape.insert(slice_shape.end(), x.sizes().begin() + k, x.sizes().end());
  auto updates = c.in(2).reshape(slice_shape);
  auto out = x.clone();
  auto reduction = c.node.get_string("reduction", "none");
  // One update at a time: later updates see earlier ones, as the ONNX definition reads.
  for (int64_t m = 0; m < idx.size(0); ++m) {
    at::Tensor target = out;
    for (int64_t j = 0; j < k; ++j) {
      int64_t i = idx[m][j].item<int64_t>();
      target = target.select(0, i < 0 ? i + x.size(j) : i);
    }
    auto u = updates[m];
    if (reduction == "none")
      target.copy_(u);
    else if (reduction == "add")
      target.add_(u);
    else if (reduction == "mul")
      target.mul_(u);
    else if (reduction == "max")
      target.copy_(at::maximum(target, u));
    else
      target.copy_(at::minimum(target, u));
  }
  c.set(0, out);
}

void expand(C& c) {
  const auto& x = c.in(0);
  auto shape = c.ints(1);
  // Bidirectional broadcast of the input's shape and the given one.
  size_t rank = std::max<size_t>(shape.size(), static_cast<size_t>(x.dim()));
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - static_cast<size_t>(x.dim()) ? 1 : x.size(static_cast<int64_t>(i - (rank - x.dim())));
    int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (a != b && a != 1 && b != 1) c.fail(fmt::format("cannot broadcast {} to the given shape", a));
    out[i] = a == 1 ? b : a;
  }
  c.set(0, x.expand(out));
}

void pad(C& c) {
  const auto& x = c.in(0);
  std::vector<int64_t> pads = c.opset < 11 ? c.node.get_ints("pads") : c.ints(1);
  double value = c.opset < 11 ? c.node.get_float("value", 0.0)
                              : (c.has(2) && c.in(2).numel() ? c.in(2).to(at::kDouble).item<double>() : 0.0);
  std::vector<int64_t> axes;
  if (c.has(3)) axes = c.ints(3);
  if (axes.empty())
    for (int64_t d = 0; d < x.dim(); ++d) axes.push_back(d);
  size_t n = axes.size();
  if (pads.size() != 2 * n) c.fail(fmt::format("pads has {} values for {} axes", pads.size(), n));
  auto mode = c.node.get_string("mode", "constant");
  at::Tensor y = x;
  if (mode == "constant") {
    std::vector<int64_t> full(2 * static_cast<size_t>(x.dim()), 0);
    for (size_t i = 0; i < n; ++i) {
      auto axis = static_cast<size_t>(normalize_axis(axes[i], x.dim(), c));
      full[2 * (static_cast<size_t>(x.dim()) - 1 - axis)] = pads[i];
      full[2 * (static_cast<size_t>(x.dim()) - 1 - axis) + 1] = pads[i + n];
    }
    c.set(0, at::constant_pad_nd(x, full, value));
    return;
  }
  // reflect / edge / wrap: gather each axis through an index map (negative pads crop).
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = normalize_axis(axes[i], x.dim(), c), dim = y.size(axis);
    int64_t begin = pads[i], end = pads[i + n];
    auto pos = at::arange(-begin, dim + end, at::kLong);
    if (mode == "edge")
      pos = pos.clamp(0, dim - 1);
    else if (mode == "wrap")
      pos = at::remainder(pos, dim);
    else if (mode == "reflect") {
      if (dim == 1)
        pos = at::zeros_like(pos);
      else {
        auto period = 2 * (dim - 1);
        pos = at::remainder(pos, period);
        pos = at::where(pos >= dim, period - pos, pos);
      }
    } else {
      c.fail("unknown pad mode " + mode);
    }
    y = y.index_select(axis, pos);
  }
  c.set(0, y);
}

void shape_kernel(C& c) {
  const auto& x = c.in(0);
  int64_t rank = x.dim();
  int64_t start = c.node.get_int("start", 0), end = c.node.get_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> dims(x.sizes().begin() + start, x.sizes().begin() + end);
  c.set(0, at::tensor(dims, at::kLong));
}

void constant(C& c) {
  if (auto t = c.attribute_tensor("value"); t.defined()) return c.set(0, t);
  if (c.node.has("value_float")) return c.set(0, at::scalar_tensor(c.node.get_float("value_float", 0), at::kFloat));
  if (c.node.has("value_int")) return c.set(0, at::scalar_tensor(c.node.get_int("value_int", 0), at::kLong));
  if (const auto* a = c.node.attribute("value_floats")) {
    std::vector<float> v(a->floats.begin(), a->floats.end());
    return c.set(0, at::tensor(v, at::kFloat));
  }
  if (const auto* a = c.node.attribute("value_ints")) return c.set(0, at::tensor(a->ints, at::kLong));
  c.fail("only numeric constants are supported");
}

void constant_of_shape(C& c) {
  auto shape = c.ints(0);
  auto fill = c.attribute_tensor("value");
  if (!fill.defined()) fill = at::zeros({1}, at::kFloat);
  c.set(0, fill.reshape({}).expand(shape).contiguous());
}

void range(C& c) {
  const auto& start = c.in(0);
  auto type = start.scalar_type();
  if (at::isIntegralType(type, false)) {
    c.set(0, at::arange(start.item<int64_t>(), c.in(1).item<int64_t>(), c.in(2).item<int64_t>(), type));
    return;
  }
  // ONNX: n = ceil((limit - start) / delta) elements start + i*delta, computed in the input type.
  double s = start.item<double>(), limit = c.in(1).item<double>(), delta = c.in(2).item<double>();
  auto n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - s) / delta)));
  c.set(0, (at::arange(n, at::kDouble) * delta + s).to(type));
}

void depth_to_space(C& c) {
  const auto& x = c.in(0);
  int64_t b = c.node.get_int("blocksize", 1), n = x.size(0), ch = x.size(1), h = x.size(2), w = x.size(3);
  bool crd = c.node.get_string("mode", "DCR") == "CRD";
  at::Tensor y = crd ? x.reshape({n, ch / (b * b), b, b, h, w}).permute({0, 1, 4, 2, 5, 3})
                     : x.reshape({n, b, b, ch / (b * b), h, w}).permute({0, 3, 4, 1, 5, 2});
  c.set(0, y.reshape({n, ch / (b * b), h * b, w * b}));
}

void space_to_depth(C& c) {
  const auto& x = c.in(0);
  int64_t b = c.node.get_int("blocksize", 1), n = x.size(0), ch = x.size(1), h = x.size(2), w = x.size(3);
  auto y = x.reshape({n, ch, h / b, b, w / b, b}).permute({0, 3, 5, 1, 2, 4});
  c.set(0, y.reshape({n, ch * b * b, h / b, w / b}));
}

void trilu(C& c) {
  int64_t k = c.has(1) ? c.ints(1).at(0) : 0;
  c.set(0, c.node.get_int("upper", 1) ? at::triu(c.in(0), k) : at::tril(c.in(0), k));
}

void one_hot(C& c) {
  auto depth = static_cast<int64_t>(c.in(1).to(at::kDouble).item<double>());
  auto indices = c.in(0).to(at::kLong);
  indices = at::where(indices < 0, indices + depth, indices);
  const auto& values = c.in(2);
  int64_t rank = indices.dim() + 1;
  int64_t axis = normalize_axis(c.node.get_int("axis", -1), rank, c);
  auto valid = (indices >= 0) & (indices < depth);
  auto hot = at::one_hot(at::where(valid, indices, at::zeros_like(indices)), depth) * valid.unsqueeze(-1);
  auto mask = hot.movedim(-1, axis).to(at::kBool);
  c.set(0, at::where(mask, values[1], values[0]));
}

void eye_like(C& c) {
  const auto& x = c.in(0);
  int64_t k = c.node.get_int("k", 0);
  auto type =
      c.node.has("dtype") ? scalar_type(static_cast<graph::DType>(c.node.get_int("dtype", 1))) : x.scalar_type();
  auto y = at::zeros({x.size(0), x.size(1)}, at::kDouble);
  if (k < x.size(1) && -k < x.size(0)) y.diagonal(k).fill_(1);
  c.set(0, y.to(type));
}

void compress(C& c) {
  const auto& x = c.in(0);
  auto condition = c.in(1).to(at::kBool);
  at::Tensor data = x;
  int64_t axis = 0;
  if (c.node.has("axis"))
    axis = normalize_axis(c.node.get_int("axis", 0), x.dim(), c);
  else
    data = x.reshape({-1});
  auto keep = at::nonzero(condition.slice(0, 0, data.size(axis))).reshape({-1});
  c.set(0, data.index_select(axis, keep));
}

void reverse_sequence(C& c) {
  const auto& x = c.in(0);
  auto lens = c.ints(1);
  int64_t batch_axis = c.node.get_int("batch_axis", 1), time_axis = c.node.get_int("time_axis", 0);
  auto y = x.clone();
  for (int64_t b = 0; b < static_cast<int64_t>(lens.size()); ++b) {
    auto src = x.select(batch_axis, b), dst = y.select(batch_axis, b);
    int64_t t_axis = time_axis > batch_axis ? time_axis - 1 : time_axis;
    dst.narrow(t_axis, 0, lens[static_cast<size_t>(b)])
        .copy_(src.narrow(t_axis, 0, lens[static_cast<size_t>(b)]).flip(t_axis));
  }
  c.set(0, y);
}

void grid_sample(C& c) {
  auto mode = c.node.get_string("mode", "linear"), padding = c.node.get_string("padding_mode", "zeros");
  int64_t interpolation = (mode == "nearest") ? 1 : (mode == "cubic" || mode == "bicubic") ? 2 : 0;
  int64_t pad_mode = padding == "border" ? 1 : padding == "reflection" ? 2 : 0;
  c.set(0, at::grid_sampler(c.in(0), c.in(1).to(c.in(0).scalar_type()), interpolation, pad_mode,
                            c.node.get_int("align_corners", 0) != 0));
}

// Unique: ATen finds the (sorted) unique values and inverse; ONNX also wants each one's first
// index and, with sorted=0, the order of first occurrence.
void unique(C& c) {
  const auto& x = c.in(0);
  bool sorted = c.node.get_int("sorted", 1) != 0;
  bool has_axis = c.node.has("axis");
  int64_t axis = has_axis ? normalize_axis(c.node.get_int("axis", 0), x.dim(), c) : 0;
  auto [values, inverse, counts] =
      has_axis ? at::unique_dim(x, axis, true, true, true) : at::_unique2(x.reshape({-1}), true, true, true);
  inverse = inverse.reshape({-1});
  int64_t n = values.size(has_axis ? axis : 0);
  auto positions = at::arange(inverse.numel(), at::kLong);
  auto first = at::full({n}, inverse.numel(), at::kLong).scatter_reduce(0, inverse, positions, "amin", true);
  if (!sorted) {
    auto order = at::argsort(first);
    auto rank = at::empty_like(order).scatter_(0, order, at::arange(n, at::kLong));
    values = values.index_select(has_axis ? axis : 0, order);
    counts = counts.index_select(0, order);
    first = first.index_select(0, order);
    inverse = rank.index_select(0, inverse);
  }
  c.set(0, values);
  c.set(1, first);
  c.set(2, inverse);
  c.set(3, counts);
}

}  // namespace

void register_manipulation_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("manipulation", {
    {"Reshape", reshape},
    {"Flatten", flatten},
    {"Transpose", transpose},
    {"Squeeze", squeeze},
    {"Unsqueeze", unsqueeze},
    {"Concat", concat},
    {"Split", split},
    {"Slice", slice},
    {"Gather", gather},
    {"GatherElements", gather_elements},
    {"GatherND", gather_nd},
    {"Scatter", scatter_elements},
    {"ScatterElements", scatter_elements},
    {"ScatterND", scatter_nd},
    {"Expand", expand},
    {"Tile", [](C& c) { c.set(0, c.in(0).repeat(c.ints(1))); }},
    {"Pad", pad},
    {"Shape", shape_kernel},
    {"Size", [](C& c) { c.set(0, at::scalar_tensor(c.in(0).numel(), at::kLong)); }},
    {"Constant", constant},
    {"ConstantOfShape", constant_of_shape},
    {"Range", range},
    {"DepthToSpace", depth_to_space},
    {"SpaceToDepth", space_to_depth},
    {"Trilu", trilu},
    {"NonZero", [](C& c) { c.set(0, at::nonzero(c.in(0)).t().contiguous()); }},
    {"OneHot", one_hot},
    {"EyeLike", eye_like},
    {"Compress", compress},
    {"ReverseSequence", reverse_sequence},
    {"GridSample", grid_sample},
    {"Unique", unique},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
