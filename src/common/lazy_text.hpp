// Text that is made only when someone reads it.
//
// Every blocking step carries a label for its errors ("allreduce #12 (4096 x
// float32, sum): allreduce ring step 3/7"), but errors are rare and building
// the strings for every call cost more than a small message's whole round
// trip. A LazyText refers to either plain text or a callable returning
// std::string, and calls it only in str().
//
// Like std::string_view it does not own what it refers to: use it for
// parameters and for locals built from a named object that outlives it,
// never store one past the full expression that made it from a temporary.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>

namespace rcoll {

class LazyText {
 public:
  LazyText() noexcept = default;
  LazyText(const char* text) noexcept : text_(text) {}
  LazyText(std::string_view text) noexcept : text_(text) {}
  LazyText(const std::string& text) noexcept : text_(text) {}
  template <typename Make>
    requires(!std::is_convertible_v<const Make&, std::string_view> &&
             std::is_invocable_r_v<std::string, const Make&>)
  LazyText(const Make& make) noexcept
      : object_(&make), make_([](const void* object) -> std::string { return (*static_cast<const Make*>(object))(); }) {}

  std::string str() const { return make_ != nullptr ? make_(object_) : std::string(text_); }

 private:
  std::string_view text_;
  const void* object_ = nullptr;
  std::string (*make_)(const void*) = nullptr;
};

}  // namespace rcoll
