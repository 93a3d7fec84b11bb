#include "support/attention_reference.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "support/model_builder.h"
#include "support/tensor_compare.h"

namespace ridge::test {

namespace {

int64_t numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::vector<float> values_for(const std::vector<int64_t>& dims, int salt) {
  std::vector<float> v(static_cast<size_t>(numel(dims)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 1.5f * std::sin(0.37f * static_cast<float>(i) + 1.3f * static_cast<float>(salt)) +
           0.2f * std::cos(0.11f * static_cast<float>(i * (salt + 2)));
  return v;
}

// A bool mask's element at flat index i: about one key in four masked out. The "fully masked" case clears a row.
bool keep(int64_t i) { return (i * 7 + 3) % 4 != 0; }

struct View4 {  // [batch, heads, tokens, head size] of a 3-D or 4-D operand
  std::vector<int64_t> dims;
  int64_t sb = 0, sh = 0, st = 0;
  int64_t at(int64_t b, int64_t h, int64_t t, int64_t d) const { return b * sb + h * sh + t * st + d; }
};

View4 view4(const std::vector<int64_t>& dims, int64_t heads) {
  if (dims.size() == 4) return {dims, dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3]};
  const int64_t head = dims[2] / heads;
  return {{dims[0], heads, dims[1], head}, dims[1] * dims[2], head, dims[2]};
}

}  // namespace

std::vector<AttentionCase> attention_cases() {
  std::vector<AttentionCase> cases;
  cases.push_back({"4-D", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}});
  cases.push_back({"grouped-query", {2, 9, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}});
  cases.push_back({"value head of another size", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 10}});
  cases.push_back({"3-D", {2, 4, 24}, {2, 6, 24}, {2, 6, 30}, 3, 3});
  cases.push_back({"3-D grouped-query", {2, 4, 48}, {2, 6, 24}, {2, 6, 24}, 6, 3});
  {
    AttentionCase c{"float mask [S, L]", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}};
    c.mask = {4, 6};
    cases.push_back(c);
  }
  {
    AttentionCase c{"bool mask [B, 1, S, L]", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}};
    c.mask = {2, 1, 4, 6};
    c.mask_bool = true;
    cases.push_back(c);
  }
  {
    AttentionCase c{"float mask shorter than the keys", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}};
    c.mask = {2, 3, 4, 4};
    cases.push_back(c);
  }
  {
    AttentionCase c{"causal, fewer queries than keys", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}};
    c.causal = true;
    cases.push_back(c);
  }
  {
    AttentionCase c{"causal, bool mask, scale and softcap", {1, 4, 5, 16}, {1, 2, 5, 16}, {1, 2, 5, 16}};
    c.mask = {1, 4, 1, 5};
    c.mask_bool = true;
    c.causal = true;
    c.scale = 0.7f;
    c.softcap = 2.5f;
    cases.push_back(c);
  }
  {
    AttentionCase c{"float mask with scale and softcap", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}};
    c.mask = {2, 1, 1, 6};
    c.scale = 0.5f;
    c.softcap = 1.5f;
    cases.push_back(c);
  }
  {
    AttentionCase c{"a row with every key masked", {1, 2, 3, 8}, {1, 2, 5, 8}, {1, 2, 5, 8}};
    c.mask = {3, 5};
    c.mask_bool = true;
    cases.push_back(c);
  }
  cases.push_back({"head size 64 across key tiles and row blocks", {1, 2, 37, 64}, {1, 2, 70, 64}, {1, 2, 70, 64}});
  {
    AttentionCase c{"head size 128, values of 96, causal", {1, 1, 5, 128}, {1, 1, 40, 128}, {1, 1, 40, 96}};
    c.causal = true;
    cases.push_back(c);
  }
  return cases;
}

std::string attention_model(const AttentionCase& c) {
  ModelBuilder b(23);
  auto dims = [](const std::vector<int64_t>& d) { return std::vector<DimSpec>(d.begin(), d.end()); };
  b.input("q", dims(c.q)).input("k", dims(c.k)).input("v", dims(c.v));
  std::vector<std::string> inputs{"q", "k", "v"};
  if (!c.mask.empty()) {
    b.input("mask", dims(c.mask), c.mask_bool ? ::onnx::TensorProto::BOOL : ::onnx::TensorProto::FLOAT);
    inputs.push_back("mask");
  }
  b.output("y");
  auto& node = b.node("Attention", inputs, {"y"}, "attention");
  if (c.q.size() == 3) {
    set_int(node, "q_num_heads", c.q_heads);
    set_int(node, "kv_num_heads", c.kv_heads);
  }
  if (c.causal) set_int(node, "is_causal", 1);
  if (c.scale) set_float(node, "scale", *c.scale);
  if (c.softcap > 0) set_float(node, "softcap", c.softcap);
  return b.save("attention");
}

