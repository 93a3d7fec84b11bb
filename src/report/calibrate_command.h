#pragma once
// `ridge calibrate` printed and kept: the fit made, its document printed, the calibration kept in the store.
#include <iostream>
#include <string>

#include "calib/calibrate.h"
#include "report/command_output.h"
#include "store/record.h"

namespace ridge::report {

// calib::calibrate (progress to `progress`), the fit's document printed on `out` in `format` (its JSON is the
// calibration's codec) and the calibration kept in the store with `params`.
void calibrate_and_keep(const calib::CalibrateRequest& request, const store::Params& params, const std::string& format,
                        const StoreOptions& store, const calib::SampleProgressFn& progress = {},
                        std::ostream& out = std::cout);

}  // namespace ridge::report
