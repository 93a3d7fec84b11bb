#include "exec/product_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "exec/graph_rewrite.h"
#include "exec/optimized_graph.h"
#include "util/error.h"

namespace ridge::exec {

namespace {

using graph::kNoValue;
using graph::ValueId;

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

// The identity when `perm` is empty; throws unless it is a permutation of 0..rank-1.
std::vector<int64_t> checked_perm(const std::vector<int64_t>& perm, size_t rank, const char* what) {
  if (perm.empty()) {
    std::vector<int64_t> identity(rank);
    for (size_t i = 0; i < rank; ++i) identity[i] = static_cast<int64_t>(i);
    return identity;
  }
  std::vector<bool> seen(rank, false);
  bool ok = perm.size() == rank;
  for (auto p : perm) {
    ok = ok && p >= 0 && static_cast<size_t>(p) < rank && !seen[static_cast<size_t>(p)];
    if (ok) seen[static_cast<size_t>(p)] = true;
  }
  if (!ok) throw Error(fmt::format("the {} permutation is not one of {} dims", what, rank));
  return perm;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// An operand's logical dims and strides: stored contiguously as `dims`, read through `perm`.
struct Logical {
  std::vector<int64_t> dims, strides;
};

Logical permuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm, const char* what) {
  if (dims.size() < 2)
    throw Error(fmt::format("the {} operand has rank {}; a strided product takes 2 or more", what, dims.size()));
  auto p = checked_perm(perm, dims.size(), what);
  auto stored = contiguous_strides(dims);
  Logical l;
  for (auto axis : p) {
    l.dims.push_back(dims[static_cast<size_t>(axis)]);
    l.strides.push_back(stored[static_cast<size_t>(axis)]);
  }
  return l;
}

// The batch strides of an operand whose batch dims are the last of the product's `batch` (numpy's alignment).
std::vector<int64_t> batch_strides(const Logical& l, const std::vector<int64_t>& batch) {
  size_t own = l.dims.size() - 2, skip = batch.size() - own;
  std::vector<int64_t> strides(batch.size(), 0);
  for (size_t i = 0; i < own; ++i)
    if (l.dims[i] != 1) strides[skip + i] = l.strides[i];
  return strides;
}

// The broadcast batch dims of two operands' logical dims; throws unless they broadcast and the inner dims agree.
std::vector<int64_t> product_batch(const Logical& a, const Logical& b) {
  size_t ra = a.dims.size() - 2, rb = b.dims.size() - 2, rank = std::max(ra, rb);
  std::vector<int64_t> batch(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i + ra >= rank ? a.dims[i + ra - rank] : 1, db = i + rb >= rank ? b.dims[i + rb - rank] : 1;
    if (da != db && da != 1 && db != 1) throw Error(fmt::format("batch dims {} and {} do not broadcast", da, db));
    batch[i] = std::max(da, db);
  }
  if (a.dims[ra + 1] != b.dims[rb]) throw Error(fmt::format("inner dims {} and {} differ", a.dims[ra + 1], b.dims[rb]));
  return batch;
}

}  // namespace

std::vector<int64_t> product_dims(const std::vector<int64_t>& a_dims, const std::vector<int64_t>& perm_a,
                                  const std::vector<int64_t>& b_dims, const std::vector<int64_t>& perm_b) {
  auto a = permuted(a_dims, perm_a, "first");
  auto b = permuted(b_dims, perm_b, "second");
  auto dims = product_batch(a, b);
  dims.push_back(a.dims[a.dims.size() - 2]);
  dims.push_back(b.dims.back());
  return dims;
}

ProductLayout product_layout(const std::vector<int64_t>& a_dims, const std::vector<int64_t>& perm_a,
                             const std::vector<int64_t>& b_dims, const std::vector<int64_t>& perm_b,
                             const std::vector<int64_t>& y_dims, const std::vector<int64_t>& perm_y) {
  auto a = permuted(a_dims, perm_a, "first");
  auto b = permuted(b_dims, perm_b, "second");
  size_t ra = a.dims.size() - 2, rb = b.dims.size() - 2, rank = std::max(ra, rb);
  ProductLayout p;
  p.batch = product_batch(a, b);
  p.a = {a.dims[ra], a.dims[ra + 1], a.strides[ra], a.strides[ra + 1], batch_strides(a, p.batch)};
  p.b = {b.dims[rb], b.dims[rb + 1], b.strides[rb], b.strides[rb + 1], batch_strides(b, p.batch)};
  // The product's dims, and where each lands in the stored output.
  auto result = p.batch;
  result.push_back(p.a.rows);
  result.push_back(p.b.cols);
  auto py = checked_perm(perm_y, result.size(), "output");
  std::vector<int64_t> expected;
  for (auto axis : py) expected.push_back(result[static_cast<size_t>(axis)]);
  if (expected != y_dims)
    throw Error(fmt::format("the output is [{}]; the product permuted is [{}]", fmt::join(y_dims, ", "),
                            fmt::join(expected, ", ")));
  auto stored = contiguous_strides(y_dims);
  std::vector<int64_t> strides(result.size());
  for (size_t q = 0; q < py.size(); ++q) strides[static_cast<size_t>(py[q])] = stored[q];
  p.y.rows = p.a.rows;
  p.y.cols = p.b.cols;
  p.y.row_stride = strides[rank];
  p.y.col_stride = strides[rank + 1];
  p.y.batch_strides.assign(strides.begin(), strides.begin() + static_cast<std::ptrdiff_t>(rank));
  for (size_t i = 0; i < rank; ++i)
    if (p.batch[i] == 1) p.y.batch_strides[i] = 0;
  return p;
}

std::string ProductViews::summary() const {
  if (transposes == 0 && scales == 0) return "";
  return fmt::format("{} transposes and {} scalings read or written by matrix products in place", transposes, scales);
}

namespace {

class Absorber {
 public:
  Absorber(graph::Graph& g, const std::string& directory, const TakesLayout& takes)
      : g_(g), queries_(g, directory), takes_(takes), claimed_(g.nodes.size(), false) {
    // Values computed from the graph's inputs (not constants), in topological order.
    computed_.assign(g.values.size(), false);
    for (auto id : g.inputs) computed_[static_cast<size_t>(id)] = !g.value(id).initializer;
    for (const auto& node : g.nodes) {
      bool reads = !node.subgraphs().empty();
      for (auto id : node.inputs) reads = reads || (id != kNoValue && computed_[static_cast<size_t>(id)]);
      for (auto id : node.outputs)
        if (id != kNoValue) computed_[static_cast<size_t>(id)] = reads;
    }
  }

