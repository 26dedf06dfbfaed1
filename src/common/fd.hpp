// UniqueFd: sole owner of one file descriptor, closed when the owner dies.
//
// Contract: move-only; a moved-from or default UniqueFd holds -1 and closes
// nothing. close() errors are ignored (the fd is gone either way on Linux,
// and retrying close after EINTR could close someone else's fd).
#pragma once

#include <unistd.h>

#include <utility>

namespace rcoll {

class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }

  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  // Gives up ownership without closing; the caller now owns the fd.
  int release() noexcept { return std::exchange(fd_, -1); }
  // Closes the current fd (if any) and takes ownership of `fd`.
  void reset(int fd = -1) noexcept {
    int old = std::exchange(fd_, fd);
    if (old >= 0) ::close(old);
  }

 private:
  int fd_ = -1;
};

}  // namespace rcoll
