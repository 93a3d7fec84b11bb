// The recurrent ops the executor runs (their kernels: src/exec/aten/kernels/recurrent.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_recurrent_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("recurrent", {
      {"RNN"}, {"GRU"}, {"LSTM"},
  });
  // clang-format on
}

}  // namespace ridge::exec
