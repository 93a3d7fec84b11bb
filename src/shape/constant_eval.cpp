#include "shape/constant_eval.h"

#include <cmath>

#include "graph/shape.h"

namespace ridge::shape {

int64_t real_to_int(double value) {
  if (!std::isfinite(value) || std::fabs(value) >= 9.2e18)
    throw Unresolved{"a shape value is not a finite 64-bit integer"};
  return static_cast<int64_t>(std::trunc(value));
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) n = graph::checked_mul(n, d, "element count");
  return n;
}

namespace {

// Flat offset into an input of shape `in_dims` for each element of the broadcast output.
std::vector<int64_t> broadcast_offsets(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& out_dims) {
  int64_t total = product(out_dims);
  std::vector<int64_t> offsets(static_cast<size_t>(total));
  size_t rank = out_dims.size(), offset_rank = rank - in_dims.size();
  std::vector<int64_t> in_strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = in_dims.size(); i-- > 0;) {
    in_strides[offset_rank + i] = in_dims[i] == 1 ? 0 : stride;
    stride *= in_dims[i];
  }
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d) off += index[d] * in_strides[d];
    offsets[static_cast<size_t>(flat)] = off;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

}  // namespace

std::optional<graph::ConstantData> eval_binary(InferenceContext& ctx, size_t a, size_t b, const IntFn& int_fn,
                                               const RealFn& real_fn, std::optional<graph::DType> result_type) {
  const auto* ca = ctx.in_const(a);
  const auto* cb = ctx.in_const(b);
  if (!ca || !cb) return std::nullopt;
  auto out_dims = broadcast_dims(ctx, {ca->dims, cb->dims});
  if (product(out_dims) > kMaxPropagatedElements) return std::nullopt;
  auto oa = broadcast_offsets(ca->dims, out_dims), ob = broadcast_offsets(cb->dims, out_dims);
  graph::ConstantData out;
  out.dims = out_dims;
  bool integral = ca->is_integral() && cb->is_integral();
  graph::DType natural = integral ? ca->dtype : (ca->is_integral() ? cb->dtype : ca->dtype);
  out.dtype = result_type.value_or(natural);
  for (size_t i = 0; i < oa.size(); ++i) {
    auto ia = static_cast<size_t>(oa[i]), ib = static_cast<size_t>(ob[i]);
    if (integral) {
      int64_t r = int_fn(ca->ints[ia], cb->ints[ib]);
      if (out.is_integral())
        out.ints.push_back(r);
      else
        out.reals.push_back(static_cast<double>(r));
    } else {
      double r = real_fn(ca->as_real(ia), cb->as_real(ib));
      if (out.is_integral())
        out.ints.push_back(real_to_int(r));
      else
        out.reals.push_back(r);
    }
  }
  return out;
}

std::optional<graph::ConstantData> eval_unary(InferenceContext& ctx, size_t a,
                                              const std::function<int64_t(int64_t)>& int_fn,
                                              const std::function<double(double)>& real_fn,
                                              std::optional<graph::DType> result_type) {
  const auto* ca = ctx.in_const(a);
  if (!ca) return std::nullopt;
  graph::ConstantData out;
  out.dims = ca->dims;
  out.dtype = result_type.value_or(ca->dtype);
  for (size_t i = 0; i < static_cast<size_t>(ca->size()); ++i) {
    if (ca->is_integral() && int_fn) {
      int64_t r = int_fn(ca->ints[i]);
      if (out.is_integral())
        out.ints.push_back(r);
      else
        out.reals.push_back(static_cast<double>(r));
    } else {
      double r = real_fn(ca->as_real(i));
      if (out.is_integral())
        out.ints.push_back(real_to_int(r));
      else
        out.reals.push_back(r);
    }
  }
  return out;
}

graph::ConstantData cast_constant(const graph::ConstantData& in, graph::DType to) {
  graph::ConstantData out;
  out.dims = in.dims;
  out.dtype = to;
  for (size_t i = 0; i < static_cast<size_t>(in.size()); ++i) {
    if (to == graph::DType::kBool)
      out.ints.push_back(in.as_real(i) != 0 ? 1 : 0);
    else if (graph::is_integral(to))
      out.ints.push_back(in.is_integral() ? in.ints[i] : real_to_int(in.reals[i]));
    else
      out.reals.push_back(in.as_real(i));
  }
  return out;
}

graph::ConstantData take_elements(const graph::ConstantData& in, const std::vector<int64_t>& flat_indices,
                                  std::vector<int64_t> dims) {
  graph::ConstantData out;
  out.dtype = in.dtype;
  out.dims = std::move(dims);
  for (auto idx : flat_indices) {
    if (in.is_integral())
      out.ints.push_back(in.ints[static_cast<size_t>(idx)]);
    else
      out.reals.push_back(in.reals[static_cast<size_t>(idx)]);
  }
  return out;
}

}  // namespace ridge::shape
