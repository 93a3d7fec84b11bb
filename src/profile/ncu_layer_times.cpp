#include "profile/ncu_layer_times.h"

#include <fmt/format.h>

#include "profile/export_fit.h"
#include "profile/layer_map.h"
#include "profile/ncu_kernel.h"
#include "util/error.h"

namespace ridge::profile {

std::vector<std::pair<std::string, double>> ncu_layer_seconds(const NcuExport& exported, const cost::ModelCost& cost,
                                                              int64_t repetitions, std::vector<std::string>& notes) {
  const auto& path = exported.path;
  std::vector<KernelFigures> kernels;
  for (const auto& launch : exported.launches) kernels.push_back(kernel_figures(launch, path));
  auto map = map_kernels_to_layers(kernels, model_layers(cost));
  size_t unmapped = 0;
  for (const auto& a : map.of_kernel) unmapped += a.layer.empty();
  if (unmapped > 0)
    notes.push_back(
        fmt::format("{} of {} kernels in {} map to no layer and are not fitted", unmapped, kernels.size(), path));
  for (const auto& note : map.notes) notes.push_back(path + ": " + note);
  auto layers = layer_seconds(kernels, map, passes_to_use(map, repetitions, path));
  if (layers.empty())
    throw Error(fmt::format(
        "{}: no kernel could be mapped to a layer of the model (see `ridge import ncu {} -m MODEL`)", path, path));
  return layers;
}

}  // namespace ridge::profile