std::vector<exec::HostTensor> attention_inputs(const AttentionCase& c) {
  std::vector<exec::HostTensor> in{float_tensor("q", c.q, values_for(c.q, 1)),
                                   float_tensor("k", c.k, values_for(c.k, 2)),
                                   float_tensor("v", c.v, values_for(c.v, 3))};
  if (c.mask.empty()) return in;
  if (!c.mask_bool) {
    auto m = values_for(c.mask, 4);
    for (size_t i = 0; i < m.size(); i += 5) m[i] = -std::numeric_limits<float>::infinity();
    in.push_back(float_tensor("mask", c.mask, m));
    return in;
  }
  exec::HostTensor m{"mask", graph::DType::kBool, c.mask, {}};
  m.bytes.resize(static_cast<size_t>(numel(c.mask)));
  for (size_t i = 0; i < m.bytes.size(); ++i) m.bytes[i] = keep(static_cast<int64_t>(i)) ? 1 : 0;
  if (c.label == "a row with every key masked")
    for (int64_t j = 0; j < c.mask.back(); ++j) m.bytes[static_cast<size_t>(c.mask.back() + j)] = 0;  // row 1
  in.push_back(m);
  return in;
}

std::vector<int64_t> attention_output_dims(const AttentionCase& c) {
  if (c.q.size() == 4) return {c.q[0], c.q[1], c.q[2], c.v[3]};
  return {c.q[0], c.q[1], c.q_heads * (c.v[2] / c.kv_heads)};
}

std::vector<double> attention_reference(const AttentionCase& c, const std::vector<exec::HostTensor>& inputs) {
  const auto q = floats(inputs.at(0)), k = floats(inputs.at(1)), v = floats(inputs.at(2));
  const int64_t q_heads = c.q.size() == 4 ? c.q[1] : c.q_heads, kv_heads = c.k.size() == 4 ? c.k[1] : c.kv_heads;
  const auto qv = view4(c.q, q_heads), kv = view4(c.k, kv_heads), vv = view4(c.v, kv_heads);
  const int64_t batch = qv.dims[0], rows = qv.dims[2], keys = kv.dims[2], depth = qv.dims[3], vdepth = vv.dims[3];
  const double scale = c.scale ? *c.scale : 1.0 / std::sqrt(static_cast<double>(depth));
  const double inf = std::numeric_limits<double>::infinity();
  // The mask's element for (b, h, i, j), right-aligned onto [batch, q heads, rows, keys]; -inf past its last dim.
  std::vector<int64_t> md(4, 1);
  for (size_t i = 0; i < c.mask.size(); ++i) md[4 - c.mask.size() + i] = c.mask[i];
  auto bias = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double {
    if (c.mask.empty()) return 0.0;
    if (j >= md[3]) return -inf;
    const int64_t idx[4] = {md[0] == 1 ? 0 : b, md[1] == 1 ? 0 : h, md[2] == 1 ? 0 : i, md[3] == 1 ? 0 : j};
    const int64_t flat = ((idx[0] * md[1] + idx[1]) * md[2] + idx[2]) * md[3] + idx[3];
    if (c.mask_bool) return inputs.at(3).bytes[static_cast<size_t>(flat)] ? 0.0 : -inf;
    return floats(inputs.at(3))[static_cast<size_t>(flat)];
  };
  const auto ydims = attention_output_dims(c);
  const auto yv = view4(ydims, q_heads);
  std::vector<double> y(static_cast<size_t>(numel(ydims)), 0.0);
  const int64_t group = q_heads / kv_heads;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < q_heads; ++h)
      for (int64_t i = 0; i < rows; ++i) {
        std::vector<double> s(static_cast<size_t>(keys));
        double top = -inf;
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < depth; ++d)
            dot += static_cast<double>(q[static_cast<size_t>(qv.at(b, h, i, d))]) *
                   k[static_cast<size_t>(kv.at(b, h / group, j, d))];
          double x = dot * scale;
          if (c.softcap > 0) x = c.softcap * std::tanh(x / c.softcap);  // before the bias, as ONNX's reference
          x += bias(b, h, i, j);
          if (c.causal && j > i) x = -inf;
          s[static_cast<size_t>(j)] = x;
          top = std::max(top, x);
        }
        double total = 0;
        for (auto& x : s) total += (x = std::exp(x - top));  // NaN throughout where every key is -inf
        for (int64_t e = 0; e < vdepth; ++e) {
          double out = 0;
          for (int64_t j = 0; j < keys; ++j)
            out += s[static_cast<size_t>(j)] / total * v[static_cast<size_t>(vv.at(b, h / group, j, e))];
          y[static_cast<size_t>(yv.at(b, h, i, e))] = out;
        }
      }
  return y;
}

}  // namespace ridge::test
