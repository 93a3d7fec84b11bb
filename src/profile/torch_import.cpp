#include "profile/torch_import.h"

#include <optional>

#include "onnx/model_reader.h"

namespace ridge::profile {
namespace {

TorchImport make_import(TorchTrace trace, LayerMapping mapping) {
  TorchImport i{.trace = std::move(trace), .mapping = std::move(mapping)};
  i.summary = summarize(i.trace);
  i.ops_read = static_cast<int64_t>(i.trace.ops.size());
  i.kernels_read = static_cast<int64_t>(i.trace.kernels.size());
  for (const auto& k : i.trace.kernels) i.unlinked_kernels += k.op < 0 ? 1 : 0;
  return i;
}

}  // namespace

TorchImports import_torch(const TorchImportRequest& request) {
  std::optional<graph::Model> model;
  if (!request.model.empty()) model = onnx::load_model(request.model);
  TorchImports out{.model_path = request.model};
  for (const auto& file : request.files) {
    auto trace = read_torch_trace(file);
    auto mapping = map_layers(trace, model ? &model->graph : nullptr);
    out.imports.push_back(make_import(std::move(trace), std::move(mapping)));
  }
  return out;
}

}  // namespace ridge::profile
