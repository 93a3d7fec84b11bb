#include "exec/cuda/einsum_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "shape/einsum.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

// An operand read over its distinct labels: per label, its size and its stride in the stored (dense) operand.
struct View {
  std::map<char, int64_t> size, stride;
};

View view_of(const std::string& labels, const std::vector<int64_t>& dims, const std::map<char, int64_t>& sizes) {
  View v;
  int64_t stride = 1;
  for (size_t d = labels.size(); d-- > 0;) {
    char c = labels[d];
    v.size[c] = sizes.at(c);
    // A dim of 1 under a label of another size broadcasts; a repeated label adds its strides (the diagonal).
    v.stride[c] += dims[d] == 1 ? 0 : stride;
    stride *= dims[d];
  }
  return v;
}

Layout layout(const View& v, const std::string& order) {
  if (order.size() > static_cast<size_t>(kMaxRank))
    throw Error(fmt::format("einsum: {} labels in one step; the GPU kernels walk at most {}", order.size(), kMaxRank));
  Layout l;
  l.rank = static_cast<int>(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    l.dims[i] = v.size.at(order[i]);
    l.strides[i] = v.stride.at(order[i]);
  }
  return l;
}

bool is_dense(const Layout& l) {
  int64_t stride = 1;
  for (int d = l.rank - 1; d >= 0; --d) {
    if (l.dims[d] != 1 && l.strides[d] != stride) return false;
    stride *= l.dims[d];
  }
  return true;
}

int64_t product_of(const View& v, const std::string& labels) {
  int64_t n = 1;
  for (char c : labels) n *= v.size.at(c);
  return n;
}

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// Distinct labels of `s` in their first order.
std::string distinct(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!has(out, c)) out += c;
  return out;
}

EinsumStage stage(const View& v, const std::string& kept, const std::string& summed) {
  EinsumStage s;
  s.copy = layout(v, kept + summed);
  s.copies = !is_dense(s.copy);  // a dense walk reads element e at e: the operand itself
  s.kept = kept;
  s.kept_elements = product_of(v, kept);
  s.summed = product_of(v, summed);
  return s;
}

}  // namespace

int64_t EinsumPlan::output_elements() const {
  int64_t n = 1;
  for (int d = 0; d < output.rank; ++d) n *= output.dims[d];
  return n;
}

EinsumPlan einsum_plan(const std::string& equation, const std::vector<std::vector<int64_t>>& dims) {
  auto spec = shape::parse_einsum(equation, dims, "Einsum");
  if (spec.operands.size() > 2)
    throw Error(fmt::format("einsum '{}' of {} operands: the GPU takes one or two", equation, spec.operands.size()));
  const auto& out = spec.output;
  std::vector<View> views;
  for (size_t i = 0; i < spec.operands.size(); ++i) views.push_back(view_of(spec.operands[i], dims[i], spec.sizes));
  EinsumPlan p;
  if (views.size() == 1) {
    // Kept in the output's order, so the sum writes the output itself.
    std::string summed;
    for (char c : distinct(spec.operands[0]))
      if (!has(out, c)) summed += c;
    p.stages.push_back(stage(views[0], out, summed));
    p.result = out;
  } else {
    const auto a = distinct(spec.operands[0]), b = distinct(spec.operands[1]);
    std::string batch, a_free, b_free, contracted, a_summed, b_summed;
    for (char c : a) {
      if (has(b, c))
        (has(out, c) ? batch : contracted) += c;
      else
        (has(out, c) ? a_free : a_summed) += c;
    }
    for (char c : b)
      if (!has(a, c)) (has(out, c) ? b_free : b_summed) += c;
    p.stages.push_back(stage(views[0], batch + a_free + contracted, a_summed));
    p.stages.push_back(stage(views[1], batch + contracted + b_free, b_summed));
    p.product = true;
    p.batch = product_of(views[0], batch);
    p.m = product_of(views[0], a_free);
    p.k = product_of(views[0], contracted);
    p.n = product_of(views[1], b_free);
    p.result = batch + a_free + b_free;
  }
  // The result is dense over its labels; the output reads it in its own order.
  View result;
  int64_t stride = 1;
  for (size_t d = p.result.size(); d-- > 0;) {
    char c = p.result[d];
    result.size[c] = spec.sizes.at(c);
    result.stride[c] = stride;
    stride *= spec.sizes.at(c);
  }
  p.output = layout(result, out);
  p.reorders = p.result != out;
  return p;
}

}  // namespace ridge::exec::cuda
