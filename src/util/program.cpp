#include "util/program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace ridge {

std::optional<std::string> find_on_path(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  const char* env = std::getenv("PATH");
  if (env == nullptr) return std::nullopt;
  std::string path = env;
  for (size_t start = 0; start <= path.size();) {
    auto colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = colon + 1;
  }
  return std::nullopt;
}

namespace {

constexpr size_t kMaxOutput = 64 * 1024;

// Closes both ends of a pipe and the spawn attributes on every way out.
struct SpawnResources {
  int pipe_fds[2] = {-1, -1};
  posix_spawn_file_actions_t actions{};
  bool actions_ready = false;
  ~SpawnResources() {
    for (int fd : pipe_fds)
      if (fd >= 0) ::close(fd);
    if (actions_ready) posix_spawn_file_actions_destroy(&actions);
  }
};

// Starts `path` with `args` as argv[1...]; false with `result.error` set when it cannot be started.
bool spawn(const std::string& path, const std::vector<std::string>& args, const posix_spawn_file_actions_t& actions,
           pid_t& pid, ProgramOutput& result) {
  std::vector<std::string> argv_text{path};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (int err = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), environ); err != 0) {
    result.error = std::string("cannot run: ") + std::strerror(err);
    return false;
  }
  result.started = true;
  return true;
}

}  // namespace

ProgramOutput run_program(const std::string& path, const std::vector<std::string>& args, double timeout_s) {
  ProgramOutput result;
  SpawnResources r;
  if (::pipe2(r.pipe_fds, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_init(&r.actions);
  r.actions_ready = true;
  posix_spawn_file_actions_addopen(&r.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&r.actions, r.pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&r.actions, r.pipe_fds[1], STDERR_FILENO);
  pid_t pid = 0;
  if (!spawn(path, args, r.actions, pid, result)) return result;
  ::close(r.pipe_fds[1]);
  r.pipe_fds[1] = -1;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buffer[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{r.pipe_fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      result.timed_out = ready == 0;
      break;
    }
    ssize_t n = ::read(r.pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of output: every writer closed it
    if (result.output.size() < kMaxOutput)
      result.output.append(buffer, std::min(static_cast<size_t>(n), kMaxOutput - result.output.size()));
  }
  // A program that closed its output but keeps running is given until the deadline to exit.
  int status = 0;
  for (;;) {
    pid_t done = result.timed_out ? 0 : ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (result.timed_out || std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    ::usleep(10000);
  }
  if (!result.timed_out && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

ProgramOutput run_program_logged(const std::string& path, const std::vector<std::string>& args,
                                 const std::string& log_path) {
  ProgramOutput result;
  // Opened here, not by the child, so that an unwritable log is an error of its own.
  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    result.error = "cannot write " + log_path + ": " + std::strerror(errno);
    return result;
  }
  SpawnResources r;
  r.pipe_fds[0] = log_fd;  // closed on every way out
  posix_spawn_file_actions_init(&r.actions);
  r.actions_ready = true;
  posix_spawn_file_actions_addopen(&r.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&r.actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&r.actions, log_fd, STDERR_FILENO);
  pid_t pid = 0;
  if (!spawn(path, args, r.actions, pid, result)) return result;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.error = std::string("waitpid: ") + std::strerror(errno);
      return result;
    }
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.error = std::string("killed by signal ") + ::strsignal(WTERMSIG(status));
  return result;
}

std::string version_line(const std::string& output) {
  std::string first;
  size_t start = 0;
  while (start < output.size()) {
    auto end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    size_t lead = 0;
    while (lead < line.size() && std::isspace(static_cast<unsigned char>(line[lead]))) ++lead;
    line.erase(0, lead);
    if (!line.empty()) {
      std::string lower;
      for (char c : line) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("version") != std::string::npos && !version_number(line).empty()) return line;
      if (first.empty()) first = line;
    }
    start = end + 1;
  }
  return first;
}

std::string version_number(const std::string& line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '.')) continue;
    size_t end = i;
    bool dotted = false;
    while (end < line.size() &&
           (std::isdigit(static_cast<unsigned char>(line[end])) ||
            (line[end] == '.' && end + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[end + 1]))))) {
      dotted = dotted || line[end] == '.';
      ++end;
    }
    if (dotted) return line.substr(i, end - i);
  }
  return {};
}

std::string shell_quote(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
          std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace ridge
