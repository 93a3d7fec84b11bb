// `ridge ncu command` as one call (report/ncu_command_report): the points of the sweeps as the document, and the note
// said first when no compute capability is given.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ridge::test
