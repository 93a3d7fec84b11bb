// `ridge ncu command` as one call (report/ncu_command_report): the points of the sweeps as the document printed as
// shell lines, JSON and CSV, the note said first when no compute capability is given, and what it refuses.
// tests/cli/test_ncu_command.cpp keeps the usage errors and a smoke run through the binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "profile/ncu_metrics.h"
#include "report/command_output.h"
#include "report/ncu_command_report.h"
#include "report/printer.h"
#include "support/error_text.h"

namespace ridge::test {
namespace {

TEST(NcuCommandReport, OneCommandPerPointAndTheNoteWithoutCc) {
  profile::NcuRunRequest r;
  r.ncu.program = {"./app", "--batch", "{batch}"};
  r.ncu.output_dir = "runs";
  r.sweeps = {"batch=1,8"};
  std::vector<std::string> notes;
  auto hear = [&](const std::string& line) { notes.push_back(line); };
  auto json = report::to_json(report::ncu_command(r, hear));
  ASSERT_EQ(json["commands"].size(), 2u);
  EXPECT_EQ(json["commands"][0]["csv"], "runs/ncu-batch=1.csv");
  EXPECT_EQ(json["commands"][1]["csv"], "runs/ncu-batch=8.csv");
  EXPECT_EQ(notes, (std::vector<std::string>{profile::without_cc_note("no --cc")}));
  notes.clear();
  r.ncu.cc = "9.0";
  report::ncu_command(r, hear);
  EXPECT_TRUE(notes.empty());
  // A placeholder without its sweep is refused before any note.
  r.ncu.cc.clear();
  r.sweeps.clear();
  EXPECT_EQ(error_text([&] { report::ncu_command(r, hear); }),
            "{batch} in the program's arguments has no --sweep batch=V1,V2,...");
  EXPECT_TRUE(notes.empty());
}

// `ridge ncu command [--cc CC] [--sweep SWEEP] [--output-dir DIR] [--clock-control C] -f FORMAT -- PROGRAM` printed;
// what it says on stderr goes to `notes`.
std::string ncu_command_text(const profile::NcuRunRequest& request, const std::string& format,
                             std::vector<std::string>& notes) {
  std::ostringstream out;
  report::emit(report::ncu_command(request, [&](const std::string& line) { notes.push_back(line); }), format, out);
  return out.str();
}

profile::NcuRunRequest command_request(std::vector<std::string> program, std::vector<std::string> sweeps = {}) {
  profile::NcuRunRequest r;  // the defaults of `ncu command`: ncu on PATH, the CSVs in the working directory
  r.ncu.program = std::move(program);
  r.sweeps = std::move(sweeps);
  return r;
}

TEST(NcuCommandReport, PrintsOneShellLinePerPoint) {
  auto r = command_request({"./app", "--batch", "{batch}"}, {"batch=1,8"});
  r.ncu.output_dir = "out";
  std::vector<std::string> notes;
  auto text = ncu_command_text(r, "table", notes);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u) << text;
  EXPECT_EQ(lines[1], "ncu --csv --page details --print-units base --metrics " + profile::ncu_roofline_metric_list() +
                          " --nvtx --log-file out/ncu-batch=8.csv ./app --batch 8");
  // Without --cc the tensor-core ops counters are not asked for, and stderr says so.
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("note: no --cc: the tensor-core ops counters are not asked for"), std::string::npos)
      << notes[0];
  notes.clear();
  auto hopper = command_request({"./app"});
  hopper.ncu.cc = "9.0";
  auto hopper_text = ncu_command_text(hopper, "table", notes);
  EXPECT_NE(hopper_text.find(profile::ncu_roofline_metric_list("9.0") + " --nvtx"), std::string::npos) << hopper_text;
  EXPECT_TRUE(notes.empty()) << notes.front();
}

TEST(NcuCommandReport, JsonHasArgvCsvAndSweepValues) {
  auto r = command_request({"./app", "--batch", "{batch}"}, {"batch=1,8"});
  r.ncu.clock_control = "none";
  std::vector<std::string> notes;
  auto doc = nlohmann::json::parse(ncu_command_text(r, "json", notes));
  ASSERT_EQ(doc.at("commands").size(), 2u);
  const auto& c = doc.at("commands").at(1);
  EXPECT_EQ(c.at("point"), "batch=8");
  EXPECT_EQ(c.at("sweep").at("batch"), 8);
  EXPECT_EQ(c.at("csv"), "./ncu-batch=8.csv");
  EXPECT_EQ(c.at("argv").back(), "8");
  EXPECT_EQ(c.at("argv").front(), "ncu");
  EXPECT_EQ(doc.at("metrics").size(), profile::ncu_roofline_metrics().size());
  auto csv = ncu_command_text(command_request({"./app", "{batch}"}, {"batch=1,8"}), "csv", notes);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "point,batch,command,csv,log");
}

TEST(NcuCommandReport, RefusesASweepWithoutItsPlaceholder) {
  std::vector<std::string> notes;
  auto unused = error_text([&] {
    ncu_command_text(command_request({"./app", "--batch", "8"}, {"batch=1,8"}), "table", notes);
  });
  EXPECT_NE(unused.find("no {batch}"), std::string::npos) << unused;
  EXPECT_EQ(unused.find('\n'), std::string::npos) << unused;
  auto unswept = error_text([&] {
    ncu_command_text(command_request({"./app", "--batch", "{batch}"}), "table", notes);
  });
  EXPECT_NE(unswept.find("--sweep batch"), std::string::npos) << unswept;
  EXPECT_EQ(unswept.find('\n'), std::string::npos) << unswept;
}

}  // namespace
}  // namespace ridge::test
