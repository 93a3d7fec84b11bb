#include "report/command_output.h"

#include <fmt/format.h>
#include <unistd.h>

#include "report/printer.h"
#include "report/result_record.h"
#include "store/environment.h"
#include "store/store.h"
#include "util/error.h"
#include "util/program.h"

namespace ridge::report {

Invocation& invocation() {
  static Invocation current;
  return current;
}

std::string command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) line += ' ';
    line += shell_quote(argv[i]);
  }
  return line;
}

std::string store_path(const StoreOptions& options) {
  if (!options.path.empty()) return options.path;
  if (!invocation().store_path.empty()) return invocation().store_path;
  return store::default_store_path();
}

void emit(const Document& doc, const std::string& format, std::ostream& out) {
  if (invocation().quiet) return;  // a sweep cell: the sweep prints progress, the store keeps the result
  print(out, doc, parse_format(format));
  out.flush();
}

void emit(const Document& doc, const std::string& format, const std::function<nlohmann::ordered_json()>& encode,
          std::ostream& out) {
  if (parse_format(format) != Format::kJson) return emit(doc, format, out);
  if (invocation().quiet) return;
  out << encode().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
}

void keep_result(const StoreOptions& options, const Document& doc, store::Params params, const TypedResult& value) {
  if (options.disabled) return;
  auto path = store_path(options);
  auto record = result_record(doc, std::move(params), value, store::collect_environment(invocation().command_line),
                              invocation().cell);
  try {
    store::shared_store(path).save(record);
  } catch (const Error& e) {
    throw Error(fmt::format("the result above was not saved: {} (--no-store skips the store)", e.what()));
  }
  invocation().stored_ids.push_back(record.id);
  if (!invocation().quiet && ::isatty(STDERR_FILENO))
    fmt::print(stderr, "ridge: saved as result {} in {}\n", record.id, path);
}

}  // namespace ridge::report
