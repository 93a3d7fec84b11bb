#include "support/attention_patterns.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "support/model_builder.h"
#include "support/strided_product.h"
#include "support/tensor_compare.h"

namespace ridge::test {

namespace {

int64_t numel(const std::vector<int64_t>& dims) { return graph::element_count(graph::make_shape(dims)); }

exec::HostTensor wave(const std::string& name, const std::vector<int64_t>& dims, int salt) {
  std::vector<float> v(static_cast<size_t>(numel(dims)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 1.3f * std::sin(0.41f * static_cast<float>(i) + 0.9f * static_cast<float>(salt)) +
           0.3f * std::cos(0.13f * static_cast<float>(i * (salt + 1)));
  return float_tensor(name, dims, v);
}

exec::HostTensor bools(const std::string& name, const std::vector<int64_t>& dims, const std::vector<bool>& values) {
  exec::HostTensor t{name, graph::DType::kBool, dims, {}};
  for (bool b : values) t.bytes.push_back(b ? 1 : 0);
  return t;
}

std::vector<DimSpec> spec(const std::vector<int64_t>& d) { return {d.begin(), d.end()}; }

constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

std::vector<AttentionPatternCase> attention_pattern_cases() {
  std::vector<AttentionPatternCase> cases;
  {  // BERT: [batch 2, tokens 5, heads 3, head size 4], scores divided by 2, a [2, 1, 1, 5] mask added
    const std::vector<int64_t> d{2, 5, 3, 4}, m{2, 1, 1, 5};
    ModelBuilder b;
    b.input("q", spec(d)).input("k", spec(d)).input("v", spec(d)).input("mask", spec(m)).output("y");
    b.weight_values("root", {}, {2.f});
    set_ints(b.node("Transpose", {"q"}, {"qt"}, "q_heads"), "perm", {0, 2, 1, 3});
    set_ints(b.node("Transpose", {"k"}, {"kt"}, "k_heads"), "perm", {0, 2, 3, 1});
    set_ints(b.node("Transpose", {"v"}, {"vt"}, "v_heads"), "perm", {0, 2, 1, 3});
    b.node("MatMul", {"qt", "kt"}, {"s"}, "scores");
    b.node("Div", {"s", "root"}, {"sd"}, "scale");
    b.node("Add", {"sd", "mask"}, {"sm"}, "add_mask");
    set_int(b.node("Softmax", {"sm"}, {"p"}, "softmax"), "axis", -1);
    b.node("MatMul", {"p", "vt"}, {"o"}, "context");
    set_ints(b.node("Transpose", {"o"}, {"y"}, "merge_heads"), "perm", {0, 2, 1, 3});
    auto mask = wave("mask", m, 4);
    auto* mv = reinterpret_cast<float*>(mask.bytes.data());
    mv[1] = -10000.f, mv[7] = -kInf;  // BERT's padding, and a key masked out entirely
    cases.push_back({"batch-first heads, a mask added (BERT)",
                     b.save("attention_pattern_bert"),
                     {wave("q", d, 1), wave("k", d, 2), wave("v", d, 3), mask},
                     exec::ScoreMask::kAdd,
                     {"q", "k", "v", "mask"}});
  }
  {  // torchvision's ViT: [tokens 37, batch x heads 6, head size 4], the query multiplied by 0.5 before the product
    const std::vector<int64_t> d{37, 6, 4};
    ModelBuilder b;
    b.input("xq", spec(d)).input("xk", spec(d)).input("xv", spec(d)).output("z");
    b.weight_values("half", {}, {0.5f});
    set_ints(b.node("Transpose", {"xq"}, {"qt"}, "q_heads"), "perm", {1, 0, 2});
    b.node("Mul", {"qt", "half"}, {"qs"}, "q_scale");
    set_ints(b.node("Transpose", {"xk"}, {"kt"}, "k_heads"), "perm", {1, 2, 0});
    b.node("MatMul", {"qs", "kt"}, {"s"}, "scores");
    set_int(b.node("Softmax", {"s"}, {"p"}, "softmax"), "axis", -1);
    set_ints(b.node("Transpose", {"xv"}, {"vt"}, "v_heads"), "perm", {1, 0, 2});
    b.node("MatMul", {"p", "vt"}, {"o"}, "context");
    set_ints(b.node("Transpose", {"o"}, {"z"}, "merge_heads"), "perm", {1, 0, 2});
    cases.push_back({"sequence-first heads, the query scaled, keys across tiles (ViT)",
                     b.save("attention_pattern_vit"),
                     {wave("xq", d, 5), wave("xk", d, 6), wave("xv", d, 7)},
                     exec::ScoreMask::kNone,
                     {"xq", "xk", "xv"}});
  }
  {  // GPT-2: [batch 1, tokens 6, heads 2, head size 4], Where(upper triangle, -inf, scores)
    const std::vector<int64_t> d{1, 6, 2, 4}, m{6, 6};
    ModelBuilder b;
    b.input("q", spec(d)).input("k", spec(d)).input("v", spec(d)).input("future", spec(m), ::onnx::TensorProto::BOOL);
    b.output("y");
    b.weight_values("root", {}, {2.f}).weight_values("ninf", {}, {-kInf});
    set_ints(b.node("Transpose", {"q"}, {"qt"}, "q_heads"), "perm", {0, 2, 1, 3});
    set_ints(b.node("Transpose", {"k"}, {"kt"}, "k_heads"), "perm", {0, 2, 3, 1});
    set_ints(b.node("Transpose", {"v"}, {"vt"}, "v_heads"), "perm", {0, 2, 1, 3});
    b.node("MatMul", {"qt", "kt"}, {"s"}, "scores");
    b.node("Div", {"s", "root"}, {"sd"}, "scale");
    b.node("Where", {"future", "ninf", "sd"}, {"sm"}, "causal");
    set_int(b.node("Softmax", {"sm"}, {"p"}, "softmax"), "axis", -1);
    b.node("MatMul", {"p", "vt"}, {"o"}, "context");
    set_ints(b.node("Transpose", {"o"}, {"y"}, "merge_heads"), "perm", {0, 2, 1, 3});
    std::vector<bool> future;
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t j = 0; j < 6; ++j) future.push_back(j > i);
    cases.push_back({"a causal Where that drops keys (GPT-2)",
                     b.save("attention_pattern_gpt2"),
                     {wave("q", d, 8), wave("k", d, 9), wave("v", d, 10), bools("future", m, future)},
                     exec::ScoreMask::kDrop,
                     {"q", "k", "v", "future"}});
  }
  {  // dense heads [2, 2, 5, 8], K given transposed; Where(keep, scores, -inf) with one row keeping no key
    const std::vector<int64_t> q{2, 2, 5, 8}, kt{2, 2, 8, 5}, m{2, 1, 5, 5};
    ModelBuilder b;
    b.input("q", spec(q)).input("kt", spec(kt)).input("v", spec(q)).input("keep", spec(m), ::onnx::TensorProto::BOOL);
    b.output("y");
    b.weight_values("ninf", {1, 1}, {-kInf});
    b.node("MatMul", {"q", "kt"}, {"s"}, "scores");
    b.node("Where", {"keep", "s", "ninf"}, {"sm"}, "keep_keys");
    set_int(b.node("Softmax", {"sm"}, {"p"}, "softmax"), "axis", 3);
    b.node("MatMul", {"p", "v"}, {"y"}, "context");
    std::vector<bool> keep;
    for (int64_t i = 0; i < numel(m); ++i) keep.push_back(i >= 5 && (i * 5 + 2) % 3 != 0);  // row 0 keeps none
    cases.push_back({"a Where that keeps keys, a row keeping none",
                     b.save("attention_pattern_keep"),
                     {wave("q", q, 11), wave("kt", kt, 12), wave("v", q, 13), bools("keep", m, keep)},
                     exec::ScoreMask::kKeep,
                     {"q", "kt", "v", "keep"}});
  }
  {  // 2-D: 7 queries, 40 keys of 8, values of 5; the scores scaled after the product (opset 11's Softmax, axis 1)
    ModelBuilder b(11);
    b.input("q", {int64_t{7}, int64_t{8}}).input("k", {40, 8}).input("v", {40, 5}).output("y");
    b.weight_values("scale", {}, {1.5f});
    set_ints(b.node("Transpose", {"k"}, {"kt"}, "k_t"), "perm", {1, 0});
    b.node("MatMul", {"q", "kt"}, {"s"}, "scores");
    b.node("Mul", {"scale", "s"}, {"ss"}, "scale_scores");
    b.node("Softmax", {"ss"}, {"p"}, "softmax");  // axis 1 by default: the last of two
    b.node("MatMul", {"p", "v"}, {"y"}, "context");
    cases.push_back({"2-D, the scores scaled after the product, opset 11",
                     b.save("attention_pattern_2d"),
                     {wave("q", {7, 8}, 14), wave("k", {40, 8}, 15), wave("v", {40, 5}, 16)},
                     exec::ScoreMask::kNone,
                     {"q", "k", "v"}});
  }
  return cases;
}

std::vector<double> fused_attention_by_definition(const exec::AttentionPattern& p, const exec::HostTensor& q,
                                                  const exec::HostTensor& k, const exec::HostTensor& v,
                                                  const exec::HostTensor* mask) {
  const auto scores_dims = p.score_dims();
  const auto count = static_cast<size_t>(numel(scores_dims));
  std::vector<float> s(count);
  strided_product(p.scores, floats(q).data(), floats(k).data(), s.data(), static_cast<float>(p.alpha));
  const auto keys = static_cast<size_t>(scores_dims.back());
  if (p.mask != exec::ScoreMask::kNone) {
    // The mask's element for each score: numpy's broadcasting, right-aligned.
    const auto& md = p.mask_dims;
    std::vector<int64_t> index(scores_dims.size(), 0);
    std::vector<float> additive = p.mask == exec::ScoreMask::kAdd ? floats(*mask) : std::vector<float>{};
    for (size_t e = 0; e < count; ++e) {
      int64_t flat = 0;
      for (size_t i = 0; i < md.size(); ++i) {
        const auto axis = scores_dims.size() - md.size() + i;
        flat = flat * md[i] + (md[i] == 1 ? 0 : index[axis]);
      }
      const auto f = static_cast<size_t>(flat);
      if (p.mask == exec::ScoreMask::kAdd) s[e] += additive[f];
      if (p.mask == exec::ScoreMask::kKeep && !mask->bytes[f]) s[e] = -kInf;
      if (p.mask == exec::ScoreMask::kDrop && mask->bytes[f]) s[e] = -kInf;
      for (size_t axis = index.size(); axis-- > 0;)
        if (++index[axis] < scores_dims[axis])
          break;
        else
          index[axis] = 0;
    }
  }
  for (size_t row = 0; row < count / keys; ++row) {
    double largest = -INFINITY, sum = 0;
    for (size_t j = 0; j < keys; ++j) largest = std::max(largest, static_cast<double>(s[row * keys + j]));
    for (size_t j = 0; j < keys; ++j) sum += std::exp(s[row * keys + j] - largest);
    for (size_t j = 0; j < keys; ++j)
      s[row * keys + j] = static_cast<float>(std::exp(s[row * keys + j] - largest) / sum);  // NaN with every key -inf
  }
  int64_t y_count = 1;
  for (auto d : p.context.batch) y_count *= d;
  y_count *= p.context.m() * p.context.n();
  std::vector<float> y(static_cast<size_t>(y_count));
  strided_product(p.context, s.data(), floats(v).data(), y.data(), 1.f);
  return {y.begin(), y.end()};
}

std::string compare_with_nan(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                             double atol) {
  if (got.size() != want.size()) return fmt::format("{} values, {} expected", got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]) != std::isnan(got[i]))
      return fmt::format("element {}: {}, {} expected", i, got[i], want[i]);
    if (!std::isnan(want[i]) && std::fabs(got[i] - want[i]) > atol + rtol * std::fabs(want[i]))
      return fmt::format("element {}: {}, {} expected", i, got[i], want[i]);
  }
  return "";
}

}  // namespace ridge::test
