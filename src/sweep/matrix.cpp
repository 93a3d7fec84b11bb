#include "sweep/matrix.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "util/error.h"

namespace ridge::sweep {
namespace {

namespace fs = std::filesystem;

// Axis -> bench option, and which values are allowed (empty: positive integers).
struct AxisRule {
  const char* name;
  const char* option;
  std::vector<std::string> values;
};

const std::vector<AxisRule>& axis_rules() {
  static const std::vector<AxisRule> rules{
      {"batch", "--batch", {}},
      {"input", "--sweep", {}},  // bench --sweep input=N: images H = W = N, sequences length N
      {"mode", "--mode", {"eager", "optimized"}},
      {"precision", "--precision", {"fp32", "bf16"}},
      {"memory_format", "--memory-format", {"nchw", "channels-last"}},
      {"conv_algo", "--conv-algo", {"auto", "direct", "gemm", "fft", "winograd"}},
      {"threads", "--threads", {}},
      {"training", "--training", {"true", "false"}},
      {"optimizer", "--optimizer", {"sgd", "momentum", "adam"}},
  };
  return rules;
}

const AxisRule& rule_of(const std::string& name) {
  for (const auto& r : axis_rules())
    if (name == r.name) return r;
  throw Error(fmt::format("internal: no axis '{}'", name));
}

std::string where(const Matrix& m, const YAML::Node& node) {
  return node.Mark().is_null() ? m.file : fmt::format("{}:{}", m.file, node.Mark().line + 1);
}

std::vector<std::string> scalars(const Matrix& m, const YAML::Node& node, const std::string& key) {
  std::vector<std::string> values;
  if (node.IsScalar()) {
    values.push_back(node.as<std::string>());
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!item.IsScalar())
        throw Error(fmt::format("{}: {}: every value must be a number or a word", where(m, item), key));
      values.push_back(item.as<std::string>());
    }
  } else {
    throw Error(fmt::format("{}: {}: give a value or a list [a, b, ...]", where(m, node), key));
  }
  if (values.empty()) throw Error(fmt::format("{}: {}: the list is empty", where(m, node), key));
  std::set<std::string> seen;
  for (const auto& v : values)
    if (!seen.insert(v).second) throw Error(fmt::format("{}: {}: '{}' is listed twice", where(m, node), key, v));
  return values;
}

void check_value(const Matrix& m, const YAML::Node& node, const AxisRule& rule, std::string& value) {
  if (rule.values.empty()) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || v < 1 || v > (int64_t{1} << 30))
      throw Error(fmt::format("{}: {}: '{}' is not a whole number from 1", where(m, node), rule.name, value));
    return;
  }
  if (std::string(rule.name) == "training") {  // YAML spells booleans many ways
    if (value == "yes" || value == "on" || value == "True") value = "true";
    if (value == "no" || value == "off" || value == "False") value = "false";
  }
  if (std::find(rule.values.begin(), rule.values.end(), value) == rule.values.end()) {
    std::string valid;
    for (const auto& v : rule.values) valid += (valid.empty() ? "" : ", ") + v;
    throw Error(fmt::format("{}: {}: '{}' is not one of {}", where(m, node), rule.name, value, valid));
  }
}

std::string model_key(const std::string& path) { return fs::path(path).filename().string(); }

// Every combination of the axes, first axis outermost.
std::vector<std::vector<std::pair<std::string, std::string>>> combinations(const std::vector<Axis>& axes) {
  std::vector<std::vector<std::pair<std::string, std::string>>> out{{}};
  for (const auto& axis : axes) {
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& partial : out)
      for (const auto& v : axis.values) {
        auto c = partial;
        c.emplace_back(axis.name, v);
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  return out;
}

std::string setting(const std::vector<std::pair<std::string, std::string>>& s, const std::string& name) {
  for (const auto& [k, v] : s)
    if (k == name) return v;
  return "";
}

// An optimizer only means something for a training step: inference cells drop the axis, so
// "training: [true, false]" with "optimizer: [sgd, adam]" gives 2 + 1 cells, not 4.
std::vector<std::pair<std::string, std::string>> effective(std::vector<std::pair<std::string, std::string>> s) {
  if (setting(s, "training") != "true")
    s.erase(std::remove_if(s.begin(), s.end(), [](const auto& kv) { return kv.first == "optimizer"; }), s.end());
  return s;
}

std::vector<std::string> bench_args(const std::string& model,
                                    const std::vector<std::pair<std::string, std::string>>& s) {
  std::vector<std::string> args{"bench", model};
  for (const auto& [name, value] : s) {
    const auto& rule = rule_of(name);
    if (name == "training") {
      if (value == "true") args.emplace_back("--training");
    } else if (name == "input") {
      args.emplace_back("--sweep");
      args.push_back("input=" + value);
    } else {
      args.emplace_back(rule.option);
      args.push_back(value);
    }
  }
  return args;
}

// Predictions vary over what the cost model and the device take: batch, precision, training.
std::vector<std::string> predict_args(const std::string& model, const std::string& device,
                                      const std::vector<std::pair<std::string, std::string>>& s) {
  std::vector<std::string> args{"predict", model, "--device", device};
  for (const auto& [name, value] : s) {
    if (name == "batch") args.insert(args.end(), {"--batch", value});
    if (name == "precision") args.insert(args.end(), {"--precision", value});
    if (name == "training" && value == "true") args.emplace_back("--training");
    if (name == "optimizer") args.insert(args.end(), {"--optimizer", value});
  }
  return args;
}

std::string key_of(const std::string& kind, const std::string& model, const std::string& device,
                   const std::vector<std::pair<std::string, std::string>>& s) {
  std::string key = kind + " " + model_key(model);
  if (!device.empty()) key += " device=" + device;
  for (const auto& [name, value] : s) key += " " + name + "=" + value;
  return key;
}

}  // namespace

