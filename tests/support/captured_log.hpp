// Collects what the library logs at `level` and above for a scope, besides
// its usual output, and restores the logger's level afterwards. For tests of
// what a log line says; not thread-safe against code that changes the
// logger's sinks at the same time.
#pragma once

#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>
#include <string>

#include "common/log.hpp"

namespace rcoll::test {

class CapturedLog {
 public:
  explicit CapturedLog(spdlog::level::level_enum level)
      : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)), level_(log::get().level()) {
    log::get().set_level(level);  // whatever RCOLL_LOG says
    log::get().sinks().push_back(sink_);
  }
  ~CapturedLog() {
    log::get().sinks().pop_back();
    log::get().set_level(level_);
  }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::level::level_enum level_;
};

}  // namespace rcoll::test
