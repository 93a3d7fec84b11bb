#include "report/device_report.h"

#include <fmt/format.h>

#include "hw/energy.h"
#include "report/format.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;

void add_header(Document& doc, const hw::Device& device, const hw::Roofline& r) {
  add_ridge_version(doc);
  doc.field("device", "", fmt::format("{} ({}), mode {}", device.name, device.id, r.mode),
            {{"id", device.id}, {"name", device.name}, {"kind", device.kind}, {"file", device.file}});
  std::string clocks;
  for (const auto& [domain, mhz] : r.clocks_mhz) {
    auto cores = r.cores.find(domain);
    clocks += fmt::format("{}{}={}{} MHz", clocks.empty() ? "" : ", ", domain,
                          cores != r.cores.end() ? fmt::format("{}x", cores->second) : "", mhz);
  }
  json mode = {{"name", r.mode}, {"clocks_mhz", r.clocks_mhz}, {"cores", r.cores}};
  if (r.power_budget_w) mode["power_budget_w"] = *r.power_budget_w;
  doc.field("mode", "clocks", clocks + (r.power_budget_w ? fmt::format("; power budget {} W", *r.power_budget_w) : ""),
            mode);
}

// The documented JSON keys: peak_flops.<key>, bandwidth.<level>, ridge_points, sources, labels.
void add_ceiling_objects(Document& doc, const hw::Device& device, const hw::Roofline& r) {
  json peaks = json::object(), bandwidth = json::object(), ridge = json::object(), sources = json::object(),
       labels = json::object();
  for (const auto& [key, c] : r.peak_flops) {
    peaks[key] = c.value;
    sources["peak_flops." + key] = c.source;
    labels["peak_flops." + key] = c.label;
    if (r.ridge_point(key) > 0) ridge[key] = r.ridge_point(key);
  }
  for (const auto& [key, c] : r.bandwidth) {
    bandwidth[key] = c.value;
    sources["bandwidth." + key] = c.source;
    labels["bandwidth." + key] = c.label;
  }
  doc.field("peak_flops", "", "", peaks, kJson);
  doc.field("bandwidth", "", "", bandwidth, kJson);
  doc.field("ridge_points", "", "", ridge, kJson);
  doc.field("overhead_s", "", "", r.overhead_s, kJson);
  doc.field("overhead_source", "", "", device.overhead_source, kJson);
  if (r.tdp_w) doc.field("tdp_w", "", "", *r.tdp_w, kJson);
  doc.field("sources", "", "", sources, kJson);
  doc.field("labels", "", "", labels, kJson);
}

// A device without the figure (a CPU has no fp32 GPU peak) gets an empty cell, never 0.
Value ceiling_value(const std::map<std::string, hw::Ceiling>& ceilings, const std::string& key) {
  auto it = ceilings.find(key);
  if (it == ceilings.end()) return {};
  return it->second.value;
}

// The compute ceilings whose energy per FLOP people see per mode: fp32 and the main tensor key (the
// first matrix unit's fp16, else its first precision).
std::vector<std::string> main_energy_keys(const hw::Device& device) {
  std::vector<std::string> keys;
  for (const auto& unit : device.units)
    if (unit.key_prefix.empty() && unit.peak_flops.count("fp32")) {
      keys.push_back(hw::ceiling_key(unit, "fp32"));
      break;
    }
  for (const auto& unit : device.units)
    if (unit.type == hw::UnitType::kMatrix && !unit.peak_flops.empty()) {
      auto precision = unit.peak_flops.count("fp16") ? std::string("fp16") : unit.peak_flops.begin()->first;
      keys.push_back(hw::ceiling_key(unit, precision));
      break;
    }
  return keys;
}

// JSON `energy`: the mode's coefficients with their label and source, or why there are none.
json energy_json(const hw::Roofline& r) {
  if (!r.energy) return {{"missing", r.energy_missing}};
  const auto& e = *r.energy;
  return {{"e_flop_j", e.e_flop_j},
          {"e_byte_j", e.e_byte_j},
          {"p_static_w", e.p_static_w},
          {"label", e.label},
          {"source", e.source}};
}

