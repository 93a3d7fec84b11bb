// `ridge import ncu FILE...` (placeholder while the importer is written).
#include "cli/import_ncu.h"

#include "cli/import_commands.h"
#include "cli/output_options.h"
#include "util/error.h"

namespace ridge::cli {

void add_ncu_import_options(CLI::App& app, NcuImportOptions& options) {
  app.add_option("--device,-d", options.device, "a device of ridge's database: fractions of its ceilings");
  app.add_option("--model,-m", options.model, "an ONNX model: kernels mapped to its layers");
}

int run_ncu_import(const NcuImportOptions& options) {
  throw Error("ridge import ncu: not implemented yet (" + std::to_string(options.files.size()) + " files)");
}

Command add_import_ncu_command(CLI::App& import) {
  auto options = std::make_shared<NcuImportOptions>();
  auto* app = import.add_subcommand("ncu", "Nsight Compute CSV exports: kernels, FLOPs and bytes per memory level");
  app->add_option("files", options->files, "ncu CSV exports")->required();
  add_ncu_import_options(*app, *options);
  add_format_option(*app, options->format);
  add_store_options(*app, options->store);
  return {app, [options] { return run_ncu_import(*options); }};
}

}  // namespace ridge::cli
