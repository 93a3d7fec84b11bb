#include "hw/device_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "util/error.h"
#include "util/file.h"

namespace ridge::hw {
namespace {

const std::set<std::string> kPrecisions{"fp64", "fp32", "tf32", "fp16", "bf16", "int8", "fp8", "int4"};
const std::set<std::string> kLevels{"dram", "l3", "l2", "l1"};

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}
  const std::string& file() const { return name_; }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw Error(fmt::format("device file '{}': {} {}", name_, field, what));
  }

  std::string text(const YAML::Node& node, const std::string& field, bool required = true) const {
    if (!node || node.IsNull()) {
      if (required) fail(field, "is missing");
      return {};
    }
    if (!node.IsScalar()) fail(field, "must be text");
    return node.as<std::string>();
  }

  double number(const YAML::Node& node, const std::string& field, bool positive = true) const {
    if (!node || !node.IsScalar()) fail(field, "is missing or not a number");
    double value = 0;
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      fail(field, fmt::format("'{}' is not a number", node.as<std::string>()));
    }
    if (!(value == value) || (positive ? value <= 0 : value < 0))
      fail(field, fmt::format("must be {} (is {})", positive ? "positive" : "non-negative", value));
    return value;
  }

  std::string source(const YAML::Node& node, const std::string& field) const {
    auto s = text(node["source"], field + ".source");
    if (s.empty()) fail(field + ".source", "is empty: every figure needs a cited source");
    return s;
  }

 private:
  std::string name_;
};

std::string label(const Reader& r, const YAML::Node& node, const std::string& field) {
  auto text = r.text(node["label"], field + ".label", false);
  if (text.empty()) return kDatasheet;
  if (text != kDatasheet && text != kTheoretical && text != kMeasured)
    r.fail(field + ".label", "must be datasheet, theoretical or measured");
  return text;
}

YAML::Node load_root(const std::string& text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("device file '{}': not valid YAML: {} (line {})", name, e.msg, e.mark.line + 1));
  }
  if (!root.IsMap()) Reader(name).fail("the document", "must be a mapping");
  return root;
}

void read_identity(const Reader& r, const YAML::Node& root, Device& d) {
  d.id = r.text(root["id"], "id");
  d.name = r.text(root["name"], "name");
  d.kind = r.text(root["kind"], "kind");
  if (d.kind != "gpu" && d.kind != "cpu" && d.kind != "soc") r.fail("kind", "must be gpu, cpu or soc");
}

// steps_mhz: [f1, f2, ...] ascending, each within [min_mhz, max_mhz].
void read_steps(const Reader& r, const YAML::Node& steps, const std::string& field, ClockDomain& c) {
  if (!steps) return;
  if (!steps.IsSequence() || steps.size() == 0) r.fail(field, "must list the domain's frequencies in MHz");
  for (size_t i = 0; i < steps.size(); ++i) {
    auto item = fmt::format("{}[{}]", field, i);
    double mhz = r.number(steps[i], item);
    if (mhz < c.min_mhz || mhz > c.max_mhz)
      r.fail(item, fmt::format("{} MHz is outside [min_mhz, max_mhz] = [{}, {}]", mhz, c.min_mhz, c.max_mhz));
    if (!c.steps_mhz.empty() && mhz <= c.steps_mhz.back())
      r.fail(item, fmt::format("{} MHz does not ascend (after {} MHz)", mhz, c.steps_mhz.back()));
    c.steps_mhz.push_back(mhz);
  }
}

