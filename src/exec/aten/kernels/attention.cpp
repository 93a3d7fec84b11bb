// ONNX's Attention op (opset 23, 24): scaled dot-product attention over 4-D [B, heads, S, head_size]
// inputs, or 3-D [B, S, hidden] ones split into q_num_heads / kv_num_heads heads; grouped-query
// (fewer key/value heads) repeats each key/value head; causal and explicit masks, softcap; a key/value
// cache (past_key and past_value joined before the new keys, the present caches its outputs), the
// padding of a static cache (nonpad_kv_seqlen, opset 24), and the QK output of the product or of the
// softmax.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "exec/aten/kernels/kernel.h"
#include "shape/rotary.h"
#include "util/error.h"

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
  // The cache: past keys and values come before the new ones on the token axis, and the causal frontier moves by
  // their count (ONNX's bottom-right alignment: a query sees every cached key and the new ones up to its own).
  if (c.has(4) != c.has(5)) c.fail("past_key and past_value come together");
  int64_t past = 0;
  if (c.has(4)) {
    if (c.in(4).dim() != 4 || c.in(5).dim() != 4) c.fail("past_key and past_value must be 4-D");
    past = c.in(4).size(2);
    k = at::cat({c.in(4), k}, 2);
    v = at::cat({c.in(5), v}, 2);
  }
  if (c.wants_output(1)) c.set(1, k.contiguous());
  if (c.wants_output(2)) c.set(2, v.contiguous());
  const int64_t qk_mode = c.node.get_int("qk_matmul_output_mode", 0);
  if (c.wants_output(3) && qk_mode != 0 && qk_mode != 3)
    c.fail(
        fmt::format("qk_matmul_output_mode {}: ridge gives the product (0) or the softmax (3); ONNX's text and its "
                    "reference order the mask and the softcap of 1 and 2 differently",
                    qk_mode));
  if (q.size(1) != k.size(1)) {  // grouped-query attention
    int64_t repeat = q.size(1) / k.size(1);
    k = k.repeat_interleave(repeat, 1);
    v = v.repeat_interleave(repeat, 1);
  }
  double scale = c.node.get_float("scale", 1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  auto scores = at::matmul(q, k.transpose(-1, -2)) * scale;
  if (c.wants_output(3) && qk_mode == 0) c.set(3, scores);
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
  // A static cache's padding (opset 24): batch b's keys from nonpad_kv_seqlen[b] on are masked out; without past_key
  // (given, if empty, it sets the offset) the causal frontier of batch b then ends its last query at its last valid
  // key.
  at::Tensor offset = at::full({1, 1, 1, 1}, past, at::kLong);
  if (c.has(6)) {
    auto valid = c.in(6).to(at::kLong).reshape({-1, 1, 1, 1});
    if (c.in(6).dim() != 1 || valid.size(0) != scores.size(0)) c.fail("nonpad_kv_seqlen holds one count per batch");
    auto keys = at::arange(l, at::kLong).reshape({1, 1, 1, l});
    scores = scores.masked_fill(keys >= valid, kMasked);
    if (!c.has(4)) offset = valid - s;
  }
  if (c.node.get_int("is_causal", 0)) {
    // Query i attends to keys 0..i + offset: with no cache the frontier starts at the first key (ONNX's reference and
    // PyTorch's scaled_dot_product_attention).
    auto rows = at::arange(s, at::kLong).reshape({1, 1, s, 1}), keys = at::arange(l, at::kLong).reshape({1, 1, 1, l});
    scores = scores.masked_fill(keys > rows + offset, kMasked);
  }
  auto weights = at::softmax(scores, -1);
  if (c.wants_output(3) && qk_mode == 3) c.set(3, weights);
  auto out = at::matmul(weights, v);
  if (three_d) out = out.transpose(1, 2).reshape({out.size(0), out.size(2), -1});
  c.set(0, out);
}

