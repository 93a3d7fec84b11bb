// Shape rule of ONNX's Attention op (opset 23): 4-D [B, heads, S, head_size] inputs, or 3-D
// [B, S, hidden] with q_num_heads / kv_num_heads attributes.
#include <fmt/format.h>

#include "shape/registry.h"

namespace ridge::shape {
namespace {

void attention(InferenceContext& ctx) {
  ctx.require_inputs(3);
  auto q = ctx.in_dims(0), k = ctx.in_dims(1), v = ctx.in_dims(2);
  if (q.size() != k.size() || q.size() != v.size() || (q.size() != 3 && q.size() != 4))
    ctx.fail("Q, K and V must all be 3-D or all 4-D");
  std::vector<int64_t> out = q;
  if (q.size() == 4) {
    out[3] = v[3];
  } else {
    int64_t q_heads = ctx.node().get_int("q_num_heads", 0), kv_heads = ctx.node().get_int("kv_num_heads", 0);
    if (q_heads <= 0 || kv_heads <= 0) ctx.fail("3-D inputs need q_num_heads and kv_num_heads");
    out[2] = v[2] / kv_heads * q_heads;
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
  // Optional present key/value caches and the QK matrix output keep no costs of their own.
  for (size_t i = 1; i < ctx.output_count(); ++i)
    if (ctx.has_output(i)) throw Unresolved{"Attention's cache and qk outputs are not supported"};
}

}  // namespace

void register_attention_shapes(ShapeRegistry& registry) { registry.add("attention", {{"Attention", attention}}); }

}  // namespace ridge::shape
