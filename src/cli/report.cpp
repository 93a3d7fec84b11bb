// `ridge report [MODEL] [-d DEVICE]... [filters] -o report.html | --markdown DIR`: one study from a
// model's analysis, its predictions on devices and the stored results. Argument parsing, and the
// calls predict makes; the report is assembled in report/study_report.
#include <fmt/format.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/device_options.h"
#include "cli/store_options.h"
#include "report/study_output.h"
#include "report/study_request.h"

namespace ridge::cli {
namespace {

struct ReportOptions {
  DeviceOptions model;  // the model options and precision/traffic; `device` unused (see request.devices)
  report::StudyRequest request;
  report::StudyOutput output;
  ResultFilterOptions stored;  // --of-model: "all" is every model (report::StudyRequest::filter)
};

int run_report(ReportOptions& o) {
  report::check_study_output(o.output);
  auto& r = o.request;
  r.model_name = o.model.model.model;
  r.choices = o.model.choices();
  r.store_path = store_path(o.stored);
  r.store_required = !o.stored.store.empty();
  r.command_line = invocation().command_line;
  r.filter = result_filter(o.stored);
  if (!o.model.model.model.empty()) r.model = make_request(o.model.model);
  o.output.figure_titles = ::isatty(STDERR_FILENO);
  auto written = report::write_study(report::gather_study(r), o.output,
                                     [](const std::string& line) { fmt::print(stderr, "ridge: {}\n", line); });
  fmt::print("{}\n", written.summary);
  for (const auto& line : written.errors) fmt::print(stderr, "ridge: {}\n", line);
  return written.errors.empty() ? 0 : 1;
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
  app->add_option("-d,--device", o->request.devices, "device ID[:MODE] or device.yaml: its roofline (repeatable)");
  app->add_option("--modes", o->request.modes, "power modes of every device: all, or MODE1,MODE2,...");
  add_prediction_choice_options(*app, o->model);
  auto* html = app->add_option("-o,--output", o->output.html, "the HTML report file");
  app->add_option("--markdown", o->output.markdown_dir, "write DIR/report.md and DIR/fig-N.png instead")
      ->excludes(html);
  app->add_option("--title", o->request.title, "the report's title (default: from the model)");
  add_result_filter_options(*app, o->stored, "of-");
  return {app, [o] { return run_report(*o); }};
}

}  // namespace ridge::cli
