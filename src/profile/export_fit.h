#pragma once
// Whether a profiler export belongs with what it is imported with: the passes of the model it holds
// and the batch it ran at. The model itself is checked while mapping (LayerMap::misfit): these checks
// come after it, on the kernels the map placed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile/layer_map.h"

namespace ridge::profile {

// The passes per-pass figures divide by: `given` (--repetitions; 0: not given) where the export does not
// say otherwise, else what the map found, else 1. Throws ridge::Error (one line naming `path`) when the
// given count contradicts the one the export shows.
int64_t passes_to_use(const LayerMap& map, int64_t given, const std::string& path);

// The FLOPs the hardware counted in the convolution and product layers, per pass, against ridge's
// analysis of the same layers; only layers whose every kernel had each precision counted take part.
struct WorkRatio {
  size_t layers = 0;
  double measured_flops = 0, model_flops = 0;
  std::optional<double> ratio() const;
};
WorkRatio work_ratio(const std::vector<KernelFigures>& kernels, const LayerMap& map,
                     const std::vector<ModelLayer>& layers, int64_t passes);

// Kernels execute 1.0-1.3x the FLOPs a convolution needs (padding, tiles): outside [0.5, 2.5] the
// export ran another batch. Returns the one-line reason (naming the batch it looks like), or nothing.
std::optional<std::string> batch_mismatch(const WorkRatio& work, int64_t batch, const std::string& model);

}  // namespace ridge::profile