  ProductViews run() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& node = g_.nodes[n];
      if (node.op_type != "MatMul" || !node.is_default_domain() || claimed_[n]) continue;
      if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.has(kActivationAttribute)) continue;
      if (!computed(node.input(0)) || !computed(node.input(1))) continue;
      if (g_.value(node.outputs[0]).dtype != graph::DType::kFloat32) continue;
      absorb(n);
    }
    erase_nodes(g_, removed_);
    return views_;
  }

 private:
  bool computed(ValueId id) const { return id != kNoValue && computed_[static_cast<size_t>(id)]; }

  bool only_read_by(ValueId id, size_t reader) const { return queries_.only_read_by(id, reader); }
  std::optional<double> scalar(ValueId id) const { return queries_.scalar(id); }
  std::optional<std::vector<int64_t>> known_dims(ValueId id) const { return queries_.known_dims(id); }

  // A Mul or Div of `x` by a scalar constant: the factor it multiplies x by.
  // A scalar of a higher rank would broadcast x to it: the output must have x's dims.
  std::optional<double> scale_of(const graph::Node& node, ValueId x) const {
    if (!node.is_default_domain() || node.inputs.size() != 2 || node.outputs.size() != 1) return std::nullopt;
    if (g_.value(node.outputs[0]).dtype != graph::DType::kFloat32) return std::nullopt;
    auto in_dims = known_dims(x), out_dims = known_dims(node.outputs[0]);
    if (!in_dims || in_dims != out_dims) return std::nullopt;
    if (node.op_type == "Mul") {
      auto other = node.input(0) == x ? node.input(1) : node.input(0);
      if (node.input(0) != x && node.input(1) != x) return std::nullopt;
      return scalar(other);
    }
    if (node.op_type == "Div" && node.input(0) == x) {
      auto c = scalar(node.input(1));
      if (c && *c != 0) return 1.0 / *c;
    }
    return std::nullopt;
  }

  static std::vector<int64_t> transpose_perm(const graph::Node& node, size_t rank) {
    std::vector<int64_t> reversed(rank);
    for (size_t i = 0; i < rank; ++i) reversed[i] = static_cast<int64_t>(rank - 1 - i);
    return node.get_ints("perm", reversed);
  }

  void absorb(size_t n) {
    auto& node = g_.nodes[n];
    std::vector<size_t> taken;
    int transposes = 0, scales = 0;
    double alpha = 1;
    ValueId in[2] = {node.input(0), node.input(1)};
    std::vector<int64_t> perm[2];
    for (int side = 0; side < 2; ++side) {
      size_t reader = n;
      for (;;) {
        auto v = in[side];
        auto producer = g_.value(v).producer;
        if (producer < 0 || claimed_[static_cast<size_t>(producer)] || !only_read_by(v, reader)) break;
        const auto& p = g_.nodes[static_cast<size_t>(producer)];
        if (p.op_type == "Transpose" && p.is_default_domain() && p.inputs.size() == 1) {
          auto dims = known_dims(p.input(0));
          if (!dims) break;
          auto outer = transpose_perm(p, dims->size());
          if (outer.size() != dims->size()) break;
          // permute(permute(X, outer), inner): logical dim j is X's dim outer[inner[j]].
          auto composed = outer;
          if (!perm[side].empty()) {
            if (perm[side].size() != outer.size()) break;
            for (size_t j = 0; j < composed.size(); ++j) composed[j] = outer[static_cast<size_t>(perm[side][j])];
          }
          perm[side] = std::move(composed);
          in[side] = p.input(0);
          ++transposes;
        } else {
          // A scalar Mul or Div: its computed operand is what the product reads.
          ValueId x = kNoValue;
          for (auto id : p.inputs)
            if (computed(id)) x = id;
          auto c = x == kNoValue ? std::nullopt : scale_of(p, x);
          if (!c) break;
          alpha *= *c;
          in[side] = x;
          ++scales;
        }
        taken.push_back(static_cast<size_t>(producer));
        reader = static_cast<size_t>(producer);
      }
    }
    // After the product: where it has no epilogue, what reads it alone.
    ValueId out = node.outputs[0];
    std::vector<int64_t> perm_y;
    for (;;) {
      const auto& v = g_.value(out);
      if (v.consumers.size() != 1) break;
      auto consumer = static_cast<size_t>(v.consumers[0]);
      if (claimed_[consumer] || !only_read_by(out, consumer)) break;
      const auto& c = g_.nodes[consumer];
      if (c.op_type == "Transpose" && c.is_default_domain() && c.inputs.size() == 1 && c.outputs.size() == 1) {
        auto dims = known_dims(out);
        if (!dims) break;
        auto outer = transpose_perm(c, dims->size());
        if (outer.size() != dims->size()) break;
        // permute(permute(R, perm_y), outer): output dim q is R's dim perm_y[outer[q]].
        if (!perm_y.empty())
          for (auto& axis : outer) axis = perm_y[static_cast<size_t>(axis)];
        perm_y = std::move(outer);
        ++transposes;
      } else if (auto factor = scale_of(c, out)) {
        alpha *= *factor;
        ++scales;
      } else {
        break;
      }
      out = c.outputs[0];
      taken.push_back(consumer);
    }
    if (taken.empty()) return;
    auto a = known_dims(in[0]), b = known_dims(in[1]), y = known_dims(out);
    if (!a || !b || !y) return;
    try {
      if (!takes_(product_layout(*a, perm[0], *b, perm[1], *y, perm_y))) return;
    } catch (const Error&) {
      return;  // not a product this pass can describe: the nodes stay
    }
    node.inputs = {in[0], in[1]};
    node.outputs = {out};
    for (auto [name, p] : {std::pair{kPermAAttribute, &perm[0]}, std::pair{kPermBAttribute, &perm[1]},
                           std::pair{kPermYAttribute, &perm_y}})
      if (!p->empty() && !is_identity(*p)) add_ints(node, name, *p);
    if (alpha != 1) add_float(node, kAlphaAttribute, alpha);
    for (auto t : taken) {
      claimed_[t] = true;
      removed_.insert(t);
    }
    claimed_[n] = true;
    views_.transposes += transposes;
    views_.scales += scales;
  }

  graph::Graph& g_;
  RewriteQueries queries_;
  const TakesLayout& takes_;
  std::vector<bool> claimed_, computed_;
  std::set<size_t> removed_;
  ProductViews views_;
};

}  // namespace

ProductViews absorb_product_views(graph::Graph& g, const std::string& model_directory, const TakesLayout& takes) {
  return Absorber(g, model_directory, takes).run();
}

}  // namespace ridge::exec
