#include "report/ncu_import_command.h"

#include "report/ncu_command_report.h"
#include "report/ncu_import_codec.h"
#include "report/ncu_report.h"
#include "report/result_codec.h"
#include "util/error.h"

namespace ridge::report {

int import_ncu_exports(const NcuImportCommand& o, std::ostream& out) {
  auto import = profile::import_ncu(o.request);
  emit(
      ncu_import_document(import), o.format, [&] { return encode_ncu_import(import); }, out);
  for (size_t i = 0; i < import.runs.size(); ++i) {
    TypedResult value{.kind = "import ncu", .ncu = profile::ncu_run_alone(import, i)};
    keep_result(o.store, ncu_import_document(*value.ncu), ncu_run_params(o.request, import, i), value);
  }
  return 0;
}

int run_ncu_points(const profile::NcuRunRequest& request, bool import, NcuImportCommand import_command,
                   std::ostream& out, std::ostream& err) {
  auto runs = profile::run_ncu(request, [&err](const std::string& line) { err << line << "\n"; });
  profile::add_written(runs, import_command.request);
  int code = 0;
  if (!import) {
    emit(ncu_run_document(runs.points, runs.runs), import_command.format, out);
  } else if (!import_command.request.files.empty()) {
    code = import_ncu_exports(import_command, out);
  }
  if (!runs.failed.empty()) throw Error(profile::failure_message(runs, import));
  return code;
}

}  // namespace ridge::report
