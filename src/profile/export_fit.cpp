#include "profile/export_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "util/error.h"

namespace ridge::profile {

int64_t passes_to_use(const LayerMap& map, int64_t given, const std::string& path) {
  if (given > 0 && map.passes > 0 && given != map.passes)
    throw Error(fmt::format("{}: --repetitions {} contradicts the export, which holds {} pass{} of the model ({})",
                            path, given, map.passes, map.passes == 1 ? "" : "es", map.passes_from));
  if (given > 0) return given;
  return map.passes > 0 ? map.passes : 1;
}

std::optional<double> WorkRatio::ratio() const {
  if (layers == 0 || model_flops <= 0) return std::nullopt;
  return measured_flops / model_flops;
}

WorkRatio work_ratio(const std::vector<KernelFigures>& kernels, const LayerMap& map,
                     const std::vector<ModelLayer>& layers, int64_t passes) {
  std::map<std::string, double> measured;
  std::set<std::string> incomplete;  // a kernel of the layer lacks a precision's counters, or its time
  for (size_t i = 0; i < kernels.size() && i < map.of_kernel.size(); ++i) {
    const auto& layer = map.of_kernel[i].layer;
    if (layer.empty()) continue;
    auto flops = kernels[i].flops();
    if (!flops || !kernels[i].not_counted.empty()) {
      incomplete.insert(layer);
      continue;
    }
    measured[layer] += *flops * static_cast<double>(std::max<int64_t>(1, kernels[i].invocations));
  }
  WorkRatio out;
  for (const auto& layer : layers) {
    if (layer.family != "conv" && layer.family != "matmul") continue;
    auto it = measured.find(layer.name);
    if (it == measured.end() || incomplete.count(layer.name) || layer.flops <= 0) continue;
    ++out.layers;
    out.measured_flops += it->second / static_cast<double>(std::max<int64_t>(1, passes));
    out.model_flops += layer.flops;
  }
  return out;
}

std::optional<std::string> batch_mismatch(const WorkRatio& work, int64_t batch, const std::string& model) {
  auto r = work.ratio();
  if (!r || (*r >= 0.5 && *r <= 2.5)) return std::nullopt;
  auto looks = std::max<int64_t>(1, std::llround(static_cast<double>(batch) * *r));
  return fmt::format(
      "the kernels of {} convolution and product layer{} count {:.3g}x the FLOPs ridge's analysis of {} gives at batch "
      "{} (kernels run 1.0-1.3x): the export ran another batch, about {} (give it with --batch)",
      work.layers, work.layers == 1 ? "" : "s", *r, model, batch, looks);
}

}  // namespace ridge::profile
