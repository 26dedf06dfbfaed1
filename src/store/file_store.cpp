// rcoll::FileStore (include/rcoll/store.hpp): one file per key in a shared
// directory. A value is written to a private temporary file, then linked to
// the key's name: link(2) is atomic and fails when the name exists, so a
// reader never sees half a value and the first writer wins.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>

#include "common/fd.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/store.hpp"

namespace rcoll {
namespace {

constexpr auto first_poll = std::chrono::milliseconds(1);
constexpr auto longest_poll = std::chrono::milliseconds(50);

[[noreturn]] void fail(const std::string& what, int error) {
  throw IoError(-1, -1, "file store", what + ": " + std::strerror(error));
}

// Letters, digits, '-', '_' and '.' stay; every other byte becomes %XX, so
// that "rcoll/fail/3" is one file name ("rcoll%2Ffail%2F3").
std::string file_name(std::string_view key) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string name;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '-' || c == '_' || (c == '.' && !name.empty())) {
      name += static_cast<char>(c);
    } else {
      name += '%';
      name += hex[c >> 4];
      name += hex[c & 15];
    }
  }
  return name;
}

// The whole file at `path`, or nullopt when it does not exist.
std::optional<std::string> read_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return std::nullopt;
    fail("open " + path, errno);
  }
  std::string value;
  char chunk[4096];
  while (true) {
    ssize_t got = ::read(fd.get(), chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("read " + path, errno);
    if (got == 0) return value;
    value.append(chunk, static_cast<std::size_t>(got));
  }
}

void write_file(const std::string& path, const std::string& value) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd) fail("create " + path, errno);
  for (std::size_t done = 0; done < value.size();) {
    ssize_t put = ::write(fd.get(), value.data() + done, value.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) fail("write " + path, errno);
    done += static_cast<std::size_t>(put);
  }
}

// A name no other writer (thread or process, on any host) uses.
std::string temporary_name() {
  static std::atomic<unsigned long> counter{0};
  char host[64] = {};
  ::gethostname(host, sizeof host - 1);
  return ".tmp-" + std::string(host) + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

FileStore::FileStore(std::string directory) : directory_(std::move(directory)) {
  struct stat info {};
  if (::stat(directory_.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw InvalidArgument("file store: '" + directory_ + "' is not a directory (create it first)");
}

std::string FileStore::path_of(const std::string& key) const { return directory_ + "/" + file_name(key); }

void FileStore::set(const std::string& key, const std::string& value, Clock::time_point) {
  const std::string path = path_of(key);
  const std::string temporary = directory_ + "/" + temporary_name();
  write_file(temporary, value);
  const int linked = ::link(temporary.c_str(), path.c_str());
  const int error = errno;
  ::unlink(temporary.c_str());
  if (linked == 0) return;
  if (error != EEXIST) fail("link " + path, error);
  if (read_file(path) != value)
    throw InvalidArgument("store: key '" + key + "' is set already, to another value (keys are write-once)");
}

std::string FileStore::get(const std::string& key, Clock::time_point deadline) {
  const std::string path = path_of(key);
  auto pause = first_poll;
  while (true) {
    if (auto value = read_file(path)) return *value;
    const auto now = Clock::now();
    if (now >= deadline) throw TimeoutError("store: key '" + key + "' was not set before the deadline");
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, longest_poll);
  }
}

std::optional<std::string> FileStore::try_get(const std::string& key) { return read_file(path_of(key)); }

}  // namespace rcoll
