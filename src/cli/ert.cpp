#include "hw/ert/ert.h"

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "report/ert_report.h"
#include "util/error.h"

namespace ridge::cli {

Command add_ert_command(CLI::App& parent) {
  struct Options {
    bool quick = false;
    int threads = 0;
    std::string format = "table", profile, csv;
  };
  auto o = std::make_shared<Options>();
  auto* app =
      parent.add_subcommand("ert", "measure this machine's empirical roofline (CPU): FMA peaks, bandwidths, GEMM");
  app->footer(
      "Examples:\n"
      "  ridge ert --quick\n"
      "  ridge ert --profile host.yaml --csv ert-points.csv   # then: ridge predict MODEL --device host.yaml");
  app->add_flag("--quick", o->quick, "finish in under 30 s (fewer repetitions and sizes)");
  app->add_option("--threads", o->threads, "largest thread count (default: every online CPU)")
      ->check(integer_in(1, 4096));
  app->add_option("-f,--format", o->format, "table (default) or json")->check(CLI::IsMember({"table", "json"}));
  app->add_option("--profile", o->profile, "write the measured roofline as a device file (YAML)");
  app->add_option("--csv", o->csv, "write every measured point as CSV");
  return {app, [o] {
            hw::ert::ErtOptions options;
            options.quick = o->quick;
            options.max_threads = o->threads;
            if (o->format == "table")
              options.progress = [](const std::string& line) { std::cerr << "ert: " << line << "\n"; };
            auto result = hw::ert::run_ert(options);
            if (o->format == "json")
              std::cout << report::ert_json(result).dump(2) << "\n";
            else
              report::write_ert_table(std::cout, result);
            if (!o->profile.empty()) {
              std::ofstream out(o->profile);
              if (!out) throw Error("cannot write '" + o->profile + "'");
              out << hw::ert::ert_device_yaml(result);
            }
            if (!o->csv.empty()) {
              std::ofstream out(o->csv);
              if (!out) throw Error("cannot write '" + o->csv + "'");
              report::write_ert_points_csv(out, result);
            }
            return 0;
          }};
}

}  // namespace ridge::cli
