#include "report/calibrate_command.h"

#include "report/calibration_report.h"
#include "report/result_codec.h"

namespace ridge::report {

void calibrate_and_keep(const calib::CalibrateRequest& request, const store::Params& params, const std::string& format,
                        const StoreOptions& store, const calib::SampleProgressFn& progress, std::ostream& out) {
  TypedResult value{.kind = "calibrate", .calibration = calib::calibrate(request, progress)};
  auto doc = calibration_document(*value.calibration);
  emit(doc, format, out);
  keep_result(store, doc, params, value);
}

}  // namespace ridge::report
