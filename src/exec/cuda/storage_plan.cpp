#include "exec/cuda/storage_plan.h"

#include <fmt/format.h>

namespace ridge::exec::cuda {

using graph::DType;

namespace {

// kAllStorage is every input, past the mask's 32 bits too (DenseNet-169's last Concat joins 33).
bool has_bit(StorageInputs mask, size_t i) {
  return mask == kAllStorage || (i < 32 && (mask & storage_input(static_cast<int>(i))) != 0);
}

std::string counted(const std::map<std::string, int>& ops) {
  std::string list;
  for (const auto& [op, count] : ops) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", op, count);
  return list;
}

}  // namespace

graph::DType activation_storage(const ExecOptions& options, bool training) {
  if (training || options.mode != Mode::kOptimized) return DType::kFloat32;
  if (options.precision == Precision::kFp16) return DType::kFloat16;
  if (options.precision == Precision::kBf16) return DType::kBFloat16;
  return DType::kFloat32;
}

graph::DType input_type(const KernelRow& row, size_t i, graph::DType declared, graph::DType storage) {
  if (declared != DType::kFloat32) return declared;
  return has_bit(row.storage, i) ? storage : DType::kFloat32;
}

bool reads_channels_last(const KernelRow& row, size_t i, const std::vector<int64_t>& dims, bool channels_last) {
  return channels_last && has_bit(row.channels_last, i) && layout_differs(dims);
}

int64_t StoragePlan::per_run() const {
  int64_t n = output_conversions;
  for (const auto& c : conversions) n += c.retype && !c.constant;
  return n;
}

int64_t StoragePlan::relayouts_per_run() const {
  int64_t n = output_relayouts;
  for (const auto& c : conversions) n += c.relayout && !c.constant;
  return n;
}

std::string StoragePlan::summary() const {
  if (storage == DType::kFloat32) return "";
  int64_t to_16 = 0, to_32 = 0, constants = 0;
  for (const auto& c : conversions) {
    if (!c.retype) continue;
    if (c.constant) {
      ++constants;
      continue;
    }
    (c.to == storage ? to_16 : to_32) += 1;
  }
  auto line = fmt::format(
      "activations kept in {} between ops: {} conversion(s) per run ({} to {}, {} to fp32, {} output(s) back to fp32), "
      "{} constant(s) converted once",
      graph::dtype_name(storage), per_run(), to_16, graph::dtype_name(storage), to_32, output_conversions, constants);
  if (!fp32_kernels.empty()) line += "; kernels without a 16-bit form read fp32: " + counted(fp32_kernels);
  return line;
}

std::string StoragePlan::layout_summary() const {
  if (!channels_last) return "";
  int64_t to_nhwc = 0, to_nchw = 0;
  for (const auto& c : conversions)
    if (c.relayout) (c.to_channels_last ? to_nhwc : to_nchw) += 1;
  auto line = fmt::format(
      "channels-last: 4-D activations held NHWC between ops, {} layout conversion(s) per run ({} to NHWC, {} to NCHW, "
      "{} output(s) back to NCHW)",
      relayouts_per_run(), to_nhwc, to_nchw, output_relayouts);
  if (!nchw_kernels.empty()) line += "; kernels that read NCHW: " + counted(nchw_kernels);
  return line;
}

StoragePlan plan_storage(const graph::Graph& g, const std::vector<const KernelRow*>& kernels, graph::DType storage,
                         bool channels_last) {
  StoragePlan plan;
  plan.storage = storage;
  plan.channels_last = channels_last;
  plan.value_types.reserve(g.values.size());
  for (const auto& v : g.values) plan.value_types.push_back(v.dtype);
  plan.value_channels_last.assign(g.values.size(), false);
  if (storage == DType::kFloat32 && !channels_last) return plan;
  // A value no executed node computes is held as declared: an input, a weight, a folded constant.
  auto computed = [&](graph::ValueId id) {
    auto producer = g.value(id).producer;
    return producer >= 0 && kernels.at(static_cast<size_t>(producer)) != nullptr;
  };
  auto dims_of = [&](graph::ValueId id) {
    const auto& v = g.value(id);
    return v.has_shape && graph::is_fully_known(v.shape) ? graph::known_dims(v.shape) : std::vector<int64_t>{};
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto* row = kernels.at(n);
    if (!row) continue;
    const auto& node = g.nodes[n];
    bool fp32_read = false, nchw_read = false;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      auto id = node.inputs[i];
      if (id == graph::kNoValue) continue;
      const auto& v = g.value(id);
      auto index = static_cast<size_t>(id);
      StorageConversion c{n, i};
      c.to = input_type(*row, i, v.dtype, storage);
      c.retype = plan.value_types[index] != c.to;
      c.to_channels_last = reads_channels_last(*row, i, dims_of(id), channels_last);
      c.relayout = plan.value_channels_last[index] != c.to_channels_last;
      if (!c.retype && !c.relayout) continue;
      const bool runtime_input = v.is_graph_input && !v.initializer;
      c.constant = !runtime_input && !computed(id) && (v.initializer || v.constant);
      plan.conversions.push_back(c);
      fp32_read = fp32_read || (c.retype && c.to == DType::kFloat32);
      nchw_read = nchw_read || (c.relayout && !c.to_channels_last);
    }
    if (fp32_read) ++plan.fp32_kernels[node.op_type];
    if (nchw_read) ++plan.nchw_kernels[node.op_type];
    for (auto id : node.outputs) {
      if (id == graph::kNoValue) continue;
      auto index = static_cast<size_t>(id);
      if (g.value(id).dtype == DType::kFloat32)
        plan.value_types[index] = row->storage != kNoStorage ? storage : DType::kFloat32;
      plan.value_channels_last[index] =
          channels_last && row->channels_last != kNoStorage && layout_differs(dims_of(id));
    }
  }
  for (auto id : g.outputs) {
    auto index = static_cast<size_t>(id);
    plan.output_conversions += plan.value_types[index] != g.value(id).dtype;
    plan.output_relayouts += plan.value_channels_last[index];
  }
  return plan;
}

}  // namespace ridge::exec::cuda
