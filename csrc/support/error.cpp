#include "support/error.h"

namespace mf::detail {

void throwUserError(std::string msg) {
  throw UserError(std::move(msg));
}

void throwInternalError(const char* cond, const char* file, int line, std::string msg) {
  std::string text = fmt::format("minifuser internal error: {} failed at {}:{}", cond, file, line);
  if (!msg.empty()) text += ": " + msg;
  text += ". This is a bug in minifuser; please report it with the fusion that triggered it.";
  throw InternalError(std::move(text));
}

}  // namespace mf::detail