void read_clocks(const Reader& r, const YAML::Node& clocks, Device& d) {
  if (!clocks || !clocks.IsMap() || clocks.size() == 0) r.fail("clocks", "must map clock domains to {max_mhz, source}");
  for (const auto& entry : clocks) {
    auto domain = entry.first.as<std::string>();
    auto field = "clocks." + domain;
    ClockDomain c;
    c.max_mhz = r.number(entry.second["max_mhz"], field + ".max_mhz");
    if (entry.second["min_mhz"]) c.min_mhz = r.number(entry.second["min_mhz"], field + ".min_mhz", false);
    if (entry.second["cores"]) c.cores = static_cast<int>(r.number(entry.second["cores"], field + ".cores"));
    if (c.min_mhz > c.max_mhz) r.fail(field, "has min_mhz above max_mhz");
    read_steps(r, entry.second["steps_mhz"], field + ".steps_mhz", c);
    c.source = r.source(entry.second, field);
    d.clocks[domain] = c;
  }
}

ComputeUnit read_unit(const Reader& r, const YAML::Node& n, const std::string& field, const Device& d) {
  ComputeUnit u;
  u.name = r.text(n["name"], field + ".name");
  auto type = r.text(n["type"], field + ".type");
  if (type != "vector" && type != "matrix" && type != "gemm") r.fail(field + ".type", "must be vector, matrix or gemm");
  u.type = type == "vector" ? UnitType::kVector : type == "matrix" ? UnitType::kMatrix : UnitType::kGemm;
  u.clock = r.text(n["clock"], field + ".clock");
  auto clock = d.clocks.find(u.clock);
  if (clock == d.clocks.end()) r.fail(field + ".clock", "names no domain in clocks: '" + u.clock + "'");
  u.scales_with_cores = n["scales_with_cores"] && n["scales_with_cores"].as<bool>();
  u.key_prefix = r.text(n["key_prefix"], field + ".key_prefix", false);
  if (u.scales_with_cores && clock->second.cores <= 0)
    r.fail(field, "scales with cores but its clock domain has no cores");
  auto peaks = n["peak_flops"];
  if (!peaks || !peaks.IsMap() || peaks.size() == 0) r.fail(field + ".peak_flops", "must map precisions to FLOP/s");
  for (const auto& p : peaks) {
    auto precision = p.first.as<std::string>();
    if (!kPrecisions.count(precision)) r.fail(field + ".peak_flops." + precision, "is not a known precision");
    u.peak_flops[precision] = r.number(p.second, field + ".peak_flops." + precision);
  }
  u.source = r.source(n, field);
  u.label = label(r, n, field);
  return u;
}

void read_units(const Reader& r, const YAML::Node& units, Device& d) {
  if (!units || !units.IsSequence() || units.size() == 0) r.fail("units", "must list at least one compute unit");
  for (size_t i = 0; i < units.size(); ++i) d.units.push_back(read_unit(r, units[i], fmt::format("units[{}]", i), d));
}

MemoryLevel read_memory_level(const Reader& r, const YAML::Node& n, const std::string& field, const Device& d) {
  MemoryLevel m;
  m.level = r.text(n["level"], field + ".level");
  if (!kLevels.count(m.level)) r.fail(field + ".level", "must be dram, l3, l2 or l1");
  m.kind = r.text(n["kind"], field + ".kind", false);
  if (n["size_bytes"]) m.size_bytes = r.number(n["size_bytes"], field + ".size_bytes");
  if (n["bandwidth"]) m.bandwidth = r.number(n["bandwidth"], field + ".bandwidth");
  m.clock = r.text(n["clock"], field + ".clock", false);
  if (!m.clock.empty() && !d.clocks.count(m.clock))
    r.fail(field + ".clock", "names no domain in clocks: '" + m.clock + "'");
  m.source = r.source(n, field);
  m.label = label(r, n, field);
  if (m.level == "dram" && m.bandwidth <= 0) r.fail(field + ".bandwidth", "is required for dram");
  return m;
}

void read_memory(const Reader& r, const YAML::Node& memory, Device& d) {
  if (!memory || !memory.IsSequence()) r.fail("memory", "must list memory levels");
  for (size_t i = 0; i < memory.size(); ++i)
    d.memory.push_back(read_memory_level(r, memory[i], fmt::format("memory[{}]", i), d));
  bool has_dram = false;
  for (const auto& m : d.memory) has_dram = has_dram || m.level == "dram";
  if (!has_dram) r.fail("memory", "needs a dram level");
}

