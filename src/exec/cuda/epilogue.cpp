#include "exec/cuda/epilogue.h"

#include <utility>

namespace ridge::exec::cuda {

namespace {
constexpr std::pair<FusedActivation, EpilogueOp> kTable[] = {
    {FusedActivation::kRelu, EpilogueOp::kRelu},           {FusedActivation::kGeluErf, EpilogueOp::kGeluErf},
    {FusedActivation::kGeluTanh, EpilogueOp::kGeluTanh},   {FusedActivation::kSilu, EpilogueOp::kSilu},
    {FusedActivation::kHardSwish, EpilogueOp::kHardSwish},
};
}  // namespace

EpilogueOp product_epilogue(FusedActivation activation) {
  for (const auto& [fused, op] : kTable)
    if (fused == activation) return op;
  return EpilogueOp::kNone;
}

EpilogueOp product_epilogue(std::string_view attribute) {
  for (const auto& [fused, op] : kTable)
    if (name(fused) == attribute) return op;
  return EpilogueOp::kNone;
}

}  // namespace ridge::exec::cuda
