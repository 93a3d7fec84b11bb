#pragma once
// A command's result as the results store keeps it: the typed value through its codec, the document people saw
// (for `ridge results --show`), the parameters it was run with, and the environment that made it.
#include "analysis/request_builder.h"
#include "calib/device_prediction.h"
#include "report/document.h"
#include "report/result_codec.h"
#include "store/record.h"

namespace ridge::report {

// The record of `value`. Its headline, the libraries that measured (torch, backend), the thread count, whether
// weights were random and the calibration a prediction used all come from the value, never from the cells
// `doc` printed. `environment`: this machine's (store::collect_environment); a bench run's own libraries are
// added to it.
// The parameters a model's options fix: the model path, the batch (`bound_batch` > 0: the batch the analysis bound,
// else --batch as given), the dtype, training and its optimizer.
store::Params model_params(const analysis::ModelOptions& model, int64_t bound_batch = 0);
// Those of a prediction on `device` as given (ID[:MODE]): the model's, and the executor mode and threads a calibrated
// device predicts (--exec-mode, --threads; not given: none).
store::Params prediction_params(const analysis::ModelOptions& model, const std::string& device,
                                const calib::PredictionChoices& choices, int64_t bound_batch = 0);

store::Record result_record(const Document& doc, store::Params params, const TypedResult& value,
                            store::Environment environment, store::Cell cell);

}  // namespace ridge::report
