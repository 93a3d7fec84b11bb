#pragma once
// A Jetson Orin's INA3221 rails as sysfs lays them out, drawing constant power, for RIDGE_SYSFS_ROOT: the power
// tests' live source without a board.
#include <filesystem>
#include <fstream>
#include <string>

namespace ridge::test {

// Writes `text` and a newline to `path`, creating its directories (a sysfs attribute, a log).
inline void write_line_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text << "\n";
}

// Under `root`: VDD_GPU_SOC at 5 V x 600 mA = 3 W and VDD_CPU_CV at 5 V x 400 mA = 2 W, 5 W in all. Returns root.
inline std::string constant_jetson_tree(const std::string& root) {
  auto d = root + "/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon2/";
  write_line_file(d + "in1_label", "VDD_GPU_SOC");
  write_line_file(d + "in1_input", "5000");
  write_line_file(d + "curr1_input", "600");
  write_line_file(d + "in2_label", "VDD_CPU_CV");
  write_line_file(d + "in2_input", "5000");
  write_line_file(d + "curr2_input", "400");
  return root;
}

}  // namespace ridge::test
