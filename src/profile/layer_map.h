#pragma once
// Which layer of a model each profiled kernel ran for. In order of trust:
//   nvtx   the kernel's NVTX range names a layer (the program pushed a range per layer), or ncu
//          renamed the kernel after its range (--print-nvtx-rename kernel) to a layer's name;
//   order  no range: kernels of one op family, in launch order, against the model's layers of that
//          family in graph order, only where the counts agree (one kernel per layer, or a whole
//          number of repetitions of the model); otherwise the family stays unmapped and a note says why.
// Kernels that cannot be placed are listed, never assigned by a guess.
#include <string>
#include <vector>

#include "cost/cost.h"
#include "profile/ncu_kernel.h"

namespace ridge::profile {

struct ModelLayer {
  std::string name, op_type, family;  // family: the cost rule's (conv, matmul, pooling, ...)
};

struct LayerAssignment {
  std::string layer;   // empty: unmapped
  std::string method;  // "nvtx", "order"
};

struct LayerMap {
  std::vector<LayerAssignment> of_kernel;  // one per kernel, in the kernels' order
  std::vector<std::string> notes;          // families or ranges that could not be mapped, and why
};

// The layers of a costed model that do work (FLOPs or bytes), in graph order: views and folded
// constants launch no kernel.
std::vector<ModelLayer> model_layers(const cost::ModelCost& cost);

// Each mapped layer's measured seconds (launch time x invocations, summed over its kernels, divided
// by `repetitions`), in the order the layers first appear; unmapped and untimed kernels add nothing.
std::vector<std::pair<std::string, double>> layer_seconds(const std::vector<KernelFigures>& kernels,
                                                          const LayerMap& map, int64_t repetitions = 1);

// The op family a kernel's name shows (cuDNN, cuBLAS, CUTLASS and PyTorch kernel names), or "".
std::string kernel_family(const std::string& kernel_name);

// `kernels` are one run's, in launch order. Without `layers` (no model), a kernel's layer is its
// NVTX range as exported.
LayerMap map_kernels_to_layers(const std::vector<KernelFigures>& kernels, const std::vector<ModelLayer>& layers);

}  // namespace ridge::profile
