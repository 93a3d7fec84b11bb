// `ridge report [MODEL] [-d DEVICE]... [filters] -o report.html | --markdown DIR`: one study from a
// model's analysis, its predictions on devices and the stored results. Argument parsing, and the
// calls predict makes; the report is assembled in report/study_report.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/device_options.h"
#include "cli/store_options.h"
#include "hw/device_db.h"
#include "report/analysis_report.h"
#include "report/prediction_report.h"
#include "report/study_report.h"
#include "store/environment.h"
#include "store/store.h"
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

int run_report(ReportOptions o) {
  if (o.output.empty() == o.markdown.empty()) throw Error("give one output: -o report.html, or --markdown DIR");
  report::Study study;
  study.title = o.title;
  study.host = store::collect_environment(invocation().command_line);
  study.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());

  // Devices and modes first: a bad one is refused before any work.
  std::vector<hw::Device> devices;
  for (auto& d : resolve_device_modes(o.devices, o.modes)) {
    study.devices.push_back({.id = d.device.id, .name = d.device.name, .rooflines = std::move(d.rooflines)});
    devices.push_back(std::move(d.device));
  }

  // The stored results: those the filters select (of MODEL's file by default, when one is given).
  if (o.filter.model.empty() && !o.of_model.empty() && o.of_model != "all") o.filter.model = o.of_model;
  if (o.of_model.empty() && !o.model.model.model.empty())
    o.filter.model = std::filesystem::path(o.model.model.model).stem().string();
  if (o.of_batch > 0) o.filter.batch = o.of_batch;
  auto path = store_path({o.store, false});
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    study.store_path = path;
    study.records = store::Store(path, true).query(o.filter);
  } else if (!o.store.empty()) {
    throw Error("no results store at '" + path + "'");
  }

  if (!o.model.model.model.empty()) {
    auto request = make_request(o.model.model);
    auto analysis = analysis::run(request);
    study.model = o.model.model.model;
    study.batch = analysis::bound_batch(analysis.model);
    study.analysis = analysis::make_analysis(request, analysis, true);
    for (size_t i = 0; i < devices.size(); ++i) {
      auto options = o.model;
      options.device = devices[i].id;
      for (const auto& roofline : study.devices[i].rooflines)
        study.devices[i].predictions.push_back(predict_on_device(analysis, devices[i], roofline, options, request));
    }
  }
  if (study.records.empty() && !study.analysis)
    throw Error(fmt::format("nothing to report: no stored result matches in {} and no MODEL was given",
                            study.store_path.empty() ? path + " (no such store)" : path));

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
