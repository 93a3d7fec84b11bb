#include "cli/output_options.h"

#include <iostream>

#include "cli/store_options.h"

namespace ridge::cli {

CLI::Option* add_format_option(CLI::App& app, std::string& format) {
  return app.add_option("-f,--format", format, "output format: table (default), csv, json, md")
      ->check(CLI::IsMember(report::format_names()));
}

void emit(const report::Document& doc, const std::string& format) {
  if (invocation().quiet) return;  // a sweep cell: the sweep prints progress, the store keeps the result
  report::print(std::cout, doc, report::parse_format(format));
  std::cout.flush();
}

void emit(const report::Document& doc, const std::string& format,
          const std::function<nlohmann::ordered_json()>& encode) {
  if (report::parse_format(format) != report::Format::kJson) return emit(doc, format);
  if (invocation().quiet) return;
  std::cout << encode().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
}

}  // namespace ridge::cli
