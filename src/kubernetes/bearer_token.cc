#include "kubernetes/bearer_token.h"

#include "sys/file_util.h"

namespace agentbox::kubernetes {

BearerToken::BearerToken(const ClusterAccess& access)
    : token_(access.token), token_file_(access.token_file) {
  if (access.exec) exec_ = std::make_shared<ExecTokenSource>(*access.exec);
}

BearerToken::BearerToken(const ExecPlugin& plugin, ExecTokenSource::Runner runner)
    : exec_(std::make_shared<ExecTokenSource>(plugin, std::move(runner))) {}

StatusOr<std::string> BearerToken::Header() {
  std::string token = token_;
  if (exec_) {
    AB_ASSIGN_OR_RETURN(token, exec_->Token());
  } else if (!token_file_.empty()) {
    StatusOr<std::string> text = ReadFileAtMost(token_file_, size_t{1} << 20);
    if (!text.ok()) return Unavailable("kubernetes token file: " + text.status().message());
    token = *text;
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  }
  if (token.empty()) return std::string();
  if (token.find_first_of("\r\n") != std::string::npos) {
    return InvalidArgument("the kubernetes bearer token holds a line break");
  }
  return "Authorization: Bearer " + token;
}

bool BearerToken::Rejected() {
  if (!exec_) return false;
  exec_->Invalidate();
  return true;
}

}  // namespace agentbox::kubernetes
