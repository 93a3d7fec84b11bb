// `ridge report [MODEL] [-d DEVICE]... [filters] -o report.html | --markdown DIR`: one study from a
// model's analysis, its predictions on devices and the stored results. Argument parsing, and the
// calls predict makes; the report is assembled in report/study_report.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/device_options.h"
#include "cli/store_options.h"
#include "report/study_report.h"
#include "report/study_request.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct ReportOptions {
  DeviceOptions model;  // the model options and precision/traffic; `device` unused (see devices)
  std::vector<std::string> devices;
  std::string modes, output, markdown, title, store;
  store::Filter filter;
  std::string of_model;
  int64_t of_batch = 0;
};

int run_report(const ReportOptions& o) {
  if (o.output.empty() == o.markdown.empty()) throw Error("give one output: -o report.html, or --markdown DIR");
  report::StudyRequest request{.model_name = o.model.model.model,
                               .choices = o.model.choices(),
                               .devices = o.devices,
                               .modes = o.modes,
                               .store_path = store_path({o.store, false}),
                               .store_required = !o.store.empty(),
                               .filter = o.filter,
                               .of_model = o.of_model,
                               .title = o.title,
                               .command_line = invocation().command_line};
  if (o.of_batch > 0) request.filter.batch = o.of_batch;
  if (!o.model.model.model.empty()) request.model = make_request(o.model.model);
  auto study = report::gather_study(request);

  if (!o.output.empty()) {
    auto html = report::study_html(study);
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    out << html;
    out.close();
    if (!out) throw Error("cannot write " + o.output);
    fmt::print("wrote {} ({} stored results, {} device(s){})\n", o.output, study.records.size(), study.devices.size(),
               study.analysis ? ", analysis of " + study.model : "");
    return 0;
  }
  bool terminal = ::isatty(STDERR_FILENO);
  auto written = report::write_study_markdown(study, o.markdown, [&](size_t i, size_t n, const std::string& title) {
    if (terminal)
      fmt::print(stderr, "ridge: rendering figure {}/{}: {}\n", i, n, title);
    else
      fmt::print(stderr, "ridge: figure {}/{}\n", i, n);
  });
  fmt::print("wrote {} and {} figure(s) in {}\n", written.path, written.figures.size(), o.markdown);
  for (const auto& failure : written.failures) fmt::print(stderr, "ridge: {}\n", failure);
  if (!written.failures.empty()) {
    fmt::print(stderr, "ridge: {} figure(s) not rendered (their Vega specifications are beside the report)\n",
               written.failures.size());
    return 1;
  }
  return 0;
}

}  // namespace

Command add_report_command(CLI::App& parent) {
  auto o = std::make_shared<ReportOptions>();
  auto* app = parent.add_subcommand(
      "report", "a study report: environment, run matrix, analysis, rooflines, measurements (HTML or Markdown)");
  app->footer(
      "The HTML page is self-contained (Vega inlined: it works offline; click a table header to sort).\n"
      "--markdown DIR writes DIR/report.md as a study write-up (design, complexity, measurement, roofline,\n"
      "analysis, with places marked for your interpretation) and its figures as DIR/fig-N.png.\n"
      "Stored results are selected like `ridge results` selects them; with a MODEL, only that model's results\n"
      "(its file name) unless --of-model says otherwise (--of-model all: every model).\n"
      "Examples:\n"
      "  ridge bench models/alexnet.onnx --sweep batch=1,8 && ridge predict models/alexnet.onnx -d host.yaml\n"
      "  ridge report models/alexnet.onnx -d host.yaml -d jetson-agx-orin-64gb --modes all -o report.html\n"
      "  ridge report models/resnet50.onnx -d h100-sxm --markdown study/\n"
      "  ridge report --sweep my-study --store study.db -o study.html");
  add_model_options(*app, o->model.model, true);
  app->get_option("model")->required(false)->description("ONNX model file: its analysis and predictions (optional)");
  app->add_option("-d,--device", o->devices, "device ID[:MODE] or device.yaml: its roofline (repeatable)");
  app->add_option("--modes", o->modes, "power modes of every device: all, or MODE1,MODE2,...");
  app->add_option("--precision", o->model.precision, "arithmetic precision of the predictions (default: the model's)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "int8", "fp64", "fp8"}));
  app->add_flag("--allow-tf32", o->model.allow_tf32, "let fp32 matrix products use TF32 tensor units");
  app->add_option("--traffic", o->model.traffic, "memory traffic per node: unfused (default) or fused")
      ->check(CLI::IsMember({"unfused", "fused"}));
  auto* html = app->add_option("-o,--output", o->output, "the HTML report file");
  app->add_option("--markdown", o->markdown, "write DIR/report.md and DIR/fig-N.png instead")->excludes(html);
  app->add_option("--title", o->title, "the report's title (default: from the model)");
  auto* filters = "stored results";
  app->add_option("--store", o->store, "results store (default: $RIDGE_STORE, else ./ridge-results.db)")
      ->group(filters);
  app->add_option("--id", o->filter.ids, "only these result ids (repeatable)")->group(filters);
  app->add_option("--command", o->filter.command, "only results of this command (predict, bench, ...)")
      ->check(CLI::IsMember(kStoredCommands))
      ->group(filters);
  app->add_option("--of-model", o->of_model, "only this model (a path or part of one; all: every model)")
      ->group(filters);
  app->add_option("--of-device", o->filter.device, "only results for this device (predict, compare)")->group(filters);
  app->add_option("--of-batch", o->of_batch, "only this batch size")
      ->check(integer_in(1, int64_t{1} << 40))
      ->group(filters);
  app->add_option("--of-mode", o->filter.mode, "only this executor mode (eager, optimized)")->group(filters);
  app->add_option("--of-precision", o->filter.precision, "only this precision (fp32, bf16, ...)")->group(filters);
  app->add_option("--status", o->filter.status, "only ok or failed results")
      ->check(CLI::IsMember({"ok", "failed"}))
      ->group(filters);
  app->add_option("--sweep", o->filter.sweep, "only the cells of this sweep (its name)")->group(filters);
  app->add_option("--stage", o->filter.stage, "only cells run by this stage")->group(filters);
  app->add_option("--since", o->filter.since, "only results from this UTC time on")->group(filters);
  app->add_option("--last", o->filter.last, "only the N newest")
      ->check(integer_in(1, int64_t{1} << 40))
      ->group(filters);
  return {app, [o] { return run_report(*o); }};
}

}  // namespace ridge::cli
