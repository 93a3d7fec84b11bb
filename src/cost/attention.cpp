// Cost rule of ONNX's Attention op: Q.K^T and P.V products (MACs), the scaling (1 per score)
// and the softmax (5 per score).
#include "cost/registry.h"

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
  int64_t scores = batch * heads * seq_q * seq_kv;
  ctx.macs = scores * head_qk + scores * head_v;
  ctx.flops = 2 * ctx.macs + 6 * scores;
  ctx.backward_flops_data = 4 * ctx.macs + 5 * scores;
  ctx.saves_inputs = true;
  ctx.saves_output = true;
}

}  // namespace

void register_attention_costs(CostRegistry& r) { r.add("attention", {{"Attention", attention}}); }

}  // namespace ridge::cost
