#include "profile/layer_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ridge::profile {
namespace {

// Elementwise kernels that show how many inputs they read are matched only with layers of that arity.
enum class Arity { kAny, kUnary, kBinary };
// A helper kernel belongs to the layer launched just before it (cuDNN adds a convolution's bias in a
// kernel of its own after the convolution): it is not a layer of its own.
enum class Role { kLayer, kAfter };

// Name fragments of the kernels that libraries launch for each op family, checked in this order
// (a cuDNN convolution runs an "implicit_gemm": it is a convolution before it is a GEMM).
struct KernelPattern {
  const char* fragment;
  const char* family;
  Arity arity = Arity::kAny;
  Role role = Role::kLayer;
};
constexpr KernelPattern kPatterns[] = {
    // cudnnAddTensor, which adds a convolution's bias (ridge's executor and PyTorch's both call it)
    {"op_generic_tensor_kernel", "conv", Arity::kAny, Role::kAfter},
    // ridge's own CUDA executor (src/exec/cuda/kernels.cu)
    {"ridge::<unnamed>::unary_kernel", "elementwise", Arity::kUnary},
    {"ridge::<unnamed>::not_kernel", "elementwise", Arity::kUnary},
    {"ridge::<unnamed>::binary_kernel", "elementwise", Arity::kBinary},
    {"ridge::<unnamed>::binary_flat_kernel", "elementwise", Arity::kBinary},
    {"ridge::<unnamed>::binary_rows_kernel", "elementwise", Arity::kBinary},
    {"ridge::<unnamed>::compare_kernel", "elementwise", Arity::kBinary},
    {"ridge::<unnamed>::logic_kernel", "elementwise", Arity::kBinary},
    {"ridge::<unnamed>::where_kernel", "elementwise"},
    {"ridge::<unnamed>::layer_norm_kernel", "normalization"},
    {"ridge::<unnamed>::layer_norm_warp_kernel", "normalization"},
    // libraries
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
    // PyTorch's vectorized_elementwise_kernel, unrolled_elementwise_kernel
    {"elementwise_kernel", "elementwise"},
};

// Elementwise ops that read two tensors; the other elementwise ops read one (Where reads three).
const std::set<std::string>& binary_ops() {
  static const std::set<std::string> ops{"Add",   "Sub",  "Mul",     "Div",      "Pow",         "Max",           "Min",
                                         "Equal", "Less", "Greater", "And",      "Or",          "Xor",           "Mod",
                                         "PRelu", "Sum",  "Mean",    "BitShift", "LessOrEqual", "GreaterOrEqual"};
  return ops;
}

bool layer_has(const ModelLayer& layer, const KernelPattern& p) {
  if (layer.family != p.family) return false;
  switch (p.arity) {
    case Arity::kAny:
      return true;
    case Arity::kBinary:
      return binary_ops().count(layer.op_type) > 0;
    case Arity::kUnary:
      return binary_ops().count(layer.op_type) == 0 && layer.op_type != "Where";
  }
  return false;
}

std::string class_of(const KernelPattern& p) {
  switch (p.arity) {
    case Arity::kAny:
      return p.family;
    case Arity::kUnary:
      return std::string(p.family) + " (unary)";
    case Arity::kBinary:
      return std::string(p.family) + " (binary)";
  }
  return p.family;
}

std::string lower(const std::string& text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// A demangled kernel name without its argument list: "void k<float>(cudnnTensorStruct, int)" -> "void k<float>".
std::string without_arguments(const std::string& name) {
  if (name.empty() || name.back() != ')') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

const KernelPattern* pattern_of(const std::string& kernel_name) {
  auto name = lower(without_arguments(kernel_name));
  for (const auto& p : kPatterns)
    if (name.find(p.fragment) != std::string::npos) return &p;
  return nullptr;
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

// The layer a kernel's NVTX ranges name: the innermost range that names one.
const ModelLayer* layer_of_ranges(const KernelFigures& k, const std::map<std::string, const ModelLayer*>& by_name,
                                  const std::vector<ModelLayer>& layers) {
  for (auto range = k.nvtx_ranges.rbegin(); range != k.nvtx_ranges.rend(); ++range) {
    if (auto it = by_name.find(*range); it != by_name.end()) return it->second;
    if (const auto* layer = layer_in(*range, layers)) return layer;
  }
  return nullptr;
}

std::string plural(size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// Passes from NVTX ranges: how often each layer's range was entered (a run of consecutive kernels in it is one
// entry). Every layer entered k times: k passes.
void nvtx_passes(const std::vector<bool>& by_range, LayerMap& out) {
  std::map<std::string, int64_t> entries;
  std::string last;
  for (size_t i = 0; i < out.of_kernel.size(); ++i) {
    const auto& layer = out.of_kernel[i].layer;
    if (layer.empty()) continue;
    if (by_range[i] && layer != last) ++entries[layer];
    last = layer;
  }
  if (entries.empty()) return;
  std::map<int64_t, size_t> layers_by_count;
  for (const auto& [layer, count] : entries) ++layers_by_count[count];
  if (layers_by_count.size() == 1) {
    out.passes = layers_by_count.begin()->first;
    out.passes_from = fmt::format("NVTX ranges: each of {} ran {}", plural(entries.size(), "layer"),
                                  out.passes == 1 ? std::string("once") : fmt::format("{} times", out.passes));
    return;
  }
  auto most = std::max_element(layers_by_count.begin(), layers_by_count.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  out.notes.push_back(fmt::format(
      "the NVTX ranges of the layers ran different numbers of times ({} to {}; {} of {} layers {}): the export "
      "holds no whole number of passes of the model, so figures are per pass of the whole file",
      layers_by_count.begin()->first, layers_by_count.rbegin()->first, most->second, entries.size(),
      most->first == 1 ? std::string("once") : fmt::format("{} times", most->first)));
}

// Layers of the work families (convolutions, products) that no kernel in an NVTX range ran: an export of
// another model (or of part of this one) names only some of them.
void nvtx_coverage(const std::vector<bool>& by_range, const std::vector<ModelLayer>& layers, LayerMap& out) {
  std::set<std::string> ran;
  for (size_t i = 0; i < by_range.size(); ++i)
    if (by_range[i]) ran.insert(out.of_kernel[i].layer);
  for (const char* family : {"conv", "matmul"}) {
    size_t total = 0, covered = 0;
    for (const auto& layer : layers)
      if (layer.family == family) {
        ++total;
        covered += ran.count(layer.name);
      }
    if (total == 0 || covered == total) continue;
    auto text = fmt::format("{} of the model's {} {} layers ran no kernel in an NVTX range naming them",
                            total - covered, total, family);
    if (covered * 2 < total) {
      out.misfit = text + ": an export of another model, or of a part of this one?";
      out.notes.push_back(out.misfit);
    } else {
      out.notes.push_back(text);
    }
  }
}

}  // namespace

std::vector<ModelLayer> model_layers(const cost::ModelCost& cost) {
  std::vector<ModelLayer> layers;
  for (const auto& node : cost.nodes)
    if (node.flops > 0 || node.bytes() > 0)
      layers.push_back({node.name, node.op_type, node.family, static_cast<double>(node.flops)});
  return layers;
}

std::vector<std::pair<std::string, double>> layer_seconds(const std::vector<KernelFigures>& kernels,
                                                          const LayerMap& map, int64_t passes) {
  std::vector<std::pair<std::string, double>> out;
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < kernels.size() && i < map.of_kernel.size(); ++i) {
    const auto& layer = map.of_kernel[i].layer;
    if (layer.empty() || !kernels[i].time_s) continue;
    auto [it, inserted] = at.emplace(layer, out.size());
    if (inserted) out.emplace_back(layer, 0.0);
    out[it->second].second += *kernels[i].time_s * static_cast<double>(std::max<int64_t>(1, kernels[i].invocations)) /
                              static_cast<double>(std::max<int64_t>(1, passes));
  }
  return out;
}

std::string kernel_family(const std::string& kernel_name) {
  const auto* p = pattern_of(kernel_name);
  return p ? p->family : "";
}

LayerMap map_kernels_to_layers(const std::vector<KernelFigures>& kernels, const std::vector<ModelLayer>& layers) {
  LayerMap map;
  map.of_kernel.resize(kernels.size());
  if (layers.empty()) {
    for (size_t i = 0; i < kernels.size(); ++i)
      if (!kernels[i].nvtx_ranges.empty()) map.of_kernel[i] = {kernels[i].nvtx_ranges.back(), "nvtx"};
    return map;
  }
  std::map<std::string, const ModelLayer*> by_name;
  for (const auto& layer : layers) by_name.emplace(layer.name, &layer);
  bool summary = std::any_of(kernels.begin(), kernels.end(), [](const auto& k) { return k.invocations > 1; });

  struct Group {
    const KernelPattern* pattern = nullptr;
    std::vector<size_t> kernels;  // launch order
    int64_t launches = 0;         // with a summary's invocations
  };
  std::map<std::string, Group> groups;  // op class -> kernels that no NVTX range places
  std::vector<size_t> helpers, unknown;
  std::vector<bool> by_range(kernels.size(), false);
  std::vector<const KernelPattern*> patterns(kernels.size());  // what each kernel's name shows, worked out once
  for (size_t i = 0; i < kernels.size(); ++i) patterns[i] = pattern_of(kernels[i].name);
  // Ranges that enclose other ranges (a whole pass's): a kernel directly in one is placed by order (a residual
  // add outside every module). A kernel in an innermost range naming no layer is another model's: not placed.
  std::set<std::string> enclosing;
  for (const auto& k : kernels)
    for (size_t r = 0; r + 1 < k.nvtx_ranges.size(); ++r) enclosing.insert(k.nvtx_ranges[r]);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    const ModelLayer* layer = nullptr;
    if (auto it = by_name.find(k.name); it != by_name.end())
      layer = it->second;
    else if (!k.nvtx_ranges.empty())
      layer = layer_of_ranges(k, by_name, layers);
    if (layer) {
      map.of_kernel[i] = {layer->name, "nvtx"};
      by_range[i] = true;
      continue;
    }
    if (!k.nvtx_ranges.empty() && !enclosing.count(k.nvtx_ranges.back())) continue;
    // No range, or directly in a range around layers' ranges: placed by order.
    const auto* p = patterns[i];
    if (!p) {
      unknown.push_back(i);
    } else if (p->role == Role::kAfter) {
      helpers.push_back(i);
    } else {
      auto& g = groups[class_of(*p)];
      g.pattern = p;
      g.kernels.push_back(i);
      g.launches += std::max<int64_t>(1, k.invocations);
    }
  }
  std::set<std::string> claimed;  // layers an NVTX range named
  for (size_t i = 0; i < kernels.size(); ++i)
    if (by_range[i]) claimed.insert(map.of_kernel[i].layer);
  bool any_range = std::any_of(kernels.begin(), kernels.end(), [](const auto& k) { return !k.nvtx_ranges.empty(); });
  if (!claimed.empty()) {
    nvtx_passes(by_range, map);
    nvtx_coverage(by_range, layers, map);
  } else if (any_range) {
    map.misfit = "no NVTX range names a layer of the model: an export of another model?";
    map.notes.push_back(map.misfit);
  }

  // By order, against the layers no range named. The convolutions and products, one kernel per layer in
  // every library, fix the passes (or the NVTX ranges do); they must agree, or the export is of another model.
  std::map<std::string, std::vector<const ModelLayer*>> class_layers;
  std::vector<std::string> counts, work_counts;
  int64_t passes = map.passes;
  bool misfit = !map.misfit.empty();  // the ranges already showed another model: nothing by order
  for (const auto& [op_class, g] : groups) {
    auto& of_class = class_layers[op_class];
    for (const auto& layer : layers)
      if (layer_has(layer, *g.pattern) && !claimed.count(layer.name)) of_class.push_back(&layer);
    auto text = fmt::format("{} {} kernel{} against {} layer{}", g.launches, op_class, g.launches == 1 ? "" : "s",
                            of_class.size(), of_class.size() == 1 ? "" : "s");
    counts.push_back(text);
    if (std::string(g.pattern->family) != "conv" && std::string(g.pattern->family) != "matmul") continue;
    work_counts.push_back(text);
    auto n = static_cast<int64_t>(of_class.size());
    if (n == 0 || g.launches % n != 0 || (passes != 0 && g.launches / n != passes))
      misfit = true;
    else
      passes = g.launches / n;
  }
  if (misfit && map.misfit.empty()) {
    map.misfit = fmt::format("the kernels do not fit the model's layers ({}{})", fmt::join(work_counts, "; "),
                             map.passes > 0 ? fmt::format("; {}", map.passes_from) : std::string());
    map.notes.push_back(map.misfit + ": an export of another model? nothing is mapped by order");
  } else if (!groups.empty() && !misfit) {
    if (map.passes == 0 && passes > 0) {
      map.passes = passes;
      map.passes_from =
          fmt::format("kernel counts: {} per convolution and product layer ({})", passes, fmt::join(work_counts, "; "));
    }
    if (summary) {
      map.notes.push_back(
          "a per-kernel summary keeps no launch order: its kernels are not mapped to layers (export the details or "
          "raw page to map them)");
    } else {
      auto per_layer = std::max<int64_t>(1, passes);
      for (const auto& [op_class, g] : groups) {
        const auto& of_class = class_layers[op_class];
        if (of_class.empty() || g.launches != per_layer * static_cast<int64_t>(of_class.size())) {
          map.notes.push_back(
              fmt::format("{} {} kernels against {} {} layers no NVTX range names: not mapped by order "
                          "(not {} per layer)",
                          g.launches, op_class, of_class.size(), op_class, per_layer));
          continue;
        }
        for (size_t j = 0; j < g.kernels.size(); ++j)
          map.of_kernel[g.kernels[j]] = {of_class[j % of_class.size()]->name, "order"};
      }
    }
  }
  size_t in_other_ranges = 0;
  for (size_t i = 0; i < kernels.size(); ++i)
    in_other_ranges += !kernels[i].nvtx_ranges.empty() && !by_range[i] && map.of_kernel[i].layer.empty();
  if (in_other_ranges > 0)
    map.notes.push_back(
        fmt::format("{} ran in NVTX ranges that name no layer of the model", plural(in_other_ranges, "kernel")));
  if (!unknown.empty())
    map.notes.push_back(fmt::format("{} without an NVTX range and of no op family ridge can tell by name",
                                    plural(unknown.size(), "kernel")));
  // Helpers take the layer of the kernel before them, where that one is of their family and mapped.
  size_t unplaced_helpers = 0;
  for (auto i : helpers) {
    const auto* before = i > 0 ? patterns[i - 1] : nullptr;
    const auto& family = patterns[i]->family;
    if (before && before->role == Role::kLayer && std::string(before->family) == family &&
        !map.of_kernel[i - 1].layer.empty())
      map.of_kernel[i] = map.of_kernel[i - 1];
    else
      ++unplaced_helpers;
  }
  if (unplaced_helpers > 0 && map.misfit.empty())
    map.notes.push_back(
        fmt::format("{} (cuDNN's bias add, op_generic_tensor_kernel) not right after a mapped "
                    "convolution: not mapped",
                    plural(unplaced_helpers, "helper kernel")));
  return map;
}

}  // namespace ridge::profile
