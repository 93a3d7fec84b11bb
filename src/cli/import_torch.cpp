// `ridge import torch FILE...` (placeholder while the importer is written).
#include "cli/import_commands.h"
#include "util/error.h"

namespace ridge::cli {

Command add_import_torch_command(CLI::App& import) {
  auto* app = import.add_subcommand("torch", "PyTorch profiler traces (Chrome-trace JSON)");
  return {app, []() -> int { throw Error("ridge import torch: not implemented yet"); }};
}

}  // namespace ridge::cli
