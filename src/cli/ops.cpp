#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/command.h"
#include "cli/output_options.h"
#include "exec/coverage.h"
#include "report/ops_report.h"

namespace ridge::cli {

Command add_ops_command(CLI::App& parent) {
  auto markdown = std::make_shared<bool>(false);
  auto format = std::make_shared<std::string>("table");
  auto* app = parent.add_subcommand(
      "ops", "list the ONNX ops ridge infers shapes for, costs, and executes on the CPU and the GPU");
  app->footer("Examples:\n  ridge ops -f csv\n  ridge ops --markdown > docs/ops.md");
  app->add_flag("--markdown", *markdown, "write the Markdown page kept in docs/ops.md (with its introduction)");
  add_format_option(*app, *format);
  return {app, [markdown, format] {
            auto ops = exec::op_coverage();
            if (*markdown)
              fmt::print(std::cout, "{}", report::ops_markdown(ops));
            else
              emit(report::ops_document(ops), *format);
            return 0;
          }};
}

}  // namespace ridge::cli
