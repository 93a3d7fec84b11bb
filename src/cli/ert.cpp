#include "hw/ert/ert.h"

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/ert_report.h"
#include "util/error.h"

namespace ridge::cli {

Command add_ert_command(CLI::App& parent) {
  struct Options {
    bool quick = false;
    int threads = 0;
    std::string format = "table", profile, csv;
    StoreOptions store;
  };
  auto o = std::make_shared<Options>();
  auto* app =
      parent.add_subcommand("ert", "measure this machine's empirical roofline (CPU): FMA peaks, bandwidths, GEMM");
  app->footer(
      "Examples:\n"
      "  ridge ert --quick\n"
      "  ridge ert --profile host.yaml --csv ert-points.csv   # then: ridge predict MODEL --device host.yaml");
  app->add_flag("--quick", o->quick, "fewer repetitions and sizes: well under a minute instead of several");
  app->add_option("--threads", o->threads, "largest thread count (default: every online CPU)")
      ->check(integer_in(1, 4096));
  add_format_option(*app, o->format);
  add_store_options(*app, o->store);
  app->add_option("--profile", o->profile, "write the measured roofline as a device file (YAML)");
  app->add_option("--csv", o->csv, "also write every measured point as CSV (what -f csv prints)");
  return {app, [o] {
            hw::ert::ErtOptions options;
            options.quick = o->quick;
            options.max_threads = o->threads;
            // Progress on stderr whatever the format: stdout holds only the document.
            options.progress = [](const std::string& line) { std::cerr << "ert: " << line << "\n"; };
            auto result = hw::ert::run_ert(options);
            // Files first: a profile that cannot be written must not be lost after a long run's output.
            if (!o->profile.empty()) {
              std::ofstream out(o->profile);
              out << hw::ert::ert_device_yaml(result);
              if (!out.flush()) throw Error("cannot write '" + o->profile + "'");
            }
            if (!o->csv.empty()) {
              std::ofstream out(o->csv);
              auto points = report::ert_points_table(result);
              out << report::csv_header(points) << "\n";
              report::print_csv_rows(out, points);
              if (!out.flush()) throw Error("cannot write '" + o->csv + "'");
            }
            auto doc = report::ert_document(result);
            emit(doc, o->format);
            store::Params params;
            params.device = "host";
            params.threads = result.threads;
            keep_result(o->store, doc, params);
            return 0;
          }};
}

}  // namespace ridge::cli
