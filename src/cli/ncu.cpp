// `ridge ncu command|run` (placeholder while it is written).
#include "cli/command.h"
#include "util/error.h"

namespace ridge::cli {

Command add_ncu_command(CLI::App& parent) {
  auto* app =
      parent.add_subcommand("ncu", "Nsight Compute command lines for the hierarchical roofline, and running them");
  return {app, []() -> int { throw Error("ridge ncu: not implemented yet"); }};
}

}  // namespace ridge::cli
