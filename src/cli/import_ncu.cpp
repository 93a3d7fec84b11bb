// `ridge import ncu FILE...`: Nsight Compute CSV exports read into kernels with their roofline
// figures, mapped to a model's layers and compared with ridge's analysis, printed and kept.
#include "cli/import_ncu.h"

#include "cli/common.h"
#include "cli/import_commands.h"
#include "cli/output_options.h"
#include "cli/store_options.h"

namespace ridge::cli {

void add_ncu_import_options(CLI::App& app, NcuImportOptions& options) {
  app.add_option("-d,--device", options.request.device,
                 "a device of ridge's database (ID[:MODE] or a YAML file): each kernel's fraction of its ceilings");
  app.add_option("-m,--model", options.request.model,
                 "the ONNX model the program ran: kernels mapped to its layers (by NVTX range, else by op class "
                 "and order, cuDNN's bias add with its convolution) and compared with ridge's analytical FLOPs and "
                 "bytes, per pass; an export of another model is named, one of another batch refused");
  app.add_option("--batch", options.request.batch,
                 "the batch the program ran the model at (default: the model's own, or the run's `batch` sweep value)")
      ->check(integer_in(1, 1 << 20));
  app.add_option("--repetitions", options.request.repetitions,
                 "times the program ran the model under ncu: measured layer figures are divided by it (default: the "
                 "passes the export shows by its NVTX ranges or kernel counts, else 1; a count it contradicts is "
                 "refused)")
      ->check(integer_in(1, 1 << 20));
}

Command add_import_ncu_command(CLI::App& import) {
  auto options = std::make_shared<NcuImportOptions>();
  auto* app = import.add_subcommand(
      "ncu",
      "Nsight Compute CSV exports (details page, raw page, per-kernel summary): each kernel's time, FLOPs per "
      "precision, bytes and intensity at L1, L2 and DRAM");
  app->add_option("files", options->request.files, "ncu CSV exports (`ncu --csv ... > FILE`, or `ridge ncu run`)")
      ->required()
      ->check(CLI::ExistingFile);
  add_ncu_import_options(*app, *options);
  add_output_options(*app, options->format, options->store);
  return {app, [options] { return report::import_ncu_exports(*options); }};
}

}  // namespace ridge::cli
