#include "report/figure/scales.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace ridge::report::figure {

void Extent::cover(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }

void Extent::cover_positive(double v) {
  if (v > 0 && std::isfinite(v)) cover(v);
}

std::pair<double, double> decade_domain(double lo, double hi) {
  if (!(lo > 0) || !(hi > 0)) throw Error("a log axis needs positive values");
  return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi)))};
}

Json log_scale(const std::string& name, double lo, double hi, const std::string& range, int base) {
  Json scale{{"name", name}, {"type", "log"}, {"domain", {lo, hi}}, {"range", range}, {"nice", false}};
  if (base != 10) scale["base"] = base;
  return scale;
}

Json linear_scale(const std::string& name, Json domain, const std::string& range, bool from_zero) {
  return Json{{"name", name},   {"type", "linear"},  {"domain", std::move(domain)},
              {"range", range}, {"nice", from_zero}, {"zero", from_zero}};
}

Json band_scale(const std::string& name, Json domain, const std::string& range, double padding) {
  return Json{{"name", name}, {"type", "band"}, {"domain", std::move(domain)}, {"range", range}, {"padding", padding}};
}

Json field_domain(const std::string& data, const std::string& field) {
  return Json{{"data", data}, {"field", field}, {"sort", true}};
}

Json category_scale(const std::string& name, Json domain, const std::string& scheme) {
  return ordinal_scale(name, std::move(domain), Json{{"scheme", scheme}});
}

Json ordinal_scale(const std::string& name, Json domain, Json range) {
  return Json{{"name", name}, {"type", "ordinal"}, {"domain", std::move(domain)}, {"range", std::move(range)}};
}

Json share_size_scale() {
  return Json{{"name", "size"}, {"type", "linear"}, {"domain", {0, 1}}, {"range", {25, 900}}, {"zero", true}};
}

}  // namespace ridge::report::figure
