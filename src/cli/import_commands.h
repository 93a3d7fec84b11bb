#pragma once
// The subcommands of `ridge import`, one per profiler export format, each in its own file.
#include "cli/command.h"

namespace ridge::cli {

// `ridge import ncu FILE...` (cli/import_ncu.cpp).
Command add_import_ncu_command(CLI::App& import);
// `ridge import torch FILE...` (cli/import_torch.cpp).
Command add_import_torch_command(CLI::App& import);

}  // namespace ridge::cli
