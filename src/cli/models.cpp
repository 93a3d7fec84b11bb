#include "cli/command.h"
#include "cli/output_options.h"
#include "report/models_report.h"

namespace ridge::cli {

Command add_models_command(CLI::App& parent) {
  struct Options {
    std::string dir, format = "table";
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand("models", "list the bundled models (or a directory's) with their inputs and dims");
  app->add_option("dir", o->dir, "directory of .onnx files (default: ridge's bundled models)");
  add_format_option(*app, o->format);
  app->footer(
      "Each model's inputs with their symbolic dims (bind them with --batch, --dim NAME=V or --input), the\n"
      "defaults the file stores, and its parameters and MACs at batch 1 (other open dims 1).\n"
      "Examples:\n"
      "  ridge models\n"
      "  ridge models ~/onnx-zoo -f csv");
  return {app, [o] {
            emit(report::models_document(o->dir.empty() ? report::bundled_model_dir() : o->dir), o->format);
            return 0;
          }};
}

}  // namespace ridge::cli
