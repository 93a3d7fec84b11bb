#pragma once
// A command's result as the results store keeps it: the typed value through its codec, the document people saw
// (for `ridge results --show`), the parameters it was run with, and the environment that made it.
#include "report/document.h"
#include "report/result_codec.h"
#include "store/record.h"

namespace ridge::report {

// The record of `value`. Its headline, the libraries that measured (torch, backend), the thread count, whether
// weights were random and the calibration a prediction used all come from the value, never from the cells
// `doc` printed. `environment`: this machine's (store::collect_environment); a bench run's own libraries are
// added to it.
store::Record result_record(const Document& doc, store::Params params, const TypedResult& value,
                            store::Environment environment, store::Cell cell);

}  // namespace ridge::report
