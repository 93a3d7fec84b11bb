// ONNX's Attention op (opset 23): scaled dot-product attention over 4-D [B, heads, S, head_size]
// inputs, or 3-D [B, S, hidden] ones split into q_num_heads / kv_num_heads heads; grouped-query
// (fewer key/value heads) repeats each key/value head; causal and explicit masks, softcap.
#include <cmath>
#include <limits>
#include <vector>

#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

at::Tensor split_heads(const at::Tensor& x, int64_t heads) {
  return x.reshape({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}

void attention(C& c) {
  at::Tensor q = c.in(0), k = c.in(1), v = c.in(2);
  bool three_d = q.dim() == 3;
  if (three_d) {
    int64_t qh = c.node.get_int("q_num_heads", 0), kvh = c.node.get_int("kv_num_heads", 0);
    if (qh <= 0 || kvh <= 0) c.fail("3-D inputs need q_num_heads and kv_num_heads");
    q = split_heads(q, qh);
    k = split_heads(k, kvh);
    v = split_heads(v, kvh);
  }
  if (c.has(4) || c.has(5)) c.fail("past key/value caches are not supported");
  if (q.size(1) != k.size(1)) {  // grouped-query attention
    int64_t repeat = q.size(1) / k.size(1);
    k = k.repeat_interleave(repeat, 1);
    v = v.repeat_interleave(repeat, 1);
  }
  double scale = c.node.get_float("scale", 1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  auto scores = at::matmul(q, k.transpose(-1, -2)) * scale;
  // ONNX's function body: the softcap first, so that a masked score stays -inf; then the mask and the causal
  // frontier as a bias of -inf.
  double softcap = c.node.get_float("softcap", 0.0);
  if (softcap > 0) scores = at::tanh(scores / softcap) * softcap;
  constexpr double kMasked = -std::numeric_limits<double>::infinity();
  int64_t s = scores.size(-2), l = scores.size(-1);
  if (c.has(3)) {
    auto mask = c.in(3);
    // A mask shorter than the keys leaves the rest masked out (ONNX pads it with -inf, or false).
    if (mask.size(-1) > l) c.fail("attn_mask is longer than the keys");
    if (mask.size(-1) < l) {
      std::vector<int64_t> pad(static_cast<size_t>(2 * mask.dim()), 0);
      pad[1] = l - mask.size(-1);  // at::constant_pad_nd: the last dim's (before, after) first
      mask = mask.scalar_type() == at::kBool ? at::constant_pad_nd(mask.to(at::kByte), pad, 0).to(at::kBool)
                                             : at::constant_pad_nd(mask, pad, kMasked);
    }
    scores = mask.scalar_type() == at::kBool ? scores.masked_fill(mask.logical_not(), kMasked) : scores + mask;
  }
  if (c.node.get_int("is_causal", 0)) {
    // Without a cache the frontier starts at the first key: query i attends to keys 0..i (ONNX's reference and
    // PyTorch's scaled_dot_product_attention).
    auto allowed = at::ones({s, l}, at::kBool).tril(0);
    scores = scores.masked_fill(allowed.logical_not(), kMasked);
  }
  auto out = at::matmul(at::softmax(scores, -1), v);
  if (three_d) out = out.transpose(1, 2).reshape({out.size(0), out.size(2), -1});
  c.set(0, out);
  for (size_t i = 1; i < c.node.outputs.size(); ++i)
    if (c.wants_output(i)) c.fail("the cache and QK outputs are not supported");
}

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("attention", {{"Attention", attention}});
  // clang-format on
}

}  // namespace ridge::exec::aten
