//! Errors: MF_CHECK for mistakes of the user (throws mf::UserError), MF_ASSERT for
//! broken compiler invariants (throws mf::InternalError). Messages are fmt format strings.
//! Every phase reports through these; nothing in minifuser aborts.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace mf {

//! A mistake of the caller: bad arguments, bad inputs, an unsupported request.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! A bug in minifuser: an invariant that should have held did not.
class InternalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
[[noreturn]] void throwUserError(std::string msg);
[[noreturn]] void throwInternalError(const char* cond, const char* file, int line,
                                     std::string msg = {});
}  // namespace detail

}  // namespace mf

//! MF_CHECK(cond, "fmt {}", args...): throws mf::UserError with the formatted message.
#define MF_CHECK(cond, ...)                                     \
  do {                                                          \
    if (!(cond)) [[unlikely]]                                   \
      ::mf::detail::throwUserError(::fmt::format(__VA_ARGS__)); \
  } while (0)

//! MF_THROW("fmt {}", args...): an unconditional user error.
#define MF_THROW(...) ::mf::detail::throwUserError(::fmt::format(__VA_ARGS__))

//! MF_ASSERT(cond [, "fmt {}", args...]): throws mf::InternalError naming the condition.
#define MF_ASSERT(cond, ...)                                                                \
  do {                                                                                      \
    if (!(cond)) [[unlikely]]                                                               \
      ::mf::detail::throwInternalError(                                                     \
          #cond, __FILE__, __LINE__ __VA_OPT__(, ) __VA_OPT__(::fmt::format(__VA_ARGS__))); \
  } while (0)

//! MF_CHECK_EQ(a, b, "context fmt", args...): user error "<context>: expected <b>, got <a>".
#define MF_CHECK_EQ(actual, expected, ...)                                                   \
  do {                                                                                       \
    const auto& mf_actual_ = (actual);                                                       \
    const auto& mf_expected_ = (expected);                                                   \
    if (!(mf_actual_ == mf_expected_)) [[unlikely]]                                          \
      ::mf::detail::throwUserError(::fmt::format(                                            \
          "{}: expected {}, got {}", ::fmt::format(__VA_ARGS__), mf_expected_, mf_actual_)); \
  } while (0)

//! MF_ASSERT_EQ(a, b): internal error printing both sides.
#define MF_ASSERT_EQ(a, b)                                                             \
  do {                                                                                 \
    const auto& mf_a_ = (a);                                                           \
    const auto& mf_b_ = (b);                                                           \
    if (!(mf_a_ == mf_b_)) [[unlikely]]                                                \
      ::mf::detail::throwInternalError(#a " == " #b, __FILE__, __LINE__,               \
                                       ::fmt::format("found {} vs {}", mf_a_, mf_b_)); \
  } while (0)
