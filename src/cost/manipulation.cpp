// Cost rules of data movement: no arithmetic, only bytes. Views (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, inference Dropout) alias their input and move nothing; Shape and Size
// read metadata only. Gather and Slice read only what they copy. A training-mode Dropout does work:
// per element a random draw compared with the ratio and the kept value scaled (2 FLOPs), its
// output and its mask written; its backward scales the kept gradients (1 FLOP) and reads only the mask.
#include "cost/registry.h"

namespace ridge::cost {
namespace {

void view(CostContext& ctx) { ctx.moves_no_data = true; }

void copy(CostContext& ctx) { ctx.backward_flops_data = 0; }

// Dropout trains when its training_mode input (opset 12+; exporters write a Constant) is true. One that is not a
// known value is costed as training, so that work is never left out; a known ratio of 0 keeps everything.
void dropout(CostContext& ctx) {
  ctx.mark_not_parameter(1);  // the ratio, even as a float initializer, is not trained
  const auto* training = ctx.in_constant(2);
  const auto* ratio = ctx.in_constant(1);
  bool trains = ctx.has_input(2) && (!training || training->size() == 0 || training->as_real(0) != 0);
  if (!trains || (ratio && ratio->size() > 0 && ratio->as_real(0) == 0)) return view(ctx);
  int64_t n = ctx.out_elements();
  ctx.flops = 2 * n;
  ctx.backward_flops_data = n;
  // The mask is what backward keeps; a graph that drops the mask output leaves no tensor of its to count.
  if (ctx.node().outputs.size() > 1 && ctx.node().outputs[1] != graph::kNoValue) {
    ctx.saves_output = true;
    ctx.saves_only_output = 1;
  }
}

// Reads exactly the elements it outputs from input 0 (plus the index/parameter inputs whole).
void partial_read(CostContext& ctx) {
  auto in0 = ctx.in_bytes(0);
  int64_t in_elements = ctx.in_elements(0);
  int64_t out_elements = ctx.out_elements();
  if (in_elements > 0) ctx.override_read(0, in0 / in_elements * std::min(in_elements, out_elements));
}

// Gather over a weight (an embedding table) reads the gathered rows; backward scatters-adds them.
void gather(CostContext& ctx) {
  partial_read(ctx);
  ctx.backward_flops_weight = ctx.out_elements();
}

void write_only(CostContext& ctx) {
  for (size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i)) ctx.override_read(i, 0);
}

void range(CostContext& ctx) {
  write_only(ctx);
  ctx.flops = ctx.out_elements();  // one add per element
}

// Resize: nearest copies; linear interpolates 2^d neighbours (2 FLOPs each); cubic 4^d.
void resize(CostContext& ctx) {
  auto mode = ctx.node().get_string("mode", "nearest");
  int64_t spatial = 0;
  auto in = ctx.in_dims(0), out = ctx.out_dims(0);
  for (size_t i = 0; i < in.size(); ++i) spatial += in[i] != out[i] ? 1 : 0;
  int64_t neighbours = mode == "linear" ? (1LL << spatial) : mode == "cubic" ? (1LL << (2 * spatial)) : 0;
  ctx.flops = 2 * neighbours * ctx.out_elements();
  ctx.backward_flops_data = std::max<int64_t>(1, 2 * neighbours) * ctx.out_elements();
  for (size_t i = 1; i < ctx.input_count(); ++i) ctx.mark_not_parameter(i);  // roi, scales, sizes
}

void scatter(CostContext& ctx) { ctx.backward_flops_data = 0; }

// GridSample per output: unnormalize the coordinates (2 per spatial dim), then interpolate
// 2^d neighbours (bilinear/linear, 2 FLOPs each), 4^d (bicubic), or copy (nearest).
void grid_sample(CostContext& ctx) {
  auto mode = ctx.node().get_string("mode", "bilinear");  // opset 16 default; opset 20 renamed it "linear"
  int64_t d = static_cast<int64_t>(ctx.in_dims(0).size()) - 2;
  int64_t neighbours = (mode == "nearest") ? 0 : (mode == "cubic" || mode == "bicubic") ? (1LL << (2 * d)) : (1LL << d);
  ctx.flops = (2 * d + 2 * neighbours) * ctx.out_elements();
  ctx.backward_flops_data = 2 * std::max<int64_t>(1, neighbours) * ctx.out_elements();
  ctx.saves_inputs = true;
}

// Window functions: a few cosines per element (Blackman 2, Hann/Hamming 1) with their scaling.
void window(CostContext& ctx) {
  write_only(ctx);
  ctx.flops = (ctx.node().op_type == "BlackmanWindow" ? 7 : 4) * ctx.out_elements();
}

void trilu(CostContext& ctx) { ctx.flops = ctx.out_elements(); }

}  // namespace

void register_manipulation_costs(CostRegistry& r) {
  constexpr unsigned N = kNotDifferentiable;
  // One table row per op.
  // clang-format off
  r.add("data-movement", {{"Reshape", view}, {"Flatten", view}, {"Squeeze", view}, {"Unsqueeze", view}, {"Identity", view},
         {"Dropout", dropout}, {"Shape", view, N}, {"Size", view, N}, {"Constant", view, N},
         {"Transpose", copy}, {"Concat", copy}, {"Split", copy}, {"Expand", copy}, {"Tile", copy}, {"Pad", copy},
         {"DepthToSpace", copy}, {"SpaceToDepth", copy}, {"ReverseSequence", copy},
         {"Slice", partial_read}, {"Gather", gather}, {"GatherElements", partial_read}, {"GatherND", partial_read},
         {"ScatterND", scatter}, {"ScatterElements", scatter}, {"Scatter", scatter},
         {"ConstantOfShape", write_only, N}, {"Range", range, N}, {"EyeLike", write_only, N},
         {"RandomNormal", write_only, N}, {"RandomUniform", write_only, N}, {"RandomNormalLike", write_only, N},
         {"RandomUniformLike", write_only, N}, {"OneHot", write_only, N}, {"NonZero", copy, N},
         {"Resize", resize}, {"Upsample", resize}, {"Trilu", trilu}, {"GridSample", grid_sample},
         {"BlackmanWindow", window, N}, {"HannWindow", window, N}, {"HammingWindow", window, N}});
  // clang-format on
}

}  // namespace ridge::cost
