#pragma once
// Fake Nsight Compute programs (shell scripts given as --ncu / NcuOptions::ncu) that `ridge ncu run` is tested with,
// in process (tests/report/test_ncu_import_command.cpp) and through the binary (tests/cli/test_ncu_command.cpp).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include "profile/ncu_metrics.h"

namespace ridge::test::ncu_fakes {

// An executable /bin/sh script in `dir`; returns its path.
inline std::string script(const std::string& dir, const std::string& name, const std::string& body) {
  auto path = std::filesystem::path(dir) / name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                         std::filesystem::perms::group_exec);
  return path.string();
}

inline const char* const kHeader =
    R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";

// A fake ncu: checks it was asked for the roofline metrics and a CSV, prints the program's "output",
// and writes two kernels (gemm_kernel 2000 ns, relu_kernel 500 ns) to its --log-file. When the last
// argument is `fail_on`, the program "fails" with exit code 3 instead.
inline std::string checking_ncu(const std::string& dir, const std::string& fail_on = "never") {
  std::string row =
      R"row("%s","4242","app","127.0.0.1","%s","1","7","(256, 1, 1)","(1024, 1, 1)","0","8.0","Command line profiler metrics","%s","%s","%s"\n)row";
  std::ostringstream body;
  body << "log=''; metrics=''; csv=0; last=''\n"
       << "while [ $# -gt 0 ]; do\n"
       << "  case \"$1\" in\n"
       << "    --log-file) log=\"$2\"; shift;;\n"
       << "    --metrics) metrics=\"$2\"; shift;;\n"
       << "    --csv) csv=1;;\n"
       << "  esac\n"
       << "  last=\"$1\"; shift\n"
       << "done\n"
       << "[ \"$metrics\" = '" << profile::ncu_roofline_metric_list()
       << "' ] || { echo '==ERROR== unexpected --metrics'; exit 9; }\n"
       << "[ \"$csv\" = 1 ] || { echo '==ERROR== no --csv'; exit 9; }\n"
       << "echo '==PROF== Connected to process 4242 (app)'\n"
       << "echo \"hello from the program, argument $last\"\n"
       << "if [ \"$last\" = '" << fail_on << "' ]; then\n"
       << "  echo '==ERROR== The application returned an error code (3).'; exit 3\n"
       << "fi\n"
       << "{\n"
       << "  echo '==PROF== Disconnected from process 4242'\n"
       << "  echo '" << kHeader << "'\n";
  for (auto [id, kernel, ns] : {std::tuple{"0", "gemm_kernel", "2,000"}, std::tuple{"1", "relu_kernel", "500"}}) {
    body << "  printf '" << row << "' " << id << " " << kernel << " gpu__time_duration.sum ns '" << ns << "'\n";
    body << "  printf '" << row << "' " << id << " " << kernel << " dram__bytes.sum byte '1,048,576'\n";
    body << "  printf '" << row << "' " << id << " " << kernel
         << " sm__sass_thread_inst_executed_op_ffma_pred_on.sum inst '4,096'\n";
  }
  body << "} > \"$log\"\n";
  return script(dir, "ncu", body.str());
}

}  // namespace ridge::test::ncu_fakes
