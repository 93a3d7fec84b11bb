#include "profile/layer_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace ridge::profile {
namespace {

// Name fragments of the kernels that libraries launch for each op family, checked in this order
// (a cuDNN convolution runs an "implicit_gemm": it is a convolution before it is a GEMM).
struct FamilyPattern {
  const char* fragment;
  const char* family;
};
constexpr FamilyPattern kFamilies[] = {
    {"conv", "conv"},
    {"fprop", "conv"},
    {"dgrad", "conv"},
    {"wgrad", "conv"},
    {"winograd", "conv"},
    {"implicit_gemm", "conv"},
    {"fft2d", "conv"},
    {"pool", "pooling"},
    {"batch_norm", "normalization"},
    {"batchnorm", "normalization"},
    {"bn_fw", "normalization"},
    {"layer_norm", "normalization"},
    {"layernorm", "normalization"},
    {"softmax", "normalization"},
    {"gemm", "matmul"},
    {"gemv", "matmul"},
    {"matmul", "matmul"},
    {"cutlass", "matmul"},
    {"reduce", "reduction"},
};

std::string lower(const std::string& text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// The longest layer name found in `text` as a whole word (not inside a longer name: "conv1" is not
// found in "conv10").
const ModelLayer* layer_in(const std::string& text, const std::vector<ModelLayer>& layers) {
  const ModelLayer* best = nullptr;
  for (const auto& layer : layers) {
    if (layer.name.empty() || (best && layer.name.size() <= best->name.size())) continue;
    for (auto at = text.find(layer.name); at != std::string::npos; at = text.find(layer.name, at + 1)) {
      auto end = at + layer.name.size();
      bool starts = at == 0 || !is_name_char(text[at - 1]) || !is_name_char(layer.name.front());
      bool ends = end == text.size() || !is_name_char(text[end]) || !is_name_char(layer.name.back());
      if (starts && ends) {
        best = &layer;
        break;
      }
    }
  }
  return best;
}

}  // namespace

std::vector<ModelLayer> model_layers(const cost::ModelCost& cost) {
  std::vector<ModelLayer> layers;
  for (const auto& node : cost.nodes)
    if (node.flops > 0 || node.bytes() > 0) layers.push_back({node.name, node.op_type, node.family});
  return layers;
}

std::vector<std::pair<std::string, double>> layer_seconds(const std::vector<KernelFigures>& kernels,
                                                          const LayerMap& map, int64_t repetitions) {
  std::vector<std::pair<std::string, double>> out;
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < kernels.size() && i < map.of_kernel.size(); ++i) {
    const auto& layer = map.of_kernel[i].layer;
    if (layer.empty() || !kernels[i].time_s) continue;
    auto [it, inserted] = at.emplace(layer, out.size());
    if (inserted) out.emplace_back(layer, 0.0);
    out[it->second].second += *kernels[i].time_s * static_cast<double>(std::max<int64_t>(1, kernels[i].invocations)) /
                              static_cast<double>(std::max<int64_t>(1, repetitions));
  }
  return out;
}

std::string kernel_family(const std::string& kernel_name) {
  auto name = lower(kernel_name);
  for (const auto& p : kFamilies)
    if (name.find(p.fragment) != std::string::npos) return p.family;
  return "";
}

LayerMap map_kernels_to_layers(const std::vector<KernelFigures>& kernels, const std::vector<ModelLayer>& layers) {
  LayerMap map;
  map.of_kernel.resize(kernels.size());
  if (layers.empty()) {
    for (size_t i = 0; i < kernels.size(); ++i)
      if (!kernels[i].nvtx.empty()) map.of_kernel[i] = {kernels[i].nvtx, "nvtx"};
    return map;
  }
  std::map<std::string, const ModelLayer*> by_name;
  for (const auto& layer : layers) by_name.emplace(layer.name, &layer);

  size_t ranges_without_layer = 0;
  std::map<std::string, std::vector<size_t>> unplaced;  // family -> kernels, in launch order
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    if (auto it = by_name.find(k.name); it != by_name.end()) {
      map.of_kernel[i] = {it->second->name, "nvtx"};
      continue;
    }
    if (!k.nvtx.empty()) {
      if (const auto* layer = layer_in(k.nvtx, layers))
        map.of_kernel[i] = {layer->name, "nvtx"};
      else
        ++ranges_without_layer;
      continue;
    }
    unplaced[kernel_family(k.name)].push_back(i);
  }
  if (ranges_without_layer > 0)
    map.notes.push_back(fmt::format("{} kernel{} ran in NVTX ranges that name no layer of the model",
                                    ranges_without_layer, ranges_without_layer == 1 ? "" : "s"));
  for (const auto& [family, indices] : unplaced) {
    if (family.empty()) {
      map.notes.push_back(fmt::format("{} kernel{} without an NVTX range and of no op family ridge can tell by name",
                                      indices.size(), indices.size() == 1 ? "" : "s"));
      continue;
    }
    std::vector<const ModelLayer*> of_family;
    for (const auto& layer : layers)
      if (layer.family == family) of_family.push_back(&layer);
    if (of_family.empty() || indices.size() % of_family.size() != 0) {
      map.notes.push_back(fmt::format(
          "{} {} kernels without NVTX ranges against {} {} layers: not mapped by order (the counts do not agree)",
          indices.size(), family, of_family.size(), family));
      continue;
    }
    for (size_t j = 0; j < indices.size(); ++j)
      map.of_kernel[indices[j]] = {of_family[j % of_family.size()]->name, "order"};
  }
  return map;
}

}  // namespace ridge::profile
