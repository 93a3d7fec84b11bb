// RotaryEmbedding's geometry, shared by shape inference, the cost model and the executor (shape/rotary.h).
#include "shape/rotary.h"

#include <fmt/format.h>

#include "util/error.h"

namespace ridge::shape {

RotaryGeometry rotary_geometry(const std::vector<int64_t>& x, int64_t num_heads, int64_t rotary_embedding_dim) {
  if (x.size() != 3 && x.size() != 4)
    throw Error("X must be 3-D [batch, tokens, hidden] or 4-D [batch, heads, tokens, head]");
  RotaryGeometry g;
  g.batch = x[0];
  if (x.size() == 4) {
    g.heads = x[1], g.tokens = x[2], g.head = x[3];
  } else {
    if (num_heads <= 0) throw Error("a 3-D X needs num_heads");
    if (x[2] % num_heads != 0)
      throw Error(fmt::format("a hidden size of {} does not split into {} heads", x[2], num_heads));
    g.heads = num_heads, g.tokens = x[1], g.head = x[2] / num_heads;
  }
  g.dim = rotary_embedding_dim == 0 ? g.head : rotary_embedding_dim;
  if (g.dim < 0 || g.dim > g.head || g.dim % 2 != 0)
    throw Error(fmt::format("rotary_embedding_dim {} is not an even size of at most the head's {}", g.dim, g.head));
  return g;
}

}  // namespace ridge::shape
