#include "power/source.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "power/csv_trace.h"
#include "power/jetson_rails.h"
#include "power/nvml.h"
#include "power/rapl.h"
#include "power/tegrastats.h"
#include "util/error.h"
#include "util/file.h"

namespace ridge::power {
namespace {

constexpr const char* kSpecs =
    "nvml, nvml:INDEX, jetson, tegrastats, tegrastats:FILE, rapl, rapl:package, "
    "rapl:dram, csv:FILE";

std::pair<std::string, std::string> split(const std::string& spec) {
  auto colon = spec.find(':');
  if (colon == std::string::npos) return {spec, ""};
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

}  // namespace

bool is_file_source(const std::string& spec) {
  auto [kind, arg] = split(spec);
  return (kind == "tegrastats" || kind == "csv") && !arg.empty();
}

std::unique_ptr<Sampler> open_sampler(const std::string& spec, const SourceOptions& options) {
  auto [kind, arg] = split(spec);
  if (is_file_source(spec))
    throw Error(
        fmt::format("{} is a file: read it with `ridge power integrate --source {}`; a live measurement "
                    "needs a live source ({})",
                    spec, spec, kSpecs));
  if (kind == "nvml") {
    int index = -1;
    if (!arg.empty()) {
      auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), index);
      if (ec != std::errc() || end != arg.data() + arg.size() || index < 0)
        throw Error(fmt::format("{}: the GPU index is a number from 0", spec));
    }
    return nvml_sampler(load_nvml(), index);
  }
  if (kind == "jetson" && arg.empty()) return jetson_rails_sampler();
  if (kind == "tegrastats" && arg.empty()) return tegrastats_sampler(options.interval_s);
  if (kind == "rapl") return rapl_sampler(arg.empty() ? "package" : arg);
  throw Error(fmt::format("unknown power source '{}' (sources: {})", spec, kSpecs));
}

Trace read_trace_file(const std::string& spec, const SourceOptions& options) {
  auto [kind, file] = split(spec);
  if (!is_file_source(spec))
    throw Error(
        fmt::format("{} is not a file source (tegrastats:FILE or csv:FILE); sample it live with `ridge power "
                    "sample --source {}`",
                    spec, spec));
  auto text = read_file(file);
  if (kind == "csv") return parse_power_csv(text, spec);
  return parse_tegrastats(text, spec, options.interval_s > 0 ? options.interval_s : 1.0);
}

}  // namespace ridge::power
