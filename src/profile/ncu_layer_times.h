#pragma once
// Each layer's kernel time from one Nsight Compute export of a model's run: its kernels mapped to the model's
// layers (NVTX ranges, else op family and order: layer_map.h), summed per layer and divided by the passes the
// export shows. What `calibrate MODEL --measured EXPORT.csv` and `calibrate --ncu` fit.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cost/cost.h"
#include "profile/ncu_export.h"

namespace ridge::profile {

// Layer name and seconds, in the order layers first appear. `repetitions`: the model's passes in the export (0: what
// its NVTX ranges or kernel counts show). Kernels mapped to no layer, and the mapping's own notes, go to `notes`.
// Throws ridge::Error when no kernel maps to a layer.
std::vector<std::pair<std::string, double>> ncu_layer_seconds(const NcuExport& exported, const cost::ModelCost& cost,
                                                              int64_t repetitions, std::vector<std::string>& notes);

}  // namespace ridge::profile
