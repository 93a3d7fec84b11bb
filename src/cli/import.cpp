// `ridge import FORMAT FILE...`: profiler exports (Nsight Compute CSV, PyTorch profiler traces) read
// into kernel and layer measurements; each format is one subcommand in its own file.
#include "cli/command.h"
#include "cli/import_commands.h"

namespace ridge::cli {

Command add_import_command(CLI::App& parent) {
  auto* app = parent.add_subcommand("import", "read profiler exports: Nsight Compute CSV, PyTorch profiler traces");
  app->require_subcommand(1);
  std::vector<Command> formats{add_import_ncu_command(*app), add_import_torch_command(*app)};
  return {app, [formats] {
            for (const auto& format : formats)
              if (format.app->parsed()) return format.run();
            return 2;
          }};
}

}  // namespace ridge::cli
