#include "exec/cuda/epilogue.h"

#include <fmt/format.h>

#include <utility>

#include "exec/optimized_graph.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {
constexpr std::pair<FusedActivation, EpilogueOp> kTable[] = {
    {FusedActivation::kRelu, EpilogueOp::kRelu},         {FusedActivation::kClip, EpilogueOp::kClip},
    {FusedActivation::kSilu, EpilogueOp::kSilu},         {FusedActivation::kGeluErf, EpilogueOp::kGeluErf},
    {FusedActivation::kGeluTanh, EpilogueOp::kGeluTanh}, {FusedActivation::kHardSwish, EpilogueOp::kHardSwish},
};
}  // namespace

EpilogueOp epilogue_op(FusedActivation activation) {
  for (const auto& [fused, op] : kTable)
    if (fused == activation) return op;
  return EpilogueOp::kNone;
}

LayerActivation layer_activation(const graph::Node& layer) {
  LayerActivation a;
  a.name = layer.get_string(kActivationAttribute, "");
  if (a.name.empty()) return a;
  for (const auto& [fused, op] : kTable)
    if (name(fused) == a.name) a.op = op;
  if (a.op == EpilogueOp::kNone)
    throw Error(fmt::format("'{}': the GPU's epilogue has no {} activation", layer.name, a.name));
  if (a.op == EpilogueOp::kClip) {
    a.lo = static_cast<float>(layer.get_float(kClipMinAttribute, 0));
    a.hi = static_cast<float>(layer.get_float(kClipMaxAttribute, 0));
  }
  return a;
}

LayerActivation layer_activation(const KernelContext& ctx) {
  try {
    return layer_activation(ctx.node);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
}

Epilogue LayerActivation::epilogue() const {
  Epilogue e;
  e.op = op;
  e.lo = lo;
  e.hi = hi;
  return e;
}

}  // namespace ridge::exec::cuda