void read_power_and_overhead(const Reader& r, const YAML::Node& root, Device& d) {
  if (auto power = root["power"]) {
    if (power["tdp_w"]) d.tdp_w = Sourced{r.number(power["tdp_w"], "power.tdp_w"), r.source(power, "power")};
    if (power["idle_w"]) d.idle_w = Sourced{r.number(power["idle_w"], "power.idle_w"), r.source(power, "power")};
  }
  auto overhead = root["overhead"];
  if (!overhead) r.fail("overhead", "is missing: {seconds, source} of the fixed cost per op");
  d.overhead_s = r.number(overhead["seconds"], "overhead.seconds", false);
  d.overhead_source = r.source(overhead, "overhead");
  auto label = r.text(overhead["label"], "overhead.label", false);
  if (!label.empty() && label != kMeasured && label != kEstimate)
    r.fail("overhead.label", "must be measured (timed on the machine) or estimate (a default; the default)");
  d.overhead_label = label.empty() ? kEstimate : label;
}

Calibration read_calibration(const Reader& r, const YAML::Node& cal) {
  Calibration c;
  c.overhead_s = r.number(cal["overhead_s"], "calibration.overhead_s", false);
  c.fitted_from = r.text(cal["fitted_from"], "calibration.fitted_from");
  c.nodes = static_cast<int>(r.number(cal["nodes"], "calibration.nodes"));
  if (auto model = cal["model"]) {
    // Relative to the device file, so the pair can be moved together.
    auto file = r.text(model, "calibration.model");
    auto base = std::filesystem::path(r.file()).parent_path();
    c.model_file = std::filesystem::path(file).is_absolute() || base.empty() ? file : (base / file).string();
    if (auto v = cal["validation"]) {
      Calibration::Validation validation;
      validation.points = static_cast<int>(r.number(v["points"], "calibration.validation.points", false));
      validation.median_abs = r.number(v["median_abs_error"], "calibration.validation.median_abs_error", false);
      validation.p90_abs = r.number(v["p90_abs_error"], "calibration.validation.p90_abs_error", false);
      validation.within_10 = r.number(v["within_10"], "calibration.validation.within_10", false);
      c.validation = validation;
    }
    if (!cal["efficiency"]) return c;
  }
  auto eff = cal["efficiency"];
  if (!eff || !eff.IsMap()) r.fail("calibration.efficiency", "must map op families to fractions");
  for (const auto& e : eff) {
    auto family = e.first.as<std::string>();
    double v = r.number(e.second, "calibration.efficiency." + family);
    if (v > 1) r.fail("calibration.efficiency." + family, "must not exceed 1");
    c.efficiency[family] = v;
  }
  return c;
}

PowerMode read_mode(const Reader& r, const YAML::Node& n, const std::string& field, const Device& d) {
  PowerMode m;
  m.name = r.text(n["name"], field + ".name");
  auto clocks_of = n["clocks"];
  if (clocks_of && clocks_of.IsMap())
    for (const auto& c : clocks_of) {
      auto domain = c.first.as<std::string>();
      if (!d.clocks.count(domain)) r.fail(field + ".clocks." + domain, "names no domain in clocks");
      m.clocks_mhz[domain] = r.number(c.second, field + ".clocks." + domain);
    }
  if (auto cores = n["cores"]; cores && cores.IsMap())
    for (const auto& c : cores)
      m.cores[c.first.as<std::string>()] = static_cast<int>(r.number(c.second, field + ".cores"));
  if (n["power_budget_w"]) m.power_budget_w = r.number(n["power_budget_w"], field + ".power_budget_w");
  if (n["nvpmodel_id"]) {
    double id = r.number(n["nvpmodel_id"], field + ".nvpmodel_id", false);
    if (id != static_cast<int>(id)) r.fail(field + ".nvpmodel_id", "must be a whole number");
    m.nvpmodel_id = static_cast<int>(id);
  }
  m.source = r.source(n, field);
  return m;
}

