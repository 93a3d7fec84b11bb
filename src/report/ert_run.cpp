#include "report/ert_run.h"

#include <sstream>

#include "report/ert_report.h"
#include "report/gpu_ert_report.h"
#include "report/printer.h"
#include "util/file.h"

namespace ridge::report {
namespace {

void write_csv(const std::string& path, const Table& points) {
  if (path.empty()) return;
  std::ostringstream out;
  out << csv_header(points) << "\n";
  print_csv_rows(out, points);
  write_file(path, out.str());
}

}  // namespace

ErtRun ert_run(const ErtMeasurement& result, const std::string& csv_path) {
  ErtRun run{.value = {.kind = "ert", .ert = result}};
  if (const auto* cpu = std::get_if<hw::ert::ErtResult>(&result)) {
    write_csv(csv_path, ert_points_table(*cpu));
    run.document = ert_document(*cpu);
    run.params.device = "host";
    run.params.threads = cpu->threads;
  } else {
    const auto& gpu = std::get<hw::ert::GpuErtResult>(result);
    write_csv(csv_path, gpu_ert_points_table(gpu));
    run.document = gpu_ert_document(gpu);
    run.params.device = "cuda:" + gpu.gpu.name;
  }
  return run;
}

}  // namespace ridge::report