// RotaryEmbedding (opset 23): X viewed as [B, S, heads, head], the first rotary_embedding_dim channels of each head
// taken as pairs, halves (x1 the first half, x2 the second) or interleaved (x1 the even channels, x2 the odd), and each
// pair turned by its token's angle: (cos x1 - sin x2, sin x1 + cos x2); the rest of the head passes through.
void rotary_embedding(C& c) {
  const at::Tensor& x = c.in(0);
  shape::RotaryGeometry g;
  try {
    g = shape::rotary_geometry(x.sizes().vec(), c.node.get_int("num_heads", 0),
                               c.node.get_int("rotary_embedding_dim", 0));
  } catch (const Error& e) {
    c.fail(e.what());
  }
  const int64_t batch = g.batch, tokens = g.tokens, head = g.head, dim = g.dim;
  // [B, S, heads, head]
  at::Tensor heads_last = x.dim() == 4 ? x.transpose(1, 2) : x.reshape({batch, tokens, g.heads, head});
  at::Tensor cos = c.in(1), sin = c.in(2);
  if (c.has(3)) {
    auto ids = c.in(3).to(at::kLong).reshape({-1});
    if (ids.numel() > 0) {
      int64_t low = ids.min().item<int64_t>(), high = ids.max().item<int64_t>();
      if (low < 0 || high >= cos.size(0))
        c.fail(fmt::format("position_ids holds {}: the caches have {} positions", low < 0 ? low : high, cos.size(0)));
    }
    cos = cos.index_select(0, ids);
    sin = sin.index_select(0, ids);
  }
  cos = cos.reshape({batch, tokens, 1, dim / 2});  // one angle per pair, shared by the heads
  sin = sin.reshape({batch, tokens, 1, dim / 2});
  auto turned = heads_last.narrow(-1, 0, dim);
  bool interleaved = c.node.get_int("interleaved", 0) != 0;
  auto x1 = interleaved ? turned.slice(-1, 0, dim, 2) : turned.narrow(-1, 0, dim / 2);
  auto x2 = interleaved ? turned.slice(-1, 1, dim, 2) : turned.narrow(-1, dim / 2, dim / 2);
  auto real = cos * x1 - sin * x2, imag = sin * x1 + cos * x2;
  auto rotated = interleaved ? at::stack({real, imag}, -1).reshape(turned.sizes()) : at::cat({real, imag}, -1);
  auto out = dim < head ? at::cat({rotated, heads_last.narrow(-1, dim, head - dim)}, -1) : rotated;
  c.set(0, x.dim() == 4 ? out.transpose(1, 2).contiguous() : out.reshape(x.sizes()));
}

// TensorScatter (opset 24): the update written into a copy of the cache along `axis`, batch b's tokens from
// write_indices[b] on (0 without it); in circular mode the positions wrap around the cache's length, in linear mode one
// past it is refused by name.
void tensor_scatter(C& c) {
  const at::Tensor& past = c.in(0);
  const at::Tensor& update = c.in(1);
  int64_t axis = c.node.get_int("axis", -2);
  if (axis < 0) axis += past.dim();
  if (axis <= 0 || axis >= past.dim() || update.dim() != past.dim())
    c.fail(fmt::format("axis {} is not a sequence axis of past_cache and update (rank {}, the batch first)",
                       c.node.get_int("axis", -2), past.dim()));
  const int64_t length = past.size(axis), tokens = update.size(axis), batch = past.size(0);
  if (length == 0 && tokens > 0) c.fail("the cache holds no tokens to write into");
  bool circular = c.node.get_string("mode", "linear") == "circular";
  std::vector<int64_t> starts(static_cast<size_t>(batch), 0);
  if (c.has(2)) {
    auto indices = c.in(2).to(at::kLong).contiguous();
    if (indices.numel() != batch) c.fail("write_indices holds one index per batch");
    starts.assign(indices.data_ptr<int64_t>(), indices.data_ptr<int64_t>() + batch);
  }
  auto present = past.clone();
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t start = starts[static_cast<size_t>(b)];
    if (start < 0 || (!circular && start + tokens > length))
      c.fail(fmt::format("write_indices[{}] = {} writes {} tokens outside a cache of {}{}", b, start, tokens, length,
                         circular ? "" : " (linear mode)"));
    auto positions = (at::arange(tokens, at::kLong) + start).remainder(length);
    present[b].index_copy_(axis - 1, positions, update[b]);
  }
  c.set(0, present);
}

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("attention", {{"Attention", attention}, {"RotaryEmbedding", rotary_embedding},
                      {"TensorScatter", tensor_scatter}});
  // clang-format on
}

}  // namespace ridge::exec::aten
