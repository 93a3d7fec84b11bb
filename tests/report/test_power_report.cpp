// `ridge power integrate` and `ridge power sample` as one call each (report/power_report): a recorded trace read and
// integrated into the document, with hand-computed energy.
#include <gtest/gtest.h>

#include <fstream>

#include "report/power_report.h"
#include "report/printer.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(PowerReport, IntegrateReadsTheTraceAndIntegratesIt) {
  auto path = temp_dir() + "/power-report.csv";
  std::ofstream(path) << "time_s,power_w\n0,10\n1,20\n3,20\n";
  auto doc = report::integrate_power({.source = "csv:" + path});
  EXPECT_EQ(doc.command, "power integrate");
  auto json = report::to_json(doc);
  // Trapezoids: (10 + 20) / 2 * 1 s + 20 W * 2 s = 55 J over 3 s.
  EXPECT_DOUBLE_EQ(json["energy_j"].get<double>(), 55);
  EXPECT_DOUBLE_EQ(json["duration_s"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(json["mean_w"].get<double>(), 55.0 / 3);
}

TEST(PowerReport, ALiveSourceIsNotReadAsARecordedOne) {
  std::vector<std::string> progress;
  EXPECT_NE(error_text([&] {
              report::sample_power({.source = "csv:m.csv", .duration_s = 5},
                                   [&](const std::string& text) { progress.push_back(text); });
            }).find("ridge power integrate"),
            std::string::npos);
  EXPECT_TRUE(progress.empty());
}

}  // namespace
}  // namespace ridge::test