const std::vector<std::string>& axis_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& r : axis_rules()) n.emplace_back(r.name);
    return n;
  }();
  return names;
}

Stage parse_stage(const std::string& name) {
  if (name == "sanity") return Stage::kSanity;
  if (name == "quick") return Stage::kQuick;
  if (name == "full") return Stage::kFull;
  throw Error(fmt::format("unknown stage '{}' (sanity, quick, full)", name));
}

std::string stage_name(Stage stage) {
  switch (stage) {
    case Stage::kSanity:
      return "sanity";
    case Stage::kQuick:
      return "quick";
    case Stage::kFull:
      break;
  }
  return "full";
}

Matrix read_matrix(const std::string& path) {
  Matrix m;
  m.file = path;
  if (!fs::is_regular_file(path)) throw Error(fmt::format("{}: no such sweep file", path));
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: not valid YAML: {}", path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw Error(fmt::format("{}: a sweep file is a mapping (models: [...], batch: [...], ...)", path));
  m.name = fs::path(path).stem().string();
  auto base = fs::path(path).parent_path();
  try {
    std::map<std::string, YAML::Node> axes;
    for (const auto& entry : root) {
      auto key = entry.first.as<std::string>();
      const auto& value = entry.second;
      if (key == "name") {
        m.name = value.as<std::string>();
        if (m.name.empty() || m.name.find_first_of(" /\t\n") != std::string::npos)
          throw Error(fmt::format("{}: name: one word without spaces or slashes", where(m, value)));
      } else if (key == "models") {
        for (auto model : scalars(m, value, key)) {
          // Relative to the sweep file when it exists there, else as given (relative to here).
          if (fs::path(model).is_relative() && fs::exists(base / model))
            model = (base / model).lexically_normal().string();
          if (!fs::exists(model)) throw Error(fmt::format("{}: models: no file '{}'", where(m, value), model));
          m.models.push_back(model);
        }
      } else if (key == "devices") {
        m.devices = scalars(m, value, key);
      } else if (key == "measure") {
        m.measure = value.as<bool>();
      } else if (std::find(axis_names().begin(), axis_names().end(), key) != axis_names().end()) {
        axes[key] = value;
      } else {
        std::string valid = "name, models, devices, measure";
        for (const auto& a : axis_names()) valid += ", " + a;
        throw Error(fmt::format("{}: unknown key '{}' (valid: {})", where(m, entry.first), key, valid));
      }
    }
    if (m.models.empty()) throw Error(fmt::format("{}: no models: list the model files to run", path));
    if (!m.measure && m.devices.empty())
      throw Error(fmt::format("{}: measure: false and no devices: nothing to run", path));
    for (const auto& rule : axis_rules()) {
      auto it = axes.find(rule.name);
      if (it == axes.end()) continue;
      Axis axis{rule.name, scalars(m, it->second, rule.name)};
      for (auto& v : axis.values) check_value(m, it->second, rule, v);
      m.axes.push_back(std::move(axis));
    }
    bool has_input = axes.count("input") > 0;
    if (has_input && !m.devices.empty())
      throw Error(
          fmt::format("{}: input sizes and devices: predictions cannot take an input size yet; sweep input "
                      "sizes in a file without devices",
                      path));
    if (axes.count("optimizer") && !axes.count("training"))
      throw Error(fmt::format("{}: optimizer without training: [true]: an optimizer applies to training steps", path));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: {}", path, e.mark.line + 1, e.msg));
  }
  return m;
}

std::vector<Cell> expand(const Matrix& m, Stage stage) {
  auto axes = m.axes;
  if (stage == Stage::kSanity) {
    for (auto& a : axes) a.values.resize(1);
  } else if (stage == Stage::kQuick) {
    for (auto& a : axes)
      if (a.name == "input" && a.values.size() > 10) {
        // Ten sizes spread evenly over the list, both ends included.
        std::vector<std::string> spread;
        for (size_t i = 0; i < 10; ++i) spread.push_back(a.values[i * (a.values.size() - 1) / 9]);
        a.values = spread;
      }
  }
  std::vector<Cell> cells;
  std::set<std::string> seen;
  auto add = [&](Cell c) {
    if (!seen.insert(c.key).second) return;
    cells.push_back(std::move(c));
  };
  for (const auto& model : m.models) {
    for (const auto& combination : combinations(axes)) {
      auto s = effective(combination);
      if (m.measure) add({"bench", model, "", s, key_of("bench", model, "", s), bench_args(model, s)});
      for (const auto& device : m.devices) {
        std::vector<std::pair<std::string, std::string>> p;
        for (const auto& kv : s)
          if (kv.first == "batch" || kv.first == "precision" || kv.first == "training" || kv.first == "optimizer")
            p.push_back(kv);
        add({"predict", model, device, p, key_of("predict", model, device, p), predict_args(model, device, p)});
      }
    }
  }
  for (size_t i = 0; i < cells.size(); ++i) cells[i].index = i;
  return cells;
}

std::vector<Cell> shard(const std::vector<Cell>& cells, int index, int count) {
  std::vector<Cell> mine;
  for (size_t i = static_cast<size_t>(index); i < cells.size(); i += static_cast<size_t>(count))
    mine.push_back(cells[i]);
  return mine;
}

std::pair<int, int> parse_shard(const std::string& text) {
  int index = -1, count = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> index >> slash >> count) || slash != '/' || !in.eof() || count < 1 || index < 0 || index >= count)
    throw Error(fmt::format("--shard '{}': give K/N with 0 <= K < N", text));
  return {index, count};
}

}  // namespace ridge::sweep
