#include "support/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

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

int64_t kv_heads_of(const AttentionCase& c) { return c.k.size() == 4 ? c.k[1] : c.kv_heads; }

// past_key's and past_value's dims: 4-D whichever form Q, K and V take.
std::pair<std::vector<int64_t>, std::vector<int64_t>> attention_cache_dims(const AttentionCase& c) {
  const auto kv = view4(c.k, kv_heads_of(c)), vv = view4(c.v, kv_heads_of(c));
  return {{kv.dims[0], kv.dims[1], c.past, kv.dims[3]}, {vv.dims[0], vv.dims[1], c.past, vv.dims[3]}};
}

const exec::HostTensor& named(const std::vector<exec::HostTensor>& inputs, const std::string& name) {
  for (const auto& t : inputs)
    if (t.name == name) return t;
  throw std::runtime_error("no input " + name);
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

std::vector<AttentionCase> attention_cache_cases() {
  std::vector<AttentionCase> cases;
  {
    AttentionCase c{"decode step: one query over 5 cached keys and its own", {2, 3, 1, 8}, {2, 3, 1, 8}, {2, 3, 1, 8}};
    c.past = 5;
    c.causal = true;
    cases.push_back(c);
  }
  {
    AttentionCase c{"prefill of 3 after 4 cached, causal, grouped-query", {1, 4, 3, 8}, {1, 2, 3, 8}, {1, 2, 3, 8}};
    c.past = 4;
    c.causal = true;
    cases.push_back(c);
  }
  {
    // Hidden sizes 24, 12 and 18: six query heads of 4 share three key heads of 4 and value heads of 6.
    AttentionCase c{"3-D grouped-query decode step over a cache, a float mask, values of another size",
                    {2, 1, 24},
                    {2, 1, 12},
                    {2, 1, 18},
                    6,
                    3};
    c.past = 4;
    c.mask = {2, 1, 1, 5};
    cases.push_back(c);
  }
  {
    AttentionCase c{"a static cache's padding, causal", {2, 2, 2, 8}, {2, 2, 6, 8}, {2, 2, 6, 8}};
    c.nonpad = {4, 6};  // batch 0's last two keys are padding; its queries end at keys 3, batch 1's at 5
    c.causal = true;
    cases.push_back(c);
  }
  {
    AttentionCase c{"a static cache's padding, no frontier", {2, 2, 3, 8}, {2, 2, 6, 8}, {2, 2, 6, 8}};
    c.nonpad = {2, 5};
    cases.push_back(c);
  }
  {
    // past_key given, if empty, sets the frontier's offset (0), not the static cache's counts.
    AttentionCase c{
        "an empty past cache beside a static cache's padding, causal", {2, 2, 2, 8}, {2, 2, 6, 8}, {2, 2, 6, 8}};
    c.past = 0;
    c.nonpad = {4, 6};
    c.causal = true;
    cases.push_back(c);
  }
  {
    // Causal and softcapped, so that only the product before both gives what the reference's output 3 holds.
    AttentionCase c{"the QK output: the scaled product", {1, 2, 3, 8}, {1, 2, 4, 8}, {1, 2, 4, 8}};
    c.past = 2;
    c.qk_mode = 0;
    c.scale = 0.3f;
    c.causal = true;
    c.softcap = 0.5f;
    cases.push_back(c);
  }
  {
    AttentionCase c{"the QK output: the softmax, causal over a cache", {1, 2, 2, 8}, {1, 2, 2, 8}, {1, 2, 2, 8}};
    c.past = 3;
    c.causal = true;
    c.qk_mode = 3;
    cases.push_back(c);
  }
  return cases;
}

std::string attention_model(const AttentionCase& c) {
  ModelBuilder b(c.nonpad.empty() ? 23 : 24);
  auto dims = [](const std::vector<int64_t>& d) { return std::vector<DimSpec>(d.begin(), d.end()); };
  b.input("q", dims(c.q)).input("k", dims(c.k)).input("v", dims(c.v));
  std::vector<std::string> inputs{"q", "k", "v"};
  if (!c.mask.empty()) {
    b.input("mask", dims(c.mask), c.mask_bool ? ::onnx::TensorProto::BOOL : ::onnx::TensorProto::FLOAT);
    inputs.push_back("mask");
  }
  if (c.past >= 0) {
    inputs.resize(4);  // no mask: input 3 left empty
    const auto [past_k, past_v] = attention_cache_dims(c);
    b.input("past_key", dims(past_k)).input("past_value", dims(past_v));
    inputs.push_back("past_key");
    inputs.push_back("past_value");
  }
  if (!c.nonpad.empty()) {
    inputs.resize(6);
    b.input("nonpad", {static_cast<int64_t>(c.nonpad.size())}, ::onnx::TensorProto::INT64);
    inputs.push_back("nonpad");
  }
  std::vector<std::string> outputs{"y"};
  b.output("y");
  if (c.past >= 0) {
    b.output("present_key").output("present_value");
    outputs.push_back("present_key");
    outputs.push_back("present_value");
  }
  if (c.qk_mode >= 0) {
    outputs.resize(3);
    b.output("qk");
    outputs.push_back("qk");
  }
  auto& node = b.node("Attention", inputs, outputs, "attention");
  if (c.q.size() == 3) {
    set_int(node, "q_num_heads", c.q_heads);
    set_int(node, "kv_num_heads", c.kv_heads);
  }
  if (c.causal) set_int(node, "is_causal", 1);
  if (c.scale) set_float(node, "scale", *c.scale);
  if (c.softcap > 0) set_float(node, "softcap", c.softcap);
  if (c.qk_mode >= 0) set_int(node, "qk_matmul_output_mode", c.qk_mode);
  return b.save("attention");
}

std::vector<exec::HostTensor> attention_inputs(const AttentionCase& c) {
  std::vector<exec::HostTensor> in{float_tensor("q", c.q, values_for(c.q, 1)),
                                   float_tensor("k", c.k, values_for(c.k, 2)),
                                   float_tensor("v", c.v, values_for(c.v, 3))};
  // In the model's order of inputs: the mask, then the caches, then the static cache's counts.
  if (!c.mask.empty() && !c.mask_bool) {
    auto m = values_for(c.mask, 4);
    for (size_t i = 0; i < m.size(); i += 5) m[i] = -std::numeric_limits<float>::infinity();
    in.push_back(float_tensor("mask", c.mask, m));
  } else if (!c.mask.empty()) {
    exec::HostTensor m{"mask", graph::DType::kBool, c.mask, {}};
    m.bytes.resize(static_cast<size_t>(numel(c.mask)));
    for (size_t i = 0; i < m.bytes.size(); ++i) m.bytes[i] = keep(static_cast<int64_t>(i)) ? 1 : 0;
    if (c.label == "a row with every key masked")
      for (int64_t j = 0; j < c.mask.back(); ++j) m.bytes[static_cast<size_t>(c.mask.back() + j)] = 0;  // row 1
    in.push_back(m);
  }
  if (c.past >= 0) {
    const auto [past_k, past_v] = attention_cache_dims(c);
    in.push_back(float_tensor("past_key", past_k, values_for(past_k, 5)));
    in.push_back(float_tensor("past_value", past_v, values_for(past_v, 6)));
  }
  if (!c.nonpad.empty()) in.push_back(int64_tensor("nonpad", {static_cast<int64_t>(c.nonpad.size())}, c.nonpad));
  return in;
}

std::vector<int64_t> attention_output_dims(const AttentionCase& c) {
  if (c.q.size() == 4) return {c.q[0], c.q[1], c.q[2], c.v[3]};
  return {c.q[0], c.q[1], c.q_heads * (c.v[2] / c.kv_heads)};
}

std::vector<double> attention_reference(const AttentionCase& c, const std::vector<exec::HostTensor>& inputs) {
  return attention_reference_outputs(c, inputs).at(0);
}

std::vector<std::vector<double>> attention_reference_outputs(const AttentionCase& c,
                                                             const std::vector<exec::HostTensor>& inputs) {
  const auto q = floats(named(inputs, "q")), k = floats(named(inputs, "k")), v = floats(named(inputs, "v"));
  const int64_t q_heads = c.q.size() == 4 ? c.q[1] : c.q_heads, kv_heads = kv_heads_of(c);
  const auto qv = view4(c.q, q_heads), kv = view4(c.k, kv_heads), vv = view4(c.v, kv_heads);
  const int64_t batch = qv.dims[0], rows = qv.dims[2], depth = qv.dims[3], vdepth = vv.dims[3];
  const int64_t past = std::max<int64_t>(c.past, 0), keys = past + kv.dims[2];
  const double scale = c.scale ? *c.scale : 1.0 / std::sqrt(static_cast<double>(depth));
  const double inf = std::numeric_limits<double>::infinity();
  // The present caches, [batch, kv heads, past + new keys, head size]: the past tokens, then the new ones.
  std::vector<float> past_k, past_v;
  if (c.past >= 0) past_k = floats(named(inputs, "past_key")), past_v = floats(named(inputs, "past_value"));
  std::vector<double> present_k(static_cast<size_t>(batch * kv_heads * keys * depth));
  std::vector<double> present_v(static_cast<size_t>(batch * kv_heads * keys * vdepth));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < kv_heads; ++h)
      for (int64_t j = 0; j < keys; ++j) {
        for (int64_t d = 0; d < depth; ++d)
          present_k[static_cast<size_t>(((b * kv_heads + h) * keys + j) * depth + d)] =
              j < past ? past_k[static_cast<size_t>(((b * kv_heads + h) * past + j) * depth + d)]
                       : k[static_cast<size_t>(kv.at(b, h, j - past, d))];
        for (int64_t e = 0; e < vdepth; ++e)
          present_v[static_cast<size_t>(((b * kv_heads + h) * keys + j) * vdepth + e)] =
              j < past ? past_v[static_cast<size_t>(((b * kv_heads + h) * past + j) * vdepth + e)]
                       : v[static_cast<size_t>(vv.at(b, h, j - past, e))];
      }
  // The mask's element for (b, h, i, j), right-aligned onto [batch, q heads, rows, keys]; -inf past its last dim.
  std::vector<int64_t> md(4, 1);
  for (size_t i = 0; i < c.mask.size(); ++i) md[4 - c.mask.size() + i] = c.mask[i];
  auto bias = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double {
    if (c.mask.empty()) return 0.0;
    if (j >= md[3]) return -inf;
    const int64_t idx[4] = {md[0] == 1 ? 0 : b, md[1] == 1 ? 0 : h, md[2] == 1 ? 0 : i, md[3] == 1 ? 0 : j};
    const int64_t flat = ((idx[0] * md[1] + idx[1]) * md[2] + idx[2]) * md[3] + idx[3];
    const auto& mask = named(inputs, "mask");
    if (c.mask_bool) return mask.bytes[static_cast<size_t>(flat)] ? 0.0 : -inf;
    return floats(mask)[static_cast<size_t>(flat)];
  };
  // Query i of batch b sees keys 0..i + offset: the cached count wherever past_key is given (an empty one too), or
  // with a static cache's padding and no past_key, its valid keys less the queries (ONNX's bottom-right alignment); 0
  // without either.
  auto offset = [&](int64_t b) -> int64_t {
    if (c.past >= 0 || c.nonpad.empty()) return past;
    return c.nonpad[static_cast<size_t>(b)] - rows;
  };
  const auto ydims = attention_output_dims(c);
  const auto yv = view4(ydims, q_heads);
  std::vector<double> y(static_cast<size_t>(numel(ydims)), 0.0);
  std::vector<double> qk(static_cast<size_t>(batch * q_heads * rows * keys));
  const int64_t group = q_heads / kv_heads;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < q_heads; ++h)
      for (int64_t i = 0; i < rows; ++i) {
        std::vector<double> s(static_cast<size_t>(keys));
        double top = -inf;
        const size_t row = static_cast<size_t>(((b * q_heads + h) * rows + i) * keys);
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < depth; ++d)
            dot += static_cast<double>(q[static_cast<size_t>(qv.at(b, h, i, d))]) *
                   present_k[static_cast<size_t>(((b * kv_heads + h / group) * keys + j) * depth + d)];
          double x = dot * scale;
          if (c.qk_mode == 0) qk[row + static_cast<size_t>(j)] = x;
          if (c.softcap > 0) x = c.softcap * std::tanh(x / c.softcap);  // before the bias, as ONNX's reference
          x += bias(b, h, i, j);
          if (c.causal && j > i + offset(b)) x = -inf;
          if (!c.nonpad.empty() && j >= c.nonpad[static_cast<size_t>(b)]) x = -inf;
          s[static_cast<size_t>(j)] = x;
          top = std::max(top, x);
        }
        double total = 0;
        for (auto& x : s) total += (x = std::exp(x - top));  // NaN throughout where every key is -inf
        for (int64_t j = 0; j < keys; ++j)
          if (c.qk_mode == 3) qk[row + static_cast<size_t>(j)] = s[static_cast<size_t>(j)] / total;
        for (int64_t e = 0; e < vdepth; ++e) {
          double out = 0;
          for (int64_t j = 0; j < keys; ++j)
            out += s[static_cast<size_t>(j)] / total *
                   present_v[static_cast<size_t>(((b * kv_heads + h / group) * keys + j) * vdepth + e)];
          y[static_cast<size_t>(yv.at(b, h, i, e))] = out;
        }
      }
  std::vector<std::vector<double>> out{std::move(y)};
  if (c.past >= 0) {
    out.push_back(std::move(present_k));
    out.push_back(std::move(present_v));
  }
  if (c.qk_mode >= 0) out.push_back(std::move(qk));
  return out;
}

}  // namespace ridge::test
