// Cost rules of a decoder's ops. ONNX's Attention: Q.K^T and P.V products (MACs), the scaling (1 per
// score) and the softmax (5 per score), over every key the node is given: a key/value cache's past
// keys (past_key, 4-D [B, kv_heads, P, head_size]) and the new ones, the keys the causal frontier or a
// static cache's padding (nonpad_kv_seqlen) masks out included, as a kernel over a fixed-size cache
// scores them. Bytes stay the default: every input read whole (the caches included) and every output
// written whole (the present caches are the past ones with the new keys joined, a copy), the scores
// kept on chip as a fused kernel keeps them.
// RotaryEmbedding: each rotated pair (x1, x2) becomes (cos x1 - sin x2, sin x1 + cos x2), 4 products
// and 2 sums, so 3 FLOPs per rotated channel; with position_ids it reads only the cache rows its
// tokens pick. TensorScatter: ONNX defines it as the functional form of an in-place update of a
// fixed-size cache (runtimes alias the past and present caches), so it moves the update alone: read
// once, written once into the cache; the rest of the cache is neither read nor written. Its backward,
// in place too, moves the update's gradient alone (the written bytes are what training.cpp counts).
#include <algorithm>

#include "cost/registry.h"
#include "shape/rotary.h"

namespace ridge::cost {
namespace {

void attention(CostContext& ctx) {
  auto q = ctx.in_dims(0), k = ctx.in_dims(1), v = ctx.in_dims(2);
  int64_t batch = q[0], heads, seq_q, seq_kv, head_qk, head_v;
  if (q.size() == 4) {
    heads = q[1], seq_q = q[2], head_qk = q[3], seq_kv = k[2], head_v = v[3];
  } else {
    heads = ctx.node().get_int("q_num_heads", 1);
    int64_t kv_heads = ctx.node().get_int("kv_num_heads", 1);
    seq_q = q[1], head_qk = q[2] / heads, seq_kv = k[1], head_v = v[2] / kv_heads;
  }
  if (ctx.has_input(4)) seq_kv += ctx.in_dims(4).at(2);
  int64_t scores = batch * heads * seq_q * seq_kv;
  ctx.macs = scores * head_qk + scores * head_v;
  ctx.flops = 2 * ctx.macs + 6 * scores;
  ctx.backward_flops_data = 4 * ctx.macs + 5 * scores;
  ctx.saves_inputs = true;
  ctx.saves_output = true;
}

// Element size of input i, from its bytes and elements (the chosen activation dtype).
int64_t element_bytes(const CostContext& ctx, size_t i) {
  int64_t n = ctx.in_elements(i);
  return n > 0 ? ctx.in_bytes(i) / n : 0;
}

void rotary_embedding(CostContext& ctx) {
  auto g = shape::rotary_geometry(ctx.in_dims(0), ctx.node().get_int("num_heads", 0),
                                  ctx.node().get_int("rotary_embedding_dim", 0));
  ctx.flops = 3 * g.batch * g.tokens * g.heads * g.dim;
  ctx.backward_flops_data = ctx.flops;  // the rotation's transpose, by the same angles
  for (size_t i : {size_t{1}, size_t{2}}) {
    ctx.mark_not_parameter(i);  // the caches are the positions' angles, not trained
    if (ctx.has_input(3))
      ctx.override_read(i, std::min(ctx.in_bytes(i), g.batch * g.tokens * (g.dim / 2) * element_bytes(ctx, i)));
  }
}

void tensor_scatter(CostContext& ctx) {
  ctx.override_read(0, 0);
  ctx.override_write(0, ctx.in_bytes(1));
}

}  // namespace

void register_attention_costs(CostRegistry& r) {
  // clang-format off
  r.add("attention", {{"Attention", attention}, {"RotaryEmbedding", rotary_embedding},
                      {"TensorScatter", tensor_scatter}});
  // clang-format on
}

}  // namespace ridge::cost
