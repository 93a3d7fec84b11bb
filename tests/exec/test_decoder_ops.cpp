// A decoder's opset 23 and 24 ops besides Attention (whose caches tests/exec/test_executor.cpp holds to its reference):
// RotaryEmbedding against the rotation written element by element here (each channel's partner and angle found by its
// index, where the kernel slices halves or strided pairs), by hand on a quarter turn, in its five forms (4-D with
// position_ids, 3-D heads, interleaved pairs, a partial rotary dim, caches per token); TensorScatter's linear and
// circular writes into a fixed cache, by hand; Swish by hand. Debian's onnx (1.12) predates the three ops, so their
// node tests are not installed; each test also checks the shape rule's and the cost rule's figures.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/engine.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

std::vector<DimSpec> spec(const std::vector<int64_t>& d) { return {d.begin(), d.end()}; }

int64_t numel(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (auto v : d) n *= v;
  return n;
}

std::vector<float> ramp(const std::vector<int64_t>& dims, float step, float phase) {
  std::vector<float> v(static_cast<size_t>(numel(dims)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(step * static_cast<float>(i) + phase) + 0.1f;
  return v;
}

struct RopeCase {
  std::string label;
  std::vector<int64_t> x;  // [B, heads, S, head] or [B, S, hidden]
  int64_t num_heads = 0;   // 3-D
  int64_t dim = 0;         // rotary_embedding_dim; 0: the head
  bool interleaved = false;
  bool ids = true;  // position_ids into caches of 20 positions; else caches [B, S, dim / 2]
};

struct RopeSetup {
  int64_t batch, heads, tokens, head, dim;
  std::vector<int64_t> cache_dims;
};

RopeSetup setup(const RopeCase& c) {
  RopeSetup s{};
  s.batch = c.x[0];
  s.heads = c.x.size() == 4 ? c.x[1] : c.num_heads;
  s.tokens = c.x.size() == 4 ? c.x[2] : c.x[1];
  s.head = c.x.size() == 4 ? c.x[3] : c.x[2] / c.num_heads;
  s.dim = c.dim == 0 ? s.head : c.dim;
  s.cache_dims = c.ids ? std::vector<int64_t>{20, s.dim / 2} : std::vector<int64_t>{s.batch, s.tokens, s.dim / 2};
  return s;
}

// Caches of real angles, as a model holds them: row r (a position, or a token) turns pair p by r * 10000^(-2p/dim).
std::pair<std::vector<float>, std::vector<float>> caches(const RopeSetup& s) {
  std::vector<float> cos, sin;
  const int64_t rows = numel(s.cache_dims) / (s.dim / 2);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t p = 0; p < s.dim / 2; ++p) {
      double angle =
          static_cast<double>(r) * std::pow(10000.0, -2.0 * static_cast<double>(p) / static_cast<double>(s.dim));
      cos.push_back(static_cast<float>(std::cos(angle)));
      sin.push_back(static_cast<float>(std::sin(angle)));
    }
  return {cos, sin};
}

std::vector<int64_t> position_ids(const RopeSetup& s) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < s.batch * s.tokens; ++i) ids.push_back((i * 7 + 3) % 20);
  return ids;
}

// The rotation element by element: channel d of head h at token t of batch b.
std::vector<double> rope_reference(const RopeCase& c, const RopeSetup& s, const std::vector<float>& x,
                                   const std::vector<float>& cos, const std::vector<float>& sin,
                                   const std::vector<int64_t>& ids) {
  std::vector<double> y(x.size());
  auto flat = [&](int64_t b, int64_t h, int64_t t, int64_t d) {
    return static_cast<size_t>(c.x.size() == 4 ? ((b * s.heads + h) * s.tokens + t) * s.head + d
                                               : (b * s.tokens + t) * s.heads * s.head + h * s.head + d);
  };
  const int64_t half = s.dim / 2;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t t = 0; t < s.tokens; ++t)
        for (int64_t d = 0; d < s.head; ++d) {
          const size_t at = flat(b, h, t, d);
          if (d >= s.dim) {
            y[at] = x[at];
            continue;
          }
          const bool first = c.interleaved ? d % 2 == 0 : d < half;
          const int64_t pair = c.interleaved ? d / 2 : d % half;
          const int64_t partner = c.interleaved ? (first ? d + 1 : d - 1) : (first ? d + half : d - half);
          const int64_t row = c.ids ? ids[static_cast<size_t>(b * s.tokens + t)] : b * s.tokens + t;
          const double co = cos[static_cast<size_t>(row * half + pair)],
                       si = sin[static_cast<size_t>(row * half + pair)];
          const double self = x[at], other = x[flat(b, h, t, partner)];
          y[at] = first ? co * self - si * other : si * other + co * self;
        }
  return y;
}