// One row per power mode: the coefficients predictions in that mode use (file, scaled or estimated).
Table energy_modes_table(const hw::Device& device, const std::string& shown_mode) {
  auto keys = main_energy_keys(device);
  Table t;
  t.key = "energy_modes";
  t.title = "energy coefficients per power mode (E = e_flop x FLOPs + e_byte x bytes + p_static x time):";
  t.column({.key = "mode"});
  for (const auto& key : keys)
    t.column({.key = "e_flop_" + key + "_j",
              .title = "e_flop " + key,
              .style = Style::kSi,
              .unit = "J/FLOP",
              .json_path = "e_flop_j." + key});
  t.column({.key = "e_byte_j", .title = "e_byte", .style = Style::kSi, .unit = "J/B"})
      .column({.key = "p_static_w", .title = "p_static", .style = Style::kFixed, .unit = "W", .decimals = 1})
      .column({.key = "label"})
      .column({.key = "shown", .title = "shown above", .audience = kHuman})
      .column({.key = "source", .audience = kMachine});
  std::vector<std::string> missing;
  for (const auto& mode : device.modes) {
    std::string why;
    auto e = hw::energy_roofline(device, mode, &why);
    if (!e) {
      missing.push_back(why);
      continue;
    }
    std::vector<Value> row{mode.name};
    for (const auto& key : keys) {
      double v = e->e_flop(key);
      row.push_back(v > 0 ? Value{v} : Value{});
    }
    row.insert(row.end(), {e->e_byte_j, e->p_static_w, e->label,
                           mode.name == shown_mode ? Value{std::string("yes")} : Value{}, e->source});
    t.add(std::move(row));
  }
  if (!missing.empty()) t.footer.push_back("energy not predicted: " + missing.front());
  return t;
}

}  // namespace

Document roofline_document(const hw::Device& device, const hw::Roofline& r) {
  Document doc;
  doc.command = "devices show";
  doc.subject = device.id + ":" + r.mode;
  add_header(doc, device, r);
  add_ceiling_objects(doc, device, r);
  // Every ceiling in one table, for people and CSV (JSON has the keyed objects above too).
  auto& t = doc.table("ceilings", "");
  t.column({.key = "ceiling"})
      .column({.key = "value_shown", .title = "value", .audience = kHuman})
      .column({.key = "value", .audience = kMachine})
      .column({.key = "unit", .audience = kMachine})
      .column({.key = "ridge_point_flop_per_byte",
               .title = "ridge point",
               .style = Style::kFixed,
               .unit = "FLOP/B",
               .decimals = 1})
      .column({.key = "label"})
      .column({.key = "source"});
  for (const auto& [key, c] : r.peak_flops) {
    double ridge = r.ridge_point(key);
    t.add({"peak " + key, si(c.value, "FLOP/s"), c.value, std::string("FLOP/s"), ridge > 0 ? Value{ridge} : Value{},
           c.label, c.source});
  }
  for (const auto& [key, c] : r.bandwidth)
    t.add({"bandwidth " + key, si(c.value, "B/s"), c.value, std::string("B/s"), Value{}, c.label, c.source});
  t.add({std::string("overhead per op"), fixed(r.overhead_s * 1e6, 1) + " us", r.overhead_s, std::string("s"), Value{},
         r.overhead_label, device.overhead_source});
  // This mode's energy ceilings (hw/energy.h), with the label and the rule or source they come from.
  doc.field("energy", "", "", energy_json(r), kJson);
  if (r.energy) {
    const auto& e = *r.energy;
    for (const auto& [key, j] : e.e_flop_j)
      t.add({"energy per FLOP " + key, si(j, "J/FLOP"), j, std::string("J/FLOP"), Value{}, e.label, e.source});
    t.add({std::string("energy per DRAM byte"), si(e.e_byte_j, "J/B"), e.e_byte_j, std::string("J/B"), Value{}, e.label,
           e.source});
    t.add({std::string("static power"), fixed(e.p_static_w, 1) + " W", e.p_static_w, std::string("W"), Value{}, e.label,
           e.source});
  } else {
    doc.notes.push_back("energy not predicted: " + r.energy_missing);
  }
  if (!device.modes.empty()) doc.tables.push_back(energy_modes_table(device, r.mode));
  return doc;
}

Document device_list_document(const std::vector<hw::Device>& devices) {
  Document doc;
  doc.command = "devices";
  auto& t = doc.table("devices", "");
  t.column({.key = "id"})
      .column({.key = "name"})
      .column({.key = "kind"})
      .column({.key = "fp32_flops", .title = "fp32", .style = Style::kSi, .unit = "FLOP/s"})
      .column({.key = "dram_bytes_per_s", .title = "dram", .style = Style::kSi, .unit = "B/s"})
      .column({.key = "energy", .title = "energy coefficients"})
      .column({.key = "modes"});
  for (const auto& d : devices) {
    auto r = hw::roofline_for(d, d.modes.front());
    std::string modes;
    for (const auto& m : d.modes) modes += (modes.empty() ? "" : ", ") + m.name;
    // measured / datasheet / estimate in the default mode, or none (no TDP, no coefficients).
    t.add({d.id, d.name, d.kind, ceiling_value(r.peak_flops, "fp32"), ceiling_value(r.bandwidth, "dram"),
           r.energy ? r.energy->label : std::string("none"), modes});
  }
  return doc;
}

}  // namespace ridge::report
