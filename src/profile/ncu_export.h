#pragma once
// Reading the CSV that Nsight Compute (ncu) writes, in each of its layouts, into one record per
// profiled launch (or per kernel, for a summary), every metric converted to base units.
//   details  (`--csv`, `--page details`): one row per launch and metric, columns "Metric Name",
//            "Metric Unit", "Metric Value";
//   raw      (`--csv --page raw`): one row per launch, one column per metric, the units in a second
//            header row;
//   summary  (`--csv --print-summary per-kernel`): one row per kernel and metric, with "Minimum",
//            "Maximum" and "Average" over the launches ("Invocations").
// Anything around or between the rows (the program's own output, `==PROF==` progress lines,
// `==ERROR==`/`==WARNING==` messages) is skipped; the messages are kept. A UTF-8 byte-order mark
// and CRLF line ends are accepted.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "profile/metric_value.h"

namespace ridge::profile {

enum class NcuLayout { kDetails, kRaw, kSummary };
const char* layout_name(NcuLayout layout);

struct NcuLaunch {
  int64_t id = -1;  // the export's "ID" (launch order); -1 where the layout has none
  std::string process_id, process, host, kernel, context, stream, block, grid, device, cc;
  std::vector<std::string> nvtx_ranges;  // the NVTX ranges it ran in, outermost first (profile/nvtx_ranges.h)
  std::string nvtx;                      // the same, " > "-joined, for people
  int64_t invocations = 1;               // a summary row stands for this many launches (values are their average)
  std::map<std::string, MetricValue> metrics;
  size_t line = 0;  // the first line of the file that holds it
  // Every metric of the launch is missing ("nan"): ncu could not profile it (a failed launch).
  bool failed() const;
};

struct NcuExport {
  std::string path;
  NcuLayout layout = NcuLayout::kDetails;
  std::vector<NcuLaunch> launches;
  std::vector<std::string> messages;  // ncu's ==ERROR== and ==WARNING== lines, as printed
  size_t skipped_rows = 0;            // quoted lines between the rows that are not rows of the header
  size_t first_skipped_line = 0;
};

// Parses the text of an export; `path` names it in errors. Throws ridge::Error (one line) when the
// text holds no ncu CSV header, or a header but no rows (with ncu's own error message, if any).
NcuExport parse_ncu_export(std::string_view text, const std::string& path);
NcuExport read_ncu_export(const std::string& path);

// Whether `text` holds an ncu CSV header line (to tell an ncu export from other CSV files).
bool is_ncu_export(std::string_view text);

}  // namespace ridge::profile
