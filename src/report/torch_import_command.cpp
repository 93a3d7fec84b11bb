#include "report/torch_import_command.h"

#include "report/result_codec.h"
#include "report/torch_import_codec.h"
#include "report/torch_trace_report.h"

namespace ridge::report {

void import_torch_traces(const profile::TorchImportRequest& request, const std::string& format,
                         const StoreOptions& store, std::ostream& out) {
  TypedResult value{.kind = "import torch", .torch = profile::import_torch(request)};
  auto doc = torch_trace_document(value.torch->imports, request.model);
  emit(
      doc, format, [&] { return encode_torch_imports(*value.torch); }, out);
  keep_result(store, doc, store::Params{.model = request.model}, value);
}

}  // namespace ridge::report
