#include "power/jetson_rails.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "power/sysfs.h"
#include "util/error.h"

namespace ridge::power {
namespace {

struct Rail {
  std::string name;
  std::string power_mw;                // a file of milliwatts (iio), or
  std::string voltage_mv, current_ma;  // two files multiplied
};

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

std::string label(const std::string& path) {
  int error = 0;
  auto text = read_sysfs_line(path, error);
  if (!text) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(error)));
  while (!text->empty() && (text->back() == ' ' || text->back() == '\r')) text->pop_back();
  return *text;
}

std::vector<Rail> hwmon_rails(const std::string& root) {
  std::vector<Rail> rails;
  auto drivers = root + "/bus/i2c/drivers/ina3221";
  for (const auto& device : sysfs_entries(drivers, ""))
    for (const auto& hwmon : sysfs_entries(drivers + "/" + device + "/hwmon", "hwmon")) {
      auto dir = fmt::format("{}/{}/hwmon/{}", drivers, device, hwmon);
      for (int n = 1; n <= 3; ++n) {
        auto label_path = fmt::format("{}/in{}_label", dir, n);
        if (!exists(label_path) || !exists(fmt::format("{}/curr{}_input", dir, n))) continue;
        auto name = label(label_path);
        if (name.empty() || name == "NC") continue;
        rails.push_back({name, "", fmt::format("{}/in{}_input", dir, n), fmt::format("{}/curr{}_input", dir, n)});
      }
    }
  return rails;
}

std::vector<Rail> iio_rails(const std::string& root) {
  std::vector<Rail> rails;
  auto drivers = root + "/bus/i2c/drivers/ina3221x";
  for (const auto& device : sysfs_entries(drivers, ""))
    for (const auto& iio : sysfs_entries(drivers + "/" + device, "iio:device")) {
      auto dir = fmt::format("{}/{}/{}", drivers, device, iio);
      for (int n = 0; n <= 2; ++n) {
        auto label_path = fmt::format("{}/rail_name_{}", dir, n);
        if (!exists(label_path)) continue;
        auto name = label(label_path);
        if (name.empty() || name == "NC") continue;
        auto power = fmt::format("{}/in_power{}_input", dir, n);
        if (exists(power))
          rails.push_back({name, power, "", ""});
        else
          rails.push_back(
              {name, "", fmt::format("{}/in_voltage{}_input", dir, n), fmt::format("{}/in_current{}_input", dir, n)});
      }
    }
  return rails;
}

class JetsonRailsSampler : public Sampler {
 public:
  explicit JetsonRailsSampler(std::vector<Rail> rails) : rails_(std::move(rails)) {
    for (size_t r = 0; r < rails_.size(); ++r)
      if (is_input_rail(rails_[r].name)) input_ = static_cast<int>(r);
  }
  std::vector<std::string> rails() const override {
    std::vector<std::string> names;
    for (const auto& r : rails_) names.push_back(r.name);
    return names;
  }
  int input_rail() const override { return input_; }
  Reading read() override {
    Reading reading;
    for (const auto& r : rails_)
      reading.power_w.push_back(r.power_mw.empty()
                                    ? read_sysfs_number(r.voltage_mv) * read_sysfs_number(r.current_ma) / 1e6
                                    : read_sysfs_number(r.power_mw) / 1e3);
    return reading;
  }

 private:
  std::vector<Rail> rails_;
  int input_ = -1;
};

}  // namespace

bool is_input_rail(const std::string& name) { return name == "VDD_IN" || name == "POM_5V_IN"; }

std::unique_ptr<Sampler> jetson_rails_sampler() {
  auto root = sysfs_root();
  auto rails = hwmon_rails(root);
  if (rails.empty()) rails = iio_rails(root);
  if (rails.empty())
    throw Error(
        fmt::format("jetson: no INA3221 power monitor under {}/bus/i2c/drivers/ina3221 (Orin) or "
                    "ina3221x (Xavier, Nano): not a Jetson board with power rails",
                    root));
  return std::make_unique<JetsonRailsSampler>(std::move(rails));
}

}  // namespace ridge::power