void read_modes(const Reader& r, const YAML::Node& modes, Device& d) {
  if (!modes || !modes.IsSequence() || modes.size() == 0) r.fail("modes", "must list at least one power mode");
  for (size_t i = 0; i < modes.size(); ++i) d.modes.push_back(read_mode(r, modes[i], fmt::format("modes[{}]", i), d));
}

// energy: [{mode, e_flop_j (a number, or a map of ceiling keys), e_byte_j, p_static_w, source, label}]
EnergyCoefficients read_energy_entry(const Reader& r, const YAML::Node& n, const std::string& field, const Device& d) {
  if (!n.IsMap()) r.fail(field, "must be a mapping");
  EnergyCoefficients e;
  e.mode = r.text(n["mode"], field + ".mode");
  bool known = false;
  for (const auto& m : d.modes) known = known || m.name == e.mode;
  if (!known) r.fail(field + ".mode", "names no mode in modes: '" + e.mode + "'");
  auto flop = n["e_flop_j"];
  if (flop && flop.IsMap()) {
    for (const auto& k : flop)
      e.e_flop_j[k.first.as<std::string>()] = r.number(k.second, field + ".e_flop_j." + k.first.as<std::string>());
    if (e.e_flop_j.empty()) r.fail(field + ".e_flop_j", "must not be empty");
  } else {
    e.e_flop_j["*"] = r.number(flop, field + ".e_flop_j");
  }
  e.e_byte_j = r.number(n["e_byte_j"], field + ".e_byte_j");
  e.p_static_w = r.number(n["p_static_w"], field + ".p_static_w", false);
  e.source = r.source(n, field);
  auto text = r.text(n["label"], field + ".label", false);
  e.label = text.empty() ? kMeasured : text;
  if (e.label != kDatasheet && e.label != kMeasured && e.label != kEstimate)
    r.fail(field + ".label", "must be measured, datasheet or estimate");
  return e;
}

void read_energy(const Reader& r, const YAML::Node& energy, Device& d) {
  if (!energy) return;
  if (!energy.IsSequence()) r.fail("energy", "must list {mode, e_flop_j, e_byte_j, p_static_w, source} entries");
  for (size_t i = 0; i < energy.size(); ++i) {
    auto e = read_energy_entry(r, energy[i], fmt::format("energy[{}]", i), d);
    for (const auto& other : d.energy)
      if (other.mode == e.mode) r.fail(fmt::format("energy[{}].mode", i), "repeats mode '" + e.mode + "'");
    d.energy.push_back(std::move(e));
  }
}

}  // namespace

Device parse_device_yaml(const std::string& text, const std::string& name) {
  auto root = load_root(text, name);
  Reader r(name);
  Device d;
  d.file = name;
  try {
    read_identity(r, root, d);
    read_clocks(r, root["clocks"], d);
    read_units(r, root["units"], d);
    read_memory(r, root["memory"], d);
    read_power_and_overhead(r, root, d);
    if (auto cal = root["calibration"]) d.calibration = read_calibration(r, cal);
    read_modes(r, root["modes"], d);
    read_energy(r, root["energy"], d);
  } catch (const YAML::Exception& e) {  // a node of the wrong kind (a mapping as a key, "maybe" as a bool)
    throw Error(fmt::format("device file '{}': {}{}", name, e.msg,
                            e.mark.is_null() ? "" : fmt::format(" (line {})", e.mark.line + 1)));
  }
  return d;
}

Device load_device_file(const std::string& path) { return parse_device_yaml(read_file(path), path); }

}  // namespace ridge::hw
