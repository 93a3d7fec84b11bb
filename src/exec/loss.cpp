// The loss ops the executor runs (their kernels: src/exec/aten/kernels/loss.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_loss_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("loss", {
      {"NegativeLogLikelihoodLoss"}, {"SoftmaxCrossEntropyLoss"},
  });
  // clang-format on
}

}  // namespace ridge::exec
