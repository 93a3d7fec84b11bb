#pragma once
// Finding programs on PATH, running them and asking them their version (`ridge doctor`, SLURM's
// commands), and quoting words for a shell: an absent, hanging or failing program is a result to
// report, never a crash.
#include <optional>
#include <string>
#include <vector>

namespace ridge {

// The first executable regular file called `name` in the directories of $PATH (empty entries are the
// working directory, as the shell takes them); nullopt when there is none or PATH is unset.
std::optional<std::string> find_on_path(const std::string& name);

struct ProgramOutput {
  bool started = false;    // false: it could not be run (`error` says why)
  bool timed_out = false;  // killed after the time limit
  int exit_code = -1;      // when it exited normally
  std::string output;      // stdout and stderr together, at most 64 kB
  std::string error;
};

// Runs `path` with `args` (no shell), stdin from /dev/null, and collects its output; a program still
// running after `timeout_s` is killed.
ProgramOutput run_program(const std::string& path, const std::vector<std::string>& args, double timeout_s = 10);
// Runs `path` with `args` (no shell) until it exits, stdin from /dev/null, its stdout and stderr written
// to the file `log_path` (created or truncated): for long runs whose whole output is kept (`ridge ncu
// run`). `output` stays empty.
ProgramOutput run_program_logged(const std::string& path, const std::vector<std::string>& args,
                                 const std::string& log_path);

// The version line of a `--version` output: the first line naming a version, else the first non-empty
// line ("slurm 22.05.8").
std::string version_line(const std::string& output);
// The first dotted number of `line` ("2025.3.0.0" of "Version 2025.3.0.0 (build 36273991)"); empty
// when there is none.
std::string version_number(const std::string& line);

// `word` as one word of a POSIX shell command line: as is when it is plain, else in single quotes.
std::string shell_quote(const std::string& word);

}  // namespace ridge
