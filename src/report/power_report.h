#pragma once
// `ridge power sample` and `ridge power integrate` results as documents: the total energy, mean
// power and duration, then one row per rail.
#include <string>

#include "power/energy.h"
#include "power/trace.h"
#include "report/document.h"

namespace ridge::report {

// `command`: "power sample" or "power integrate". JSON keeps energy_j, mean_w and duration_s at the
// top, `rails` per rail; `-f csv` prints the rails.
Document power_document(const std::string& command, const power::Trace& trace, const power::Energy& energy);

}  // namespace ridge::report
