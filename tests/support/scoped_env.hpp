// Sets (or, with nullptr, unsets) one environment variable for a scope and
// restores what it was before. For tests of code that reads its settings
// from the environment; not thread-safe, as setenv is not.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace rcoll::test {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace rcoll::test
