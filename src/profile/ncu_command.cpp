#include "profile/ncu_command.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <set>

#include "profile/ncu_metrics.h"
#include "util/error.h"
#include "util/program.h"

namespace ridge::profile {
namespace {

bool is_name(const std::string& text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// The {NAME} placeholders of `word`, in order. "${NAME}" is left alone: a shell's, not ours.
std::vector<std::string> placeholders(const std::string& word) {
  std::vector<std::string> names;
  for (size_t open = word.find('{'); open != std::string::npos; open = word.find('{', open + 1)) {
    auto close = word.find('}', open);
    if (close == std::string::npos) break;
    auto name = word.substr(open + 1, close - open - 1);
    if (is_name(name) && !(open > 0 && word[open - 1] == '$')) names.push_back(name);
  }
  return names;
}

// `word` with every {NAME} of `values` replaced by its value ("${NAME}" left alone, as placeholders() does).
std::string substitute(const std::string& word, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (size_t i = 0; i < word.size();) {
    bool replaced = false;
    if (word[i] == '{' && !(i > 0 && word[i - 1] == '$')) {
      auto close = word.find('}', i);
      if (close != std::string::npos) {
        auto name = word.substr(i + 1, close - i - 1);
        for (const auto& entry : values)
          if (entry.first == name) {
            out += entry.second;
            i = close + 1;
            replaced = true;
            break;
          }
      }
    }
    if (!replaced) out += word[i++];
  }
  return out;
}

}  // namespace

SweepAxis parse_sweep(const std::string& text) {
  auto eq = text.find('=');
  SweepAxis axis;
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error(fmt::format("--sweep '{}': expected NAME=V1,V2,... (--sweep batch=1,8,32)", text));
  axis.name = text.substr(0, eq);
  if (!is_name(axis.name))
    throw Error(
        fmt::format("--sweep '{}': '{}' is no name (letters, digits and _, not first a digit)", text, axis.name));
  auto rest = text.substr(eq + 1);
  for (size_t start = 0; start <= rest.size();) {
    auto comma = rest.find(',', start);
    if (comma == std::string::npos) comma = rest.size();
    auto value = rest.substr(start, comma - start);
    if (value.empty()) throw Error(fmt::format("--sweep '{}': an empty value", text));
    axis.values.push_back(value);
    start = comma + 1;
  }
  return axis;
}

std::string NcuPoint::value(const std::string& name) const {
  for (const auto& [n, v] : values)
    if (n == name) return v;
  return {};
}

std::vector<std::string> ncu_argv(const NcuOptions& options, const std::vector<std::string>& program,
                                  const std::string& csv_path) {
  // --print-units base: values in the metrics' base units (ns, byte), never auto-scaled per kernel. --nvtx
  // always: a program's NVTX ranges name the layers its kernels belong to, filtered or not.
  std::vector<std::string> argv{options.ncu,     "--csv", "--page",    "details",
                                "--print-units", "base",  "--metrics", ncu_roofline_metric_list(options.cc),
                                "--nvtx"};
  for (const auto& range : options.nvtx_include) argv.insert(argv.end(), {"--nvtx-include", range});
  if (!options.kernel_name.empty())
    argv.insert(argv.end(),
                {"--kernel-name",
                 options.kernel_name.rfind("regex:", 0) == 0 ? options.kernel_name : "regex:" + options.kernel_name});
  if (options.launch_skip >= 0) argv.insert(argv.end(), {"--launch-skip", std::to_string(options.launch_skip)});
  if (options.launch_count >= 0) argv.insert(argv.end(), {"--launch-count", std::to_string(options.launch_count)});
  if (!options.clock_control.empty()) argv.insert(argv.end(), {"--clock-control", options.clock_control});
  if (!options.target_processes.empty()) argv.insert(argv.end(), {"--target-processes", options.target_processes});
  argv.insert(argv.end(), {"--log-file", csv_path});
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

std::vector<NcuPoint> ncu_points(const NcuOptions& options, const std::vector<SweepAxis>& sweeps) {
  if (options.program.empty())
    throw Error("no program to profile: give it after --, e.g. ridge ncu command -- ./app --batch 8");
  std::set<std::string> used;
  for (const auto& word : options.program)
    for (const auto& name : placeholders(word)) used.insert(name);
  std::set<std::string> swept;
  for (const auto& axis : sweeps) {
    if (!swept.insert(axis.name).second) throw Error(fmt::format("--sweep {} is given twice", axis.name));
    if (!used.count(axis.name))
      throw Error(
          fmt::format("--sweep {}: no {{{}}} in the program's arguments to put its values in", axis.name, axis.name));
  }
  for (const auto& name : used)
    if (!swept.count(name))
      throw Error(fmt::format("{{{}}} in the program's arguments has no --sweep {}=V1,V2,...", name, name));

  size_t count = 1;
  for (const auto& axis : sweeps) count *= axis.values.size();
  std::vector<NcuPoint> points;
  std::set<std::string> stems;
  for (size_t index = 0; index < count; ++index) {
    NcuPoint point;
    size_t rest = index;
    std::vector<size_t> digits(sweeps.size());
    for (size_t a = sweeps.size(); a-- > 0;) {  // the last sweep varies fastest
      digits[a] = rest % sweeps[a].values.size();
      rest /= sweeps[a].values.size();
    }
    for (size_t a = 0; a < sweeps.size(); ++a) {
      point.values.emplace_back(sweeps[a].name, sweeps[a].values[digits[a]]);
      point.label += (a ? "," : "") + sweeps[a].name + "=" + sweeps[a].values[digits[a]];
    }
    // Two labels can become one file name ("a/b" and "a_b"): the later gets a number.
    const std::string base = point.label.empty() ? "ncu" : "ncu-" + file_safe(point.label);
    std::string stem = base;
    for (int n = 2; !stems.insert(stem).second; ++n) stem = base + "-" + std::to_string(n);
    auto dir = std::filesystem::path(options.output_dir);
    point.csv_path = (dir / (stem + ".csv")).string();
    point.log_path = (dir / (stem + ".log")).string();
    std::vector<std::string> program;
    for (const auto& word : options.program) program.push_back(substitute(word, point.values));
    point.argv = ncu_argv(options, program, point.csv_path);
    points.push_back(std::move(point));
  }
  return points;
}

std::string file_safe(const std::string& text) {
  std::string safe;
  for (char c : text)
    safe += std::isalnum(static_cast<unsigned char>(c)) || std::string_view("._-=,+").find(c) != std::string_view::npos
                ? c
                : '_';
  if (!safe.empty() && safe[0] == '.') safe[0] = '_';  // never a hidden file, never ".."
  return safe;
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& word : argv) {
    auto quoted = shell_quote(word);
    // A first word bash would read as an assignment ("X=1") or a job ("%1") is quoted too.
    if (line.empty() && quoted == word && (word.find('=') != std::string::npos || word.rfind('%', 0) == 0))
      quoted = "'" + word + "'";
    line += (line.empty() ? "" : " ") + quoted;
  }
  return line;
}

}  // namespace ridge::profile
