#include "power/rapl.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "power/recorder.h"
#include "power/sysfs.h"
#include "util/error.h"

namespace ridge::power {
namespace {

struct Domain {
  std::string name;  // "package-0", "dram-0"
  std::string energy_path;
  double range_j = 0;
};

double read_energy_j(const std::string& path) {
  int error = 0;
  auto text = read_sysfs_line(path, error);
  if (!text) throw Error(rapl_unreadable(path, error));
  uint64_t uj = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), uj);
  if (ec != std::errc() || text->empty()) throw Error(fmt::format("{}: '{}' is not a counter", path, *text));
  return static_cast<double>(uj) / 1e6;
}

class RaplSampler : public Sampler {
 public:
  explicit RaplSampler(std::vector<Domain> domains) : domains_(std::move(domains)) {
    last_ = read_counters();
    last_s_ = now_s();
  }
  std::vector<std::string> rails() const override {
    std::vector<std::string> names;
    for (const auto& d : domains_) names.push_back(d.name);
    return names;
  }
  std::vector<double> counter_range_j() const override {
    std::vector<double> ranges;
    for (const auto& d : domains_) ranges.push_back(d.range_j);
    return ranges;
  }
  Reading read() override {
    Reading r;
    r.energy_j = read_counters();
    double t = now_s(), dt = t - last_s_;
    for (size_t i = 0; i < domains_.size(); ++i) {
      double d = r.energy_j[i] - last_[i];
      if (d < 0) d += domains_[i].range_j;  // the counter wrapped
      r.power_w.push_back(dt > 0 ? d / dt : 0);
    }
    last_ = r.energy_j;
    last_s_ = t;
    return r;
  }

 private:
  std::vector<double> read_counters() const {
    std::vector<double> out;
    for (const auto& d : domains_) out.push_back(read_energy_j(d.energy_path));
    return out;
  }
  std::vector<Domain> domains_;
  std::vector<double> last_;
  double last_s_ = 0;
};

}  // namespace

std::string rapl_unreadable(const std::string& path, int error) {
  return fmt::format(
      "cannot read {} ({}): RAPL energy counters are readable by root only since Linux 5.10; run as root or "
      "`sudo chmod o+r {}`",
      path, std::strerror(error), path);
}

std::unique_ptr<Sampler> rapl_sampler(const std::string& domain) {
  if (domain != "package" && domain != "dram")
    throw Error(fmt::format("rapl:{}: the RAPL domains are rapl:package and rapl:dram", domain));
  auto base = sysfs_root() + "/class/powercap";
  std::vector<Domain> domains;
  for (const auto& entry : sysfs_entries(base, "intel-rapl:")) {
    auto id = entry.substr(std::string("intel-rapl:").size());
    auto colon = id.find(':');
    bool package = colon == std::string::npos;
    if (package != (domain == "package")) continue;
    auto dir = base + "/" + entry;
    int error = 0;
    auto name = read_sysfs_line(dir + "/name", error);
    if (!name) continue;
    if (package ? name->rfind("package", 0) != 0 : *name != "dram") continue;
    Domain d;
    d.name = package ? *name : "dram-" + id.substr(0, colon);
    d.energy_path = dir + "/energy_uj";
    d.range_j = read_sysfs_number(dir + "/max_energy_range_uj") / 1e6;
    domains.push_back(std::move(d));
  }
  if (domains.empty())
    throw Error(
        fmt::format("rapl:{}: no RAPL {} domain under {} (not an Intel/AMD CPU with powercap, or the "
                    "intel_rapl module is not loaded)",
                    domain, domain, base));
  return std::make_unique<RaplSampler>(std::move(domains));
}

}  // namespace ridge::power
