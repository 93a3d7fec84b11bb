// The signal ops the executor runs (their kernels: src/exec/aten/kernels/signal.cpp), with their traits: known without
// loading libtorch. The GPU has no FFT (ridge does not link cuFFT): it names them.
#include "exec/op_table.h"

namespace ridge::exec {

void register_signal_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("signal", {{"DFT", kNoGpuKernel}, {"STFT", kNoGpuKernel}, {"MelWeightMatrix", kNoGpuKernel}});
  // clang-format on
}

}  // namespace ridge::exec
