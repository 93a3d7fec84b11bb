#include "cli/output_options.h"

#include "report/printer.h"

namespace ridge::cli {

CLI::Option* add_format_option(CLI::App& app, std::string& format) {
  return app.add_option("-f,--format", format, "output format: table (default), csv, json, md")
      ->check(CLI::IsMember(report::format_names()));
}

}  // namespace ridge::cli