std::string rope_model(const RopeCase& c, const RopeSetup& s) {
  ModelBuilder b(23);
  b.input("x", spec(c.x)).input("cos", spec(s.cache_dims)).input("sin", spec(s.cache_dims)).output("y");
  std::vector<std::string> inputs{"x", "cos", "sin"};
  if (c.ids) {
    b.input("ids", {s.batch, s.tokens}, ::onnx::TensorProto::INT64);
    inputs.push_back("ids");
  }
  auto& node = b.node("RotaryEmbedding", inputs, {"y"}, "rope");
  if (c.num_heads > 0) set_int(node, "num_heads", c.num_heads);
  if (c.dim > 0) set_int(node, "rotary_embedding_dim", c.dim);
  if (c.interleaved) set_int(node, "interleaved", 1);
  return b.save("rope");
}

TEST(DecoderOps, RotaryEmbeddingTurnsEachPairByItsTokensAngle) {
  const std::vector<RopeCase> cases{
      {"4-D, position_ids", {2, 3, 4, 8}},
      {"3-D of 4 heads", {2, 3, 32}, 4},
      {"interleaved pairs", {2, 3, 4, 8}, 0, 0, true},
      {"the first 4 of 8 channels", {2, 3, 4, 8}, 0, 4},
      {"interleaved, 3-D, the first 6 of 10", {1, 5, 20}, 2, 6, true},
      {"caches per token, no position_ids", {2, 2, 3, 6}, 0, 0, false, false},
  };
  for (const auto& c : cases) {
    const auto s = setup(c);
    auto r = analyze_file(rope_model(c, s));
    const auto& node = node_named(r, "rope");
    EXPECT_EQ(graph::shape_text(r.model.graph.value(*r.model.graph.find("y"))),
              graph::shape_text(r.model.graph.value(*r.model.graph.find("x"))))
        << c.label;
    // 3 FLOPs per rotated channel; X read whole, the caches only in the rows the tokens pick.
    EXPECT_EQ(node.flops, 3 * s.batch * s.tokens * s.heads * s.dim) << c.label;
    const int64_t cache_read = c.ids ? s.batch * s.tokens * (s.dim / 2) * 4 : numel(s.cache_dims) * 4;
    EXPECT_EQ(node.activation_bytes_read, numel(c.x) * 4 + 2 * cache_read + (c.ids ? s.batch * s.tokens * 8 : 0))
        << c.label;
    auto x = ramp(c.x, 0.37f, 0.2f);
    auto [cos, sin] = caches(s);
    auto ids = position_ids(s);
    std::vector<exec::HostTensor> in{float_tensor("x", c.x, x), float_tensor("cos", s.cache_dims, cos),
                                     float_tensor("sin", s.cache_dims, sin)};
    if (c.ids) in.push_back(int64_tensor("ids", {s.batch, s.tokens}, ids));
    auto got = floats(exec::load_engine().run(r.model, in, {}).outputs.at(0));
    auto want = rope_reference(c, s, x, cos, sin, ids);
    ASSERT_EQ(got.size(), want.size()) << c.label;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << c.label << " [" << i << "]";
  }
}

// By hand: a quarter turn (cos 0, sin 1) takes (x1, x2) = (1, 0) to (0, 1) and (0, 2) to (-2, 0); a position past the
// caches is refused by name.
TEST(DecoderOps, RotaryEmbeddingByHandAndAPositionPastTheCaches) {
  ModelBuilder b(23);
  b.input("x", spec({1, 1, 2, 2})).input("ids", {int64_t{1}, int64_t{2}}, ::onnx::TensorProto::INT64).output("y");
  b.weight_values("cos", {2, 1}, {1.f, 0.f}).weight_values("sin", {2, 1}, {0.f, 1.f});
  b.node("RotaryEmbedding", {"x", "cos", "sin", "ids"}, {"y"}, "rope");
  auto r = analyze_file(b.save("rope_by_hand"));
  EXPECT_EQ(node_named(r, "rope").params, 0);  // the caches are angles, not trained
  auto& engine = exec::load_engine();
  auto y = floats(
      engine.run(r.model, {float_tensor("x", {1, 1, 2, 2}, {1, 0, 0, 2}), int64_tensor("ids", {1, 2}, {1, 1})}, {})
          .outputs.at(0));
  std::vector<float> want{0, 1, -2, 0};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], want[i], 1e-7) << i;
  try {
    engine.run(r.model, {float_tensor("x", {1, 1, 2, 2}, {1, 0, 0, 2}), int64_tensor("ids", {1, 2}, {0, 2})}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("position_ids holds 2: the caches have 2 positions"), std::string::npos)
        << e.what();
  }
}

