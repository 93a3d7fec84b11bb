#pragma once
// Device rooflines as documents (`ridge devices`, `ridge devices show`).
#include <vector>

#include "hw/device.h"
#include "hw/roofline.h"
#include "report/document.h"

namespace ridge::report {

// Every ceiling with its ridge point, label and source; JSON keeps peak_flops.<key>, bandwidth.<level>.
Document roofline_document(const hw::Device& device, const hw::Roofline& roofline);
// One row per device of the database.
Document device_list_document(const std::vector<hw::Device>& devices);

}  // namespace ridge::report
