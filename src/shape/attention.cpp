// Shape rules of a decoder's ops. ONNX's Attention (opset 23, 24): 4-D [B, heads, S, head_size] inputs, or 3-D
// [B, S, hidden] with q_num_heads / kv_num_heads attributes; a key/value cache (past_key, past_value: 4-D [B, kv_heads,
// P, head_size] whichever form Q takes) is joined before the new keys, so the present caches are [B, kv_heads, P +
// S_kv, head_size] and the optional QK output [B, q_heads, S_q, P + S_kv]. RotaryEmbedding (opset 23) rotates X in
// place of its shape; TensorScatter (opset 24) writes an update into a fixed-size cache, which keeps its shape.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shape/registry.h"
#include "shape/rotary.h"
#include "util/error.h"

namespace ridge::shape {
namespace {

void attention(InferenceContext& ctx) {
  ctx.require_inputs(3);
  auto q = ctx.in_dims(0), k = ctx.in_dims(1), v = ctx.in_dims(2);
  if (q.size() != k.size() || q.size() != v.size() || (q.size() != 3 && q.size() != 4))
    ctx.fail("Q, K and V must all be 3-D or all 4-D");
  std::vector<int64_t> out = q;
  int64_t q_heads = 0, kv_heads = 0, head_k = 0, head_v = 0, q_len = 0, kv_len = 0;
  if (q.size() == 4) {
    out[3] = v[3];
    q_heads = q[1], kv_heads = k[1], q_len = q[2], kv_len = k[2], head_k = k[3], head_v = v[3];
  } else {
    q_heads = ctx.node().get_int("q_num_heads", 0), kv_heads = ctx.node().get_int("kv_num_heads", 0);
    if (q_heads <= 0 || kv_heads <= 0) ctx.fail("3-D inputs need q_num_heads and kv_num_heads");
    auto split = [&](int64_t size, int64_t heads, const char* what) {
      if (size % heads != 0)
        ctx.fail(fmt::format("{}'s hidden size {} does not split into {} heads", what, size, heads));
    };
    split(q[2], q_heads, "Q");
    split(k[2], kv_heads, "K");
    split(v[2], kv_heads, "V");
    out[2] = v[2] / kv_heads * q_heads;
    q_len = q[1], kv_len = k[1], head_k = k[2] / kv_heads, head_v = v[2] / kv_heads;
  }
  if (kv_heads <= 0 || q_heads % kv_heads != 0)
    ctx.fail(fmt::format("{} query heads do not share {} key/value heads evenly", q_heads, kv_heads));
  if (ctx.has_input(4) != ctx.has_input(5)) ctx.fail("past_key and past_value come together");
  int64_t past = 0;
  if (ctx.has_input(4)) {
    auto past_k = ctx.in_dims(4), past_v = ctx.in_dims(5);
    if (past_k.size() != 4 || past_v.size() != 4) ctx.fail("past_key and past_value must be 4-D");
    std::vector<int64_t> want_k{q[0], kv_heads, past_k[2], head_k}, want_v{q[0], kv_heads, past_k[2], head_v};
    if (past_k != want_k || past_v != want_v)
      ctx.fail(fmt::format("past_key [{}] and past_value [{}] do not match the keys' batch, heads and head sizes",
                           fmt::join(past_k, ", "), fmt::join(past_v, ", ")));
    past = past_k[2];
  }
  if (ctx.has_input(6) && ctx.in_dims(6) != std::vector<int64_t>{q[0]})
    ctx.fail(
        fmt::format("nonpad_kv_seqlen [{}] is not one count per batch ({})", fmt::join(ctx.in_dims(6), ", "), q[0]));
  ctx.set_output(0, ctx.in_dtype(0), out);
  const int64_t total = past + kv_len;
  if (ctx.has_output(1)) ctx.set_output(1, ctx.in_dtype(1), {q[0], kv_heads, total, head_k});
  if (ctx.has_output(2)) ctx.set_output(2, ctx.in_dtype(2), {q[0], kv_heads, total, head_v});
  if (ctx.has_output(3)) ctx.set_output(3, ctx.in_dtype(0), {q[0], q_heads, q_len, total});
}

// RotaryEmbedding: X is 4-D [B, heads, S, head_size] or 3-D [B, S, hidden] of num_heads heads; the first
// rotary_embedding_dim channels of each head (all where 0) rotate by angles read from the caches, [positions, dim / 2]
// rows picked by position_ids [B, S], or [B, S, dim / 2] without them.
void rotary_embedding(InferenceContext& ctx) {
  ctx.require_inputs(3);
  auto x = ctx.in_dims(0);
  RotaryGeometry g;
  try {
    g = rotary_geometry(x, ctx.node().get_int("num_heads", 0), ctx.node().get_int("rotary_embedding_dim", 0));
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
  const int64_t tokens = g.tokens, dim = g.dim;
  auto cos = ctx.in_dims(1), sin = ctx.in_dims(2);
  if (cos != sin)
    ctx.fail(fmt::format("cos_cache [{}] and sin_cache [{}] differ", fmt::join(cos, ", "), fmt::join(sin, ", ")));
  if (ctx.has_input(3)) {
    auto ids = ctx.in_dims(3);
    if (ids != std::vector<int64_t>{x[0], tokens})
      ctx.fail(fmt::format("position_ids [{}] is not [batch, tokens] = [{}, {}]", fmt::join(ids, ", "), x[0], tokens));
    if (cos.size() != 2 || cos[1] != dim / 2)
      ctx.fail(
          fmt::format("with position_ids the caches are [positions, {}], not [{}]", dim / 2, fmt::join(cos, ", ")));
  } else if (cos != std::vector<int64_t>{x[0], tokens, dim / 2}) {
    ctx.fail(fmt::format("without position_ids the caches are [{}, {}, {}], not [{}]", x[0], tokens, dim / 2,
                         fmt::join(cos, ", ")));
  }
  ctx.set_output(0, ctx.in_dtype(0), x);
}

// TensorScatter: the present cache has the past one's shape; the update differs from it on `axis` alone (at most its
// length there), and write_indices holds one position per batch.
void tensor_scatter(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto past = ctx.in_dims(0), update = ctx.in_dims(1);
  const auto rank = static_cast<int64_t>(past.size());
  if (rank < 2 || static_cast<int64_t>(update.size()) != rank)
    ctx.fail(fmt::format("past_cache [{}] and update [{}] must be of one rank of at least 2", fmt::join(past, ", "),
                         fmt::join(update, ", ")));
  int64_t axis = ctx.axis(ctx.node().get_int("axis", -2), rank);
  if (axis == 0) ctx.fail("axis 0 is the batch: the sequence axis is another");
  for (int64_t d = 0; d < rank; ++d) {
    auto i = static_cast<size_t>(d);
    if (d == axis ? update[i] > past[i] : update[i] != past[i])
      ctx.fail(fmt::format("update [{}] does not fit past_cache [{}] on axis {}", fmt::join(update, ", "),
                           fmt::join(past, ", "), axis));
  }
  auto mode = ctx.node().get_string("mode", "linear");
  if (mode != "linear" && mode != "circular") ctx.fail("mode is linear or circular, not " + mode);
  if (ctx.has_input(2) && ctx.in_dims(2) != std::vector<int64_t>{past[0]})
    ctx.fail(
        fmt::format("write_indices [{}] is not one index per batch ({})", fmt::join(ctx.in_dims(2), ", "), past[0]));
  ctx.set_output(0, ctx.in_dtype(0), past);
}

}  // namespace

void register_attention_shapes(ShapeRegistry& registry) {
  registry.add("attention",
               {{"Attention", attention}, {"RotaryEmbedding", rotary_embedding}, {"TensorScatter", tensor_scatter}});
}

}  // namespace ridge::shape