TEST(DecoderOps, RotaryEmbeddingsShapeRuleNamesWhatDoesNotFit) {
  auto message = [](const std::vector<int64_t>& cache, int64_t dim) {
    ModelBuilder b(23);
    b.input("x", spec({1, 2, 3, 8})).input("cos", spec(cache)).input("sin", spec(cache));
    b.input("ids", {int64_t{1}, int64_t{3}}, ::onnx::TensorProto::INT64).output("y");
    auto& node = b.node("RotaryEmbedding", {"x", "cos", "sin", "ids"}, {"y"}, "rope");
    if (dim > 0) set_int(node, "rotary_embedding_dim", dim);
    try {
      analyze_file(b.save("rope_bad"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({50, 3}, 0),
            "node 'rope' (RotaryEmbedding): with position_ids the caches are [positions, 4], not [50, 3]");
  EXPECT_EQ(message({50, 2}, 5),
            "node 'rope' (RotaryEmbedding): rotary_embedding_dim 5 is not an even size of at most the head's 8");
}

// Attention's shape rule names a hidden size that does not split into its heads and a static cache's counts that are
// not one per batch (the cases themselves run against ONNX's reference in tests/exec/test_executor.cpp).
TEST(DecoderOps, AttentionsShapeRuleNamesWhatDoesNotFit) {
  auto message = [](int64_t q_hidden, const std::vector<int64_t>& nonpad) {
    ModelBuilder b(24);
    b.input("q", spec({2, 3, q_hidden})).input("k", spec({2, 3, 16})).input("v", spec({2, 3, 16}));
    b.input("valid", spec(nonpad), ::onnx::TensorProto::INT64).output("y");
    auto& node = b.node("Attention", {"q", "k", "v", "", "", "", "valid"}, {"y"}, "attn");
    set_int(node, "q_num_heads", 4);
    set_int(node, "kv_num_heads", 2);
    try {
      analyze_file(b.save("attention_bad"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(30, {2}), "node 'attn' (Attention): Q's hidden size 30 does not split into 4 heads");
  EXPECT_EQ(message(32, {1, 2}), "node 'attn' (Attention): nonpad_kv_seqlen [1, 2] is not one count per batch (2)");
  EXPECT_EQ(message(32, {2}), "no error");
}

// TensorScatter by hand: a cache of 4 tokens per batch, two new tokens written at each batch's own index; circular
// mode wraps batch 1's second token to position 0, linear mode refuses it. The cost is the update's: read once, written
// once, the cache updated in place (ONNX's intent for the op).
TEST(DecoderOps, TensorScatterWritesEachBatchsTokensAtItsIndex) {
  auto model = [](const std::string& mode) {
    ModelBuilder b(24);
    b.input("past", spec({2, 1, 4, 2})).input("update", spec({2, 1, 2, 2}));
    b.input("at", {int64_t{2}}, ::onnx::TensorProto::INT64).output("present");
    set_string(b.node("TensorScatter", {"past", "update", "at"}, {"present"}, "scatter"), "mode", mode);
    return analyze_file(b.save("scatter_" + mode));
  };
  std::vector<float> past(16), update(8);
  for (size_t i = 0; i < 16; ++i) past[i] = static_cast<float>(i);
  for (size_t i = 0; i < 8; ++i) update[i] = 100.f + static_cast<float>(i);
  auto inputs = [&](std::vector<int64_t> at) {
    return std::vector<exec::HostTensor>{float_tensor("past", {2, 1, 4, 2}, past),
                                         float_tensor("update", {2, 1, 2, 2}, update), int64_tensor("at", {2}, at)};
  };
  auto& engine = exec::load_engine();
  auto circular = model("circular");
  EXPECT_EQ(graph::shape_text(circular.model.graph.value(*circular.model.graph.find("present"))), "2x1x4x2");
  EXPECT_EQ(node_named(circular, "scatter").activation_bytes_read, 8 * 4 + 2 * 8);  // the update and the indices
  EXPECT_EQ(node_named(circular, "scatter").bytes_written, 8 * 4);
  auto y = floats(engine.run(circular.model, inputs({1, 3}), {}).outputs.at(0));
  // batch 0: tokens 1 and 2 replaced; batch 1: token 3, then token 0 (wrapped)
  std::vector<float> want{0, 1, 100, 101, 102, 103, 6, 7, 106, 107, 10, 11, 12, 13, 104, 105};
  EXPECT_EQ(y, want);
  auto linear = model("linear");
  y = floats(engine.run(linear.model, inputs({0, 2}), {}).outputs.at(0));
  want = {100, 101, 102, 103, 4, 5, 6, 7, 8, 9, 10, 11, 104, 105, 106, 107};
  EXPECT_EQ(y, want);
  try {
    engine.run(linear.model, inputs({1, 3}), {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("write_indices[1] = 3 writes 2 tokens outside a cache of 4 (linear mode)"),
              std::string::npos)
        << e.what();
  }
}

// A 3-D cache [batch, tokens, hidden] on axis 1, without write_indices: written from token 0.
TEST(DecoderOps, TensorScatterOnAnotherAxisFromTheStart) {
  ModelBuilder b(24);
  b.input("past", spec({1, 3, 2})).input("update", spec({1, 1, 2})).output("present");
  set_int(b.node("TensorScatter", {"past", "update"}, {"present"}, "scatter"), "axis", 1);
  auto r = analyze_file(b.save("scatter_axis1"));
  auto y = floats(
      exec::load_engine()
          .run(r.model,
               {float_tensor("past", {1, 3, 2}, {1, 2, 3, 4, 5, 6}), float_tensor("update", {1, 1, 2}, {-1, -2})}, {})
          .outputs.at(0));
  EXPECT_EQ(y, (std::vector<float>{-1, -2, 3, 4, 5, 6}));
  ModelBuilder bad(24);
  bad.input("past", spec({1, 3, 2})).input("update", spec({1, 4, 2})).output("present");
  set_int(bad.node("TensorScatter", {"past", "update"}, {"present"}, "scatter"), "axis", 1);
  try {
    analyze_file(bad.save("scatter_bad"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "node 'scatter' (TensorScatter): update [1, 4, 2] does not fit past_cache [1, 3, 2] on axis 1");
  }
}

// Swish by hand: x sigmoid(alpha x) with alpha 0.5: 2 sigmoid(1) = 1.4621172, -sigmoid(-0.5) = -0.3775407, 0, and
// about 0 far out; 6 FLOPs per element.
TEST(DecoderOps, SwishByHand) {
  ModelBuilder b(24);
  b.input("x", spec({4})).output("y");
  set_float(b.node("Swish", {"x"}, {"y"}, "swish"), "alpha", 0.5f);
  auto r = analyze_file(b.save("swish"));
  EXPECT_EQ(node_named(r, "swish").flops, 6 * 4);
  auto y = floats(exec::load_engine().run(r.model, {float_tensor("x", {4}, {2, -1, 0, -200})}, {}).outputs.at(0));
  std::vector<float> want{1.4621172f, -0.3775407f, 0, 0};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
}

// The Llama-style decode step (tests/data/executor/decoder_step, tools/export_decoder_reference.py; the executor runs
// it against PyTorch in tests/exec/test_executor_models.cpp) is costed whole, by hand: attention over the 16-token
// caches, the rotations of 4 query and 2 key heads, and a cache update of one token per sequence.
TEST(DecoderOps, ALlamaStyleDecodeStepIsCostedWhole) {
  auto r = analyze_file(source_path("tests/data/executor/decoder_step/model.onnx"));
  EXPECT_TRUE(r.cost.unknown_ops.empty());
  EXPECT_TRUE(r.cost.unresolved_ops.empty());
  EXPECT_EQ(r.cost.estimated_nodes, 0);
  EXPECT_EQ(node_named(r, "attention").macs, 2 * 4 * 1 * 16 * (16 + 16));
  EXPECT_EQ(node_named(r, "q_rope").flops, 3 * 2 * 1 * 4 * 16);
  EXPECT_EQ(node_named(r, "k_rope").flops, 3 * 2 * 1 * 2 * 16);
  EXPECT_EQ(node_named(r, "k_cache").activation_bytes_read, 2 * 2 * 16 * 4 + 2 * 8);  // the new keys, the indices
  EXPECT_EQ(node_named(r, "k_cache").bytes_written, 2 * 2 * 16 * 4);
  EXPECT_EQ(node_named(r, "silu").flops, 6 * 2 * 128);
}

}  // namespace
}  // namespace ridge::test
