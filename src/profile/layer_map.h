#pragma once
// Which layer of a model each profiled kernel ran for, and how many passes of the model an export holds.
// In order of trust:
//   nvtx   the kernel's NVTX range names a layer (the program pushed a range per layer), or ncu
//          renamed the kernel after its range (--print-nvtx-rename kernel) to a layer's name;
//   order  no range: kernels of one op class (family, and for elementwise kernels whose name shows it,
//          unary or binary), in launch order, against the model's layers of that class in graph order,
//          only where the counts agree for every class (one kernel per layer, or the same whole number of
//          passes of the model); otherwise nothing is mapped by order and a note says why. A library's
//          helper kernel (cuDNN's bias add after a convolution) takes the layer of the kernel before it.
// Kernels that cannot be placed are listed, never assigned by a guess. A per-kernel summary holds no
// launch order, so its rows are never mapped by order; its invocations still count the passes.
#include <cstdint>
#include <string>
#include <vector>

#include "cost/cost.h"
#include "profile/ncu_kernel.h"

namespace ridge::profile {

struct ModelLayer {
  std::string name, op_type, family;  // family: the cost rule's (conv, matmul, pooling, ...)
  double flops = 0;                   // ridge's analytical count at the batch analysed
};

struct LayerAssignment {
  std::string layer;   // empty: unmapped
  std::string method;  // "nvtx", "order"
};

struct LayerMap {
  std::vector<LayerAssignment> of_kernel;  // one per kernel, in the kernels' order
  std::vector<std::string> notes;          // families or ranges that could not be mapped, and why
  // Passes of the model the export holds, where the kernels show it (every layer's NVTX range ran that
  // many times, or every op class has that many kernels per layer); 0: they do not say.
  int64_t passes = 0;
  std::string passes_from;  // how `passes` was found, for people
  // The kernels do not fit the model (another model's export): the reason, naming the counts.
  std::string misfit;
};

// The layers of a costed model that do work (FLOPs or bytes), in graph order: views and folded
// constants launch no kernel.
std::vector<ModelLayer> model_layers(const cost::ModelCost& cost);

// Each mapped layer's measured seconds (launch time x invocations, summed over its kernels, divided
// by `passes`), in the order the layers first appear; unmapped and untimed kernels add nothing.
std::vector<std::pair<std::string, double>> layer_seconds(const std::vector<KernelFigures>& kernels,
                                                          const LayerMap& map, int64_t passes = 1);

// The op family a kernel's name shows (cuDNN, cuBLAS, CUTLASS, PyTorch and ridge's own kernel names),
// or "". Only the name counts, not its argument list (cuDNN's bias kernel takes a "reducedDivisorArray").
std::string kernel_family(const std::string& kernel_name);

// `kernels` are one run's, in launch order. Without `layers` (no model), a kernel's layer is its
// innermost NVTX range.
LayerMap map_kernels_to_layers(const std::vector<KernelFigures>& kernels, const std::vector<ModelLayer>& layers);

}  // namespace ridge::profile
