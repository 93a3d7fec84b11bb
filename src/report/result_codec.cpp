#include "report/result_codec.h"

#include <fmt/format.h>

#include "exec/bench_codec.h"
#include "report/calibration_report.h"
#include "report/compare_codec.h"
#include "report/ert_codec.h"
#include "report/format.h"
#include "report/ncu_import_codec.h"
#include "report/tune_report.h"
#include "roofline/prediction_codec.h"
#include "util/error.h"

namespace ridge::report {

namespace {

nlohmann::ordered_json tagged(const char* kind, nlohmann::ordered_json result) {
  return {{"kind", kind}, {"result", std::move(result)}};
}

}  // namespace

nlohmann::ordered_json encode_typed(const TypedResult& value) {
  if (value.kind == "bench") return tagged("bench", exec::encode_bench(value.runs));
  if (value.kind == "predict") return tagged("predict", roofline::encode_predictions(value.predictions));
  if (value.kind == "analyze") {
    if (value.sweep.empty() && value.analyses.size() == 1)
      return tagged("analyze", analysis::encode_analysis(value.analyses.front()));
    auto model = value.analyses.empty() ? std::string() : value.analyses.front().model;
    return tagged("analyze", analysis::encode_analysis_sweep(model, value.sweep, value.analyses));
  }
  if (value.kind == "import ncu" && value.ncu) return tagged("import ncu", encode_ncu_import(*value.ncu));
  if (value.kind == "import torch" && value.torch) return tagged("import torch", encode_torch_imports(*value.torch));
  if (value.kind == "tune" && value.tuning) return tagged("tune", encode_tuning(*value.tuning));
  if (value.kind == "ert" && value.ert) return tagged("ert", encode_ert(*value.ert));
  if (value.kind == "compare" && value.comparison) return tagged("compare", encode_comparison(*value.comparison));
  if (value.kind == "calibrate" && value.calibration)
    return tagged("calibrate", encode_calibration(*value.calibration));
  throw Error(fmt::format("a typed result of kind '{}' without its value", value.kind));
}

TypedResult decode_typed(const nlohmann::json& typed, const std::string& where) {
  if (!typed.is_object() || !typed.contains("kind") || !typed["kind"].is_string() || !typed.contains("result"))
    throw Error(fmt::format("{}: its typed result has no kind and result", where));
  TypedResult out{.kind = typed["kind"].get<std::string>()};
  if (out.kind == "bench")
    out.runs = exec::decode_bench(typed["result"], where).runs;
  else if (out.kind == "predict")
    out.predictions = roofline::decode_predictions(typed["result"], where);
  else if (out.kind == "import ncu") {
    auto decoded = decode_ncu_import(typed["result"], where);
    out.ncu = std::move(decoded.import);
    out.missing_device = std::move(decoded.missing_device);
  } else if (out.kind == "import torch") {
    out.torch = decode_torch_imports(typed["result"], where);
  } else if (out.kind == "tune") {
    out.tuning = decode_tuning(typed["result"], where);
  } else if (out.kind == "ert") {
    out.ert = decode_ert(typed["result"], where);
  } else if (out.kind == "compare") {
    out.comparison = decode_comparison(typed["result"], where);
  } else if (out.kind == "calibrate") {
    out.calibration = decode_calibration(typed["result"], where);
  } else if (out.kind == "analyze") {
    out.analyses = analysis::decode_analyses(typed["result"], where);
    const auto& result = typed["result"];
    if (result.contains("sweep") && result["sweep"].is_string()) out.sweep = result["sweep"].get<std::string>();
  } else
    throw Error(fmt::format("{}: a typed result of kind '{}', which this ridge does not know", where, out.kind));
  return out;
}

std::optional<TypedResult> typed_result(const store::Record& record) {
  if (record.result.is_null()) return std::nullopt;
  // The store's JSON is ordered; the codecs read plain JSON.
  return decode_typed(nlohmann::json(record.result), "result " + std::to_string(record.id));
}

std::string headline(const TypedResult& result) {
  if (!result.runs.empty()) return fmt::format("mean {:.3f} ms", result.runs.front().latency_ms.mean);
  if (result.predictions.size() == 1) return duration(result.predictions.front().time_s) + " predicted";
  if (!result.predictions.empty()) return fmt::format("{} points", result.predictions.size());
  if (result.analyses.size() == 1 && result.sweep.empty())
    return si(static_cast<double>(result.analyses.front().cost.totals.flops), "FLOP");
  if (!result.analyses.empty()) return fmt::format("{} points", result.analyses.size());
  if (result.ncu) {
    // Every launch a kernel row stands for, where every kernel was timed.
    size_t kernels = 0;
    double time_s = 0;
    bool timed = true;
    for (const auto& run : result.ncu->runs)
      for (const auto& k : run.kernels) {
        ++kernels;
        if (k.failed) continue;
        if (k.time_s)
          time_s += static_cast<double>(std::max<int64_t>(1, k.invocations)) * *k.time_s;
        else
          timed = false;
      }
    auto text = fmt::format("{} kernel{}", kernels, kernels == 1 ? "" : "s");
    return timed && kernels > 0 ? text + ", " + duration(time_s) + " kernel time" : text;
  }
  if (result.calibration) return calibration_headline(*result.calibration);
  if (result.comparison) return comparison_headline(*result.comparison);
  if (result.ert) return ert_headline(*result.ert);
  if (result.tuning) return tuning_headline(*result.tuning);
  if (result.torch) {
    // The distinct kernels of the traces (per name, device, op and layer), as the kernels table lists them.
    size_t kernels = 0;
    for (const auto& i : result.torch->imports) kernels += i.summary.kernels.size();
    return fmt::format("{} kernel{}", kernels, kernels == 1 ? "" : "s");
  }
  return "";
}

}  // namespace ridge::report
