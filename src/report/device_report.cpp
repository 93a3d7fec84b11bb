#include "report/device_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/format.h"
#include "report/text_table.h"

namespace ridge::report {

nlohmann::json roofline_json(const hw::Device& device, const hw::Roofline& r) {
  nlohmann::json doc;
  doc["device"] = {{"id", device.id}, {"name", device.name}, {"kind", device.kind}, {"file", device.file}};
  nlohmann::json mode = {{"name", r.mode}, {"clocks_mhz", r.clocks_mhz}, {"cores", r.cores}};
  if (r.power_budget_w) mode["power_budget_w"] = *r.power_budget_w;
  doc["mode"] = mode;
  nlohmann::json peaks = nlohmann::json::object(), bandwidth = nlohmann::json::object(),
                 ridge = nlohmann::json::object(), sources = nlohmann::json::object(),
                 labels = nlohmann::json::object();
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
  doc["peak_flops"] = peaks;
  doc["bandwidth"] = bandwidth;
  doc["ridge_points"] = ridge;
  doc["overhead_s"] = r.overhead_s;
  if (r.tdp_w) doc["tdp_w"] = *r.tdp_w;
  doc["sources"] = sources;
  doc["labels"] = labels;
  return doc;
}

void write_roofline_table(std::ostream& out, const hw::Device& device, const hw::Roofline& r) {
  fmt::print(out, "{} ({}), mode {}\n", device.name, device.id, r.mode);
  std::string clocks;
  for (const auto& [domain, mhz] : r.clocks_mhz) {
    auto cores = r.cores.find(domain);
    clocks += fmt::format("{}{}={}{} MHz", clocks.empty() ? "" : ", ", domain,
                          cores != r.cores.end() ? fmt::format("{}x", cores->second) : "", mhz);
  }
  fmt::print(out, "clocks: {}{}\n\n", clocks,
             r.power_budget_w ? fmt::format("; power budget {} W", *r.power_budget_w) : "");
  TextTable ceilings({"ceiling", "value", "ridge point", "label", "source"});
  for (const auto& [key, c] : r.peak_flops)
    ceilings.add_row({"peak " + key, si(c.value, "FLOP/s"),
                      r.ridge_point(key) > 0 ? fixed(r.ridge_point(key), 1) + " FLOP/B" : "", c.label, c.source});
  for (const auto& [key, c] : r.bandwidth)
    ceilings.add_row({"bandwidth " + key, si(c.value, "B/s"), "", c.label, c.source});
  ceilings.add_row({"overhead per op", fixed(r.overhead_s * 1e6, 1) + " us", "", "", device.overhead_source});
  ceilings.print(out);
}

void write_device_list(std::ostream& out, const std::vector<hw::Device>& devices) {
  TextTable table({"id", "name", "kind", "fp32", "dram", "modes"});
  for (const auto& d : devices) {
    auto r = hw::roofline_for(d, d.modes.front());
    auto fp32 = r.peak_flops.count("fp32") ? si(r.peak_flops["fp32"].value, "FLOP/s") : "";
    auto dram = r.bandwidth.count("dram") ? si(r.bandwidth["dram"].value, "B/s") : "unknown";
    std::string modes;
    for (const auto& m : d.modes) modes += (modes.empty() ? "" : ", ") + m.name;
    table.add_row({d.id, d.name, d.kind, fp32, dram, modes});
  }
  table.print(out);
}

}  // namespace ridge::report
