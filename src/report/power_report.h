#pragma once
// `ridge power sample` and `ridge power integrate` results as documents: the total energy, mean
// power and duration, then one row per rail.
#include <functional>
#include <string>

#include "power/energy.h"
#include "power/measure.h"
#include "power/trace.h"
#include "report/document.h"

namespace ridge::report {

// `command`: "power sample" or "power integrate". JSON keeps energy_j, mean_w and duration_s at the
// top, `rails` per rail; `-f csv` prints the rails.
Document power_document(const std::string& command, const power::Trace& trace, const power::Energy& energy);

// `ridge power sample` as one call: the live source sampled and integrated. A run over 3 s hands `progress` the text
// of a line rewritten about once a second ("\rpower: sampling SOURCE: 2 of 10 s"), then "\n".
Document sample_power(const power::MeasureRequest& request, const std::function<void(const std::string&)>& progress);
// `ridge power integrate` as one call: the recorded trace read and integrated.
Document integrate_power(const power::MeasureRequest& request);

}  // namespace ridge::report
