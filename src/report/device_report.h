#pragma once
// Writers of device rooflines (`ridge devices`, `ridge devices show`).
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "hw/device.h"
#include "hw/roofline.h"

namespace ridge::report {

nlohmann::json roofline_json(const hw::Device& device, const hw::Roofline& roofline);
void write_roofline_table(std::ostream& out, const hw::Device& device, const hw::Roofline& roofline);
void write_device_list(std::ostream& out, const std::vector<hw::Device>& devices);

}  // namespace ridge::report
