#include "report/device_report.h"

#include <fmt/format.h>

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
  doc.field("mode", "clocks",
            clocks + (r.power_budget_w ? fmt::format("; power budget {} W", *r.power_budget_w) : ""), mode);
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
      .column({.key = "ridge_point_flop_per_byte", .title = "ridge point", .style = Style::kFixed, .unit = "FLOP/B",
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
         std::string(), device.overhead_source});
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
      .column({.key = "modes"});
  for (const auto& d : devices) {
    auto r = hw::roofline_for(d, d.modes.front());
    std::string modes;
    for (const auto& m : d.modes) modes += (modes.empty() ? "" : ", ") + m.name;
    t.add({d.id, d.name, d.kind, ceiling_value(r.peak_flops, "fp32"), ceiling_value(r.bandwidth, "dram"), modes});
  }
  return doc;
}

}  // namespace ridge::report
